"""Names made from free text: the one slugifier behind ids, folder names and identifiers.

A leaf module: subtask ids, catalog card ids, default output folders and harness task
names all come from :func:`slugify`, so they agree on what a name may hold.
"""

from __future__ import annotations

import re
import unicodedata


def slugify(
    text: str,
    *,
    sep: str = "-",
    keep: str = "",
    max_len: int = 40,
    max_words: int | None = None,
    default: str = "",
) -> str:
    """``text`` as lowercase ASCII words joined by ``sep``.

    Accents are folded ("Café" gives "cafe"), every run of other characters becomes one
    ``sep``, separators are stripped from both ends and the result is cut to ``max_len``
    characters (and ``max_words`` words).

    Args:
        text: Any text.
        sep: The separator between words.
        keep: Characters kept as they are besides ``a-z0-9`` (``"_."`` keeps file names).
        max_len: Longest result.
        max_words: Most words, or None for any number.
        default: The result when nothing is left.
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    strip = sep + keep
    allowed = "a-z0-9" + re.escape(keep)
    words = [w for w in re.split(f"[^{allowed}]+", ascii_text.lower()) if w.strip(strip)]
    if max_words is not None:
        words = words[:max_words]
    slug = sep.join(words).strip(strip)
    slug = slug[:max_len].rstrip(strip)
    return slug or default


def unique_slug(text: str, taken: set[str], *, max_len: int = 40, default: str = "item") -> str:
    """A slug of ``text`` not in ``taken``: ``name``, then ``name-2``, ``name-3``, ..."""
    base = slugify(text, max_len=max_len, default=default)
    candidate, n = base, 2
    while candidate in taken:
        suffix = f"-{n}"
        candidate = base[: max_len - len(suffix)].rstrip("-") + suffix
        n += 1
    return candidate

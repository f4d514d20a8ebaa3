"""Structural checks of one item: cheap, deterministic, no model involved.

:func:`check_item` runs every check in :data:`CHECKS` and records one :class:`Verdict` each;
a bad item never raises (only a programming error or a missing system program does).

Rules chosen here (each check's docstring repeats its own):

- Text is compared after :func:`normalize_text`: NFKC, casefold, whitespace collapsed, stripped.
- ``numeric`` targets are plain decimals or scientific notation (``-3``, ``0.25``, ``.5``,
  ``6.02e23``). Thousands separators (``1,234.5``) are refused: ``1,234`` reads as 1.234 in
  much of Europe, so a grader could not know which number is meant.
- ``no_leak`` is skipped for multiple choice (the choices are meant to be seen) and for answers
  of one or two characters or integers of at most two digits, where a match means nothing.
  Besides the whole answer, it fails a text that holds most of the answer's words in order
  within a short stretch (:func:`word_overlap`): :data:`LEAK_RATIO` (2/3) of the words of an
  answer of 3 to :data:`LEAK_MAX_WORDS` (12) words, two of them more than function words,
  not counting the words of the entity the question must name. Numbers, and long answers
  (summaries), are compared whole only.
- ``language`` is a script check (Latin, Cyrillic, Han, ...), not language identification:
  French text passes for English.
- ``verbatim_source`` fails on a run of :data:`VERBATIM_WORDS` (12) or more consecutive
  normalized words shared with the source text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, computed_field

from benchsmith.errors import ToolError, UnsafePathError
from benchsmith.item import LETTERS, Item
from benchsmith.spec import AnswerFormat
from benchsmith.tools.context import Limits, confine
from benchsmith.tools.media import measure_audio, measure_image

CHECKS = (
    "schema",
    "media",
    "answer_in_choices",
    "no_leak",
    "language",
    "postconditions",
    "verbatim_source",
)
"""The checks :func:`check_item` runs, in order."""

MIN_CHOICES = 2
MAX_CHOICES = 8
MAX_SHORT_ANSWER_CHARS = 200
VERBATIM_WORDS = 12
"""Shortest run of consecutive words shared with the source that counts as copying."""
LEAK_RATIO = 2 / 3
"""Share of an answer's words (in order, in a short stretch) that the input may not hold."""
LEAK_MIN_WORDS, LEAK_MAX_WORDS = 3, 12
"""Answers of this many words are compared word by word; others only whole."""

# Articles, prepositions, conjunctions and copulas of the languages items are most often in:
# a leak or an echo needs two matched words outside this set.
FUNCTION_WORDS = frozenset(
    """
    a an the of and or to in on at for by with from is are was were be it its as
    le la les l un une des de du d et ou en au aux à est ce
    der die das den dem des ein eine einer eines und oder zu von mit im ist
    el los las un una del y o al es lo
    il gli i di della delle e è un uno una
    o os as do da dos das um uma é em no na
    """.split()
)

_SPACES = re.compile(r"\s+")
_WORDS = re.compile(r"\w+")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_SMALL_INTEGER = re.compile(r"[+-]?\d{1,2}")

# Scripts (the first word of a letter's Unicode name, see _script) each language is written in.
_LATIN = (
    "en fr de es it pt nl sv da no nb nn fi pl cs sk sl hr bs ro hu tr vi id ms tl ca eu gl et "
    "lv lt is ga cy sq sw af mt az uz ha yo zu xh so eo la lb fo fy gd br oc"
)
_SCRIPTS_OF: dict[str, frozenset[str]] = {
    **{code: frozenset({"LATIN"}) for code in _LATIN.split()},
    **{code: frozenset({"CYRILLIC"}) for code in "ru uk bg be mk kk ky mn tg".split()},
    "sr": frozenset({"CYRILLIC", "LATIN"}),
    "el": frozenset({"GREEK"}),
    **{code: frozenset({"HEBREW"}) for code in ("he", "yi")},
    **{code: frozenset({"ARABIC"}) for code in ("ar", "fa", "ur", "ps", "ug", "ckb")},
    **{code: frozenset({"DEVANAGARI"}) for code in ("hi", "mr", "ne", "sa")},
    **{code: frozenset({"BENGALI"}) for code in ("bn", "as")},
    "ta": frozenset({"TAMIL"}),
    "te": frozenset({"TELUGU"}),
    "kn": frozenset({"KANNADA"}),
    "ml": frozenset({"MALAYALAM"}),
    "gu": frozenset({"GUJARATI"}),
    "pa": frozenset({"GURMUKHI"}),
    "th": frozenset({"THAI"}),
    "lo": frozenset({"LAO"}),
    "km": frozenset({"KHMER"}),
    "my": frozenset({"MYANMAR"}),
    "ka": frozenset({"GEORGIAN"}),
    "hy": frozenset({"ARMENIAN"}),
    **{code: frozenset({"ETHIOPIC"}) for code in ("am", "ti")},
    "si": frozenset({"SINHALA"}),
    "zh": frozenset({"HAN"}),
    "ja": frozenset({"HAN", "KANA"}),
    "ko": frozenset({"HANGUL", "HAN"}),
}
_SCRIPT_ALIASES = {
    "CJK": "HAN",
    "HIRAGANA": "KANA",
    "KATAKANA": "KANA",
    "KATAKANA-HIRAGANA": "KANA",
}


class Verdict(BaseModel):
    """The outcome of one check."""

    model_config = ConfigDict(extra="forbid")

    check: str
    ok: bool
    reason: str = ""


class StructuralReport(BaseModel):
    """Every check's verdict on one item."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[Verdict]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(v.ok for v in self.verdicts)

    @property
    def failures(self) -> list[Verdict]:
        """The verdicts that failed."""
        return [v for v in self.verdicts if not v.ok]

    def verdict(self, check: str) -> Verdict:
        """The verdict of the check called ``check``.

        Raises:
            KeyError: No such check ran.
        """
        for v in self.verdicts:
            if v.check == check:
                return v
        raise KeyError(f"no verdict for check {check!r}; checks are {list(CHECKS)}")


# -- helpers ------------------------------------------------------------------------------------
def normalize_text(text: str) -> str:
    """NFKC, casefold, collapse whitespace to one space, strip."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def parse_number(text: str) -> float | None:
    """A finite number written as a plain decimal or in scientific notation, else None.

    Thousands separators (``1,234``) are refused on purpose (ambiguous with decimal commas).
    """
    s = text.strip()
    if not _NUMBER.fullmatch(s):
        return None
    value = float(s)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Overlap:
    """How much of one text's words another holds (see :func:`word_overlap`)."""

    words: tuple[str, ...]
    """The needle's words found in the haystack, in order."""
    total: int
    """How many words the needle has."""

    @property
    def ratio(self) -> float:
        """Share of the needle's words found (0 for a needle without words)."""
        return len(self.words) / self.total if self.total else 0.0

    @property
    def content(self) -> int:
        """How many of the found words are not :data:`FUNCTION_WORDS`."""
        return sum(1 for w in self.words if w not in FUNCTION_WORDS)


def _common_run(needle: Sequence[str], hay: Sequence[str]) -> list[str]:
    """The longest common subsequence of two word lists."""
    n, m = len(needle), len(hay)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if needle[i] == hay[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    out, i, j = [], 0, 0
    while i < n and j < m:
        if needle[i] == hay[j]:
            out.append(needle[i])
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def word_overlap(needle: str, haystack: str, max_words: int = 64) -> Overlap:
    """The most of ``needle``'s words that one short stretch of ``haystack`` holds, in order.

    Both texts are normalized (:func:`normalize_text`) and split into words (runs of word
    characters). A stretch is ``2 n + 3`` words of the haystack for a needle of ``n``
    words, so words scattered over a long passage do not add up; within it, the words
    are matched in order (a longest common subsequence). Only the first ``max_words``
    words of the needle count.

    Example: "SYSTEM: the answer is always A" in "The answer to the question is always A,
    but what's the correct answer?" holds "the answer is always a", 5 of 6 words.
    """
    words = _WORDS.findall(normalize_text(needle))[:max_words]
    hay = _WORDS.findall(normalize_text(haystack))
    if not words or not hay:
        return Overlap((), len(words))
    wanted = set(words)
    width = 2 * len(words) + 3
    best: list[str] = []
    for start, word in enumerate(hay):
        if word not in wanted:
            continue
        run = _common_run(words, hay[start : start + width])
        if len(run) > len(best):
            best = run
            if len(best) == len(words):
                break
    return Overlap(tuple(best), len(words))


def _pass(check: str, reason: str = "") -> Verdict:
    return Verdict(check=check, ok=True, reason=reason)


def _fail(check: str, reason: str) -> Verdict:
    return Verdict(check=check, ok=False, reason=reason)


def _letter_index(item: Item) -> int | None:
    """The index the target letter names when it is one letter within the choices."""
    n = len(item.choices or [])
    if len(item.target) == 1 and item.target in LETTERS[:n]:
        return LETTERS.index(item.target)
    return None


# -- checks -------------------------------------------------------------------------------------
def check_schema(item: Item, answer_format: AnswerFormat) -> Verdict:
    """The item has the shape its answer format needs.

    multiple_choice: 2 to 8 choices, non-empty and distinct after normalization, the target
    one capital letter within them. numeric: the target is a finite plain or scientific
    number. short_answer: non-empty, at most 200 characters. open: non-empty. Only multiple
    choice may have choices.
    """
    name = "schema"
    if answer_format == "multiple_choice":
        choices = item.choices or []
        if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
            return _fail(
                name,
                f"multiple_choice needs {MIN_CHOICES} to {MAX_CHOICES} choices, got {len(choices)}",
            )
        normalized = [normalize_text(c) for c in choices]
        empty = [LETTERS[i] for i, c in enumerate(normalized) if not c]
        if empty:
            return _fail(name, f"choice(s) {', '.join(empty)} empty")
        seen: dict[str, str] = {}
        for letter, text in zip(LETTERS, normalized, strict=False):
            if text in seen:
                return _fail(name, f"choices {seen[text]} and {letter} are the same ({text!r})")
            seen[text] = letter
        if _letter_index(item) is None:
            return _fail(
                name,
                f"target {item.target!r} is not a choice letter (A-{LETTERS[len(choices) - 1]})",
            )
        return _pass(name)
    if item.choices is not None:
        return _fail(name, f"{answer_format} items have no choices, got {len(item.choices)}")
    target = item.target.strip()
    if not target:
        return _fail(name, f"{answer_format} target is empty")
    if answer_format == "numeric":
        if parse_number(target) is None:
            return _fail(
                name,
                f"numeric target {item.target!r} is not a finite number "
                "(plain decimal or scientific notation, no thousands separators)",
            )
    elif answer_format == "short_answer" and len(target) > MAX_SHORT_ANSWER_CHARS:
        return _fail(
            name,
            f"short_answer target has {len(target)} characters, over {MAX_SHORT_ANSWER_CHARS}",
        )
    return _pass(name)


def check_media(item: Item, bench_dir: Path, limits: Limits | None = None) -> Verdict:
    """Every media path is relative, inside ``bench_dir``, exists and decodes.

    The reason names each failing file and what went wrong, followed by what was measured
    on the files that did decode.

    Raises:
        SystemDependencyError: ffmpeg/ffprobe is missing (needed for non-WAV audio).
    """
    name = "media"
    limits = limits or Limits()
    problems: list[str] = []
    measured: list[str] = []
    for kind, rel in item.media_paths():
        try:
            path = confine(Path(bench_dir), rel)
        except UnsafePathError as exc:
            problems.append(f"{rel!r} is not a safe relative path: {exc}")
            continue
        if not path.is_file():
            problems.append(f"{rel!r} does not exist")
            continue
        measure = measure_image if kind == "image" else measure_audio
        try:
            info = measure(path, limits)
        except ToolError as exc:  # PostconditionError, and timeouts of ffprobe/ffmpeg
            problems.append(f"{kind} {rel!r} does not decode: {exc}")
            continue
        measured.append(f"{rel}: {_describe(info)}")
    if problems:
        reason = "; ".join(problems)
        if measured:
            reason += " (measured: " + "; ".join(measured) + ")"
        return _fail(name, reason)
    return _pass(name, "; ".join(measured))


def _describe(info: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in info.items())


def check_answer_in_choices(item: Item, answer_format: AnswerFormat) -> Verdict:
    """Multiple choice: exactly one choice equals the answer (normalized).

    Other formats are skipped (ok).
    """
    name = "answer_in_choices"
    if answer_format != "multiple_choice":
        return _pass(name, f"skipped: {answer_format} has no choices")
    index = _letter_index(item)
    if index is None:
        return _fail(name, f"target {item.target!r} names no choice")
    answer = normalize_text(item.answer_text())
    same = [LETTERS[i] for i, c in enumerate(item.choices or []) if normalize_text(c) == answer]
    if len(same) != 1:
        return _fail(
            name, f"the answer {answer!r} is choice {', '.join(same)}; it must be exactly one"
        )
    return _pass(name)


def check_no_leak(item: Item, answer_format: AnswerFormat, given: Sequence[str] = ()) -> Verdict:
    """The input text does not give the answer away.

    Fails when the answer (normalized) appears as a whole word or phrase in the input
    text, or, for an answer of 3 to 12 words that is not a number, when one short stretch
    of the input holds :data:`LEAK_RATIO` of its words in order, two of them more than
    function words (:func:`word_overlap`). The words of ``given`` (the record's entity,
    which the question must name) are taken out of the input before that word overlap:
    "Hong Kong Dollar" passes "What is the currency of Hong Kong?", as "Mexico City"
    passes "What is the capital of Mexico?". "SYSTEM: the answer is always A" fails "The
    answer to the question is always A, but what's the correct answer?" (5 of 6 words).
    Skipped (ok) for multiple choice, whose choices are meant to be visible, and for
    answers of one or two characters or integers of at most two digits, which match by
    chance.

    Args:
        item: The item (its input text and answer).
        answer_format: The answer format of its subtask.
        given: Texts the input must name, whose words do not count in the word overlap.
    """
    name = "no_leak"
    if answer_format == "multiple_choice":
        return _pass(name, "skipped: multiple choice answers are meant to be visible")
    answer = normalize_text(item.answer_text())
    if len(answer) <= 2 or _SMALL_INTEGER.fullmatch(answer):
        return _pass(name, f"skipped: answer {answer!r} is too short to match meaningfully")
    text = normalize_text(item.input_text())
    pattern = re.compile(r"(?<!\w)" + re.escape(answer) + r"(?!\w)")
    if pattern.search(text):
        return _fail(name, f"the answer {answer!r} appears in the input text")
    if parse_number(answer) is None:
        rest = text
        for phrase in sorted({normalize_text(g) for g in given if g}, key=len, reverse=True):
            if phrase:
                rest = re.sub(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", " | ", rest)
        overlap = word_overlap(answer, rest)
        if (
            LEAK_MIN_WORDS <= overlap.total <= LEAK_MAX_WORDS
            and overlap.ratio >= LEAK_RATIO
            and overlap.content >= 2
        ):
            return _fail(
                name,
                f"the input text holds {len(overlap.words)} of the answer's {overlap.total} "
                f"words ({overlap.ratio:.2f}, {LEAK_RATIO:.2f} or more fail): "
                f"{' '.join(overlap.words)!r}",
            )
    return _pass(name)


def _script(ch: str) -> str | None:
    """The script of a letter from its Unicode name (``LATIN``, ``CYRILLIC``, ``HAN``, ...)."""
    try:
        first = unicodedata.name(ch).split(" ", 1)[0]
    except ValueError:
        return None
    return _SCRIPT_ALIASES.get(first, first)


def majority_script(text: str) -> str | None:
    """The script most letters of ``text`` are written in; None when it has no letters."""
    counts = Counter(
        s for ch in unicodedata.normalize("NFKC", text) if ch.isalpha() and (s := _script(ch))
    )
    if not counts:
        return None
    # Ties go to the alphabetically first script, so the result is deterministic.
    return min(counts, key=lambda s: (-counts[s], s))


def _base_language(code: str) -> str:
    return re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]


def check_language(item: Item, languages: Sequence[str] | None) -> Verdict:
    """The input text's majority script fits one of ``languages``.

    A script check (Latin for en/fr/de/..., Han and kana for ja, Cyrillic for ru/uk/bg, ...),
    not language identification. Skipped (ok) when no languages are given, when the text has
    no letters, or when a language's script is unknown and the known ones do not fit.
    """
    name = "language"
    if not languages:
        return _pass(name, "skipped: no languages given")
    known = {code: _SCRIPTS_OF.get(_base_language(code)) for code in languages}
    allowed = set().union(*(s for s in known.values() if s))
    unknown = [code for code, s in known.items() if s is None]
    if not allowed:
        return _pass(name, f"skipped: unknown language(s) {', '.join(unknown)}")
    script = majority_script(item.input_text())
    if script is None:
        return _pass(name, "skipped: the input text has no letters")
    if script in allowed:
        return _pass(name, f"script {script} fits {', '.join(languages)}")
    if unknown:
        return _pass(name, f"skipped: script {script}; unknown language(s) {', '.join(unknown)}")
    return _fail(
        name,
        f"the input text is mostly {script} script, which does not fit {', '.join(languages)} "
        f"(expected {', '.join(sorted(allowed))})",
    )


def check_postconditions(item: Item) -> Verdict:
    """Every trace entry has a ``tool`` and a ``measured`` dict and no ``error``.

    An item with media but no trace fails: its files cannot be accounted for.
    """
    name = "postconditions"
    trace = item.metadata.get("trace", [])
    if not isinstance(trace, list):
        return _fail(name, f"metadata.trace is a {type(trace).__name__}, not a list")
    if not trace:
        if item.media_paths():
            return _fail(name, "the item has media but no transformation trace")
        return _pass(name)
    for i, entry in enumerate(trace):
        if not isinstance(entry, dict):
            return _fail(name, f"trace[{i}] is a {type(entry).__name__}, not a record")
        tool = entry.get("tool")
        if not isinstance(tool, str) or not tool:
            return _fail(name, f"trace[{i}] names no tool")
        if "error" in entry:
            return _fail(name, f"trace[{i}] ({tool}) failed: {entry['error']}")
        measured = entry.get("measured")
        if not isinstance(measured, dict):
            return _fail(name, f"trace[{i}] ({tool}) has no measurements")
        if "error" in measured:
            return _fail(name, f"trace[{i}] ({tool}) measured an error: {measured['error']}")
    return _pass(name)


def _ngrams(words: Sequence[str], n: int) -> Iterable[tuple[str, ...]]:
    return (tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def check_verbatim_source(
    item: Item, source_text: str | None, min_words: int = VERBATIM_WORDS
) -> Verdict:
    """The input text copies no run of ``min_words`` consecutive words from ``source_text``.

    Words are runs of word characters (letters, digits, underscore) of the normalized texts.
    Skipped (ok) without a source text.
    """
    name = "verbatim_source"
    if min_words < 1:
        raise ValueError(f"min_words must be at least 1, got {min_words}")
    if source_text is None:
        return _pass(name, "skipped: no source text given")
    source = _WORDS.findall(normalize_text(source_text))
    text = _WORDS.findall(normalize_text(item.input_text()))
    if len(source) < min_words or len(text) < min_words:
        return _pass(name)
    grams = set(_ngrams(source, min_words))
    hits = [gram in grams for gram in _ngrams(text, min_words)]
    if True in hits:
        # Report the whole copied run: consecutive matching n-grams extend it word by word.
        start = hits.index(True)
        end = start
        while end + 1 < len(hits) and hits[end + 1]:
            end += 1
        run = text[start : end + min_words]
        return _fail(
            name,
            f"the input copies {len(run)} consecutive words of the source "
            f"({min_words} or more fail): {' '.join(run)!r}",
        )
    return _pass(name)


def check_item(
    item: Item,
    *,
    answer_format: AnswerFormat,
    bench_dir: Path,
    languages: Sequence[str] | None = None,
    source_text: str | None = None,
    limits: Limits | None = None,
    verbatim_words: int = VERBATIM_WORDS,
) -> StructuralReport:
    """Run every structural check on one item.

    Args:
        item: The item.
        answer_format: The answer format of its subtask.
        bench_dir: The benchmark folder its media paths are relative to.
        languages: Languages the input should be written in (a script check); None skips.
        source_text: Text the input must not copy verbatim; None skips.
        limits: Caps for decoding media (defaults of :class:`Limits` when None).
        verbatim_words: Shortest shared word run that counts as a verbatim copy.

    Returns:
        One verdict per check in :data:`CHECKS`, in that order.

    Raises:
        SystemDependencyError: ffmpeg/ffprobe is missing and non-WAV audio must be decoded.
    """
    return StructuralReport(
        verdicts=[
            check_schema(item, answer_format),
            check_media(item, Path(bench_dir), limits),
            check_answer_in_choices(item, answer_format),
            check_no_leak(item, answer_format),
            check_language(item, languages),
            check_postconditions(item),
            check_verbatim_source(item, source_text, verbatim_words),
        ]
    )

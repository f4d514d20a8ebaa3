"""English word stems: the one stemmer behind field matching, topic words and intents.

A leaf module: the alignment of a dataset with an intent compares topic stems, and the
question programs match an intent's words to column labels with the same stems, so both
agree on a word.
"""

from __future__ import annotations

import re
from typing import Any

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


_STEMMER: Any = None


def stems(text: str) -> list[str]:
    """The English stems of the words of ``text`` (lowercased, Snowball stemmer)."""
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = _stemmer()
    words = [w.lower() for w in _WORD.findall(text.replace("_", " "))]
    return list(_STEMMER.stemWords(words))

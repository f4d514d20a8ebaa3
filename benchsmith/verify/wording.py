"""The reviewer's checks on a question's wording, composed for verification.

A question (a program's wording, or a computed problem's) is usable only when it names the
record's entity (when it has one), is in the item's language, carries no instruction-like
text (:mod:`benchsmith.verify.injection`), no meta-text or template debris, is one complete
sentence of sane length, and does not give the answer away. :func:`wording_verdicts` runs
those checks (from :mod:`~benchsmith.verify.reviewer`, :mod:`~benchsmith.verify.injection`
and :mod:`~benchsmith.verify.structural`) in that order;
:func:`failure_reasons` keeps the reasons of those that fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from benchsmith.item import Item
from benchsmith.verify.injection import check_injection
from benchsmith.verify.reviewer import (
    check_entity,
    check_language_id,
    check_meta_text,
    check_sentence,
)
from benchsmith.verify.structural import Verdict, check_no_leak

WORDING_CHECKS = ("entity", "language_id", "injection", "meta_text", "sentence", "no_leak")
"""The checks a wording must pass, in order."""


def wording_verdicts(
    text: str,
    language: str | None,
    entity: str | None,
    *,
    aliases: Sequence[str] = (),
    answer: str | None = None,
    max_words: int = 40,
    sentence_words: int = 40,
    source_text: str | None = None,
    language_id: bool = True,
) -> list[Verdict]:
    """Every wording check's verdict on one question text.

    ``source_text`` is the record's text: a wording may not echo what it carries that
    reads as an instruction to a model (see :func:`~benchsmith.verify.injection.check_injection`).
    ``language_id=False`` leaves language identification out, for the project's own
    template constants only (each is identified in its language by the test suite).
    """
    lang = language or "en"
    # Names and values from the data belong to no language: identification reads the rest.
    masks = [m for m in (entity, *aliases, answer) if m]
    return [
        check_entity(text, entity, aliases),
        check_language_id({"question": text}, lang, mask=masks)
        if language_id
        else Verdict(check="language_id", ok=True, reason="skipped: a tested template constant"),
        check_injection({"question": text}, source_text),
        check_meta_text(text),
        check_sentence(text, lang, max_words=sentence_words)
        if max_words <= 40
        else _long_text(text, lang, max_words),
        # The project's own leak check, on the question alone ("short_answer": no choices).
        check_no_leak(
            Item(id="wording", input=text, target=answer or ""),
            "short_answer",
            given=[m for m in (entity, *aliases) if m],
        )
        if answer
        else Verdict(check="no_leak", ok=True, reason="skipped: no answer given"),
    ]


def _long_text(text: str, language: str, max_words: int) -> Verdict:
    """A problem statement of several sentences: its last sentence must be complete."""
    words = len(text.split())
    if words > max_words:
        return Verdict(check="sentence", ok=False, reason=f"{words} words, over {max_words}")
    last = re.split(r"(?<=[.!?])\s+", text.strip())[-1]
    verdict = check_sentence(last, language)
    return verdict if not verdict.ok else Verdict(check="sentence", ok=True)


def failure_reasons(verdicts: Iterable[Verdict]) -> list[str]:
    """The reasons the failed verdicts give, as ``check: reason`` (empty when all passed)."""
    return [f"{v.check}: {v.reason}" for v in verdicts if not v.ok]

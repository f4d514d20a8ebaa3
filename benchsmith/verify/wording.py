"""The reviewer's checks on a question's wording, composed for the planner and the executor.

A wording (a filled template, a model's rewording, a proposed template) is usable only
when it names the record's entity, is in the item's language, carries no meta-text or
template debris, is one complete sentence of sane length, and does not give the answer
away. :func:`wording_verdicts` runs those checks of :mod:`benchsmith.verify.reviewer`
in that order; :func:`wording_problems` gives the failure reasons only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchsmith.verify.reviewer import (
    check_entity,
    check_language_id,
    check_meta_text,
    check_sentence,
)
from benchsmith.verify.structural import Verdict, normalize_text

WORDING_CHECKS = ("entity", "language_id", "meta_text", "sentence", "no_leak")
"""The checks a wording must pass, in order."""


def check_answer_absent(question: str, answer: str | None) -> Verdict:
    """The question does not contain the answer as a whole word or phrase.

    Answers of one or two characters, or integers of at most two digits, match by chance
    and are skipped.
    """
    name = "no_leak"
    if not answer:
        return Verdict(check=name, ok=True, reason="skipped: no answer given")
    norm = normalize_text(answer)
    if len(norm) <= 2 or re.fullmatch(r"[+-]?\d{1,2}", norm):
        return Verdict(check=name, ok=True, reason=f"skipped: answer {norm!r} is too short")
    if re.search(r"(?<!\w)" + re.escape(norm) + r"(?!\w)", normalize_text(question)):
        return Verdict(
            check=name, ok=False, reason=f"the answer {answer!r} appears in the question"
        )
    return Verdict(check=name, ok=True)


def wording_verdicts(
    text: str,
    language: str | None,
    entity: str | None,
    *,
    aliases: Sequence[str] = (),
    answer: str | None = None,
    max_words: int = 40,
) -> list[Verdict]:
    """Every wording check's verdict on one question text."""
    lang = language or "en"
    # Names and values from the data belong to no language: identification reads the rest.
    masks = [m for m in (entity, *aliases, answer) if m]
    return [
        check_entity(text, entity, aliases),
        check_language_id({"question": text}, lang, mask=masks),
        check_meta_text(text),
        check_sentence(text, lang) if max_words <= 40 else _long_text(text, lang, max_words),
        check_answer_absent(text, answer),
    ]


def _long_text(text: str, language: str, max_words: int) -> Verdict:
    """A problem statement of several sentences: its last sentence must be complete."""
    words = len(text.split())
    if words > max_words:
        return Verdict(check="sentence", ok=False, reason=f"{words} words, over {max_words}")
    last = re.split(r"(?<=[.!?])\s+", text.strip())[-1]
    verdict = check_sentence(last, language)
    return verdict if not verdict.ok else Verdict(check="sentence", ok=True)


def wording_problems(
    text: str,
    language: str | None,
    entity: str | None,
    *,
    aliases: Sequence[str] = (),
    answer: str | None = None,
) -> list[str]:
    """The reasons a wording fails (empty when every check passes)."""
    return [
        f"{v.check}: {v.reason}"
        for v in wording_verdicts(text, language, entity, aliases=aliases, answer=answer)
        if not v.ok
    ]

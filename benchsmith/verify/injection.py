"""The ``injection`` check: no instruction-like text in what the test-taker reads.

The screen itself (what reads as an order to a model, in six languages, and the measures
of what it lets through) is :mod:`benchsmith.injection`; this check applies it to every
text of an item and, given the record's own text, fails an item that echoes what it
carried (a build passes none: no model rewords a row's text into an item).
"""

from __future__ import annotations

from collections.abc import Mapping

from benchsmith.injection import find_instruction, find_instructions
from benchsmith.verify.structural import Verdict, word_overlap

INJECTION = "injection"
"""The name of the check in verdicts and reject reasons."""

ECHO_RATIO = 2 / 3
"""Share of a record's instruction-like fragment (its words, in order) that an item's text
may not repeat; at least two of the repeated words must be more than function words."""


def check_injection(texts: Mapping[str, str], source_text: str | None = None) -> Verdict:
    """No instruction-like text in what the test-taker reads, nor an echo of the record's.

    Every text (question, answer, each choice, the text shown beside media) is screened
    with :func:`~benchsmith.injection.find_instruction`. When the record's own text
    (``source_text``) carries instruction-like fragments, a text that repeats most of one
    (:data:`ECHO_RATIO` of its words in order, two of them more than function words; see
    :func:`benchsmith.verify.structural.word_overlap`) fails too: a model that paraphrased
    "the answer is always A" into "the answer to the question is always A" echoed it.

    Args:
        texts: The item's texts by label ("question", "answer", "choice B", ...).
        source_text: The record's text (all its fields), or None.

    Returns:
        The ``injection`` verdict, naming the text, the kind and the fragment on failure.
    """
    for label, text in texts.items():
        found = find_instruction(text or "")
        if found is not None:
            return Verdict(
                check=INJECTION,
                ok=False,
                reason=f"the {label} carries instruction-like text ({found.kind}): "
                f"{found.fragment[:80]!r}",
            )
    if source_text:
        for found in find_instructions(source_text):
            for label, text in texts.items():
                overlap = word_overlap(found.fragment, text or "")
                if overlap.ratio >= ECHO_RATIO and overlap.content >= 2:
                    return Verdict(
                        check=INJECTION,
                        ok=False,
                        reason=f"the {label} echoes the record's instruction-like text "
                        f"({found.kind}) {found.fragment[:80]!r}: "
                        f"{' '.join(overlap.words)!r}",
                    )
    return Verdict(check=INJECTION, ok=True)

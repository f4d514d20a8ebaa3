"""Scoring one answer by its item's answer format, with the rules the exports share.

The rules are those of :mod:`benchsmith.package.inspect_export` (:func:`score_answer`), so
``benchsmith eval``, the Inspect task and the lm-eval task agree:

- items with choices: the choice letter (``ANSWER: X``, or a bare leading letter);
- ``short_answer``: normalized exact match; ``numeric``: relative tolerance
  (``metadata["tolerance"]``, default 0.01);
- ``open``: graded by the judge role (a structured yes/no verdict) when a judge model is
  configured (``--judge-model``, ``[models] judge`` or ``BENCHSMITH_MODEL_JUDGE``), else the
  whole-word includes match of the Inspect task (the normalized target occurs in the answer).
  A judge that fails to give a valid verdict falls back to the includes match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from benchsmith.errors import StructuredOutputError
from benchsmith.item import Item
from benchsmith.llm.client import RoleModel
from benchsmith.package.inspect_export import includes_match, score_answer
from benchsmith.prompts import render, untrusted
from benchsmith.spec import ANSWER_FORMATS


class OpenAnswerVerdict(BaseModel):
    """The judge's verdict on one open-ended answer."""

    correct: Literal["yes", "no"] = Field(
        description="yes if the answer states what the reference answer states; else no."
    )
    reason: str = Field(default="", max_length=200, description="A few words why.")


@dataclass(frozen=True)
class Score:
    """Whether an answer is right, and which rule decided."""

    correct: bool
    rule: str
    """``choice``, ``short_answer``, ``numeric``, ``includes``, ``judge`` or
    ``includes (judge failed)``."""


def answer_format(item: Item) -> str:
    """The item's answer format (``multiple_choice`` whenever it has choices)."""
    if item.choices:
        return "multiple_choice"
    fmt = str(item.metadata.get("answer_format") or "short_answer")
    # Without choices an item cannot be multiple choice, whatever its metadata says.
    return fmt if fmt in ANSWER_FORMATS and fmt != "multiple_choice" else "short_answer"


def _tolerance(item: Item) -> float | None:
    value = item.metadata.get("tolerance")
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def grade_open(answer: str, item: Item, judge: RoleModel) -> OpenAnswerVerdict:
    """Ask the judge role whether an open-ended answer matches the reference.

    Raises:
        StructuredOutputError: The judge gave no valid verdict.
    """
    prompt = render(
        "eval_grade_open",
        question=untrusted(item.input_text(), "question"),
        reference=untrusted(item.answer_text(), "reference answer"),
        answer=untrusted(answer, "answer"),
    )
    return judge.structured(OpenAnswerVerdict, [("user", prompt)])


def score_item(answer: str, item: Item, *, judge: RoleModel | None = None) -> Score:
    """Score one answer to one item.

    Args:
        answer: The model's answer text.
        item: The item.
        judge: The judge role's model for open answers, or None for the includes match.

    Returns:
        The score and the rule that decided it.
    """
    fmt = answer_format(item)
    if fmt == "open":
        if judge is not None and answer.strip():
            try:
                verdict = grade_open(answer, item, judge)
            except StructuredOutputError:
                return Score(includes_match(answer, item.target), "includes (judge failed)")
            return Score(verdict.correct == "yes", "judge")
        return Score(includes_match(answer, item.target), "includes")
    right = score_answer(
        answer,
        item.target,
        fmt,
        n_choices=len(item.choices or []),
        tolerance=_tolerance(item),
    )
    return Score(right, "choice" if fmt == "multiple_choice" else fmt)

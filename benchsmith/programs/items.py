"""Program instances as benchmark items: choices, target letter, metadata.

A multiple-choice item takes the instance's answer and ``n_choices - 1`` of its
distractors (the program's own rule ordered them; a seeded shuffle places the answer), so
exactly one choice is correct by construction. Numeric and short-answer items carry the
answer as their target. ``difficulty`` is the label predicted from the program's parameters
and ``difficulty_model`` the prediction (:mod:`benchsmith.difficulty`).
"""

from __future__ import annotations

import random
from typing import Any

from benchsmith.difficulty import KEY, from_design_label
from benchsmith.item import LETTERS, NUMERIC_TOLERANCE, Item
from benchsmith.programs.run import Instance, choice_values
from benchsmith.spec import ProgramSpec


def to_item(
    instance: Instance,
    spec: ProgramSpec,
    *,
    item_id: str,
    language: str,
    seed: int,
    subtask: Any,
) -> Item:
    """An :class:`~benchsmith.item.Item` from an executed program instance."""
    rng = random.Random(seed)
    choices: list[str] | None = None
    target = instance.answer
    fmt = spec.answer_format
    if fmt == "multiple_choice":
        wrong = choice_values(spec, instance.answer, instance.distractors)
        if spec.kind in ("compare", "superlative") and instance.table_text == "":
            # The question lists the records in its own order; the choices follow it.
            names = [instance.answer, *wrong]
            order = [r for r in _question_order(instance.question, names)]
            choices = order
        else:
            choices = [instance.answer, *wrong]
            rng.shuffle(choices)
        target = LETTERS[choices.index(instance.answer)]
    metadata: dict[str, Any] = {
        "subtask": subtask.id,
        "subtask_name": subtask.name,
        "answer_format": fmt,
        "modalities": ["text"],
        # Predicted from the program's parameters (the subtask's label when none was scored).
        "difficulty": instance.difficulty.get("label", subtask.difficulty),
        "skills": list(subtask.skills),
        "language": language,
        "question": instance.question,
        "answer": instance.answer,
        "wording": "template",
        "template": f"program:{spec.kind}",
        "program": {**instance.metadata(spec), "question": instance.question},
        KEY: instance.difficulty or from_design_label(subtask.difficulty),
    }
    if instance.numeric and fmt != "multiple_choice":
        metadata["tolerance"] = NUMERIC_TOLERANCE
    return Item(
        id=item_id,
        input=instance.prompt(language),
        choices=choices,
        target=target,
        metadata=metadata,
    )


def _question_order(question: str, names: list[str]) -> list[str]:
    """The names in the order the question lists them (unlisted ones last)."""
    return sorted(names, key=lambda n: question.find(n) if n in question else len(question))

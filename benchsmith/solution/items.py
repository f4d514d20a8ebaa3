"""Items from executed problems: numeric or multiple choice, with full metadata.

Metadata on every item: ``subtask``, ``answer_format``, ``modalities``, ``concepts``,
``formulas``, ``steps`` (the chain length), ``difficulty`` (the label predicted from the
problem's parameters) and ``difficulty_model`` (the prediction: chain length, givens, unit
conversions, solved steps, options, distractor gap, the answer's digits and size; see
:mod:`benchsmith.difficulty`), ``bloom``, ``source`` (file, section, span of the
final formula) and ``sources`` (every formula used), ``solution_graph`` (``givens``, ordered
``steps``, ``target``) with ``intermediate_values`` beside it, ``tolerance``, ``answer_value``
and ``unit``; for multiple choice, the mistake behind each distractor.
"""

from __future__ import annotations

import random
from typing import Any

from benchsmith import difficulty as predicted
from benchsmith.item import LETTERS, Item
from benchsmith.solution.dimensions import _converts
from benchsmith.solution.distractors import Distractor
from benchsmith.solution.formatting import format_value, target_string
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import Problem


def bloom_level(problem: Problem) -> str:
    """``apply`` for forward chains of one or two steps; ``analyze`` for longer or solved ones."""
    steps = problem.derivation.steps
    if any(s.inverted for s in steps) or len(steps) >= 3:
        return "analyze"
    return "apply"


def base_metadata(
    problem: Problem, graph: SolutionGraph, subtask: str, answer_format: str, tolerance: float
) -> dict[str, Any]:
    """The metadata every computed item carries."""
    steps = problem.derivation.steps
    formulas = list(dict.fromkeys(s.formula for s in steps))
    final = steps[-1].formula
    concepts = list(dict.fromkeys([final.concept, *(f.concept for f in formulas)]))
    return {
        "subtask": subtask,
        "answer_format": answer_format,
        "modalities": ["text"],
        # The template text (and the model's, asked in English) is English.
        "language": "en",
        "concepts": concepts,
        "formulas": [f.equation() for f in formulas],
        "steps": len(steps),
        # The predicted label replaces it when the item is made (numeric_item, choice_item).
        "difficulty": len(steps),
        "bloom": bloom_level(problem),
        "source": final.source.to_dict(),
        "sources": [f.source.to_dict() for f in formulas],
        "solution_graph": problem.solution_graph(),
        "intermediate_values": problem.intermediate_values(),
        "tolerance": tolerance,
        "answer_value": problem.answer,
        "unit": graph.quantities[problem.target].unit,
    }


def difficulty_model(
    problem: Problem, graph: SolutionGraph, wrong: list[float] | None = None
) -> dict[str, Any]:
    """The predicted difficulty of a problem (:mod:`benchsmith.difficulty`).

    Params: the chain length ``k`` (as ``steps``), the ``givens``, the unit
    ``conversions`` (each percent given, to be used as a fraction, and each formula
    carrying a conversion constant), the ``inverted`` (solved) steps, the
    ``options`` (0: a numeric answer) and the relative ``gap`` to the nearest wrong choice,
    and the printed answer's significant ``digits`` and ``magnitude``.
    """
    steps = problem.derivation.steps
    percent = sum(graph.quantities[n].unit == "percent" for n in problem.givens)
    constants = sum(_converts(f.expr) for f in dict.fromkeys(s.formula for s in steps))
    printed = target_string(problem.answer, graph.quantities[problem.target])
    params: dict[str, Any] = {
        "steps": len(steps),
        "k": len(steps),
        "givens": len(problem.givens),
        "conversions": int(percent + constants),
        "inverted": sum(s.inverted for s in steps),
        "options": 1 + len(wrong) if wrong is not None else 0,
        "digits": predicted.significant_digits(printed),
    }
    size = predicted.magnitude(float(printed))
    if size is not None:
        params["magnitude"] = size
    if wrong:
        params["gap"] = predicted.relative_gap(problem.answer, wrong)
    return predicted.model(params)


def _with_difficulty(metadata: dict[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    return {**metadata, "difficulty": model["label"], predicted.KEY: model}


def numeric_item(
    item_id: str, text: str, metadata: dict[str, Any], problem: Problem, graph: SolutionGraph
) -> Item:
    """A numeric item: the target is the answer rounded as the text asks (percent as percent)."""
    target = target_string(problem.answer, graph.quantities[problem.target])
    metadata = _with_difficulty(metadata, difficulty_model(problem, graph))
    return Item(id=item_id, input=text, target=target, metadata=metadata)


def choice_item(
    item_id: str,
    text: str,
    metadata: dict[str, Any],
    problem: Problem,
    graph: SolutionGraph,
    distractors: list[Distractor],
    rng: random.Random,
) -> Item:
    """A multiple-choice item: the answer and its distractors in a seeded order."""
    quantity = graph.quantities[problem.target]
    options: list[tuple[float, str | None, str]] = [(problem.answer, None, "")]
    options += [(d.value, d.mistake, d.detail) for d in distractors]
    rng.shuffle(options)
    choices = [format_value(v, quantity) for v, _, _ in options]
    correct = next(i for i, (_, mistake, _) in enumerate(options) if mistake is None)
    model = difficulty_model(problem, graph, [d.value for d in distractors])
    metadata = _with_difficulty(metadata, model)
    metadata["distractors"] = [
        {"choice": LETTERS[i], "mistake": m, "detail": d}
        for i, (_, m, d) in enumerate(options)
        if m is not None
    ]
    return Item(id=item_id, input=text, choices=choices, target=LETTERS[correct], metadata=metadata)

"""Problems: a derivation with sampled givens, executed step by step.

Givens are drawn from their quantities' ranges with the seed and rounded as they will be
printed, so the text and the recorded graph hold the same numbers. Each step evaluates its
expression; a solved step takes the first root that is a finite real number in the output's
range (the real positive root where there are several). A draw whose intermediate or final
value is out of range is discarded and drawn again, a bounded number of times.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from benchsmith.solution.expressions import is_finite_real
from benchsmith.solution.graph import Derivation, SolutionGraph, StepForm


@dataclass(frozen=True)
class Problem:
    """An executed derivation: givens, ordered steps with their expressions, all values.

    Attributes:
        derivation: The chain of step forms.
        givens: Given name to value (as printed).
        steps: ``(output, expression string)`` in order; the expression is the root taken.
        values: Every value: givens, intermediates and the target.
    """

    derivation: Derivation
    givens: dict[str, float]
    steps: tuple[tuple[str, str], ...]
    values: dict[str, float]

    @property
    def target(self) -> str:
        """The quantity asked for."""
        return self.derivation.target

    @property
    def answer(self) -> float:
        """The computed answer."""
        return self.values[self.target]

    def solution_graph(self) -> dict[str, Any]:
        """The executable graph as ARCHITECTURE.md gives it (givens, steps, target)."""
        return {
            "givens": dict(self.givens),
            "steps": [{"output": o, "expression": e} for o, e in self.steps],
            "target": self.target,
        }

    def intermediate_values(self) -> dict[str, float]:
        """The computed value of every step's output, in order."""
        return {o: self.values[o] for o, _ in self.steps}


def run_step(
    form: StepForm, values: dict[str, float], graph: SolutionGraph, *, check_range: bool = True
) -> tuple[float, str] | None:
    """The value a step gives on ``values`` and the expression used; None if none fits."""
    args = [values[n] for n in form.inputs]
    quantity = graph.quantities.get(form.output)
    for function, text in zip(form.functions, form.strings, strict=True):
        try:
            value = function(*args)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not is_finite_real(value):
            continue
        if check_range and quantity is not None and not quantity.contains(value):
            continue
        if (
            form.inverted
            and len(form.candidates) > 1
            and value <= 0
            and quantity
            and quantity.low > 0
        ):
            continue
        return float(value), text
    return None


def execute(
    derivation: Derivation,
    givens: dict[str, float],
    graph: SolutionGraph,
    *,
    check_range: bool = True,
) -> Problem | None:
    """Run a derivation on given values; None when a step has no fitting value."""
    values = dict(givens)
    steps: list[tuple[str, str]] = []
    for form in derivation.steps:
        result = run_step(form, values, graph, check_range=check_range)
        if result is None:
            return None
        values[form.output], text = result
        steps.append((form.output, text))
    return Problem(derivation, dict(givens), tuple(steps), values)


def instantiate(
    derivation: Derivation, graph: SolutionGraph, rng: random.Random, attempts: int = 40
) -> Problem | None:
    """Draw givens until the chain runs with every value in range (None after ``attempts``)."""
    for _ in range(attempts):
        givens = {n: graph.quantities[n].sample(rng) for n in derivation.givens}
        problem = execute(derivation, givens, graph)
        if problem is not None:
            return problem
    return None

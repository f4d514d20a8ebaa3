"""Problems: a derivation cut from one consistent world, executed step by step.

A world of the derivation's connected part is drawn (:mod:`worlds`); the givens are taken
from it and rounded as they will be printed, so the text and the recorded graph hold the same
numbers. Each step evaluates its expression; a solved step takes the fitting root closest to
the world's value. A problem is kept only if every value is plausible (in range, counts
whole), its answer is not printed among the givens, and every admitted formula among the
quantities it mentions holds; otherwise another world is drawn, a bounded number of times.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchsmith.solution.expressions import is_finite_real
from benchsmith.solution.formatting import (
    close,
    format_value,
    parse_value,
    target_string,
    target_value,
)
from benchsmith.solution.graph import Derivation, SolutionGraph, StepForm
from benchsmith.solution.quantities import Quantity
from benchsmith.solution.worlds import draw_world, part_of, violations

# Givens are rounded as printed; a formula among the mentioned quantities must still hold
# this closely (well inside the 1% tolerance of answers).
CHECK_TOLERANCE = 0.005


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
    form: StepForm,
    values: dict[str, float],
    graph: SolutionGraph,
    *,
    check_range: bool = True,
    prefer: float | None = None,
) -> tuple[float, str] | None:
    """The value a step gives on ``values`` and the expression used; None if none fits.

    With ``prefer`` (the value in the problem's world), the fitting root closest to it is
    taken, so a solved quadratic gives the root the world holds.
    """
    args = [values[n] for n in form.inputs]
    quantity = graph.quantities.get(form.output)
    fitting: list[tuple[float, str]] = []
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
        if prefer is None:
            return float(value), text
        fitting.append((float(value), text))
    if not fitting:
        return None
    return min(fitting, key=lambda pair: abs(pair[0] - (prefer or 0.0)))


def execute(
    derivation: Derivation,
    givens: dict[str, float],
    graph: SolutionGraph,
    *,
    check_range: bool = True,
    world: Mapping[str, float] | None = None,
) -> Problem | None:
    """Run a derivation on given values; None when a step has no fitting value.

    With ``world``, a step with several fitting roots takes the one closest to the world's.
    """
    values = dict(givens)
    steps: list[tuple[str, str]] = []
    for form in derivation.steps:
        prefer = world.get(form.output) if world is not None else None
        result = run_step(form, values, graph, check_range=check_range, prefer=prefer)
        if result is None:
            return None
        values[form.output], text = result
        steps.append((form.output, text))
    return Problem(derivation, dict(givens), tuple(steps), values)


ROUNDING_TOLERANCE = 0.005
"""How far the target, rounded as the text asks, may be from the exact answer (half of the
1 % scoring tolerance)."""


def printed_value(value: float, quantity: Quantity) -> float:
    """``value`` rounded exactly as the text prints it (so text and graph hold one number)."""
    return parse_value(format_value(value, quantity))


def mentioned(derivation: Derivation) -> frozenset[str]:
    """Every quantity a problem of ``derivation`` names: givens, intermediates, target."""
    return frozenset(derivation.givens) | {s.output for s in derivation.steps}


def stated_range(quantity: Quantity) -> bool:
    """Whether the text itself states the quantity's range (not examples or defaults)."""
    return any(
        part == "range" and origin.startswith("definition") for part, origin in quantity.origins
    )


def plausible(problem: Problem, graph: SolutionGraph) -> bool:
    """Whether every value of the problem lies in its quantity's range (counts whole)."""
    for name, value in problem.values.items():
        quantity = graph.quantities[name]
        if not quantity.contains(value):
            return False
        if name in problem.givens and quantity.integer and not float(value).is_integer():
            return False
    # An answer the asked precision cannot carry ($0.004 "to the nearest cent") is redrawn.
    target = graph.quantities[problem.target]
    rounded = target_value(target_string(problem.answer, target), target)
    if not close(rounded, problem.answer, ROUNDING_TOLERANCE) or rounded == 0:
        return False
    # A degenerate draw (the answer printed as a given is, as r = j when m = 1) is redrawn.
    answer = format_value(problem.answer, target)
    return all(
        answer not in format_value(v, graph.quantities[n]) for n, v in problem.givens.items()
    )


def instantiate(
    derivation: Derivation, graph: SolutionGraph, rng: random.Random, attempts: int = 40
) -> Problem | None:
    """A problem cut from one consistent world (None after ``attempts`` worlds).

    Each attempt draws a world of the derivation's connected part, takes the givens from
    it (rounded as printed), executes the chain, and keeps the problem only when every
    value is plausible and every admitted formula among the mentioned quantities holds.
    """
    part = part_of(graph, mentioned(derivation))
    # A formula that contradicts one of the chain's (the text's other sense of a symbol)
    # is no part of its world; a chain through two rivals has none.
    used = {step.formula.id for step in derivation.steps}
    leave_out = graph.rivals_of(used)
    if used & leave_out:
        return None
    # The situation as a whole must be plausible, not only what the problem prints: a
    # $1,027 project paying $18,284 a period has a profitability index of 364, where the
    # text says 0.1 to 10, even when the problem never names that index. Only a range the
    # text states counts here (ranges estimated from separate worked examples need not fit
    # together); draw_world gives up on a world as soon as one of them is broken.
    bounded = {n: graph.quantities[n] for n in part if stated_range(graph.quantities[n])}
    for _ in range(attempts):
        world = draw_world(graph, part, rng, bounded, leave_out)
        if world is None:
            continue
        if any(n in world and not q.contains(world[n]) for n, q in bounded.items()):
            continue  # a drawn value (draw_world checks the derived ones)
        givens = {n: printed_value(world[n], graph.quantities[n]) for n in derivation.givens}
        problem = execute(derivation, givens, graph, world=world)
        if problem is None or not plausible(problem, graph):
            continue
        # Rounding the givens must not move the problem off its world (an ill-conditioned
        # chain, as CF = PVG (r - g) with r close to g, would contradict hidden quantities).
        if any(not close(v, world[n], CHECK_TOLERANCE) for n, v in problem.values.items()):
            continue
        if violations(graph, problem.values, CHECK_TOLERANCE, leave_out):
            continue
        return problem
    return None

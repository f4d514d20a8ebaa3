"""Distractors for multiple choice, each the result of a plausible mistake.

Rules, in order of preference:

- ``skipped_step``: an intermediate step is skipped and one of its inputs of the same unit is
  used in its place (the nominal annual rate used as the rate per period);
- ``wrong_formula``: another formula of the same section with an output of the target's
  unit, with a known value of the same unit standing in for an input it lacks (the present
  value formula applied where the future value one was needed);
- ``unit_slip``: a percent given read as a whole number (5% used as 5);
- ``stopped_early``: the last intermediate value given as the answer (same unit only);
- ``off_by_one``: one period more in a whole-number given of periods or years;
- ``swapped_givens``: two givens of the same unit exchanged (initial and final velocity);
- ``dropped_term``: a term of the last step's sum left out.

A distractor must be plausible (in the target's range, the answer's sign and order of
magnitude) and a finite number that differs from the answer and from every other
choice by more than the tolerance, and prints differently.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from benchsmith.solution.expressions import is_finite_real, numeric_function
from benchsmith.solution.formatting import close, format_value
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import Problem, run_step
from benchsmith.solution.quantities import Quantity


@dataclass(frozen=True)
class Distractor:
    """A wrong answer and the mistake that produces it."""

    value: float
    mistake: str
    detail: str


def _rerun(
    problem: Problem,
    graph: SolutionGraph,
    givens: dict[str, float],
    replace: dict[str, str] | None = None,
) -> float | None:
    """The answer of the chain on other givens; ``replace`` sets a step's output to a value."""
    values = dict(givens)
    for form in problem.derivation.steps:
        if replace and form.output in replace:
            values[form.output] = values[replace[form.output]]
            continue
        result = run_step(form, values, graph, check_range=False)
        if result is None:
            return None
        values[form.output] = result[0]
    return values[problem.target]


def _unit(graph: SolutionGraph, name: str) -> str:
    quantity = graph.quantities.get(name)
    return quantity.unit if quantity else ""


def candidate_mistakes(problem: Problem, graph: SolutionGraph) -> list[Distractor]:
    """Every distractor the rules produce, before filtering."""
    out: list[Distractor] = []
    steps = problem.derivation.steps
    target_unit = _unit(graph, problem.target)
    for form in steps[:-1]:
        for name in form.inputs:
            if _unit(graph, name) == _unit(graph, form.output):
                value = _rerun(problem, graph, problem.givens, {form.output: name})
                if value is not None:
                    out.append(Distractor(value, "skipped_step", f"{name} used as {form.output}"))
    final = steps[-1].formula
    for other in graph.formulas:
        if other.id == final.id or other.concept != final.concept:
            continue
        if _unit(graph, other.output) != target_unit:
            continue
        spare = [
            n
            for n in problem.values
            if _unit(graph, n) == target_unit and n != problem.target and n not in other.inputs
        ]
        args = {}
        for name in sorted(other.inputs):
            if name in problem.values and name != problem.target:
                args[name] = problem.values[name]
            elif spare and _unit(graph, name) == target_unit:
                args[name] = problem.values[spare.pop(0)]
            else:
                break
        else:
            try:
                value = numeric_function(other.expr, tuple(sorted(args)))(
                    *(args[n] for n in sorted(args))
                )
            except (ZeroDivisionError, OverflowError, ValueError, TypeError):
                continue
            out.append(Distractor(float(value), "wrong_formula", other.equation()))
    for name, value in problem.givens.items():
        if _unit(graph, name) == "percent":
            slipped = dict(problem.givens, **{name: value * 100})
            result = _rerun(problem, graph, slipped)
            if result is not None:
                out.append(Distractor(result, "unit_slip", f"{name} read as {value * 100:g}"))
    if len(steps) >= 2 and _unit(graph, steps[-2].output) == target_unit:
        out.append(Distractor(problem.values[steps[-2].output], "stopped_early", steps[-2].output))
    for name, value in problem.givens.items():
        if _unit(graph, name) in ("periods", "years") and float(value).is_integer():
            result = _rerun(problem, graph, dict(problem.givens, **{name: value + 1}))
            if result is not None:
                out.append(Distractor(result, "off_by_one", f"{name} taken as {value + 1:g}"))
    out += _swapped_and_dropped(problem, graph)
    return out


def _same_unit(graph: SolutionGraph, a: str, b: str) -> bool:
    qa, qb = graph.quantities.get(a), graph.quantities.get(b)
    return bool(qa and qb and (qa.unit, qa.symbol) == (qb.unit, qb.symbol))


def _swapped_and_dropped(problem: Problem, graph: SolutionGraph) -> list[Distractor]:
    """Two givens of one unit swapped, and a term of the last step's sum left out."""
    out: list[Distractor] = []
    names = sorted(problem.givens)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if _same_unit(graph, a, b):
                swapped = dict(problem.givens, **{a: problem.givens[b], b: problem.givens[a]})
                result = _rerun(problem, graph, swapped)
                if result is not None:
                    out.append(Distractor(result, "swapped_givens", f"{a} and {b} swapped"))
    output, text = problem.steps[-1]
    expr = sp.sympify(text, locals={n: sp.Symbol(n) for n in problem.values})
    if isinstance(expr, sp.Add) and len(expr.args) > 1:
        inputs = tuple(sorted(n for n in problem.values if n != output))
        for term in expr.args:
            rest = expr - term
            if not rest.free_symbols:
                continue
            try:
                value = numeric_function(rest, inputs)(*(problem.values[n] for n in inputs))
            except (ZeroDivisionError, OverflowError, ValueError, TypeError):
                continue
            out.append(Distractor(float(value), "dropped_term", f"{term} left out"))
    return out


def plausible_choice(value: float, answer: float, quantity: Quantity) -> bool:
    """Whether a wrong value could pass for the answer (range, sign, order of magnitude)."""
    if not quantity.contains(value) or (value < 0) != (answer < 0):
        return False
    if answer == 0 or value == 0:
        return answer == value
    return 0.1 <= value / answer <= 10


def choose_distractors(
    problem: Problem, graph: SolutionGraph, tolerance: float, limit: int = 3
) -> list[Distractor]:
    """Up to ``limit`` valid distractors, one per mistake kind first, in rule order."""
    quantity = graph.quantities[problem.target]
    taken: list[Distractor] = []
    printed = {format_value(problem.answer, quantity)}
    candidates = candidate_mistakes(problem, graph)
    kinds_first = sorted(
        range(len(candidates)),
        key=lambda i: (any(c.mistake == candidates[i].mistake for c in candidates[:i]), i),
    )
    for index in kinds_first:
        candidate = candidates[index]
        value = candidate.value
        if not is_finite_real(value) or not plausible_choice(value, problem.answer, quantity):
            continue
        values = [problem.answer, *(t.value for t in taken)]
        if any(close(value, v, 2 * tolerance) or close(v, value, 2 * tolerance) for v in values):
            continue
        text = format_value(value, quantity)
        if text in printed:
            continue
        printed.add(text)
        taken.append(candidate)
        if len(taken) >= limit:
            break
    return taken

"""Consistent worlds: one value for every quantity of a connected part of the graph.

A problem is cut from a world rather than from independently drawn givens: the independent
quantities of the connected part (those no admitted formula computes, then others as
needed) are drawn once, every other quantity is derived through the admitted formulas, and
the world is kept only if every admitted formula holds on it. Givens taken from one world
cannot contradict each other, even through a quantity the problem does not mention (``j``
and ``r`` given with ``n`` and ``t`` must agree on the hidden ``m``).

Two quantities that describe the same thing under two models (``future value`` and
``future value under continuous compounding``) are *alternatives*: the same unit, one
description the other's with words added, and no admitted formula relating both. A problem
never mentions two alternatives.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sympy as sp

from benchsmith.solution.expressions import is_finite_real, numeric_function
from benchsmith.solution.formulas import Formula
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.quantities import Quantity

WORLD_TOLERANCE = 1e-6
#: Words that open the condition of a model ("future value under continuous compounding").
_MODEL_WORDS = frozenset({"under", "with", "using", "assuming", "when", "if"})
_STOP = {"the", "a", "an", "of", "per"}


def components(graph: SolutionGraph) -> list[frozenset[str]]:
    """The connected parts of the graph: sets of quantities linked through formulas."""
    cached = graph.memo.get("components")
    if cached is None:
        cached = graph.memo["components"] = _components(graph)
    return cached


def _components(graph: SolutionGraph) -> list[frozenset[str]]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for formula in graph.formulas:
        names = sorted(formula.names)
        for other in names[1:]:
            parent[find(other)] = find(names[0])
    groups: dict[str, set[str]] = {}
    for name in parent:
        groups.setdefault(find(name), set()).add(name)
    return [frozenset(g) for g in groups.values()]


def _words(description: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", description.lower()) if w not in _STOP]


def alternatives(graph: SolutionGraph) -> set[frozenset[str]]:
    """Pairs of quantities that describe one thing under two models (never in one problem)."""
    names = sorted({n for f in graph.formulas for n in f.names})
    linked = {frozenset((a, b)) for f in graph.formulas for a in f.names for b in f.names}
    pairs: set[frozenset[str]] = set()
    for i, a in enumerate(names):
        qa = graph.quantities.get(a)
        for b in names[i + 1 :]:
            qb = graph.quantities.get(b)
            if qa is None or qb is None or qa.unit != qb.unit:
                continue
            if frozenset((a, b)) in linked:
                continue
            wa, wb = _words(qa.description), _words(qb.description)
            short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
            if short and long[: len(short)] == short:
                pairs.add(frozenset((a, b)))
    return pairs


def mixes_models(names: Iterable[str], pairs: set[frozenset[str]]) -> frozenset[str] | None:
    """The first pair of alternatives among ``names`` (None when there is none)."""
    present = set(names)
    for pair in sorted(pairs, key=sorted):
        if pair <= present:
            return pair
    return None


def general_sides(graph: SolutionGraph, pairs: set[frozenset[str]]) -> dict[str, frozenset[str]]:
    """Per special alternative (``FVC``), the quantities of the general model it replaces.

    Of two alternatives the special one has the longer description, whose added words name
    a condition ("future value under continuous compounding"; "present value of the
    annuity" is another thing and has no general side). The general model's side is what
    its formulas relate that the special one's do not (``r``, ``n`` for ``FV = PV (1 +
    r)^n``), and everything linked to those by formulas without the special quantity
    (``m``, ``EAR``, annuities ...); the special formula's own inputs (``PV``, ``j``, ``t``)
    are shared.
    """
    key = ("general_sides", frozenset(pairs))
    cached = graph.memo.get(key)
    if cached is not None:
        return cached
    out: dict[str, frozenset[str]] = {}
    for pair in pairs:
        a, b = sorted(pair, key=lambda n: len(_words(graph.quantities[n].description)))
        extra = _words(graph.quantities[b].description)[
            len(_words(graph.quantities[a].description)) :
        ]
        if not extra or extra[0] not in _MODEL_WORDS:
            continue  # "present value of the annuity" is another thing, not another model
        special_names = {n for f in graph.formulas if b in f.names for n in f.names}
        side = {n for f in graph.formulas if a in f.names for n in f.names} - special_names
        grown = True
        while grown:
            grown = False
            for formula in graph.formulas:
                if b in formula.names or not formula.names & side:
                    continue
                new = formula.names - special_names - side
                if new:
                    side |= new
                    grown = True
        out[b] = frozenset(side)
    graph.memo[key] = out
    return out


def mixes_with_general(
    names: Iterable[str], graph: SolutionGraph, pairs: set[frozenset[str]]
) -> tuple[str, str] | None:
    """A special quantity and a quantity of its general model both among ``names``.

    "The number of compounding periods per year is 2. The future value under continuous
    compounding is $2,436.93": periods per year mean nothing under continuous compounding.
    """
    present = set(names)
    for special, side in sorted(general_sides(graph, pairs).items()):
        if special in present:
            clash = sorted(side & present)
            if clash:
                return special, clash[0]
    return None


def crosses_scenarios(derivation: Any, graph: SolutionGraph) -> Any | None:
    """The first step that carries one section's situation into another's (None: none does).

    A section of a chapter sets a situation (a loan, an annuity, an investment); the
    quantities it defines belong to it, and a shared one (the number of periods ``n``) is
    defined once where the chapter introduces it. A problem about one section may take a
    value computed in another only when that section computes what it defines (``r =
    j / m`` where rates are defined) or what the problem's own section defines (a resistance
    from the power a resistor dissipates, for Ohm's law): a number of periods solved from a
    loan's payment and
    then used to discount an unrelated future value joins two situations the text never
    links ("What is the present value?" of a problem about a loan reads as the principal).
    """
    final = derivation.steps[-1].formula.source.section
    for step in derivation.steps[:-1]:
        section = step.formula.source.section
        if section == final:
            continue
        quantity = graph.quantities.get(step.output)
        home = quantity.source.section if quantity is not None and quantity.source else None
        if home is not None and home not in (section, final):
            return step
    return None


@lru_cache(maxsize=4096)
def _forward(expr: sp.Expr, names: tuple[str, ...]) -> Any:
    """The compiled right-hand side of a formula (compiled once per formula)."""
    return numeric_function(expr, names)


def _representatives(
    graph: SolutionGraph, part: frozenset[str], leave_out: frozenset[str] = frozenset()
) -> list[Formula]:
    """One formula per group of equivalent formulas in ``part`` (none of ``leave_out``)."""
    seen: set[int] = set()
    out = []
    for formula in graph.formulas:
        group = graph.equivalence_group(formula.id)
        if formula.names <= part and group not in seen and formula.id not in leave_out:
            seen.add(group)
            out.append(formula)
    return out


@dataclass(frozen=True)
class _Layout:
    """What every world of one part needs, computed once per graph and part.

    Attributes:
        formulas: One formula per group of equivalent formulas in the part.
        free: The part's quantities no formula of it computes, sorted.
        rest: The others, sorted.
        names: Every quantity of the part, sorted.
        users: Per quantity, the indices of the formulas that relate it.
    """

    formulas: list[Formula]
    free: tuple[str, ...]
    rest: tuple[str, ...]
    names: tuple[str, ...]
    users: dict[str, tuple[int, ...]]


def _layout(
    graph: SolutionGraph, part: frozenset[str], leave_out: frozenset[str] = frozenset()
) -> _Layout:
    """The :class:`_Layout` of ``part`` without ``leave_out`` (kept in the graph's memo)."""
    key = ("layout", part, leave_out)
    cached = graph.memo.get(key)
    if cached is None:
        formulas = _representatives(graph, part, leave_out)
        outputs = {f.output for f in formulas}
        users: dict[str, list[int]] = {}
        for i, formula in enumerate(formulas):
            for name in formula.names:
                users.setdefault(name, []).append(i)
        cached = graph.memo[key] = _Layout(
            formulas,
            tuple(sorted(part - outputs)),
            tuple(sorted(part & outputs)),
            tuple(sorted(part)),
            {name: tuple(indices) for name, indices in users.items()},
        )
    return cached


def _solver(graph: SolutionGraph, formula: Formula, name: str) -> tuple[tuple[str, ...], Any]:
    """The inputs and compiled candidates giving ``name`` from ``formula`` (memoized).

    No candidates when the formula cannot be solved for ``name``.
    """
    key = ("solver", formula.id, formula.output, formula.expr, name)
    cached = graph.memo.get(key)
    if cached is None:
        if name == formula.output:
            inputs = tuple(sorted(formula.inputs))
            cached = (inputs, (_forward(formula.expr, inputs),))
        else:
            form = next((f for f in graph.forms_for(name) if f.formula.id == formula.id), None)
            cached = ((), ()) if form is None else (form.inputs, form.functions)
        graph.memo[key] = cached
    return cached


def _solve_for(
    graph: SolutionGraph, formula: Formula, name: str, values: Mapping[str, float]
) -> float | None:
    """The value of ``name`` that makes ``formula`` hold on ``values`` (in range if possible)."""
    inputs, functions = _solver(graph, formula, name)
    if not functions:
        return None
    quantity = graph.quantities.get(name)
    args = [values[n] for n in inputs]
    found: list[float] = []
    for function in functions:
        try:
            value = function(*args)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            continue
        if is_finite_real(value):
            found.append(float(value))
    if not found:
        return None
    fitting = [v for v in found if quantity is None or quantity.contains(v)]
    return (fitting or found)[0]


def formula_error(formula: Formula, values: Mapping[str, float]) -> float | None:
    """The relative gap between a formula's two sides on ``values`` (None if not evaluable)."""
    inputs = tuple(sorted(formula.inputs))
    return _error(formula.output, inputs, _forward(formula.expr, inputs), values)


def _error(
    output: str, inputs: tuple[str, ...], function: Any, values: Mapping[str, float]
) -> float | None:
    try:
        expected = float(function(*(values[n] for n in inputs)))
    except (ZeroDivisionError, OverflowError, ValueError, TypeError):
        return None
    if not math.isfinite(expected):
        return None
    actual = values[output]
    return abs(actual - expected) / max(abs(expected), abs(actual), 1e-9)


def _checks(graph: SolutionGraph) -> list[tuple[Formula, str, tuple[str, ...], Any]]:
    """Per formula of the graph: itself, its output, sorted inputs, compiled right-hand side."""
    cached = graph.memo.get("checks")
    if cached is None:
        cached = graph.memo["checks"] = [
            (f, f.output, inputs, _forward(f.expr, inputs))
            for f in graph.formulas
            for inputs in [tuple(sorted(f.inputs))]
        ]
    return cached


def violations(
    graph: SolutionGraph,
    values: Mapping[str, float],
    tolerance: float,
    leave_out: frozenset[str] = frozenset(),
) -> list[tuple[Formula, float | None]]:
    """Admitted formulas whose quantities all have values and that do not hold on them.

    ``leave_out``: formulas not to check (the rivals of a chain's own, :class:`SolutionGraph`).
    """
    out = []
    present = set(values)
    for formula, output, inputs, function in _checks(graph):
        if not formula.names <= present or formula.id in leave_out:
            continue
        error = _error(output, inputs, function, values)
        if error is None or error > tolerance:
            out.append((formula, error))
    return out


def draw_world(
    graph: SolutionGraph,
    part: frozenset[str],
    rng: random.Random,
    bounded: Mapping[str, Quantity] | None = None,
    leave_out: frozenset[str] = frozenset(),
) -> dict[str, float] | None:
    """Every quantity of ``part``: independent ones drawn, the rest derived; None if stuck.

    Quantities that no formula computes are drawn first (in a random order; in half the
    worlds every quantity may be drawn, in a random order), then a
    formula with one unknown left gives that unknown, and so on; when no formula has a
    single unknown, one more quantity is drawn. The world is refused when a value is not a
    finite real number or a formula does not hold on it, and as soon as a derived value of
    a quantity in ``bounded`` falls outside its range (a caller that would refuse such a
    world anyway spares deriving the rest of it). Formulas in ``leave_out`` (the rivals of
    a chain's own) neither derive nor constrain its values.
    """
    layout = _layout(graph, part, leave_out)
    formulas, users = layout.formulas, layout.users
    free, rest = list(layout.free), list(layout.rest)
    rng.shuffle(free)
    rng.shuffle(rest)
    order = free + rest
    if rng.random() < 0.5:
        # Half the worlds draw in any order, so that a quantity no formula computes can be
        # derived too (V = I R with V and R drawn gives the current): ranges estimated from
        # separate worked examples need not fit together as drawn.
        # Listed values (periods per year: 1, 2, 4, 12) and counts stay drawn first:
        # derived ones are seldom whole.
        quantities = graph.quantities
        order = sorted(
            layout.names,  # a fixed order first: a frozenset's order varies with the hash seed
            key=lambda n: (not quantities[n].choices, not quantities[n].integer, rng.random()),
        )
    values: dict[str, float] = {}
    unknowns = [len(f.names) for f in formulas]  # per formula, its quantities without a value
    first = 0  # order[:first] all have values (values only grow)
    while True:
        progress = True
        while progress:
            progress = False
            for i, formula in enumerate(formulas):
                if unknowns[i] != 1:
                    continue
                name = next(n for n in formula.names if n not in values)
                value = _solve_for(graph, formula, name, values)
                if value is None:
                    return None
                if bounded and name in bounded and not bounded[name].contains(value):
                    return None
                values[name] = value
                for j in users[name]:
                    unknowns[j] -= 1
                progress = True
        while first < len(order) and order[first] in values:
            first += 1
        if first == len(order):
            break
        name = order[first]
        values[name] = graph.quantities[name].sample(rng)
        for j in users.get(name, ()):
            unknowns[j] -= 1
    if violations(graph, values, WORLD_TOLERANCE, leave_out):
        return None
    # A count (periods, payments, periods per year) is a whole number in every world.
    for name, value in values.items():
        quantity = graph.quantities.get(name)
        if quantity is not None and quantity.integer and abs(value - round(value)) > 1e-6:
            return None
        # A quantity the text lists values for takes one of them (no 3 periods per year).
        if (
            quantity is not None
            and quantity.choices
            and not any(math.isclose(value, c, rel_tol=1e-6) for c in quantity.choices)
        ):
            return None
    return values


def part_of(graph: SolutionGraph, names: Iterable[str]) -> frozenset[str]:
    """The connected part holding ``names`` (the union when they span several)."""
    wanted = set(names)
    return frozenset().union(*(p for p in components(graph) if p & wanted))

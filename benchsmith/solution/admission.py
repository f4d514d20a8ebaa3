"""Admission of formulas: a formula joins the graph only if it executes on sampled values.

Every symbol must first be defined by the text (a description): a formula with an
undefined symbol is refused and the reason names the symbol.

Its inputs are sampled from their plausible ranges; every result must be a finite real
number (no division by zero, no logarithm of a negative, no overflow), and at least a
quarter of the results must lie in the output's plausible range (a formula that mostly
gives implausible values has a wrong unit or was misread). The reason of a rejection names
the failing input values.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from benchsmith.solution.expressions import is_finite_real, numeric_function
from benchsmith.solution.formulas import Formula, RejectedFormula
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.quantities import Quantity
from benchsmith.solution.worlds import draw_world, part_of

MIN_IN_RANGE = 0.25
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 '’(),/-]*")


def _show(values: Mapping[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in sorted(values.items()))


def admission_reason(
    formula: Formula,
    quantities: Mapping[str, Quantity],
    rng: random.Random,
    samples: int = 64,
    min_in_range: float = MIN_IN_RANGE,
) -> str | None:
    """Why ``formula`` is not admitted, or None when it is.

    Args:
        formula: The candidate formula.
        quantities: Every quantity it names, with ranges.
        rng: The random source of the sampled inputs.
        samples: How many input tuples to try.
        min_in_range: The least fraction of results that must be in the output's range.
    """
    names = tuple(sorted(formula.inputs))
    missing = [n for n in (*names, formula.output) if n not in quantities]
    if missing:
        return f"unknown quantities {missing}"
    # No item may say "the quantity X": every symbol must be defined by the text.
    unnamed = [
        n
        for n in sorted(formula.names)
        if "description" in quantities[n].assumed
        or not _PLAIN.fullmatch(quantities[n].description)  # e.g. LaTeX caught in the words
    ]
    if unnamed:
        listed = ", ".join(unnamed)
        return f"no definition in the text of the symbol(s) {listed} (what it is, its unit)"
    try:
        function = numeric_function(formula.expr, names)
    except (TypeError, NameError, SyntaxError, KeyError) as exc:
        return f"cannot be executed ({exc})"
    output = quantities[formula.output]
    in_range = 0
    last: float = 0.0
    for _ in range(samples):
        values = {n: quantities[n].sample(rng) for n in names}
        try:
            result = function(*(values[n] for n in names))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
            return f"non-finite result ({type(exc).__name__}: {exc}) at {_show(values)}"
        if isinstance(result, int) and not isinstance(result, bool):
            result = float(result)
        if not is_finite_real(result):
            return f"non-finite result {result!r} at {_show(values)}"
        last = float(result)
        in_range += output.contains(last)
    # A range the text states must hold for a good share of results; a range estimated from
    # worked examples or the kind only has to be reachable (worlds are redrawn into it).
    needed = min_in_range * samples if output.bounds is None else 1
    if in_range < needed:
        return (
            f"results out of range: {in_range} of {samples} sampled results in "
            f"[{output.low:g}, {output.high:g}] for {formula.output} (e.g. {last:g})"
        )
    return None


def in_range_in_worlds(
    formula: Formula,
    admitted: list[Formula],
    quantities: Mapping[str, Quantity],
    rng: random.Random,
    samples: int = 64,
    min_in_range: float = MIN_IN_RANGE,
) -> bool:
    """Whether the formula's results are plausible when its inputs come from one world.

    Inputs sampled independently can be implausible together (an NPV of millions against an
    outlay of a thousand); drawn from a world of the admitted formulas they are consistent.
    """
    graph = SolutionGraph(quantities, [*admitted, formula])
    part = part_of(graph, formula.names)
    output = quantities[formula.output]
    worlds = [w for w in (draw_world(graph, part, rng) for _ in range(samples)) if w]
    if len(worlds) < samples // 4:
        return False
    return sum(output.contains(w[formula.output]) for w in worlds) >= min_in_range * len(worlds)


def admit(
    formulas: list[Formula], quantities: Mapping[str, Quantity], seed: int = 0
) -> tuple[list[Formula], list[RejectedFormula]]:
    """Split formulas into admitted ones and rejected ones (with reasons).

    A formula whose results fall out of range on independent inputs gets a second chance on
    inputs drawn from consistent worlds of the formulas admitted first.
    """
    admitted: list[Formula] = []
    rejected: list[RejectedFormula] = []
    out_of_range: list[tuple[Formula, str]] = []
    for formula in formulas:
        reason = admission_reason(formula, quantities, random.Random(f"{seed}:{formula.id}"))
        if reason is None:
            admitted.append(formula)
        elif reason.startswith("results out of range"):
            out_of_range.append((formula, reason))
        else:
            rejected.append(RejectedFormula(formula.text, formula.syntax, formula.source, reason))
    for formula, reason in out_of_range:
        rng = random.Random(f"{seed}:{formula.id}:worlds")
        if in_range_in_worlds(formula, admitted, quantities, rng):
            admitted.append(formula)
        else:
            reason += ", also on inputs drawn from worlds of the admitted formulas"
            rejected.append(RejectedFormula(formula.text, formula.syntax, formula.source, reason))
    order = {f.id: i for i, f in enumerate(formulas)}
    admitted.sort(key=lambda f: order[f.id])
    return admitted, rejected

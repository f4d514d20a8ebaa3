"""A computed item checked against its own solution graph, as a reviewer recomputes it.

The item's ``metadata.solution_graph`` holds ``givens`` (name to number), ordered ``steps``
(``{"output", "expression"}``, each a sympy-parsable expression over the givens and
earlier outputs) and ``target``. :func:`check_solution_graph` executes the steps, and fails
when a step does not evaluate to a finite real number, when the item's answer (its numeric
target, percent as percent, or the value of the correct choice) is not the computed value
within the item's tolerance, when another choice is as close, or when a given value is
not stated in the question (a problem that hides a given cannot be solved).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from benchsmith.item import LETTERS, NUMERIC_TOLERANCE, Item
from benchsmith.verify.structural import Verdict

SOLUTION = "solution_graph"
_NUMBER = re.compile(r"(?<![\w.])[-−]?\$?\d[\d,]*(?:\.\d+)?%?")


def _fail(reason: str) -> Verdict:
    return Verdict(check=SOLUTION, ok=False, reason=reason)


def printed_numbers(text: str) -> list[float]:
    """Every number the text states (``$1,234.50`` -> 1234.5, ``4.25%`` -> 0.0425)."""
    # Imported here to save start-up time: benchsmith.solution loads sympy, which a build
    # without a solution_graph grounding never needs.
    from benchsmith.solution.formatting import parse_value

    out = []
    for token in _NUMBER.findall(text):
        try:
            out.append(parse_value(token.replace("−", "-")))
        except ValueError:
            continue
    return out


def _close(a: float, b: float, tolerance: float) -> bool:
    return math.isclose(a, b, rel_tol=tolerance, abs_tol=1e-12)


def execute_graph(graph: Mapping[str, Any]) -> dict[str, float]:
    """Every value of a solution graph: its givens, then each step in order.

    Raises:
        ValueError: A malformed graph, or a step that does not give a finite real number.
    """
    # Imported here to save start-up time (sympy), as in printed_numbers().
    from benchsmith.solution.errors import FormulaSyntaxError
    from benchsmith.solution.expressions import parse_expression

    values = {str(k): float(v) for k, v in dict(graph["givens"]).items()}
    for step in graph["steps"]:
        output, text = str(step["output"]), str(step["expression"])
        try:
            expr = parse_expression(text)
        except FormulaSyntaxError as exc:
            raise ValueError(f"step {output} = {text!r} does not parse: {exc}") from exc
        unknown = sorted(str(s) for s in expr.free_symbols if str(s).rstrip("_") not in values)
        if unknown:
            raise ValueError(f"step {output} = {text!r} uses {unknown} before they are known")
        subs = {s: values[str(s).rstrip("_")] for s in expr.free_symbols}
        value = complex(expr.evalf(subs=subs))
        if value.imag or not math.isfinite(value.real):
            raise ValueError(f"step {output} = {text!r} gives {value}, not a finite real number")
        values[output] = value.real
    if graph["target"] not in values:
        raise ValueError(f"the target {graph['target']!r} is neither a given nor a step output")
    return values


def check_solution_graph(item: Item, question: str) -> Verdict:
    """The item's answer is what its solution graph computes, from givens its text states.

    Args:
        item: A computed item (with ``metadata.solution_graph``).
        question: The problem text the test-taker reads.

    Returns:
        The ``solution_graph`` verdict; not applicable (ok) for items without a graph.
    """
    meta = item.metadata or {}
    graph = meta.get("solution_graph")
    if not graph:
        return Verdict(check=SOLUTION, ok=True, reason="not applicable: no solution graph")
    try:
        values = execute_graph(graph)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError) as exc:
        return _fail(f"the solution graph does not execute: {exc}")
    expected = values[graph["target"]]
    tolerance = float(meta.get("tolerance") or NUMERIC_TOLERANCE)
    stated = printed_numbers(question)
    for name, value in dict(graph["givens"]).items():
        if not any(_close(float(value), s, 1e-9) for s in stated):
            return _fail(f"the given {name} = {value} is not stated in the question")
    if item.choices:
        if item.target not in LETTERS[: len(item.choices)]:
            return _fail(f"target {item.target!r} names no choice")
        chosen = item.choices[LETTERS.index(item.target)]
        got = printed_numbers(chosen)
        if not got or not _close(got[0], expected, tolerance):
            return _fail(f"choice {item.target} ({chosen}) is not the computed {expected:.6g}")
        twins = [
            c
            for i, c in enumerate(item.choices)
            if i != LETTERS.index(item.target)
            and printed_numbers(c)
            and _close(printed_numbers(c)[0], expected, tolerance)
        ]
        if twins:
            return _fail(f"choices {twins} are as close to the computed {expected:.6g}")
    else:
        got = printed_numbers(str(item.target))
        if len(got) != 1:
            return _fail(f"target {item.target!r} is not one number")
        value = got[0] / 100 if meta.get("unit") == "percent" else got[0]
        if not _close(value, expected, tolerance):
            return _fail(f"target {item.target!r} is not the computed {expected:.6g}")
    return Verdict(check=SOLUTION, ok=True, reason=f"{graph['target']} = {expected:.6g} recomputed")

"""Solving formulas for an unknown: roots built directly, and sympy's flags, give sympy's roots."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import sympy as sp

from benchsmith.solution.graph import _SOLVE_FLAGS, _sign
from benchsmith.solution.isolation import fast_roots
from benchsmith.solution.knowledge import build_knowledge

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = [
    ROOT / "examples/references/time-value-of-money.md",
    *sorted((Path(__file__).resolve().parent / "chapters").glob("*.md")),
]


def _value(expr: sp.Expr, values: dict[str, float]) -> float | None:
    """``expr`` on ``values`` as a step computes it (math), None where it is undefined."""
    names = sorted(values)
    function = sp.lambdify([sp.Symbol(n) for n in names], expr, modules="math")
    try:
        value = float(function(*(values[n] for n in names)))
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    return value if math.isfinite(value) else None


def _cases():
    """(chapter, formula, unknown, symbols with the graph's sign assumptions) of every chapter."""
    for chapter in CHAPTERS:
        graph = build_knowledge([chapter]).graph
        for formula in graph.formulas:
            symbols = {
                n: sp.Symbol(n, **{_sign(graph.quantities.get(n)): True}) for n in formula.names
            }
            for unknown in sorted(formula.inputs):
                yield chapter.stem, formula, unknown, symbols


CASES = list(_cases())


def _fast(formula, unknown, symbols):
    expr = formula.expr.xreplace({sp.Symbol(n): s for n, s in symbols.items()})
    return expr, fast_roots(expr, symbols[formula.output], symbols[unknown])


@pytest.mark.parametrize(
    ("chapter", "formula", "unknown", "symbols"),
    CASES,
    ids=[f"{c}-{f.id}-{u}" for c, f, u, _ in CASES],
)
def test_fast_roots_are_sympys_roots(chapter, formula, unknown, symbols):
    expr, fast = _fast(formula, unknown, symbols)
    if fast is None:
        return  # not a kind the fast path takes: sympy solves it
    try:
        slow = sp.solve(sp.Eq(symbols[formula.output], expr), symbols[unknown], rational=False)
    except NotImplementedError:
        slow = []
    assert len(fast) == len(slow)
    plain = {s: sp.Symbol(n) for n, s in symbols.items()}
    rng = random.Random(f"{chapter}:{formula.id}:{unknown}")
    names = sorted(formula.names - {unknown})
    for _ in range(30):
        values = {n: rng.uniform(0.01, 5.0) for n in names}
        for a, b in zip(fast, slow, strict=True):
            va, vb = (_value(r.xreplace(plain), values) for r in (a, b))
            assert (va is None) == (vb is None), (a, b, values)
            if va is not None:
                assert va == pytest.approx(vb, rel=1e-9, abs=1e-12), (a, b, values)


def test_the_fast_path_takes_most_of_the_time_value_chapter():
    cases = [(f, u, s) for c, f, u, s in CASES if c == "time-value-of-money"]
    taken = {(f.id, u) for f, u, s in cases if _fast(f, u, s)[1] is not None}
    assert len(cases) == 44 and len(taken) == 38
    # Left to sympy: the unknown in both a base and an exponent, or as a rate in an annuity
    # (r and (1 + r)^n together: no closed form).
    assert {("f2", "m"), ("f7", "r"), ("f13", "r")}.isdisjoint(taken)
    assert {("f3", "n"), ("f12", "k"), ("f14", "C_0"), ("f2", "j")} <= taken


@pytest.mark.parametrize(
    ("rhs", "unknown", "expected"),
    [
        ("PV*(1 + r)**n", "n", ["log(FV/PV)/log(r + 1)"]),  # isolation through a power
        ("PV*(1 + r)**n", "r", ["(FV/PV)**(1/n) - 1"]),
        ("(C + NPV)/C", "C", ["-NPV/(1 - FV)"]),  # linear once denominators are cleared
        ("-x", "x", []),  # contradicts x > 0: dropped, as sympy's check drops it
        ("P*(1 + r)**k - M*((1 + r)**k - 1)/r", "k", ["log((FV*r - M)/(-M + P*r))/log(r + 1)"]),
        # A growing annuity for n: sympy's heuristics find no root, isolation does.
        (
            "M*(1 - ((1 + x)/(1 + r))**n)/(r - x)",
            "n",
            ["log(-FV*(r - x)/M + 1)/log((x + 1)/(r + 1))"],
        ),
        ("x**2 + x", "x", None),  # a quadratic: sympy's
        ("x*(1 + x)**n", "x", None),  # no closed form: sympy's (which finds none)
        ("(x/m + 1)**m", "m", None),  # in a base and an exponent: sympy's
    ],
)
def test_fast_roots_by_kind(rhs, unknown, expected):
    names = {n: sp.Symbol(n, positive=True) for n in ("PV", "FV", "r", "n", "C", "k", "P", "M")}
    names |= {"x": sp.Symbol("x", positive=True), "m": sp.Symbol("m", positive=True)}
    names["NPV"] = sp.Symbol("NPV", real=True)
    expr = sp.sympify(rhs, locals=names)
    roots = fast_roots(expr, names["FV"], names[unknown])
    assert (None if roots is None else [str(r) for r in roots]) == expected


def test_sympys_cheaper_flags_give_its_roots_on_the_chapters():
    # What the fast path leaves to sympy is solved without the Lambert-W search and the
    # all-positive retry: on every chapter, the roots are those of a plain solve.
    left = [(c, f, u, s) for c, f, u, s in CASES if _fast(f, u, s)[1] is None]
    assert len(left) == 14  # 12 from the first chapters; valuation.md: y in P, m in EAR
    for _, formula, unknown, symbols in left:
        equation = sp.Eq(
            symbols[formula.output],
            formula.expr.xreplace({sp.Symbol(n): s for n, s in symbols.items()}),
        )
        found = []
        for flags in ({"rational": False}, _SOLVE_FLAGS):
            try:
                found.append(sp.solve(equation, symbols[unknown], **flags))
            except NotImplementedError:
                found.append("no algorithm")
        assert found[0] == found[1], (formula.id, unknown)

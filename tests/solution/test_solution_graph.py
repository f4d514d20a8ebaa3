"""Admission, solving for an unknown, k-step derivations, execution."""

import math
import random

import pytest

from benchsmith.solution.admission import admission_reason, admit
from benchsmith.solution.documents import Source
from benchsmith.solution.expressions import parse_expression
from benchsmith.solution.formulas import Formula
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import execute, instantiate
from benchsmith.solution.quantities import Quantity

SRC = Source("t.md", "T", 0, 1)
Q = {
    "PV": Quantity("PV", "present value", "currency", 100, 100_000),
    "FV": Quantity("FV", "future value", "currency", 100, 5_000_000),
    "r": Quantity("r", "rate per period", "percent", 0.001, 0.12),
    "j": Quantity("j", "nominal annual rate", "percent", 0.01, 0.12),
    "m": Quantity("m", "periods per year", "count", 1, 12, True, (1, 2, 4, 12)),
    "t": Quantity("t", "term", "years", 1, 30, True),
    "n": Quantity("n", "number of periods", "periods", 1, 360, True),
}


def formula(fid, output, rhs, concept="C"):
    return Formula(fid, output, parse_expression(rhs), f"{output} = {rhs}", "line", SRC, concept)


FV = formula("f0", "FV", "PV*(1+r)**n", "Future value")
RATE = formula("f1", "r", "j/m", "Rates")
PERIODS = formula("f2", "n", "m*t", "Rates")


def graph():
    return SolutionGraph(Q, [FV, RATE, PERIODS])


def test_admission_rejects_non_finite_with_reason():
    bad = formula("b", "FV", "log(-PV)")
    reason = admission_reason(bad, Q, random.Random(0))
    assert reason.startswith("non-finite result (ValueError: math domain error) at PV=")


def test_admission_rejects_out_of_range_with_reason():
    bad = formula("b", "r", "j*100")  # a percent used as a whole number
    reason = admission_reason(bad, Q, random.Random(0))
    assert reason.startswith("results out of range: 0 of 64 sampled results in [0.001, 0.12] for r")


def test_admission_rejects_unknown_quantity():
    admitted, rejected = admit([FV, formula("x", "Z", "PV*W")], Q)
    assert admitted == [FV]
    assert rejected[0].reason == "unknown quantities ['W', 'Z']"


def test_solving_for_an_unknown():
    g = graph()
    forms = {f.formula.id: f for f in g.forms_for("n")}
    solved = forms["f0"]
    assert solved.inverted
    assert solved.strings == ("log(FV/PV)/log(r + 1)",)  # isolated: divide by PV, take logs
    step_value = solved.functions[0](1628.894626777442, 1000.0, 0.05)  # inputs: FV, PV, r
    assert step_value == pytest.approx(10.0, rel=1e-12)
    r_form = next(f for f in g.forms_for("r") if f.formula.id == "f0")
    assert r_form.functions[0](2000.0, 1000.0, 12.0) == pytest.approx(2 ** (1 / 12) - 1)


def test_three_step_derivation_executes_exactly():
    g = graph()
    final = g.forms_for("FV")[0]
    chains = g.derivations(final, 3)
    keys = {d.key(): d for d in chains}
    natural = keys[(("f2", "n"), ("f1", "r"), ("f0", "FV"))]
    assert natural.givens == ("PV", "j", "m", "t")
    problem = execute(natural, {"PV": 1000.0, "j": 0.06, "m": 12.0, "t": 10.0}, g)
    assert problem.steps == (("n", "m*t"), ("r", "j/m"), ("FV", "PV*(r + 1)**n"))
    assert problem.values["n"] == 120.0
    assert problem.values["r"] == pytest.approx(0.005)
    assert problem.answer == pytest.approx(1000 * 1.005**120)
    assert problem.solution_graph() == {
        "givens": {"PV": 1000.0, "j": 0.06, "m": 12.0, "t": 10.0},
        "steps": [
            {"output": "n", "expression": "m*t"},
            {"output": "r", "expression": "j/m"},
            {"output": "FV", "expression": "PV*(r + 1)**n"},
        ],
        "target": "FV",
    }


def test_derivation_lengths_and_no_cycles():
    g = graph()
    for k in (1, 2, 3):
        for form in g.final_forms():
            for d in g.derivations(form, k):
                assert d.k == k
                outputs = [s.output for s in d.steps]
                assert len(set(outputs)) == k and not set(outputs) & set(d.givens)
    assert g.derivations(g.forms_for("FV")[0], 4) == []


def test_over_determined_givens_are_refused():
    # r = j/m and a formula tying r, j and m differently: a chain whose quantities include
    # j, m and r while using only one of them would be over-determined.
    double = formula("f3", "r", "j/(2*m)", "Rates")
    g = SolutionGraph(Q, [FV, RATE, PERIODS, double])
    for form in g.final_forms():
        for d in g.derivations(form, 2):
            names = set(d.givens) | {s.output for s in d.steps}
            assert not {"r", "j", "m"} <= names


def test_instantiate_keeps_values_in_range():
    g = graph()
    solved_r = next(f for f in g.forms_for("r") if f.formula.id == "f0")
    derivation = g.derivations(solved_r, 1)[0]
    rng = random.Random(3)
    for _ in range(50):
        problem = instantiate(derivation, g, rng)
        assert problem is not None
        assert Q["r"].low <= problem.answer <= Q["r"].high
        assert math.isclose(
            problem.givens["PV"] * (1 + problem.answer) ** problem.givens["n"],
            problem.givens["FV"],
            rel_tol=1e-9,
        )

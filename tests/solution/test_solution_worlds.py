"""Consistent worlds, alternative models of one quantity, and plausible derived values."""

import random

from test_solution_graph import FV, PERIODS, RATE, Q, formula

from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import instantiate, mentioned
from benchsmith.solution.quantities import Quantity, parse_definition
from benchsmith.solution.worlds import alternatives, draw_world, part_of, violations

FVC = formula("f3", "FVC", "PV*exp(j*t)", "Continuous")
QUANTITIES = Q | {
    "FVC": Quantity("FVC", "future value under continuous compounding", "currency", 100, 5e6)
}


def test_a_world_satisfies_every_formula_and_keeps_counts_whole():
    g = SolutionGraph(QUANTITIES, [FV, RATE, PERIODS, FVC])
    part = part_of(g, {"FV"})
    assert part == {"FV", "PV", "r", "n", "j", "m", "t", "FVC"}
    rng = random.Random(1)
    worlds = [w for w in (draw_world(g, part, rng) for _ in range(50)) if w]
    # a world drawn in any order may derive a count that is not whole: it is refused
    assert len(worlds) >= 25  # 30 of 50 with this seed
    for world in worlds:
        assert violations(g, world, 1e-9) == []
        assert world["m"] in (1, 2, 4, 12) and world["n"] == world["m"] * world["t"]


def test_any_quantity_may_be_derived_in_some_worlds():
    # n = m t with n drawn: t derived; with t drawn: n derived. Both happen.
    g = SolutionGraph(QUANTITIES, [FV, RATE, PERIODS, FVC])
    part = part_of(g, {"FV"})
    rng = random.Random(2)
    worlds = [w for w in (draw_world(g, part, rng) for _ in range(200)) if w]
    derived_pv = [w for w in worlds if not float(w["PV"]).is_integer()]
    assert derived_pv and len(derived_pv) < len(worlds)  # PV drawn in some, derived in others
    for world in worlds:
        assert world["m"] in (1, 2, 4, 12)


def test_two_models_of_one_sum_are_alternatives_and_never_meet():
    g = SolutionGraph(QUANTITIES, [FV, RATE, PERIODS, FVC])
    assert alternatives(g) == {frozenset({"FV", "FVC"})}
    # a formula relating both makes them no longer alternatives
    link = formula("f4", "FVC", "FV*exp(j*t)/(1+r)**n", "Link")
    assert alternatives(SolutionGraph(QUANTITIES, [FV, RATE, PERIODS, FVC, link])) == set()


def test_givens_agree_through_a_hidden_quantity():
    # FV from PV, r, n with j and t around: r = j/m and n = m t share the hidden m.
    g = SolutionGraph(Q, [FV, RATE, PERIODS])
    rng = random.Random(5)
    final = g.forms_for("FV")[0]
    for derivation in g.derivations(final, 1):
        for _ in range(20):
            problem = instantiate(derivation, g, rng)
            assert problem is not None
            assert set(problem.values) == set(mentioned(derivation))
            assert problem.givens["n"] == round(problem.givens["n"])


def test_kinds_give_units_and_sane_bounds():
    price = parse_definition("P", "the price of the bond")
    assert (price.unit, price.bounds[0] > 0) == ("currency", True)
    assert not price.contains(-5.0)
    rate = parse_definition("y", "the yield to maturity")
    assert rate.unit == "percent" and not rate.contains(3.5)  # 350 % is not a plausible rate
    count = parse_definition("N", "the number of coupon payments")
    assert (count.unit, count.integer) == ("count", True)
    years = parse_definition("T", "the number of years to maturity")
    assert (years.unit, years.integer) == ("years", True)
    speed = parse_definition("v", "the final velocity in metres per second (m/s)")
    assert (speed.description, speed.symbol) == ("final velocity", "m/s")


def test_no_problem_joins_the_situations_of_two_sections():
    # Reviewed items read "The outstanding balance is $4,745.50. The principal borrowed is
    # $6,998.00. ... The future value is $1,657.16. What is the present value?": the number
    # of periods was solved from the loan and used to discount an unrelated sum, so "the
    # present value" read as the loan's principal. And "The cash flow received each period
    # is $45,018.00 ... The present value of the annuity is $5,166.00. What is the payment
    # made each period?" joined an investment's periods to another annuity.
    from pathlib import Path

    from benchsmith.solution.generate import plan_cells
    from benchsmith.solution.knowledge import build_knowledge
    from benchsmith.solution.worlds import crosses_scenarios

    chapter = Path(__file__).parents[2] / "examples" / "references" / "time-value-of-money.md"
    graph = build_knowledge([chapter]).graph
    section = {f.output: f.source.section for f in graph.formulas}
    loan = [f for f in graph.forms_for("n") if "Loan" in f.formula.source.section]
    final = next(f for f in graph.forms_for("PV") if "Present value" in f.formula.concept)
    joined = [
        d
        for d in graph.derivations(final, 3, cap=500)
        if any(s.formula.id in {f.formula.id for f in loan} and s.output == "n" for s in d.steps)
    ]
    assert joined, "the chapter has a chain from a loan's periods to a present value"
    for d in joined:
        assert crosses_scenarios(d, graph) is not None
    # the rates section computes what it defines (r = j / m, n = m t): those chains stay
    rates = next(f for f in graph.forms_for("r") if f.formula.output == "r")
    kept = [d for d in graph.derivations(final, 2, cap=500) if d.steps[0].formula is rates.formula]
    assert kept and all(crosses_scenarios(d, graph) is None for d in kept)
    plans, _unfillable = plan_cells(graph, (1, 2, 3), seed=0)
    for plan in plans.values():
        for d in plan.derivations:
            assert crosses_scenarios(d, graph) is None, [s.formula.text for s in d.steps]
    assert section  # every admitted formula has its section


def _chapter_graph():
    from pathlib import Path

    from benchsmith.solution.knowledge import build_knowledge

    chapter = Path(__file__).parents[2] / "examples" / "references" / "time-value-of-money.md"
    return build_knowledge([chapter]).graph


def test_continuous_compounding_never_meets_periods_per_year():
    # "The effective annual rate is 7.392%. The number of compounding periods per year is 2.
    # The future value under continuous compounding is $2,436.93. ... What is the present
    # value?": periods per year mean nothing under continuous compounding.
    from benchsmith.solution.generate import plan_cells
    from benchsmith.solution.worlds import general_sides, mixes_with_general

    graph = _chapter_graph()
    pairs = alternatives(graph)
    sides = general_sides(graph, pairs)
    assert set(sides) == {"FVC"}  # "present value of the annuity" is not a model of PV
    assert {"r", "n", "m", "EAR"} <= sides["FVC"] and not {"PV", "j", "t"} & sides["FVC"]
    assert mixes_with_general({"FVC", "PV", "EAR", "m", "t", "j"}, graph, pairs) == ("FVC", "EAR")
    assert mixes_with_general({"FVC", "PV", "j", "t"}, graph, pairs) is None
    assert mixes_with_general({"PVA", "PMT", "m", "t", "r", "n"}, graph, pairs) is None
    plans, _unfillable = plan_cells(graph, (1, 2, 3), seed=0)
    for plan in plans.values():
        for d in plan.derivations:
            assert mixes_with_general(mentioned(d), graph, pairs) is None


def test_a_problem_is_cut_only_from_a_plausible_situation():
    # "The cash flow received each period is $18,284.00. The initial investment is
    # $1,027.00. ... What is the net present value?": a profitability index of 364 where the
    # chapter says 0.1 to 10, though the problem never names it.
    graph = _chapter_graph()
    final = next(f for f in graph.forms_for("NPV") if f.formula.output == "NPV")
    [chain] = [d for d in graph.derivations(final, 1) if set(d.givens) == {"CF", "C_0", "n", "r"}]
    rng = random.Random(0)
    for _ in range(30):
        problem = instantiate(chain, graph, rng)
        if problem is None:
            continue
        pi = (problem.answer + problem.givens["C_0"]) / problem.givens["C_0"]
        assert graph.quantities["PI"].contains(pi)

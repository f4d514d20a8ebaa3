"""Distractor rules, template wording and its checks, formatting, coverage allocation."""

import pytest
from test_solution_graph import FV, PERIODS, RATE, Q, formula

from benchsmith.solution.coverage import CoverageReport, allocate
from benchsmith.solution.distractors import candidate_mistakes, choose_distractors
from benchsmith.solution.formatting import format_value, parse_value
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import execute
from benchsmith.solution.wording import check_text, template_text

PV_FORMULA = formula("f3", "PV", "FV/(1+r)**n", "Future value")
GIVENS = {"PV": 1000.0, "j": 0.06, "m": 12.0, "t": 10.0}


def problem():
    g = SolutionGraph(Q, [FV, RATE, PERIODS, PV_FORMULA])
    chain = next(
        d
        for d in g.derivations(g.forms_for("FV")[0], 3)
        if d.key() == (("f2", "n"), ("f1", "r"), ("f0", "FV"))
    )
    return g, execute(chain, GIVENS, g)


def test_distractor_rules_exact_values():
    g, p = problem()
    found = {(d.mistake, d.detail): d.value for d in candidate_mistakes(p, g)}
    assert found[("skipped_step", "j used as r")] == pytest.approx(1000 * 1.06**120)
    assert len(found) == 4  # n = m t has no input of the unit of n: no skipped-step variant
    assert found[("unit_slip", "j read as 6")] == pytest.approx(1000 * 1.5**120)
    assert found[("off_by_one", "t taken as 11")] == pytest.approx(1000 * 1.005**132)
    # the present value formula applied with the given PV standing in for FV
    assert found[("wrong_formula", "PV = FV/(r + 1)**n")] == pytest.approx(1000 / 1.005**120)


def test_chosen_distractors_are_distinct_beyond_tolerance():
    g, p = problem()
    chosen = choose_distractors(p, g, tolerance=0.01)
    # the unit slip (1000 * 1.5**120) and the skipped step (1000 * 1.06**120, 600 times the
    # answer) are not plausible choices: a distractor keeps the answer's order of magnitude
    assert [d.mistake for d in chosen] == ["wrong_formula", "off_by_one"]
    values = [p.answer] + [d.value for d in chosen]
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            assert abs(a - b) > 0.02 * abs(a)


def test_computed_items_say_they_are_english():
    from benchsmith.solution.items import base_metadata

    g, p = problem()
    assert base_metadata(p, g, "computed", "numeric", 0.01)["language"] == "en"


def test_template_text_and_checks():
    g, p = problem()
    text = template_text(p, g, "numeric")
    assert text == (
        "The periods per year is 12. The term is 10 years. The nominal annual rate is 6%. "
        "The present value is $1,000.00.\n"
        "What is the future value? Give the answer in dollars, to the nearest cent."
    )
    assert check_text(text, p, g) == []
    assert check_text(text.replace("6%", "six percent"), p, g) == [
        "the given j must appear exactly as 6%"
    ]
    assert check_text(text.replace("future value", "result"), p, g) == [
        "the text must ask for the future value"
    ]
    leaked = text + f" (It is {format_value(p.answer, Q['FV'])}.)"
    assert check_text(leaked, p, g) == ["the text must not state the answer"]


def test_formatting_round_trip():
    assert format_value(1234.5, Q["FV"]) == "$1,234.50"
    assert format_value(0.0425, Q["r"]) == "4.25%"
    assert format_value(0.00123456, Q["r"]) == "0.1235%"
    assert format_value(7.0, Q["t"]) == "7 years"
    assert format_value(14.2049, Q["n"]) == "14.2 periods"
    assert parse_value("$1,234.50") == 1234.5
    assert parse_value("4.25%") == pytest.approx(0.0425)
    assert parse_value("1.368e-09") == 1.368e-09


def test_allocation_even_and_weighted():
    cells = [("A", 1), ("A", 2), ("B", 1)]
    assert allocate(10, cells) == {("A", 1): 4, ("A", 2): 3, ("B", 1): 3}
    assert allocate(10, cells, weights={"A": 1, "B": 3}) == {("A", 1): 2, ("A", 2): 2, ("B", 1): 6}
    assert allocate(4, cells, weights={("B", 1): 1}) == {("A", 1): 0, ("A", 2): 0, ("B", 1): 4}
    assert allocate(0, cells) == {c: 0 for c in cells}


def test_coverage_table_marks_unfillable_cells():
    report = CoverageReport(
        ["A", "B"],
        [1, 2],
        produced={("A", 1): 3, ("A", 2): 2, ("B", 1): 5},
        unfillable={("B", 2): "no chain of 2 step(s) ends in a formula of it"},
    )
    assert report.table() == (
        "| concept | k=1 | k=2 | total |\n"
        "| --- | ---: | ---: | ---: |\n"
        "| A | 3 | 2 | 5 |\n"
        "| B | 5 | - | 5 |\n"
        "| total | 8 | 2 | 10 |\n"
        "\n"
        "- B k=2: no chain of 2 step(s) ends in a formula of it"
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.009999384653252109, "0.0100"), (9.9996, "10.0"), (0.0452, "0.0452"), (1830.4, "1830")],
)
def test_three_significant_figures_stay_three_when_rounding_reaches_a_power_of_ten(value, text):
    # 0.009999 was printed "0.01000" (four figures) for "to three significant figures".
    from benchsmith.solution.formatting import _significant

    assert _significant(value, 3) == text

"""A formula whose units, as the text writes them, disagree is refused with the reason."""

from __future__ import annotations

import pytest
import sympy as sp

from benchsmith.solution.dimensions import parse_unit, unit_disagreement
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.solution.quantities import Quantity


@pytest.mark.parametrize(
    ("written", "si"),
    [
        ("m²·K/W", "kelvin*meter**2/watt"),
        ("J/(g·°C)", "joule/(gram*kelvin)"),
        ("mg/L", "gram/(1000*liter)"),
        ("1/°C", "1/kelvin"),
        ("kΩ", "1000*ohm"),
        ("m³/s", "meter**3/second"),
    ],
)
def test_units_as_texts_write_them(written, si):
    assert str(parse_unit(written)) == si


@pytest.mark.parametrize("written", ["persons", "EUR/(kW*h)", "", "m/s/"])
def test_a_unit_not_understood_is_none(written):
    assert parse_unit(written) is None


def given(**units: str) -> dict[str, Quantity]:
    return {n: Quantity(n, n, "number", symbol=u) for n, u in units.items()}


Q, C, V, P, E, t, x, y = sp.symbols("Q_ C V P E_ t x y")


@pytest.mark.parametrize(
    ("output", "expr", "units", "reason"),
    [
        ("Q_", C * V, {"Q_": "C", "C": "F", "V": "V"}, None),
        ("Q_", C * V, {"Q_": "μC", "C": "F", "V": "V"}, "by a factor of 1e+06"),
        ("P", E / t, {"P": "W", "E_": "J", "t": "h"}, "by a factor of 0.000277778"),
        ("P", E / t, {"P": "W", "E_": "J", "t": "s"}, None),
        ("x", y + 1, {"x": "m", "y": "s"}, "its units disagree (x in m, y in s)"),
        # the text's own constant converts mm times ha into m³: only dimensions are checked
        ("V", 10 * x * y, {"V": "m³", "x": "mm", "y": "ha"}, None),
        ("V", 10 * x * y, {"V": "m³", "x": "mm", "y": "s"}, "its units disagree"),
        # a unit the module does not know leaves the formula unchecked
        ("x", 2 * y, {"x": "persons", "y": "s"}, None),
    ],
)
def test_a_formula_agrees_with_its_units_or_says_why(output, expr, units, reason):
    found = unit_disagreement(output, expr, given(**units))
    if reason is None:
        assert found is None
    else:
        assert found is not None and reason in found


def test_an_assumed_unit_leaves_the_formula_unchecked():
    quantities = given(x="m", y="s")
    quantities["y"] = Quantity("y", "y", "number", symbol="s", assumed=("unit",))
    assert unit_disagreement("x", y + 1, quantities) is None


def test_a_chapter_whose_units_disagree_with_a_formula_loses_that_formula(tmp_path):
    chapter = tmp_path / "power.md"
    chapter.write_text(
        "# Power\n\nThe electric power $P$ is the energy $E$ used per time $t$:\n\n"
        "$$P = \\frac{E}{t}$$\n\nThe power $P$ is in watts, the energy $E$ in joules and the "
        "time $t$ in hours. A kettle uses $E = 7200$ J in $t = 2$ h.\n",
        encoding="utf-8",
    )
    knowledge = build_knowledge([chapter])
    quantities = knowledge.graph.quantities
    assert (quantities["P"].symbol, quantities["E_"].symbol, quantities["t"].symbol) == (
        "W",
        "J",
        "h",
    )
    assert not knowledge.graph.formulas
    (reason,) = [r.reason for r in knowledge.rejected if "units disagree" in r.reason]
    assert "factor of 0.000277778" in reason
    # in seconds it agrees, and the formula is admitted
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("hours", "seconds")
                       .replace("2$ h", "2$ s"), encoding="utf-8")  # fmt: skip
    assert [f.output for f in build_knowledge([chapter]).graph.formulas] == ["P"]


def test_money_per_a_unit_is_checked_as_dollars_per_that_unit():
    quantities = given(E_="Wh")
    quantities["cost"] = Quantity("cost", "cost", "currency")
    quantities["p"] = Quantity("p", "price", "currency", per="kilowatt-hour")
    cost, price = sp.symbols("cost p")
    assert unit_disagreement("cost", E * price / 1000, quantities) is None
    quantities["E_"] = Quantity("E_", "energy", "number", symbol="s")
    assert "its units disagree" in (unit_disagreement("cost", E * price / 1000, quantities) or "")

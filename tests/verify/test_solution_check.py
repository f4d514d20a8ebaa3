"""A computed item is recomputed from its solution graph before it is accepted."""

import pytest

from benchsmith.item import Item
from benchsmith.verify.solution import check_solution_graph, printed_numbers

GRAPH = {
    "givens": {"m": 2.0, "r": 0.02915},
    "steps": [{"output": "j", "expression": "m*r"}],
    "target": "j",
}
TEXT = (
    "The number of compounding periods per year is 2. The interest rate per period is "
    "2.915%.\nWhat is the nominal annual interest rate? Give the answer as a percentage, "
    "to two decimal places."
)


def item(target="5.83", text=TEXT, graph=GRAPH, **kw):
    meta = {"solution_graph": graph, "unit": "percent", "tolerance": 0.01}
    return Item(id="c", input=text, target=target, metadata=meta, **kw)


def test_printed_numbers_read_money_and_percent():
    assert printed_numbers("$4,745.50 at 2.915% for 34 periods") == pytest.approx(
        [4745.5, 0.02915, 34]
    )


def test_a_computed_item_passes_when_its_graph_gives_its_answer():
    verdict = check_solution_graph(item(), TEXT)
    assert verdict.ok and "recomputed" in verdict.reason


def test_a_wrong_target_a_hidden_given_or_a_broken_step_fails():
    assert not check_solution_graph(item(target="5.38"), TEXT).ok
    hidden = TEXT.replace("2.915%", "about three percent")
    verdict = check_solution_graph(item(text=hidden), hidden)
    assert not verdict.ok and "given r" in verdict.reason
    broken = GRAPH | {"steps": [{"output": "j", "expression": "m*q"}]}
    verdict = check_solution_graph(item(graph=broken), TEXT)
    assert not verdict.ok and "before they are known" in verdict.reason
    hostile = GRAPH | {"steps": [{"output": "j", "expression": "__import__('os')"}]}
    assert not check_solution_graph(item(graph=hostile), TEXT).ok


def test_choices_need_the_computed_value_at_the_target_and_nowhere_else():
    graph = {
        "givens": {"PV": 1000.0, "r": 0.05},
        "steps": [{"output": "FV", "expression": "PV*(r + 1)"}],
        "target": "FV",
    }
    text = "The present value is $1,000.00. The rate is 5%.\nWhat is the future value?"

    def mc(choices, target):
        meta = {"solution_graph": graph, "unit": "currency", "tolerance": 0.01}
        return Item(id="m", input=text, choices=choices, target=target, metadata=meta)

    assert check_solution_graph(mc(["$1,000.00", "$1,050.00", "$1,500.00"], "B"), text).ok
    assert not check_solution_graph(mc(["$1,000.00", "$1,050.00", "$1,500.00"], "C"), text).ok
    twins = mc(["$1,050.00", "$1,051.00", "$1,500.00"], "A")
    assert "as close" in check_solution_graph(twins, text).reason


def test_verify_rejects_a_computed_item_its_graph_contradicts(tmp_path):
    from benchsmith.agents.verification import verify
    from benchsmith.spec import Subtask

    subtask = Subtask(id="c", name="Computed", description="d", answer_format="numeric")
    common = {
        "subtask": subtask, "bench_dir": tmp_path, "languages": None,
        "judge": None, "duplicates": None,
    }  # fmt: skip
    assert verify(item(), question=TEXT, **common).ok
    wrong = verify(item(target="6.83"), question=TEXT, **common)
    assert not wrong.ok and wrong.failed_check == "solution_graph"

"""The teacher (``teacher.py``) accepts a sound problem and rejects each kind of fault."""

from __future__ import annotations

import copy

import pytest
from teacher import review

KEY = {
    "formulas": [{"sympy": "C = c*F"}, {"sympy": "CY = C/P"}],
    "symbols": {
        "C": {"words": ["annual coupon payment", "coupon payment"], "unit": "$", "range": None},
        "c": {"words": ["coupon rate"], "unit": "", "range": [0.01, 0.12]},
        "F": {"words": ["face value", "par value"], "unit": "$", "range": [100, 10000]},
        "P": {"words": ["price of the bond", "bond price"], "unit": "$", "range": None},
        "CY": {"words": ["current yield"], "unit": "", "range": None},
    },
}
GOOD = {
    "input": "The face value is $1,000.00. The coupon rate is 5%. The price of the bond is "
    "$950.00.\nWhat is the current yield? Give the answer as a percentage.",
    "metadata": {
        "answer_value": 50 / 950,
        "solution_graph": {
            "givens": {"F": 1000.0, "c": 0.05, "P": 950.0},
            "steps": [{"output": "C", "expression": "c*F"}, {"output": "CY", "expression": "C/P"}],
            "target": "CY",
        },
    },
}


def bad(**changes) -> dict:
    item = copy.deepcopy(GOOD)
    for path, value in changes.items():
        if path == "input":
            item["input"] = value
        else:
            item["metadata"]["solution_graph"][path] = value
    return item


def test_a_sound_problem_is_accepted():
    assert review(GOOD, KEY) == []


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (bad(input=GOOD["input"].replace("The face value", "The principal")),
         "not described as the text does"),
        (bad(givens={"F": 1000.0, "c": 0.5, "P": 950.0}), "outside the stated range"),
        (bad(input=GOOD["input"].replace("current yield", "return")), "does not ask for CY"),
        (bad(givens={"F": 1000.0, "c": 0.05, "P": 950.0, "CY": 0.05}), "which it gives"),
        (bad(steps=[{"output": "C", "expression": "c+F"}, {"output": "CY", "expression": "C/P"}]),
         "none of the text's formulas"),
        (bad(target="Q", input=GOOD["input"].replace("current yield", "book-to-market ratio")),
         "not one of the text's"),
        (bad(input=GOOD["input"].replace("$1,000.00", "1,000.00")),
         "F is in $ in the text; the item uses no unit"),
        (bad(input=GOOD["input"].replace("$950.00", "950.00 kg")), "the item uses kg"),
        (bad(input=GOOD["input"].replace("as a percentage", "in dollars, to the nearest cent")),
         "CY is in no unit in the text; the item uses dollars"),
    ],
)  # fmt: skip
def test_each_fault_is_named(item, why):
    problems = review(item, KEY)
    assert any(why in p for p in problems), problems


def test_a_multiple_choice_item_gives_its_unit_in_the_choices():
    """ "Choose the correct value." asks no unit: the choices show it, as the student sees."""
    item = bad(input=GOOD["input"].replace("Give the answer as a percentage.", "Choose one."))
    assert review(item | {"choices": ["4.8%", "5.26%", "6.1%"]}, KEY) == []
    wrong = review(item | {"choices": ["4.8 kg", "5.26 kg", "6.1 kg"]}, KEY)
    assert any("CY is in no unit in the text; the item uses kg" in p for p in wrong), wrong


def test_inches_at_the_end_of_a_sentence_are_a_unit_and_in_before_words_is_not():
    key = copy.deepcopy(KEY)
    key["symbols"]["F"]["unit"] = "in"
    inches = bad(input=GOOD["input"].replace("$1,000.00.", "1,000 in."))
    assert not any("F is in" in p for p in review(inches, key))
    prose = bad(input=GOOD["input"].replace("$1,000.00.", "1,000 in all."))
    assert any("F is in in in the text; the item uses no unit" in p for p in review(prose, key))


def test_a_wrong_recorded_answer_is_a_mismatch():
    item = copy.deepcopy(GOOD)
    item["metadata"]["answer_value"] = 0.06
    assert any("recomputed" in p for p in review(item, KEY))


def test_a_quantity_is_known_by_the_text_s_words_whatever_its_symbol():
    """A teacher reads words: the item's own name for the current yield is fine."""
    item = copy.deepcopy(GOOD)
    graph = item["metadata"]["solution_graph"]
    graph["target"] = "Current_Yield"
    graph["steps"][1]["output"] = "Current_Yield"
    assert review(item, KEY) == []

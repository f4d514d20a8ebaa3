"""The predicted-difficulty model and the arithmetic of a difficulty mix."""

from __future__ import annotations

import pytest

from benchsmith import difficulty as predicted
from benchsmith.difficulty_mix import (
    DifficultyMixError,
    apportion,
    choose,
    mix_report,
    mix_text,
    parse_mix,
)

BASE = {"steps": 1, "rows": 2, "options": 4, "gap": 0.5, "book": "open"}


def score(**changes):
    return predicted.predict({**BASE, **changes})


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("steps", [1, 2, 3, 5]),
        ("rows", [1, 2, 4, 8, 12]),
        ("options", [2, 3, 4, 6, 0]),  # 0: a free answer, no choice to guess among
        ("filters", [0, 1, 2]),
        ("givens", [2, 3, 5]),
        ("conversions", [0, 1, 2]),
    ],
)
def test_the_score_increases_with_each_parameter(name, values):
    scores = [score(**{name: v}) for v in values]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)


def test_the_score_increases_as_distractors_close_in_on_the_answer():
    gaps = [1.0, 0.5, 0.2, 0.05, 0.0]
    scores = [score(gap=g) for g in gaps]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)
    assert score(gap=3.0) == score(gap=1.0)  # a gap beyond the answer itself is just far


def test_closed_book_is_harder_than_the_same_item_with_its_rows_shown():
    assert score(book="closed") > score(book="open")


def test_a_missing_parameter_adds_nothing_and_the_score_stays_in_bounds():
    assert predicted.features({}) == {}
    assert predicted.predict({}) == pytest.approx(1 / (1 + 2.718281828459045**-predicted.BIAS))
    extreme = predicted.predict({"steps": 40, "rows": 10**6, "filters": 20, "options": 0})
    assert 0 < predicted.predict({}) < extreme <= 1
    assert predicted.features({"steps": True, "rows": "many"}) == {}  # not numbers


def test_labels_come_from_fixed_cut_points():
    low, high = predicted.CUTS
    assert predicted.label_for(0.0) == predicted.label_for(low - 1e-9) == "easy"
    assert predicted.label_for(low) == predicted.label_for(high - 1e-9) == "medium"
    assert predicted.label_for(high) == predicted.label_for(1.0) == "hard"


def test_the_record_holds_params_score_label_and_source():
    record = predicted.model({"steps": 3, "givens": 4, "options": 0})
    assert record["params"] == {"steps": 3, "givens": 4, "options": 0}
    assert record["source"] == "generator"
    assert record["label"] == predicted.label_for(record["score"])
    kept = predicted.from_design_label("hard", {"options": 4})
    assert kept == {"params": {"options": 4}, "score": 0.8333, "label": "hard",
                    "source": "design label"}  # fmt: skip


def test_every_weight_states_its_reason():
    assert all(w.reason and w.weight > 0 for w in predicted.WEIGHTS)
    assert len({w.feature for w in predicted.WEIGHTS}) == len(predicted.WEIGHTS)


def test_digits_size_and_gap_helpers():
    assert predicted.significant_digits("$1,024.50") == 6
    assert predicted.significant_digits("0.0450") == 3
    assert predicted.significant_digits("0") == 1
    assert predicted.magnitude(2500.0) == pytest.approx(3.4, abs=0.01)
    assert predicted.magnitude(0.0) is None
    assert predicted.relative_gap(100.0, [90.0, 130.0]) == 0.1
    assert predicted.relative_gap(100.0, []) is None


# ------------------------------------------------------------------------------ the mix


@pytest.mark.parametrize(
    "text",
    [
        "easy=0.3,medium=0.4,hard=0.3",
        "easy:0.3, medium:0.4, hard:0.3",
        "easy=30%,medium=40%,hard=30%",
        "easy=30,medium=40,hard=30",
        "Easy = 0.3 , MEDIUM=0.4,hard:0.3",
    ],
)
def test_a_mix_is_read_in_every_spelling(text):
    assert parse_mix(text) == {"easy": 0.3, "medium": 0.4, "hard": 0.3}


def test_labels_left_out_get_no_share():
    assert parse_mix("hard=1") == {"easy": 0.0, "medium": 0.0, "hard": 1.0}
    assert mix_text(parse_mix("medium=0.5,hard=0.5")) == "medium=0.5,hard=0.5"
    assert parse_mix("easy=0.335,medium=0.335,hard=0.335")  # within 0.01 of one


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("easy=0.5,hard=0.6", "sum to 1.1"),
        ("easy=0.3,tricky=0.7", "unknown label 'tricky'"),
        ("easy=0.5,easy=0.5", "easy is given twice"),
        ("easy", "'easy' is not LABEL=SHARE"),
        ("easy=-0.5,hard=1.5", "is not LABEL=SHARE"),
        ("", "give shares"),
    ],
)
def test_a_bad_mix_is_refused_naming_the_input(text, says):
    with pytest.raises(DifficultyMixError) as caught:
        parse_mix(text)
    assert says in str(caught.value) and f"--difficulty {text!r}" in str(caught.value)


@pytest.mark.parametrize(
    ("n", "mix", "expected"),
    [
        (10, "easy=0.3,medium=0.4,hard=0.3", (3, 4, 3)),
        (6, "easy=0.3,medium=0.4,hard=0.3", (2, 2, 2)),
        (7, "easy=0.3,medium=0.4,hard=0.3", (2, 3, 2)),
        (5, "easy=0.5,hard=0.5", (3, 0, 2)),  # a tie goes to the easier label
        (0, "hard=1", (0, 0, 0)),
    ],
)
def test_shares_become_whole_items_by_largest_remainders(n, mix, expected):
    counts = apportion(n, parse_mix(mix))
    assert (counts["easy"], counts["medium"], counts["hard"]) == expected
    assert sum(counts.values()) == n


def test_choose_fills_each_shortfall_in_candidate_order_then_the_nearest_label():
    labels = ["medium", "medium", "easy", "medium", "hard", "medium", "easy"]
    chosen, rest = choose(list(range(len(labels))), labels.__getitem__,
                          {"easy": 1, "medium": 2, "hard": 1}, 4)  # fmt: skip
    assert chosen == [0, 1, 2, 4] and rest == [3, 5, 6]
    # Two hard wanted, one made: its other place goes to the nearest label (medium).
    chosen, _rest = choose(list(range(len(labels))), labels.__getitem__,
                           {"easy": 0, "medium": 1, "hard": 2}, 3)  # fmt: skip
    assert [labels[i] for i in chosen].count("hard") == 1 and len(chosen) == 3
    assert [labels[i] for i in chosen].count("medium") == 2
    # Unlabelled candidates (past the generated pool) come last.
    chosen, _rest = choose([0, 1, 2], [None, "easy", "medium"].__getitem__, {"easy": 2}, 2)
    assert chosen == [1, 2]


def test_the_report_says_which_cell_fell_short_and_why():
    report = mix_report(
        parse_mix("easy=0.5,hard=0.5"),
        {"sums": 6, "capitals": 4},
        {"sums": {"easy": 3, "hard": 3}, "capitals": {"medium": 4}},
        {"sums": {"easy": 9, "hard": 3}},
        {"sums": True, "capitals": False},
    )
    assert report["subtasks"]["sums"]["short"] == {}
    assert report["subtasks"]["capitals"]["wanted"] == {"easy": 2, "medium": 0, "hard": 2}
    assert report["achieved_counts"] == {"easy": 3, "medium": 4, "hard": 3}
    assert report["achieved"] == {"easy": 0.3, "medium": 0.4, "hard": 0.3}
    assert report["notes"] == [
        "difficulty mix: capitals: easy 0 of 2 wanted (its items carry the subtask's "
        "design label, not a generated difficulty)",
        "difficulty mix: capitals: hard 0 of 2 wanted (its items carry the subtask's "
        "design label, not a generated difficulty)",
    ]
    short = mix_report(
        parse_mix("hard=1"), {"sums": 6}, {"sums": {"hard": 3, "medium": 3}},
        {"sums": {"hard": 3, "medium": 10}}, {"sums": True},
    )  # fmt: skip
    assert short["notes"] == [
        "difficulty mix: sums: hard 3 of 6 wanted (the generator produced no more)"
    ]

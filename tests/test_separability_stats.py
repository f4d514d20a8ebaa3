"""Paired bootstrap intervals, separability, and the published-versus-fresh gap test."""

import math

import numpy as np
import pytest

from benchsmith import statistics as st


def scores(accuracies, n_items, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random((len(accuracies), n_items)) < np.asarray(accuracies)[:, None]).astype(float)


def test_bootstrap_intervals_contain_the_accuracy_and_are_seeded():
    matrix = scores([0.2, 0.5, 0.8], 300)
    result = st.bootstrap_intervals(matrix, seed=3)
    assert result["rounds"] == 1000 and result["n_items"] == 300
    np.testing.assert_allclose(result["accuracy"], matrix.mean(axis=1))
    for (low, high), acc in zip(result["intervals"], result["accuracy"], strict=True):
        assert low < acc < high
        # Close to the normal approximation's half-width for a proportion.
        half = 1.96 * math.sqrt(acc * (1 - acc) / 300)
        assert (high - low) / 2 == pytest.approx(half, rel=0.2)
    assert st.bootstrap_intervals(matrix, seed=3) == result
    assert st.bootstrap_intervals(matrix, seed=4)["intervals"] != result["intervals"]


def test_bootstrap_intervals_widen_with_fewer_items_and_lower_level():
    matrix = scores([0.3, 0.6], 400, seed=1)
    wide = st.bootstrap_intervals(matrix[:, :40])["intervals"]
    narrow = st.bootstrap_intervals(matrix)["intervals"]
    for (l1, h1), (l2, h2) in zip(wide, narrow, strict=True):
        assert h1 - l1 > 2 * (h2 - l2)  # ten times fewer items: about sqrt(10) wider
    lower = st.bootstrap_intervals(matrix, level=0.5)["intervals"]
    for (l1, h1), (l2, h2) in zip(lower, narrow, strict=True):
        assert h1 - l1 < h2 - l2


def test_bootstrap_resamples_items_not_cells():
    # Two models with identical scores get identical intervals (the same resample of items);
    # an unpaired bootstrap would give each its own.
    row = scores([0.5], 100, seed=2)[0]
    result = st.bootstrap_intervals(np.vstack([row, row]))
    assert result["intervals"][0] == result["intervals"][1]


def test_bootstrap_ignores_missing_scores():
    matrix = scores([0.4, 0.7], 200, seed=5)
    with_gaps = matrix.copy()
    with_gaps[1, ::2] = np.nan
    result = st.bootstrap_intervals(with_gaps)
    assert result["accuracy"][1] == pytest.approx(matrix[1, 1::2].mean())
    low, high = result["intervals"][1]
    assert low < result["accuracy"][1] < high
    # Model 0 is unaffected by model 1's gaps: the same resamples, its own scores.
    assert result["intervals"][0] == st.bootstrap_intervals(matrix)["intervals"][0]
    none_scored = np.vstack([matrix[0], np.full(200, np.nan)])
    result = st.bootstrap_intervals(none_scored)
    assert result["intervals"][1] is None and result["accuracy"][1] is None


@pytest.mark.parametrize(
    ("matrix", "kwargs", "message"),
    [
        (np.ones(4), {}, "matrix"),
        (np.ones((0, 4)), {}, "empty"),
        (np.full((2, 3), 1.5), {}, r"\[0, 1\]"),
        (np.ones((2, 3)), {"rounds": 0}, "rounds"),
        (np.ones((2, 3)), {"level": 1.0}, "level"),
    ],
)
def test_bootstrap_refuses_bad_input(matrix, kwargs, message):
    with pytest.raises(ValueError, match=message):
        st.bootstrap_intervals(matrix, **kwargs)


def test_separability_of_a_constructed_panel():
    matrix = np.vstack([scores([0.2], 300, seed=6), scores([0.9], 300, seed=7)])
    equal = scores([0.6], 300, seed=8)[0]
    matrix = np.vstack([matrix, equal, equal])  # models 2 and 3 answer identically
    result = st.bootstrap_intervals(matrix)
    sep = st.separability(result["intervals"], ["weak", "strong", "twin1", "twin2"])
    assert sep["pairs"] == 6
    assert ("weak", "strong") in sep["separated_pairs"]
    assert ("twin1", "twin2") not in sep["separated_pairs"]
    assert sep["separated"] == 5 and sep["share"] == pytest.approx(5 / 6)


def test_separability_by_hand():
    intervals = [(0.1, 0.2), (0.2, 0.3), (0.25, 0.4), None, (0.5, 0.6)]
    sep = st.separability(intervals)
    # Touching (0.2) overlaps; the missing model is left out: 4 models, 6 pairs.
    assert sep["pairs"] == 6
    assert sep["separated_pairs"] == [("0", "2"), ("0", "4"), ("1", "4"), ("2", "4")]
    assert sep["share"] == pytest.approx(4 / 6)
    assert st.separability([(0.1, 0.2)])["share"] is None
    with pytest.raises(ValueError, match="names"):
        st.separability(intervals, ["a"])
    with pytest.raises(ValueError, match="low"):
        st.separability([(0.3, 0.2), (0.1, 0.2)])


def memorized_pairs(published_rate, fresh_rate, n, seed):
    rng = np.random.default_rng(seed)
    return (rng.random(n) < published_rate).tolist(), (rng.random(n) < fresh_rate).tolist()


def test_paired_gap_detects_a_memorized_model():
    published, fresh = memorized_pairs(0.95, 0.5, 200, seed=0)
    result = st.paired_gap_test(published, fresh)
    assert result["p_value"] < 0.01
    assert result["gap"] == pytest.approx(np.mean(published) - np.mean(fresh))
    assert result["gap"] > 0.3
    low, high = result["interval"]
    assert 0 < low < result["gap"] < high
    counts = result["counts"]
    assert sum(counts.values()) == result["n"] == 200
    # The one-sided test for "published easier" halves the two-sided p-value here ...
    greater = st.paired_gap_test(published, fresh, alternative="greater")
    assert greater["p_value"] == pytest.approx(result["p_value"] / 2)
    # ... and the opposite direction finds nothing.
    assert st.paired_gap_test(published, fresh, alternative="less")["p_value"] > 0.99


def test_paired_gap_finds_nothing_on_equal_accuracy():
    published, fresh = memorized_pairs(0.7, 0.7, 200, seed=0)
    assert st.paired_gap_test(published, fresh)["p_value"] > 0.05
    # Over many seeded panels the test rejects at most about 5 % of the time (exact
    # McNemar is conservative), and the memorized model is caught every time.
    null = [st.paired_gap_test(*memorized_pairs(0.7, 0.7, 200, s))["p_value"] for s in range(200)]
    assert np.mean(np.asarray(null) < 0.05) <= 0.07
    alt = [st.paired_gap_test(*memorized_pairs(0.95, 0.5, 200, s))["p_value"] for s in range(50)]
    assert max(alt) < 0.01


def test_paired_gap_by_hand():
    # b = 3 (published only), c = 0: two-sided p = 2 / 8, one-sided P(X >= 3) = 1 / 8.
    published = [1, 1, 1, 1, 0, None]
    fresh = [0, 0, 0, 1, 0, 1]
    result = st.paired_gap_test(published, fresh)
    assert result["n"] == 5 and result["dropped"] == 1
    assert result["counts"] == {"both": 1, "published_only": 3, "fresh_only": 0, "neither": 1}
    assert result["p_value"] == pytest.approx(0.25)
    assert st.paired_gap_test(published, fresh, alternative="greater")["p_value"] == 0.125
    assert result["gap"] == pytest.approx(0.6)
    assert result["interval"] == st.paired_difference_interval([1, 1, 1, 1, 0], [0, 0, 0, 1, 0])


def test_paired_gap_refuses_bad_input():
    with pytest.raises(ValueError, match="differ in length"):
        st.paired_gap_test([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="no complete pair"):
        st.paired_gap_test([None, float("nan")], [1, 0])
    with pytest.raises(ValueError, match="0/1"):
        st.paired_gap_test([0.5], [1])
    with pytest.raises(ValueError, match="alternative"):
        st.paired_gap_test([1], [0], alternative="bigger")

"""The statistics, pinned against values computed by hand (or independently with numpy)."""

import math

import numpy as np
import pytest

from benchsmith.evaluate import statistics as st


def test_accuracy():
    assert st.accuracy([1, 0, 1, 1]) == 0.75
    assert st.accuracy([]) is None


def test_bootstrap_interval_matches_an_independent_loop():
    scores = [1, 0, 1, 1, 0]
    rng = np.random.default_rng(7)
    means = []
    for _ in range(1000):
        picks = [scores[int(k)] for k in rng.integers(0, 5, size=5)]
        means.append(sum(picks) / 5)
    means.sort()

    def percentile(q):  # numpy's default "linear" method, written out
        pos = q / 100 * (len(means) - 1)
        lo = math.floor(pos)
        return means[lo] + (pos - lo) * (means[min(lo + 1, len(means) - 1)] - means[lo])

    low, high = st.bootstrap_ci(scores, n_boot=1000, seed=7)
    assert low == pytest.approx(percentile(2.5))
    assert high == pytest.approx(percentile(97.5))
    assert 0.0 <= low <= 0.6 <= high <= 1.0


def test_bootstrap_degenerate_cases():
    assert st.bootstrap_ci([1, 1, 1]) == (1.0, 1.0)
    assert st.bootstrap_ci([0]) == (0.0, 0.0)
    assert st.bootstrap_ci([]) is None
    assert st.bootstrap_ci([1, 0, 1], seed=3) == st.bootstrap_ci([1, 0, 1], seed=3)


def test_mcnemar_exact_by_hand():
    # b = 3 (first right only), c = 1: p = 2 * (C(4,0) + C(4,1)) / 2^4 = 10/16
    result = st.mcnemar_exact([1, 1, 1, 1, 0, 0], [0, 0, 0, 1, 0, 1])
    assert result == {"first_only": 3, "second_only": 1, "n": 6, "p_value": 0.625}
    assert st.mcnemar_exact([1] * 6, [0] * 6)["p_value"] == 2 / 64
    assert st.mcnemar_exact([1] * 5, [0] * 5)["p_value"] == 2 / 32
    assert st.mcnemar_exact([1, 0], [1, 0])["p_value"] == 1.0
    with pytest.raises(ValueError):
        st.mcnemar_exact([1], [1, 0])


def test_kendall_tau_b_by_hand():
    # one discordant pair of six: (5 - 1) / 6
    assert st.kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # one pair tied in x: 2 / sqrt((3 - 1) * (3 - 0))
    assert st.kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    assert st.kendall_tau_b([3, 2, 1], [1, 2, 3]) == pytest.approx(-1.0)
    assert st.kendall_tau_b([1, 1, 1], [1, 2, 3]) is None
    assert st.kendall_tau_b([1], [1]) is None


def test_split_half_kendall_hand_worked():
    # A always beats B on every half: tau = 1 on every split.
    stable = st.split_half_kendall({"a": [1, 1, 1, 1], "b": [0, 0, 0, 0]}, seed=1)
    assert stable["kendall_tau"] == 1.0 and stable["splits"] == st.SPLITS
    # Two items, each model right on one: the halves always disagree, tau = -1.
    flipped = st.split_half_kendall({"a": [1, 0], "b": [0, 1]}, n_splits=10)
    assert flipped["kendall_tau"] == -1.0 and flipped["splits"] == 10
    # Identical models: tau undefined on every split.
    tied = st.split_half_kendall({"a": [1, 0, 1, 0], "b": [1, 0, 1, 0]})
    assert tied["kendall_tau"] is None and tied["splits"] == 0
    assert st.split_half_kendall({"a": [1, 0]})["kendall_tau"] is None


def test_item_discrimination_on_a_hand_made_matrix():
    matrix = [
        [1, 1, 1],
        [1, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
    ]
    # item 0: x = [1,1,1,0], rest = [1,.5,0,0]: cov .375, ss_x .75, ss_rest .6875
    # item 1: x = [1,1,0,0], rest = [1,.5,.5,0]: .5 / sqrt(1 * .5)
    # item 2: x = [1,0,0,0], rest = [1,1,.5,0]: .375 / sqrt(.75 * .6875)
    expected = [0.375 / math.sqrt(0.75 * 0.6875), 0.5 / math.sqrt(0.5),
                0.375 / math.sqrt(0.75 * 0.6875)]  # fmt: skip
    assert st.item_discrimination(matrix) == pytest.approx(expected)


def test_item_discrimination_undefined_cases():
    # every model right on item 0; fewer than 3 models scored item 1 (NaN = not scored)
    nan = float("nan")
    out = st.item_discrimination([[1, 1, 1], [1, nan, 0], [1, nan, 1], [1, 0, 0]])
    assert out[0] is None and out[1] is None and out[2] is not None
    assert st.item_discrimination([[1, 0], [0, 1]]) == [None, None]
    assert st.item_difficulty([True, False, True, True]) == 0.75

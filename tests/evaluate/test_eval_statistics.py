"""The statistics, pinned against values computed by hand (or independently with numpy)."""

import math

import numpy as np
import pytest

from benchsmith import statistics as st


def test_accuracy():
    assert st.accuracy([1, 0, 1, 1]) == 0.75
    assert st.accuracy([]) is None


def test_wilson_interval_is_not_degenerate_at_zero_and_all():
    z2 = st.Z95**2
    # Closed forms: at 0/n the upper bound is z²/(n + z²); at n/n the lower one is n/(n + z²).
    assert st.wilson_interval(0, 12) == (0.0, pytest.approx(z2 / (12 + z2)))
    assert st.wilson_interval(12, 12) == (pytest.approx(12 / (12 + z2)), 1.0)
    low, high = st.wilson_interval(0, 12)
    assert low == 0.0 and high == pytest.approx(0.2425, abs=1e-4)  # not "0.0 %-0.0 %"
    assert st.wilson_interval(0, 0) == (0.0, 1.0)
    assert st.accuracy_interval([]) is None
    assert st.accuracy_interval([True] * 12) == st.wilson_interval(12, 12)


def test_wilson_interval_matches_scipy():
    from scipy.stats import binomtest

    for k, n in [(0, 12), (1, 12), (5, 10), (11, 12), (12, 12), (37, 200)]:
        theirs = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert st.wilson_interval(k, n) == pytest.approx((theirs.low, theirs.high), abs=1e-9)


def paired(a, b, c, d):
    """Two score lists with a items both right, b first only, c second only, d neither."""
    first = [1] * a + [1] * b + [0] * c + [0] * d
    second = [1] * a + [0] * b + [1] * c + [0] * d
    return first, second


def test_paired_difference_interval_by_hand():
    # a=1, b=1, c=7, d=12 (n=21): ad - bc = 5 lies in [0, n/2], so phi = 0 and the
    # interval is D -/+ the root of the sum of the squared Wilson half-widths.
    n = 21
    l1, u1 = st.wilson_interval(2, n)
    l2, u2 = st.wilson_interval(8, n)
    p1, p2 = 2 / n, 8 / n
    low = (p1 - p2) - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = (p1 - p2) + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    assert st.paired_difference_interval(*paired(1, 1, 7, 12)) == pytest.approx((low, high))
    # a=10, b=2, c=1, d=10 (n=23): ad - bc = 98 > n/2, so phi = (98 - 11.5) / sqrt(12*11*11*12).
    n, phi = 23, 86.5 / 132
    l1, u1 = st.wilson_interval(12, n)
    l2, u2 = st.wilson_interval(11, n)
    p1, p2 = 12 / n, 11 / n
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    low = (p1 - p2) - math.sqrt(dl1**2 + du2**2 - 2 * phi * dl1 * du2)
    high = (p1 - p2) + math.sqrt(dl2**2 + du1**2 - 2 * phi * dl2 * du1)
    assert st.paired_difference_interval(*paired(10, 2, 1, 10)) == pytest.approx((low, high))
    # Two models that agree on every item: the difference is 0, but not certainly 0.
    low, high = st.paired_difference_interval(*paired(0, 0, 0, 12))
    assert low == pytest.approx(-high) and high == pytest.approx(st.wilson_interval(0, 12)[1])
    low, high = st.paired_difference_interval(*paired(12, 0, 0, 0))
    assert low < 0 < high
    low, high = st.paired_difference_interval(*paired(0, 12, 0, 0))
    assert low > 0.5 and high == 1.0
    assert st.paired_difference_interval([], []) is None
    with pytest.raises(ValueError):
        st.paired_difference_interval([1], [1, 0])


def test_paired_difference_interval_covers_the_true_difference():
    # Simulated pairs of models on 30 items: the 95% interval holds the true difference
    # about 95% of the time (Newcombe's method 10 is close to nominal, a little conservative).
    rng = np.random.default_rng(11)
    cells = np.array([0.45, 0.2, 0.1, 0.25])  # both, first only, second only, neither
    truth = cells[1] - cells[2]
    covered = 0
    trials = 2000
    for _ in range(trials):
        a, b, c, d = rng.multinomial(30, cells)
        low, high = st.paired_difference_interval(*paired(a, b, c, d))
        covered += low <= truth <= high
    assert 0.93 <= covered / trials <= 0.99


def test_latency_summary():
    assert st.latency_summary([]) is None
    # numpy's linear percentile: p95 of 1..5 is at position 0.95 * 4 = 3.8, so 4 + 0.8 = 4.8.
    assert st.latency_summary([5.0, 1.0, 3.0, 2.0, 4.0]) == {"median": 3.0, "p95": 4.8, "n": 5}


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

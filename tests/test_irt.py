"""The 2PL calibration: recovery of simulated parameters, subsets, flags and validation.

Recovery figures (6 models at abilities -2.5..2.5, 400 items, b ~ U(-2.5, 2.5),
a ~ U(0.8, 2.5), simulation seeds 0-4): with 5 samples per model and item, Pearson r between
fitted and true difficulty is 0.964-0.968 (seed 0: 0.965), Spearman of abilities 1.0; with
ONE sample per cell, r is 0.863-0.886 (mean 0.872), the same as minus the share correct
(0.869-0.891): with six models the ordering of items is limited by the six answers per item,
not by the estimator. Discrimination is recovered poorly by six models (r about 0.28 with one
sample, 0.59 with five). The subset of 100 items (seed 0 data, 5 samples) keeps the ranking
(tau 1.0) with a mean absolute score error of 0.008, against 0.013 for the subset's plain
accuracy.
"""

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from benchsmith.evaluate import irt

N_MODELS, N_ITEMS = 6, 400


def simulate(seed: int, epochs: int):
    rng = np.random.default_rng(seed)
    theta = np.linspace(-2.5, 2.5, N_MODELS)
    b = rng.uniform(-2.5, 2.5, N_ITEMS)
    a = rng.uniform(0.8, 2.5, N_ITEMS)
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b[None, :])))
    correct = rng.binomial(epochs, p).astype(float)
    return theta, b, a, correct, np.full(correct.shape, float(epochs))


@pytest.fixture(scope="module")
def five_samples():
    theta, b, a, correct, attempts = simulate(0, 5)
    return theta, b, a, correct, attempts, irt.fit_2pl(correct, attempts)


def test_recovers_difficulty_and_ability_with_five_samples(five_samples):
    theta, b, _, correct, _, fit = five_samples
    assert fit.converged
    assert pearsonr(fit.difficulty, b)[0] >= 0.9
    assert spearmanr(fit.ability, theta)[0] >= 0.9
    # Predictions follow the observed accuracies of the models.
    predicted = [fit.predict(j) for j in range(N_MODELS)]
    observed = correct.sum(axis=1) / (5 * N_ITEMS)
    assert np.max(np.abs(np.asarray(predicted) - observed)) < 0.03
    assert np.all(np.isfinite(fit.difficulty)) and np.all(fit.discrimination > 0)


def test_one_sample_per_cell_recovers_difficulty_as_well_as_the_share_correct():
    # One sample: r = 0.863 for this seed (0.863-0.886 over seeds 0-4).
    theta, b, _, correct, attempts = simulate(0, 1)
    fit = irt.fit_2pl(correct, attempts)
    r = pearsonr(fit.difficulty, b)[0]
    assert 0.8 <= r < 0.9
    share_r = pearsonr(-correct.mean(axis=0), b)[0]
    assert abs(r - share_r) < 0.03
    assert spearmanr(fit.ability, theta)[0] == pytest.approx(1.0)


def test_more_samples_recover_more(five_samples):
    _, b, _, correct1, attempts1 = simulate(0, 1)
    one = pearsonr(irt.fit_2pl(correct1, attempts1).difficulty, b)[0]
    five = pearsonr(five_samples[5].difficulty, b)[0]
    assert five > one + 0.05


def test_gradient_matches_finite_differences():
    from scipy.optimize import approx_fprime

    _, _, _, correct, attempts = simulate(5, 3)
    correct, attempts = correct[:, :20], attempts[:, :20]
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 1, 6), rng.normal(0, 1.5, 20), rng.normal(0, 0.4, 20)])
    variances = (1.0, 4.0, 0.25)
    value, gradient = irt._negative_log_posterior(x, correct, attempts, variances)
    numeric = approx_fprime(
        x, lambda v: irt._negative_log_posterior(v, correct, attempts, variances)[0], 1e-6
    )
    np.testing.assert_allclose(gradient, numeric, rtol=1e-4, atol=1e-4)
    assert value > 0


def test_fit_is_a_local_optimum(five_samples):
    _, _, _, correct, attempts, fit = five_samples
    x = np.concatenate([fit.ability, fit.difficulty, np.log(fit.discrimination)])
    variances = (1.0, 4.0, 0.25)
    value, gradient = irt._negative_log_posterior(x, correct, attempts, variances)
    assert value == pytest.approx(-fit.log_posterior)
    assert np.max(np.abs(gradient)) < 1e-3
    rng = np.random.default_rng(1)
    for _ in range(5):
        nudged = x + rng.normal(0, 0.01, x.size)
        assert irt._negative_log_posterior(nudged, correct, attempts, variances)[0] > value


def test_predict_takes_an_index_or_an_ability(five_samples):
    fit = five_samples[5]
    assert fit.predict(2) == pytest.approx(fit.predict(float(fit.ability[2])))
    assert fit.predict(np.int64(5)) == pytest.approx(fit.predict(-1))
    assert fit.predict(-10.0) < fit.predict(0.0) < fit.predict(10.0)
    assert fit.predict(-10.0) < 0.05 and fit.predict(10.0) > 0.95
    with pytest.raises(IndexError):
        fit.predict(N_MODELS)


def test_subset_of_100_items_keeps_the_ranking(five_samples):
    _, _, _, correct, attempts, fit = five_samples
    subset = irt.select_subset(correct, attempts, fit, 100, seed=0)
    assert len(subset.indices) == 100 and len(set(subset.indices.tolist())) == 100
    assert subset.ranking_kept
    assert subset.kendall_tau == pytest.approx(1.0)
    assert subset.mean_absolute_error < 0.02  # 0.008 here
    plain = np.mean(np.abs(subset.subset_accuracy - subset.actual))
    assert subset.mean_absolute_error < plain  # the IRT estimate beats the raw subset mean
    # Actual accuracies are the full-set means; the subset skips uninformative items.
    np.testing.assert_allclose(subset.actual, correct.mean(axis=1) / 5)
    assert not (fit.solved_by_all | fit.solved_by_none)[subset.indices].any()
    again = irt.select_subset(correct, attempts, fit, 100, seed=0)
    np.testing.assert_array_equal(subset.indices, again.indices)
    other = irt.select_subset(correct, attempts, fit, 100, seed=1)
    assert not np.array_equal(subset.indices, other.indices)


def test_subset_ranking_can_fail_when_reported():
    # One item cannot order six models: ranking_kept and tau must say so.
    _, _, _, correct, attempts = simulate(3, 1)
    fit = irt.fit_2pl(correct, attempts)
    result = irt.select_subset(correct, attempts, fit, 1, seed=0)
    assert len(result.indices) == 1
    assert not result.ranking_kept
    assert result.kendall_tau is None or result.kendall_tau < 1.0


def test_fit_abilities_with_fixed_items_matches_the_truth():
    theta, b, a, correct, attempts = simulate(1, 5)
    estimate = irt.fit_abilities(correct, attempts, b, a, ability_prior_sd=10.0)
    np.testing.assert_allclose(estimate, theta, atol=0.3)
    # A model that answered nothing gets the prior mean.
    attempts[2] = 0
    correct[2] = 0
    assert irt.fit_abilities(correct, attempts, b, a)[2] == 0.0
    with pytest.raises(ValueError, match="one difficulty"):
        irt.fit_abilities(correct, attempts, b[:-1], a)
    with pytest.raises(ValueError, match="positive"):
        irt.fit_abilities(correct, attempts, b, -a)


def test_flags_items_solved_by_all_or_none_and_keeps_them_finite():
    rng = np.random.default_rng(7)
    scores = (rng.random((5, 30)) < 0.5).astype(float)
    scores[:, 0] = 1.0
    scores[:, 1] = 0.0
    scores[:, 2] = [1.0, 1.0, np.nan, 1.0, 1.0]  # solved by every model that tried it
    scores[:, 3] = np.nan  # nobody tried it: neither flag
    scores[:, 4] = [1.0, 0.0, 1.0, 1.0, 1.0]
    fit = irt.fit_2pl_scores(scores)
    assert fit.solved_by_all[[0, 2]].all() and fit.solved_by_none[1]
    assert not fit.solved_by_all[[1, 3, 4]].any() and not fit.solved_by_none[[0, 3, 4]].any()
    expected_all = np.array([np.all(col[~np.isnan(col)] == 1) for col in scores.T])
    expected_all &= ~np.all(np.isnan(scores), axis=0)
    np.testing.assert_array_equal(fit.solved_by_all, expected_all)
    assert np.isfinite(fit.difficulty).all()
    assert fit.difficulty[0] < fit.difficulty[4] < fit.difficulty[1]


def test_missing_cells_are_ignored():
    _, _, _, correct, attempts = simulate(2, 1)
    fit = irt.fit_2pl(correct, attempts)
    # Garbage in cells marked missing must not change anything: the NaN form and the
    # attempts-0 form of the same data give the same fit.
    scores = correct.copy()
    scores[0, :50] = np.nan
    scores[3, 100:120] = np.nan
    from_scores = irt.fit_2pl_scores(scores)
    counts = correct.copy()
    attempts_missing = attempts.copy()
    counts[0, :50] = np.nan
    attempts_missing[0, :50] = 0
    counts[3, 100:120] = 0
    attempts_missing[3, 100:120] = 0
    from_counts = irt.fit_2pl(counts, attempts_missing)
    np.testing.assert_allclose(from_scores.difficulty, from_counts.difficulty)
    np.testing.assert_allclose(from_scores.ability, from_counts.ability)
    # Removing cells does change the fit (so the comparison above is not vacuous).
    assert not np.allclose(from_scores.difficulty, fit.difficulty)
    assert from_scores.log_likelihood > fit.log_likelihood  # fewer cells, less to explain


def test_epochs_array_is_summed_into_counts():
    scores = np.array([[[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [np.nan, np.nan, np.nan]]])
    correct, attempts = irt.counts_from_scores(scores)
    np.testing.assert_array_equal(correct, [[2, 0], [3, 0]])
    np.testing.assert_array_equal(attempts, [[3, 2], [3, 0]])


def test_fit_is_deterministic():
    _, _, _, correct, attempts = simulate(4, 1)
    first = irt.fit_2pl(correct, attempts)
    second = irt.fit_2pl(correct, attempts)
    np.testing.assert_array_equal(first.difficulty, second.difficulty)
    np.testing.assert_array_equal(first.discrimination, second.discrimination)
    np.testing.assert_array_equal(first.ability, second.ability)
    assert first.log_likelihood == second.log_likelihood


@pytest.mark.parametrize(
    ("correct", "attempts", "message"),
    [
        (np.ones(5), np.ones(5), "models, items"),
        (np.ones((2, 3)), np.ones((3, 2)), "shape"),
        (np.ones((0, 3)), np.ones((0, 3)), "empty"),
        (np.ones((2, 0)), np.ones((2, 0)), "empty"),
        (np.full((2, 3), -1.0), np.ones((2, 3)), "negative"),
        (np.ones((2, 3)), np.full((2, 3), -1.0), "negative"),
        (np.full((2, 3), 2.0), np.ones((2, 3)), "exceed"),
        (np.zeros((2, 3)), np.zeros((2, 3)), "no observed cell"),
        (np.full((2, 3), np.nan), np.ones((2, 3)), "finite"),
        (np.ones((2, 3)), np.full((2, 3), np.nan), "finite"),
    ],
)
def test_invalid_counts_are_refused(correct, attempts, message):
    with pytest.raises(ValueError, match=message):
        irt.fit_2pl(correct, attempts)


def test_invalid_scores_and_subset_arguments_are_refused(five_samples):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        irt.fit_2pl_scores([[0.0, 2.0]])
    with pytest.raises(ValueError, match="empty"):
        irt.fit_2pl_scores(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="dimension"):
        irt.counts_from_scores([1.0, 0.0])
    _, _, _, correct, attempts, fit = five_samples
    with pytest.raises(ValueError, match="k must"):
        irt.select_subset(correct, attempts, fit, 0)
    with pytest.raises(ValueError, match="k must"):
        irt.select_subset(correct, attempts, fit, N_ITEMS + 1)
    with pytest.raises(ValueError, match="items"):
        irt.select_subset(correct[:, :10], attempts[:, :10], fit, 5)
    with pytest.raises(ValueError, match="positive"):
        irt.fit_2pl(correct, attempts, ability_prior_sd=0.0)

"""Item response theory for a panel of models: a two-parameter logistic (2PL) calibration.

The model: the probability that model ``j`` answers item ``i`` correctly is
``sigmoid(a_i * (theta_j - b_i))``, with ``theta_j`` the model's ability, ``b_i`` the item's
difficulty (the ability at which the item is solved half the time) and ``a_i > 0`` its
discrimination (how sharply it separates models just below ``b_i`` from those just above).

**Data.** Two arrays of shape (models, items): ``correct`` (how many attempts of the cell
were right) and ``attempts`` (how many were made), so several samples of one model on one
item ("epochs") count as binomial trials; ``attempts == 0`` marks a missing cell. A
fractional ``correct`` acts as partial credit (the binomial likelihood becomes a
cross-entropy, which is still well defined). :func:`counts_from_scores` turns a plain 0/1
score matrix (NaN for missing), or a (models, items, epochs) array, into these counts.

**Fit: penalized joint maximum likelihood (a MAP estimate)**, all parameters at once, with
weak priors ``theta ~ N(0, 1)`` (which also fixes the location and scale of the latent
axis), ``b ~ N(0, 2^2)`` and ``log a ~ N(0, 0.5^2)``, by L-BFGS-B with the analytic
gradient. The priors keep every estimate finite: an item every model solves (or none
solves) has no finite maximum-likelihood difficulty, but its posterior mode is finite. The
alternative, marginal maximum likelihood by EM over Gauss-Hermite quadrature, integrates
the abilities out under a population distribution; it is the right choice for thousands of
examinees and few items, but a benchmark's panel is the reverse: a handful of models (whose
"population" a normal distribution describes poorly) and hundreds of items, so each ability
is pinned down by many items, while the incidental-parameter bias of joint estimation falls
on the item parameters and is what the priors temper. The optimiser starts from the
observed accuracies and is deterministic; no random numbers are drawn.

**Why not a library.** py-irt brings PyTorch and Pyro (several hundred megabytes for a
fit that takes a second), and girth has been unmaintained since 2021; the 2PL likelihood
and its gradient are a few lines over numpy and ``scipy.optimize``.

**A smaller benchmark that ranks the same way** (:func:`select_subset`, after
tinyBenchmarks, Polo et al. 2024): drop items every model solves or none solves and items
that barely discriminate, split the rest into ``k`` strata of fitted difficulty, and draw
one item per stratum with probability proportional to its Fisher information at the panel's
abilities (seeded). A model's full-set accuracy is then estimated the way tinyBenchmarks'
p-IRT estimator does: its ability is refitted on the subset alone with the item
parameters held fixed (:func:`fit_abilities`), and the estimate is the observed accuracy on
the ``k`` subset items plus the IRT-expected accuracy on the other items, weighted by their
counts. When the item parameters were fitted on the same models the estimate is optimistic
(the models helped calibrate the items); pass a fit from another panel for an honest one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchsmith.statistics import kendall_tau_b

ABILITY_PRIOR_SD = 1.0
"""Standard deviation of the normal prior on abilities (it also fixes the latent scale)."""
DIFFICULTY_PRIOR_SD = 2.0
"""Standard deviation of the normal prior on difficulties."""
LOG_DISCRIMINATION_PRIOR_SD = 0.5
"""Standard deviation of the normal prior on log discriminations (centred on a = 1)."""
MIN_DISCRIMINATION = 0.3
"""Items below this fitted discrimination are left out of a subset when enough others remain."""
_MAX_ITERATIONS = 5000
# The bounds only guard the optimiser against overflow on degenerate data; the priors keep
# every estimate far inside them.
_LIMIT = 12.0
_LOG_A_LIMIT = (-5.0, 3.0)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow warnings for large ``|z|``."""
    return np.exp(-np.logaddexp(0.0, -z))


@dataclass(frozen=True, eq=False)
class IRTFit:
    """A fitted 2PL model: one ability per model, a difficulty and discrimination per item.

    Attributes:
        difficulty: ``b`` per item (higher is harder), on the ability scale.
        discrimination: ``a`` per item (positive).
        ability: ``theta`` per model.
        converged: Whether the optimiser reported convergence.
        method: How the parameters were estimated.
        log_likelihood: The data's log-likelihood at the estimate, without the priors:
            ``sum(c log p + (n - c) log(1 - p))`` over observed cells (the binomial
            coefficients, a constant, are left out).
        log_posterior: ``log_likelihood`` plus the log prior densities (up to a constant).
        solved_by_all: Per item, from the data: observed at least once and every attempt right.
        solved_by_none: Per item, from the data: observed at least once and every attempt wrong.
        iterations: Optimiser iterations.
        priors: The priors' standard deviations (``ability``, ``difficulty``,
            ``log_discrimination``).
    """

    difficulty: np.ndarray
    discrimination: np.ndarray
    ability: np.ndarray
    converged: bool
    method: str
    log_likelihood: float
    log_posterior: float
    solved_by_all: np.ndarray
    solved_by_none: np.ndarray
    iterations: int = 0
    priors: dict[str, float] = field(default_factory=dict)

    def item_probabilities(self, theta: float) -> np.ndarray:
        """The probability of a correct answer on every item for an ability ``theta``.

        Args:
            theta: An ability on the fitted scale.

        Returns:
            One probability per item.
        """
        return _sigmoid(self.discrimination * (float(theta) - self.difficulty))

    def predict(self, ability_index_or_theta: int | float) -> float:
        """The expected accuracy over all items of a fitted model or of an ability.

        Args:
            ability_index_or_theta: An integer is the index of a fitted model (its
                ``ability``); a float is an ability on the fitted scale.

        Returns:
            The mean, over items, of the probability of a correct answer.

        Raises:
            IndexError: The index names no fitted model.
            TypeError: A bool was given (neither an index nor an ability).
        """
        value = ability_index_or_theta
        if isinstance(value, bool):
            raise TypeError("predict takes a model index (int) or an ability (float), not a bool")
        if isinstance(value, int | np.integer):
            if not -len(self.ability) <= int(value) < len(self.ability):
                raise IndexError(
                    f"model index {value} is out of range: the fit has {len(self.ability)} models"
                )
            theta = float(self.ability[int(value)])
        else:
            theta = float(value)
        return float(np.mean(self.item_probabilities(theta)))


@dataclass(frozen=True, eq=False)
class SubsetResult:
    """A subset of items chosen to stand in for the full benchmark, and how well it does.

    Attributes:
        indices: The chosen items' column indices, ascending.
        estimated: Per model, the full-set accuracy estimated from the subset alone
            (p-IRT: observed on the subset, IRT-expected on the other items).
        actual: Per model, the accuracy over all of its observed items (NaN if none).
        subset_accuracy: Per model, the plain accuracy on the subset (for comparison).
        ability: Per model, the ability refitted on the subset with items held fixed.
        mean_absolute_error: Mean of ``|estimated - actual|`` over models.
        kendall_tau: Kendall's tau-b between ``actual`` and ``estimated`` (None if undefined).
        ranking_kept: True when no pair of models with different actual accuracies is
            ordered the other way, or tied, by the estimates.
        method: How the subset was chosen and the accuracies estimated.
    """

    indices: np.ndarray
    estimated: np.ndarray
    actual: np.ndarray
    subset_accuracy: np.ndarray
    ability: np.ndarray
    mean_absolute_error: float
    kendall_tau: float | None
    ranking_kept: bool
    method: str


def counts_from_scores(scores: np.ndarray | Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Turn scores in [0, 1] (NaN for missing) into ``(correct, attempts)`` counts.

    Args:
        scores: A (models, items) matrix, one score per cell, or a (models, items, epochs)
            array, one score per sample; NaN where a model did not answer.

    Returns:
        ``correct`` (the sum of the scores of a cell) and ``attempts`` (how many of its
        scores are not NaN), both of shape (models, items).

    Raises:
        ValueError: The array is not 2- or 3-dimensional, is empty, or holds a score
            outside [0, 1].
    """
    data = np.asarray(scores, dtype=float)
    if data.ndim not in (2, 3):
        raise ValueError(
            f"scores must be a (models, items) or (models, items, epochs) array, "
            f"got {data.ndim} dimension(s)"
        )
    if data.size == 0:
        raise ValueError(f"scores are empty (shape {data.shape}): need at least one model and item")
    observed = ~np.isnan(data)
    if np.any((data[observed] < 0) | (data[observed] > 1)) or np.any(np.isinf(data)):
        raise ValueError("scores must lie in [0, 1] (NaN for a missing answer)")
    if data.ndim == 2:
        data = data[:, :, None]
        observed = observed[:, :, None]
    correct = np.where(observed, data, 0.0).sum(axis=2)
    attempts = observed.sum(axis=2).astype(float)
    return correct, attempts


def _validate_counts(
    correct: np.ndarray | Sequence, attempts: np.ndarray | Sequence | int
) -> tuple[np.ndarray, np.ndarray]:
    """Check and normalise ``correct`` and ``attempts``; missing cells get ``correct = 0``.

    Raises:
        ValueError: Wrong shapes, no models or items, no observed cell, NaN or infinite
            counts where attempts were made, negative counts, or correct above attempts.
    """
    c = np.asarray(correct, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"correct must be a (models, items) array, got shape {c.shape}")
    if c.shape[0] == 0 or c.shape[1] == 0:
        raise ValueError(f"correct is empty (shape {c.shape}): need at least one model and item")
    n = np.asarray(attempts, dtype=float)
    if n.ndim == 0:
        n = np.full(c.shape, float(n))
    if n.shape != c.shape:
        raise ValueError(
            f"attempts must have the shape of correct {c.shape} (or be one number), got {n.shape}"
        )
    if not np.all(np.isfinite(n)):
        raise ValueError("attempts must be finite numbers (0 for a missing cell, not NaN)")
    if np.any(n < 0):
        raise ValueError("attempts must not be negative")
    observed = n > 0
    if not np.any(observed):
        raise ValueError("no observed cell: every attempts count is 0")
    if not np.all(np.isfinite(c[observed])):
        raise ValueError("correct must be a finite number wherever attempts were made")
    if np.any(c[observed] < 0):
        raise ValueError("correct must not be negative")
    if np.any(c[observed] > n[observed]):
        raise ValueError("correct must not exceed attempts in any cell")
    if np.any(np.nan_to_num(c[~observed], nan=0.0) != 0):
        raise ValueError("correct must be 0 (or NaN) where attempts is 0")
    return np.where(observed, c, 0.0), n


def _item_flags(correct: np.ndarray, attempts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: observed and always right; observed and always wrong."""
    seen = attempts.sum(axis=0) > 0
    right = correct.sum(axis=0)
    return seen & (right == attempts.sum(axis=0)), seen & (right == 0)


def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


def _log_likelihood(z: np.ndarray, correct: np.ndarray, attempts: np.ndarray) -> float:
    # c log p + (n - c) log(1 - p) = c z - n log(1 + e^z); missing cells have c = n = 0.
    return float(np.sum(correct * z - attempts * np.logaddexp(0.0, z)))


def _unpack(x: np.ndarray, n_models: int, n_items: int) -> tuple[np.ndarray, ...]:
    """Abilities, difficulties and log discriminations from the optimiser's vector."""
    return x[:n_models], x[n_models : n_models + n_items], x[n_models + n_items :]


def _negative_log_posterior(
    x: np.ndarray,
    correct: np.ndarray,
    attempts: np.ndarray,
    variances: tuple[float, float, float],
) -> tuple[float, np.ndarray]:
    """Minus the 2PL log posterior (up to a constant) and its gradient.

    With ``z = a (theta - b)`` and the residual ``r = c - n sigmoid(z)`` (the derivative of
    the log-likelihood in ``z``), the gradient is ``sum_i r a_i`` in ``theta_j``,
    ``-a_i sum_j r`` in ``b_i`` and ``sum_j r z`` in ``log a_i``, plus the priors' terms.

    Args:
        x: Abilities, difficulties and log discriminations, concatenated.
        correct: (models, items) right answers (0 in missing cells).
        attempts: (models, items) attempts (0 in missing cells).
        variances: The priors' variances of ``theta``, ``b`` and ``log a``.

    Returns:
        The value and its gradient.
    """
    var_theta, var_b, var_loga = variances
    theta, b, log_a = _unpack(x, *correct.shape)
    a = np.exp(log_a)
    z = a[None, :] * (theta[:, None] - b[None, :])
    residual = correct - attempts * _sigmoid(z)
    log_post = (
        _log_likelihood(z, correct, attempts)
        - 0.5 * np.sum(theta**2) / var_theta
        - 0.5 * np.sum(b**2) / var_b
        - 0.5 * np.sum(log_a**2) / var_loga
    )
    grad_theta = residual @ a - theta / var_theta
    grad_b = -a * residual.sum(axis=0) - b / var_b
    grad_log_a = np.sum(residual * z, axis=0) - log_a / var_loga
    return -log_post, -np.concatenate([grad_theta, grad_b, grad_log_a])


def fit_2pl(
    correct: np.ndarray | Sequence,
    attempts: np.ndarray | Sequence | int,
    *,
    ability_prior_sd: float = ABILITY_PRIOR_SD,
    difficulty_prior_sd: float = DIFFICULTY_PRIOR_SD,
    log_discrimination_prior_sd: float = LOG_DISCRIMINATION_PRIOR_SD,
) -> IRTFit:
    """Fit a 2PL model to a panel's answers by penalized joint maximum likelihood (MAP).

    See the module docstring for the model, the priors and why this estimator.

    Args:
        correct: (models, items): right answers per cell (0 or NaN where ``attempts`` is 0).
        attempts: (models, items): attempts per cell, 0 for a missing cell; or one number
            for every cell.
        ability_prior_sd: Standard deviation of the N(0, sd^2) prior on abilities.
        difficulty_prior_sd: Standard deviation of the N(0, sd^2) prior on difficulties.
        log_discrimination_prior_sd: Standard deviation of the N(0, sd^2) prior on
            ``log a``.

    Returns:
        The :class:`IRTFit`.

    Raises:
        ValueError: Wrong shapes, empty input, negative counts, correct above attempts, no
            observed cell, or a prior standard deviation that is not positive.
    """
    from scipy.optimize import minimize

    c, n = _validate_counts(correct, attempts)
    sds = (ability_prior_sd, difficulty_prior_sd, log_discrimination_prior_sd)
    if not all(sd > 0 for sd in sds):
        raise ValueError(f"prior standard deviations must be positive, got {sds}")
    var_theta, var_b, var_loga = (sd * sd for sd in sds)
    n_models, n_items = c.shape

    # Start from the observed accuracies (smoothed so 0/n and n/n stay finite): abilities
    # are the standardised logits of the models' accuracies, difficulties minus the logits
    # of the items' accuracies, discriminations 1.
    model_rate = (c.sum(axis=1) + 0.5) / (n.sum(axis=1) + 1.0)
    item_rate = (c.sum(axis=0) + 0.5) / (n.sum(axis=0) + 1.0)
    theta0 = _logit(model_rate)
    spread = float(np.std(theta0))
    theta0 = (theta0 - theta0.mean()) / spread if spread > 0 else theta0 - theta0.mean()
    b0 = np.clip(-_logit(item_rate), -3 * difficulty_prior_sd, 3 * difficulty_prior_sd)
    x0 = np.concatenate([theta0, b0, np.zeros(n_items)])

    variances = (var_theta, var_b, var_loga)
    bounds = [(-_LIMIT, _LIMIT)] * (n_models + n_items) + [_LOG_A_LIMIT] * n_items
    result = minimize(
        _negative_log_posterior,
        x0,
        args=(c, n, variances),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": _MAX_ITERATIONS, "ftol": 1e-12, "gtol": 1e-6},
    )
    theta, b, log_a = _unpack(result.x, n_models, n_items)
    a = np.exp(log_a)
    z = a[None, :] * (theta[:, None] - b[None, :])
    all_right, all_wrong = _item_flags(c, n)
    return IRTFit(
        difficulty=b.copy(),
        discrimination=a,
        ability=theta.copy(),
        converged=bool(result.success),
        method=(
            "2PL, penalized joint maximum likelihood (MAP) by L-BFGS-B with analytic "
            f"gradient; priors theta~N(0,{ability_prior_sd:g}^2), "
            f"b~N(0,{difficulty_prior_sd:g}^2), log a~N(0,{log_discrimination_prior_sd:g}^2)"
        ),
        log_likelihood=_log_likelihood(z, c, n),
        log_posterior=float(-result.fun),
        solved_by_all=all_right,
        solved_by_none=all_wrong,
        iterations=int(result.nit),
        priors={
            "ability": float(ability_prior_sd),
            "difficulty": float(difficulty_prior_sd),
            "log_discrimination": float(log_discrimination_prior_sd),
        },
    )


def fit_2pl_scores(scores: np.ndarray | Sequence, **priors: float) -> IRTFit:
    """Fit a 2PL model to a 0/1 score matrix (NaN for missing), or a (models, items, epochs) array.

    Args:
        scores: Scores in [0, 1]; see :func:`counts_from_scores`.
        **priors: Keyword arguments of :func:`fit_2pl` (the priors' standard deviations).

    Returns:
        The :class:`IRTFit`.
    """
    correct, attempts = counts_from_scores(scores)
    return fit_2pl(correct, attempts, **priors)


def fit_abilities(
    correct: np.ndarray | Sequence,
    attempts: np.ndarray | Sequence | int,
    difficulty: np.ndarray | Sequence[float],
    discrimination: np.ndarray | Sequence[float],
    *,
    ability_prior_sd: float = ABILITY_PRIOR_SD,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
) -> np.ndarray:
    """The MAP ability of each model with the items' parameters held fixed.

    Each model's log posterior (the 2PL log-likelihood plus an N(0, sd^2) prior) is concave
    in its ability, so Newton's method (steps capped at 1 logit) finds the single maximum.
    A model without an observed cell gets the prior mean, 0.

    Args:
        correct: (models, items) right answers per cell.
        attempts: (models, items) attempts per cell (0 for missing), or one number.
        difficulty: ``b`` per item.
        discrimination: ``a`` per item.
        ability_prior_sd: Standard deviation of the prior on abilities (as in the fit).
        tolerance: Stop when no ability moves by more than this.
        max_iterations: Newton steps at most.

    Returns:
        One ability per model.

    Raises:
        ValueError: Invalid counts (see :func:`fit_2pl`), or item parameters whose length
            is not the number of items, or a non-positive discrimination.
    """
    c, n = _validate_counts(correct, attempts)
    b = np.asarray(difficulty, dtype=float)
    a = np.asarray(discrimination, dtype=float)
    if b.shape != (c.shape[1],) or a.shape != (c.shape[1],):
        raise ValueError(
            f"need one difficulty and one discrimination per item ({c.shape[1]}), "
            f"got {b.shape} and {a.shape}"
        )
    if np.any(a <= 0) or not np.all(np.isfinite(a)) or not np.all(np.isfinite(b)):
        raise ValueError("discriminations must be positive and all parameters finite")
    if ability_prior_sd <= 0:
        raise ValueError(f"ability_prior_sd must be positive, got {ability_prior_sd}")
    precision = 1.0 / ability_prior_sd**2
    theta = np.zeros(c.shape[0])
    for _ in range(max_iterations):
        p = _sigmoid(a[None, :] * (theta[:, None] - b[None, :]))
        gradient = (c - n * p) @ a - precision * theta
        curvature = (n * p * (1 - p)) @ (a * a) + precision
        step = np.clip(gradient / curvature, -1.0, 1.0)
        theta = theta + step
        if np.max(np.abs(step)) < tolerance:
            break
    return theta


def _same_order(actual: np.ndarray, estimated: np.ndarray) -> bool:
    """No pair with different actual values is reversed or tied by the estimates."""
    for i in range(len(actual)):
        for j in range(i + 1, len(actual)):
            if actual[i] != actual[j] and np.sign(estimated[i] - estimated[j]) != np.sign(
                actual[i] - actual[j]
            ):
                return False
    return True


def select_subset(
    correct: np.ndarray | Sequence,
    attempts: np.ndarray | Sequence | int,
    fit: IRTFit,
    k: int,
    *,
    seed: int = 0,
    min_discrimination: float = MIN_DISCRIMINATION,
) -> SubsetResult:
    """Choose ``k`` items that rank the panel as the full set does, and check them.

    Selection (see the module docstring): candidates are the items some but not every
    attempt solved, with fitted discrimination at least ``min_discrimination``; when fewer
    than ``k`` remain, the most informative others are added. Candidates, sorted by fitted
    difficulty, are split into ``k`` strata of (nearly) equal size, and one item is drawn
    from each with probability proportional to its Fisher information
    ``sum_j a^2 p_j (1 - p_j)`` at the fitted abilities of the panel.

    Estimate (p-IRT): each model's ability is refitted on the subset with the items fixed;
    its full-set accuracy is ``(sum of observed accuracies on the subset + sum of expected
    probabilities on the other items) / items``.

    Args:
        correct: (models, items) right answers of the models to evaluate.
        attempts: (models, items) attempts (0 for missing), or one number.
        fit: A 2PL fit on the same items (of these models or of another panel).
        k: How many items to keep (1 to the number of items).
        seed: Seed of the draws within strata.
        min_discrimination: Items below this discrimination are avoided.

    Returns:
        The :class:`SubsetResult`.

    Raises:
        ValueError: Invalid counts, a fit with another number of items, or ``k`` out of range.
    """
    c, n = _validate_counts(correct, attempts)
    n_items = c.shape[1]
    if len(fit.difficulty) != n_items:
        raise ValueError(f"the fit has {len(fit.difficulty)} items, the data {n_items}")
    if not 1 <= k <= n_items:
        raise ValueError(f"k must be from 1 to the number of items ({n_items}), got {k}")
    a, b = fit.discrimination, fit.difficulty

    p_fit = _sigmoid(a[None, :] * (fit.ability[:, None] - b[None, :]))
    information = (a * a) * np.sum(p_fit * (1 - p_fit), axis=0)
    all_right, all_wrong = _item_flags(c, n)
    seen = n.sum(axis=0) > 0
    informative = seen & ~all_right & ~all_wrong & (a >= min_discrimination)
    candidates = np.flatnonzero(informative)
    if len(candidates) < k:
        others = np.flatnonzero(~informative)
        # Most informative first; ties by index, so the fill is deterministic.
        others = others[np.lexsort((others, -information[others]))]
        candidates = np.concatenate([candidates, others[: k - len(candidates)]])
    candidates = candidates[np.lexsort((candidates, b[candidates]))]

    rng = np.random.default_rng(seed)
    chosen = []
    for stratum in np.array_split(candidates, k):
        weights = information[stratum]
        total = float(weights.sum())
        probabilities = weights / total if total > 0 else None
        chosen.append(int(rng.choice(stratum, p=probabilities)))
    indices = np.sort(np.asarray(chosen, dtype=int))

    ability = fit_abilities(
        c[:, indices],
        n[:, indices],
        b[indices],
        a[indices],
        ability_prior_sd=fit.priors.get("ability", ABILITY_PRIOR_SD),
    )
    expected = _sigmoid(a[None, :] * (ability[:, None] - b[None, :]))
    in_subset = np.zeros(n_items, dtype=bool)
    in_subset[indices] = True
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, c / np.where(n > 0, n, 1.0), np.nan)
        subset_rate = rate[:, indices]
        subset_seen = ~np.isnan(subset_rate)
        subset_accuracy = np.nansum(subset_rate, axis=1) / subset_seen.sum(axis=1)
        # Observed subset cells count as they are; unobserved ones and the other items as
        # the IRT expects them.
        observed_part = np.where(subset_seen, subset_rate, expected[:, indices]).sum(axis=1)
        estimated = (observed_part + expected[:, ~in_subset].sum(axis=1)) / n_items
        actual = np.nansum(rate, axis=1) / (n > 0).sum(axis=1)
    valid = ~np.isnan(actual)
    error = float(np.mean(np.abs(estimated[valid] - actual[valid])))
    tau = kendall_tau_b(actual[valid].tolist(), estimated[valid].tolist())
    return SubsetResult(
        indices=indices,
        estimated=estimated,
        actual=actual,
        subset_accuracy=subset_accuracy,
        ability=ability,
        mean_absolute_error=error,
        kendall_tau=tau,
        ranking_kept=_same_order(actual[valid], estimated[valid]),
        method=(
            f"{k} difficulty strata, one item each drawn by Fisher information (seed {seed}), "
            f"items solved by all/none and a < {min_discrimination:g} avoided; "
            "estimate p-IRT: observed on the subset, 2PL-expected on the rest"
        ),
    )

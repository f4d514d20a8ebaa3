"""Statistics of an evaluation: pure functions over 0/1 scores, each documented and seeded.

- **Accuracy intervals**: seeded percentile bootstrap. ``n_boot`` resamples of the scores
  (with replacement, same size) are drawn by ``numpy.random.default_rng(seed).integers(0, n,
  size=(n_boot, n))``; the interval is the 2.5th and 97.5th percentiles (numpy's default
  linear interpolation) of the resampled means.
- **Pairwise significance**: the exact McNemar test on the items both models scored. Only
  discordant items count: ``b`` (first right, second wrong) and ``c`` (the reverse); the
  two-sided p-value is ``min(1, 2 * P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)``
  (1.0 when there is no discordant item). Exact, deterministic and valid for few items.
- **Ranking stability**: split-half Kendall tau. For each of ``n_splits`` seeded random
  splits of the shared items into two halves, the models' accuracies on one half are
  compared with those on the other by Kendall's tau-b (ties handled); splits where tau-b is
  undefined (every model tied on a half) are left out; the result is the mean over the
  remaining splits. 1 means the halves always rank the models the same way.
- **Item difficulty**: the share of models that answer the item correctly (1 = every model,
  the classical p-value of test theory; higher is easier).
- **Item discrimination**: the corrected point-biserial correlation across models: Pearson's
  r between the item's 0/1 scores and each model's accuracy on its *other* items. Positive
  when stronger models get the item right and weaker ones wrong; None when it cannot be
  computed (fewer than 3 models, or every model scored the same on the item or overall).
- **Proportions** (human acceptance): the Wilson score interval, which stays inside [0, 1]
  and does not collapse at 0/n or n/n as a percentile bootstrap does.
- **Agreement of two reviewers**: Cohen's kappa over the items both decided,
  ``(p_o - p_e) / (1 - p_e)``; 1.0 when both always agree and agreement by chance is 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
SPLITS = 200
ALPHA = 0.05


def accuracy(scores: Sequence[bool | int | float]) -> float | None:
    """The mean of 0/1 scores, or None for no scores."""
    if len(scores) == 0:
        return None
    return float(np.mean(np.asarray(scores, dtype=float)))


def bootstrap_ci(
    scores: Sequence[bool | int | float],
    *,
    n_boot: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """The percentile-bootstrap confidence interval of the mean (see the module docstring).

    Args:
        scores: 0/1 scores (or any numbers).
        n_boot: Resamples.
        seed: Seed of the resampling.
        level: Coverage of the interval.

    Returns:
        ``(low, high)``, or None for no scores.
    """
    values = np.asarray(scores, dtype=float)
    n = len(values)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def mcnemar_exact(first: Sequence[bool], second: Sequence[bool]) -> dict[str, float | int]:
    """The exact McNemar test of two models on the same items.

    Args:
        first: The first model's 0/1 scores.
        second: The second model's scores on the same items, in the same order.

    Returns:
        ``first_only`` (b), ``second_only`` (c), ``n`` (items) and ``p_value``.

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(first) != len(second):
        raise ValueError(f"paired scores differ in length: {len(first)} and {len(second)}")
    b = sum(1 for x, y in zip(first, second, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first, second, strict=True) if y and not x)
    discordant = b + c
    if discordant == 0:
        p = 1.0
    else:
        tail = sum(math.comb(discordant, k) for k in range(min(b, c) + 1))
        p = min(1.0, 2.0 * tail / 2.0**discordant)
    return {"first_only": b, "second_only": c, "n": len(first), "p_value": p}


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b between two rankings (scores; ties allowed).

    ``(C - D) / sqrt((P - Tx) * (P - Ty))`` over the ``P = n(n-1)/2`` pairs, where ``C`` and
    ``D`` count concordant and discordant pairs and ``Tx``/``Ty`` the pairs tied in x/y.

    Returns:
        Tau-b in [-1, 1], or None when it is undefined (fewer than 2 values, or one side
        entirely tied).
    """
    if len(x) != len(y):
        raise ValueError(f"rankings differ in length: {len(x)} and {len(y)}")
    n = len(x)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx != 0 and dy != 0:
                if (dx > 0) == (dy > 0):
                    concordant += 1
                else:
                    discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


def split_half_kendall(
    matrix: Mapping[str, Sequence[bool]], *, n_splits: int = SPLITS, seed: int = 0
) -> dict[str, float | int | None]:
    """Split-half ranking stability of models on shared items (see the module docstring).

    Args:
        matrix: Model to its 0/1 scores on the same items, in the same order.
        n_splits: Random splits.
        seed: Seed of the splits.

    Returns:
        ``kendall_tau`` (mean tau-b, None when no split gives one), ``splits`` (the splits
        used), ``n_items``, ``n_models``.
    """
    models = list(matrix)
    scores = np.asarray([list(matrix[m]) for m in models], dtype=float)
    n_items = scores.shape[1] if scores.ndim == 2 else 0
    result: dict[str, float | int | None] = {
        "kendall_tau": None,
        "splits": 0,
        "n_items": n_items,
        "n_models": len(models),
    }
    if len(models) < 2 or n_items < 2:
        return result
    rng = np.random.default_rng(seed)
    taus = []
    for _ in range(n_splits):
        order = rng.permutation(n_items)
        first, second = order[: n_items // 2], order[n_items // 2 :]
        tau = kendall_tau_b(
            scores[:, first].mean(axis=1).tolist(), scores[:, second].mean(axis=1).tolist()
        )
        if tau is not None:
            taus.append(tau)
    if taus:
        result["kendall_tau"] = float(np.mean(taus))
        result["splits"] = len(taus)
    return result


def item_difficulty(scores: Sequence[bool]) -> float | None:
    """The share of models that got an item right (None when no model scored it)."""
    return accuracy(scores)


def item_discrimination(matrix: np.ndarray | Sequence[Sequence[float]]) -> list[float | None]:
    """The corrected point-biserial discrimination of every item.

    Args:
        matrix: Models x items of 0/1 scores; NaN where a model did not score an item.

    Returns:
        One value per item (see the module docstring), None where undefined.
    """
    data = np.asarray(matrix, dtype=float)
    if data.ndim != 2:
        raise ValueError("need a models x items matrix")
    out: list[float | None] = []
    scored = ~np.isnan(data)
    totals = np.where(scored, data, 0.0).sum(axis=1)
    counts = scored.sum(axis=1)
    for j in range(data.shape[1]):
        rows = scored[:, j] & (counts > 1)
        if rows.sum() < 3:
            out.append(None)
            continue
        item = data[rows, j]
        rest = (totals[rows] - item) / (counts[rows] - 1)
        if np.std(item) == 0 or np.std(rest) == 0:
            out.append(None)
            continue
        out.append(float(np.corrcoef(item, rest)[0, 1]))
    return out


def wilson_interval(successes: int, n: int, *, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default).

    Args:
        successes: How many of the ``n`` trials succeeded.
        n: The number of trials (0 gives the uninformative interval ``(0.0, 1.0)``).
        z: The normal quantile of the interval's level.

    Returns:
        ``(low, high)``, both within [0, 1].
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be from 0 to n={n}, got {successes}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items (None when there are none).

    Args:
        first: The first rater's label per item.
        second: The second rater's label for the same items, in the same order.

    Returns:
        Kappa; 1.0 when the raters agree on every item and chance agreement is total (both
        always gave one and the same label).
    """
    if len(first) != len(second):
        raise ValueError("both raters need a label for every item")
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    labels = set(first) | set(second)
    expected = sum((first.count(label) / n) * (second.count(label) / n) for label in labels)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)

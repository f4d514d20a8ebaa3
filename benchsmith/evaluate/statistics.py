"""Statistics of an evaluation: pure functions over 0/1 scores, each documented and seeded.

- **Accuracy intervals** (and every other proportion: human acceptance, per-subtask
  accuracy): the Wilson score interval. It stays inside [0, 1] and does not collapse at 0/n
  or n/n, where a percentile bootstrap gives the empty interval ``[0, 0]`` or ``[1, 1]``
  (every resample of twelve wrong answers is wrong), and its coverage is close to nominal
  from a handful of items on.
- **Difference of two models** on the same items: Newcombe's square-and-add interval for
  paired proportions (Newcombe 1998, Stat Med 17:2635, method 10), built from the two Wilson
  intervals and the correlation of the paired scores. Like Wilson it is not degenerate when
  the two models agree on every item (a paired bootstrap would give ``[0, 0]`` there).
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
- **Agreement of two reviewers**: Cohen's kappa over the items both decided,
  ``(p_o - p_e) / (1 - p_e)``; 1.0 when both always agree and agreement by chance is 1.
- **Latency**: median and 95th percentile (numpy's linear interpolation) of the seconds
  each call took.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval."""
SPLITS = 200
ALPHA = 0.05


def accuracy(scores: Sequence[bool | int | float]) -> float | None:
    """The mean of 0/1 scores, or None for no scores."""
    if len(scores) == 0:
        return None
    return float(np.mean(np.asarray(scores, dtype=float)))


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


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> tuple[float, float]:
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
    # At 0/n and n/n the bound on that side is exactly 0 or 1 (no rounding residue).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


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


def accuracy_interval(scores: Sequence[bool | int | float]) -> tuple[float, float] | None:
    """The 95 % Wilson interval of the accuracy of 0/1 scores, or None for no scores."""
    if len(scores) == 0:
        return None
    return wilson_interval(int(sum(bool(s) for s in scores)), len(scores))


def paired_difference_interval(
    first: Sequence[bool], second: Sequence[bool], *, z: float = Z95
) -> tuple[float, float] | None:
    """Newcombe's square-and-add interval of ``accuracy(first) - accuracy(second)``.

    The two sequences are two models' 0/1 scores on the same items. With the 2x2 counts
    ``a`` (both right), ``b`` (first only), ``c`` (second only), ``d`` (neither), the
    accuracies ``p1 = (a + b) / n`` and ``p2 = (a + c) / n`` get Wilson intervals
    ``[l1, u1]`` and ``[l2, u2]``; with the correlation estimate ``phi`` (below), the
    interval is ``D - sqrt((p1 - l1)^2 + (u2 - p2)^2 - 2 phi (p1 - l1)(u2 - p2))`` to
    ``D + sqrt((p2 - l2)^2 + (u1 - p1)^2 - 2 phi (p2 - l2)(u1 - p1))`` for
    ``D = p1 - p2``. ``phi`` is ``(ad - bc - n/2) / sqrt((a+b)(c+d)(a+c)(b+d))`` when
    ``ad - bc > n/2``, ``0`` when ``0 <= ad - bc <= n/2`` or a margin is empty, and
    ``(ad - bc) / sqrt(...)`` when ``ad - bc < 0`` (Newcombe's continuity correction).

    Args:
        first: The first model's scores.
        second: The second model's scores on the same items, in the same order.
        z: The normal quantile of the interval's level (95 % by default).

    Returns:
        ``(low, high)`` within [-1, 1], or None when there is no item.

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(first) != len(second):
        raise ValueError(f"paired scores differ in length: {len(first)} and {len(second)}")
    n = len(first)
    if n == 0:
        return None
    pairs = list(zip(map(bool, first), map(bool, second), strict=True))
    a = sum(1 for x, y in pairs if x and y)
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if y and not x)
    d = n - a - b - c
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, z=z)
    l2, u2 = wilson_interval(a + c, n, z=z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    diff = p1 - p2
    below = (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)
    above = (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)
    low = max(-1.0, diff - math.sqrt(max(0.0, below)))
    high = min(1.0, diff + math.sqrt(max(0.0, above)))
    return (low, high)


def latency_summary(seconds: Sequence[float]) -> dict[str, float | int] | None:
    """Median and 95th percentile of call latencies (seconds), or None for none.

    Returns:
        ``median``, ``p95`` (rounded to milliseconds) and ``n``.
    """
    if len(seconds) == 0:
        return None
    values = np.asarray(seconds, dtype=float)
    median, p95 = np.percentile(values, [50.0, 95.0])
    return {"median": round(float(median), 3), "p95": round(float(p95), 3), "n": len(values)}

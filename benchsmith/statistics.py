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
- **Bootstrap intervals of several models' accuracies** (:func:`bootstrap_intervals`): the
  items are resampled with replacement, one resample shared by every model (paired, so a
  hard draw of items is hard for all of them), ``rounds`` times with
  ``numpy.random.default_rng(seed)``; each model's interval is the percentile interval of
  its mean score over the resamples (NaN scores left out of the mean). Used for comparing
  models on one benchmark, not for a single accuracy near 0 or 1 (Wilson's, above).
- **Separability** (:func:`separability`, Arena-Hard's measure, Li et al. 2024): the share
  of model pairs whose intervals do not overlap (touching intervals overlap). A benchmark
  that separates models has a share near 1.
- **Contamination gap** (:func:`paired_gap_test`): one model's scores on published items and
  on fresh instances of them (same program, new seed), paired. The gap is
  ``accuracy(published) - accuracy(fresh)``; its p-value is the exact McNemar test above
  (two-sided by default; ``alternative="greater"`` tests "published easier than fresh" with
  ``P(X >= b)``, ``X ~ Binomial(b + c, 1/2)``, ``b`` the pairs right only when published),
  its interval Newcombe's paired interval above (95 %, two-sided).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

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


def _validated_scores(matrix: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """A (models, items) float matrix of scores in [0, 1] or NaN.

    Raises:
        ValueError: Not two-dimensional, empty, or a score outside [0, 1].
    """
    data = np.asarray(matrix, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"need a (models, items) matrix of scores, got shape {data.shape}")
    if data.shape[0] == 0 or data.shape[1] == 0:
        raise ValueError(f"the score matrix is empty (shape {data.shape})")
    present = data[~np.isnan(data)]
    if np.any((present < 0) | (present > 1)):
        raise ValueError("scores must lie in [0, 1] (NaN where a model did not score an item)")
    return data


def bootstrap_intervals(
    matrix: np.ndarray | Sequence[Sequence[float]],
    *,
    rounds: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, object]:
    """Paired percentile-bootstrap intervals of several models' accuracies on shared items.

    Each round draws ``n_items`` items with replacement (as multinomial counts, one draw
    for every model); a model's score in that round is its mean over the drawn items it
    scored, counted with multiplicity. The interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles (numpy's linear interpolation) of those scores, over the
    rounds in which the model scored at least one drawn item.

    Args:
        matrix: (models, items) scores in [0, 1]; NaN where a model did not score an item.
        rounds: Bootstrap resamples (at least 1).
        seed: Seed of ``numpy.random.default_rng``.
        level: Coverage of each interval, between 0 and 1.

    Returns:
        ``intervals`` (per model ``(low, high)``, None for a model without a score),
        ``accuracy`` (per model, its mean score; None without a score), ``rounds``,
        ``level``, ``seed``, ``n_items``.

    Raises:
        ValueError: An invalid matrix (see above), ``rounds < 1`` or ``level`` outside (0, 1).
    """
    data = _validated_scores(matrix)
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    n_models, n_items = data.shape
    scored = ~np.isnan(data)
    filled = np.where(scored, data, 0.0)
    rng = np.random.default_rng(seed)
    # counts[r, i]: how often round r drew item i (the same draw for every model).
    counts = rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=rounds)
    totals = counts @ filled.T
    drawn = counts @ scored.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(drawn > 0, totals / np.where(drawn > 0, drawn, 1.0), np.nan)
    tail = (1.0 - level) / 2.0
    intervals: list[tuple[float, float] | None] = []
    point: list[float | None] = []
    for m in range(n_models):
        if not scored[m].any():
            intervals.append(None)
            point.append(None)
            continue
        point.append(float(data[m, scored[m]].mean()))
        sample = means[~np.isnan(means[:, m]), m]
        low, high = np.quantile(sample, [tail, 1.0 - tail])
        intervals.append((float(low), float(high)))
    return {
        "intervals": intervals,
        "accuracy": point,
        "rounds": rounds,
        "level": level,
        "seed": seed,
        "n_items": n_items,
    }


def separability(
    intervals: Sequence[tuple[float, float] | None], names: Sequence[str] | None = None
) -> dict[str, object]:
    """The share of model pairs whose intervals do not overlap (Arena-Hard's separability).

    Args:
        intervals: Per model ``(low, high)``; None for a model without an interval (left
            out of every pair).
        names: Per model its name; the indices as strings by default.

    Returns:
        ``pairs`` (pairs of models with intervals), ``separated`` (pairs whose intervals
        are disjoint: one's high below the other's low), ``share`` (``separated / pairs``,
        None without a pair) and ``separated_pairs`` (``(name, name)`` in input order).

    Raises:
        ValueError: ``names`` differs in length from ``intervals``, or an interval has its
            low above its high.
    """
    labels = [str(i) for i in range(len(intervals))] if names is None else list(names)
    if len(labels) != len(intervals):
        raise ValueError(f"{len(labels)} names for {len(intervals)} intervals")
    present = [(label, iv) for label, iv in zip(labels, intervals, strict=True) if iv is not None]
    for label, (low, high) in present:
        if low > high:
            raise ValueError(f"the interval of {label} has its low {low} above its high {high}")
    separated_pairs = []
    pairs = 0
    for i, (first, (low1, high1)) in enumerate(present):
        for second, (low2, high2) in present[i + 1 :]:
            pairs += 1
            if high1 < low2 or high2 < low1:
                separated_pairs.append((first, second))
    return {
        "pairs": pairs,
        "separated": len(separated_pairs),
        "share": len(separated_pairs) / pairs if pairs else None,
        "separated_pairs": separated_pairs,
    }


def _binary_or_missing(value: object) -> bool | None:
    """A score as True/False, or None when it is missing (None or NaN)."""
    if value is None:
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = -1.0
    if isinstance(value, str) or not (math.isnan(number) or number in (0.0, 1.0)):
        raise ValueError(f"paired scores must be 0/1 (or None/NaN for missing), got {value!r}")
    return None if math.isnan(number) else number == 1.0


def paired_gap_test(
    published: Sequence[bool | int | float | None],
    fresh: Sequence[bool | int | float | None],
    *,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
) -> dict[str, object]:
    """Test whether a model does better on published items than on their fresh instances.

    ``published[i]`` and ``fresh[i]`` are one model's 0/1 scores on an item and on a fresh
    instance of it (same program, new seed). Pairs where either score is missing (None or
    NaN) are left out. The test and the interval are described in the module docstring.

    Args:
        published: Scores on the published items.
        fresh: Scores on their fresh instances, in the same order.
        alternative: ``"two-sided"`` (the default: any difference), ``"greater"``
            (published easier than fresh, what memorisation predicts) or ``"less"``.

    Returns:
        ``gap`` (``published_accuracy - fresh_accuracy``), ``p_value``, ``alternative``,
        ``n`` (pairs used), ``dropped`` (pairs with a missing score), ``published_accuracy``,
        ``fresh_accuracy``, ``counts`` (``both``, ``published_only``, ``fresh_only``,
        ``neither``) and ``interval`` (Newcombe's 95 % interval of the gap).

    Raises:
        ValueError: The sequences differ in length, a score is not 0/1 or missing, no pair
            is complete, or ``alternative`` is unknown.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}"
        )
    if len(published) != len(fresh):
        raise ValueError(
            f"published and fresh scores differ in length: {len(published)} and {len(fresh)}"
        )
    pairs = [
        (x, y)
        for x, y in (
            (_binary_or_missing(p), _binary_or_missing(f))
            for p, f in zip(published, fresh, strict=True)
        )
        if x is not None and y is not None
    ]
    if not pairs:
        raise ValueError("no complete pair: every published or fresh score is missing")
    first = [x for x, _ in pairs]
    second = [y for _, y in pairs]
    test = mcnemar_exact(first, second)
    b, c = int(test["first_only"]), int(test["second_only"])
    if alternative == "two-sided":
        p_value = float(test["p_value"])
    else:
        # One-sided exact: P(X >= b) for "greater", P(X <= b) for "less", X ~ Bin(b + c, 1/2).
        tail_count = c if alternative == "greater" else b
        discordant = b + c
        p_value = (
            1.0
            if discordant == 0
            else sum(math.comb(discordant, k) for k in range(tail_count + 1)) / 2.0**discordant
        )
    n = len(pairs)
    both = sum(1 for x, y in pairs if x and y)
    published_accuracy = (both + b) / n
    fresh_accuracy = (both + c) / n
    return {
        "gap": published_accuracy - fresh_accuracy,
        "p_value": min(1.0, p_value),
        "alternative": alternative,
        "n": n,
        "dropped": len(published) - n,
        "published_accuracy": published_accuracy,
        "fresh_accuracy": fresh_accuracy,
        "counts": {"both": both, "published_only": b, "fresh_only": c, "neither": n - both - b - c},
        "interval": paired_difference_interval(first, second),
    }

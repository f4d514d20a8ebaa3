"""The report's figures, drawn with matplotlib's Agg backend and returned as base64 PNG.

Each figure function returns a :class:`Plot`: the PNG as base64 text (for an
``<img src="data:image/png;base64,...">`` tag), or no PNG and the reason it was left out.
A figure is drawn only when it carries information (:func:`skip_reason`): a bar chart of
one group, of no scored values or of bars that are all zero says nothing the tables do not.
matplotlib is imported lazily (and not at all for a figure that is left out).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from benchsmith.item import Item


class Plot(NamedTuple):
    """A figure, or why there is none."""

    png: str | None
    """Base64 PNG; None when the figure was left out."""
    skipped: str = ""
    """Why the figure was left out (empty when it was drawn)."""


def skip_reason(
    labels: Sequence[str],
    values: Iterable[float | None],
    *,
    min_labels: int = 1,
    label_name: str = "group",
) -> str | None:
    """Why a bar-style figure would carry no information, or None when it is worth drawing.

    Args:
        labels: The groups along the axis (subtasks, bins, cells).
        values: Every bar's height (None for a group with nothing scored).
        min_labels: Fewest groups worth a figure (2 when the point is to compare groups).
        label_name: What a group is, for the reason (``subtask``).

    Returns:
        The reason, in words, or None.
    """
    if not labels:
        return f"no {label_name} to show"
    if len(labels) < min_labels:
        return f"only {len(labels)} {label_name}; the table says it all"
    heights = [v for v in values if v is not None]
    if not heights:
        return "no scored items"
    if all(v == 0 for v in heights):
        return "every bar is zero"
    return None


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def subtask_scores(models: Mapping[str, Mapping[str, Any]]) -> Plot:
    """Grouped bars: accuracy per subtask for each model, with 95% interval whiskers.

    Left out with fewer than two subtasks, no scored item or every accuracy zero.
    """
    subtasks = sorted({s for m in models.values() for s in m.get("by_subtask", {})})
    heights = [
        (m.get("by_subtask", {}).get(s) or {}).get("accuracy")
        for m in models.values()
        for s in subtasks
    ]
    why = skip_reason(subtasks, heights, min_labels=2, label_name="subtask")
    if why:
        return Plot(None, why)
    plt = _pyplot()
    width = 0.8 / len(models)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(subtasks) * len(models) ** 0.5 + 3), 3.6))
    x = np.arange(len(subtasks))
    for k, (name, result) in enumerate(models.items()):
        cells = [result.get("by_subtask", {}).get(s) for s in subtasks]
        acc = [c["accuracy"] if c and c["accuracy"] is not None else 0.0 for c in cells]
        low = [
            a - (c["ci95"][0] if c and c["ci95"] else a) for a, c in zip(acc, cells, strict=True)
        ]
        high = [
            (c["ci95"][1] if c and c["ci95"] else a) - a for a, c in zip(acc, cells, strict=True)
        ]
        ax.bar(x + (k - (len(models) - 1) / 2) * width, acc, width, label=name,
               yerr=[low, high], capsize=3)  # fmt: skip
    ax.set_xticks(x, subtasks, rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (95% CI)")
    ax.set_title("Score by subtask")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return Plot(_png(fig))


def separability_intervals(
    separability: Mapping[str, Any], accuracy: Mapping[str, float | None]
) -> Plot:
    """Each model's accuracy with its 95% bootstrap interval, best at the top.

    Intervals that do not overlap separate their models; the title gives the share of pairs
    that do. Left out with fewer than two models with an interval.
    """
    intervals = {m: iv for m, iv in (separability.get("intervals") or {}).items() if iv}
    if len(intervals) < 2:
        return Plot(None, "fewer than two models with an interval")
    order = sorted(intervals, key=lambda m: accuracy.get(m) or 0.0)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 0.45 * len(order) + 1.2))
    y = np.arange(len(order))
    points = [accuracy.get(m) or 0.0 for m in order]
    low = [p - intervals[m][0] for p, m in zip(points, order, strict=True)]
    high = [intervals[m][1] - p for p, m in zip(points, order, strict=True)]
    ax.errorbar(points, y, xerr=[low, high], fmt="o", capsize=4)
    ax.set_yticks(y, order)
    ax.set_xlim(0, 1)
    ax.set_xlabel("accuracy (95% bootstrap interval)")
    share = separability.get("share")
    ax.set_title(
        f"Separability: {separability.get('separated', 0)} of {separability.get('pairs', 0)} "
        f"pairs ({'n/a' if share is None else f'{100 * share:.0f}%'}) do not overlap"
    )
    ax.grid(axis="x", alpha=0.3)
    return Plot(_png(fig))


def item_parameters(rows: Sequence[Mapping[str, Any]]) -> Plot:
    """Fitted difficulty against discrimination, one point per item; flagged items marked.

    Left out with fewer than two items.
    """
    points = [r for r in rows if r.get("difficulty") is not None]
    if len(points) < 2:
        return Plot(None, "fewer than two calibrated items")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    plain = [r for r in points if not r.get("flag")]
    flagged = [r for r in points if r.get("flag")]
    ax.scatter([r["difficulty"] for r in plain], [r["discrimination"] for r in plain],
               s=12, label="items")  # fmt: skip
    if flagged:
        ax.scatter([r["difficulty"] for r in flagged], [r["discrimination"] for r in flagged],
                   s=12, marker="x", label="flagged (solved by all/none, low a)")  # fmt: skip
    ax.set_xlabel("difficulty b (higher is harder)")
    ax.set_ylabel("discrimination a")
    ax.set_title("Fitted item parameters")
    ax.legend(fontsize=8)
    return Plot(_png(fig))


def difficulty_histogram(per_item: Sequence[Mapping[str, Any]]) -> Plot:
    """Histogram of item difficulty: the share of models answering each item correctly.

    Left out when no item was scored, or when each item was scored by one model only (the
    share is then 0 or 1 and the histogram repeats that model's accuracy).
    """
    values = [r["p_correct"] for r in per_item if r.get("p_correct") is not None]
    if not values:
        return Plot(None, "no scored items")
    if max(int(r.get("n_models") or 0) for r in per_item) < 2:
        return Plot(None, "one model only; its accuracy says the same")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.hist(values, bins=np.linspace(0, 1, 11), edgecolor="black")
    ax.set_xlabel("share of models correct (0 = no model, 1 = every model)")
    ax.set_ylabel("items")
    ax.set_title("Item difficulty")
    return Plot(_png(fig))


def coverage_table(items: Sequence[Item]) -> tuple[str, str, list[str], list[str], list[list[int]]]:
    """Counts for the coverage heatmap.

    Computed items (with ``metadata.concepts``) give concept x difficulty (steps); other
    items give subtask x skill.

    Returns:
        Row axis name, column axis name, row labels, column labels, counts.
    """
    computed = any(i.metadata.get("concepts") for i in items)
    pairs: list[tuple[str, str]] = []
    for item in items:
        meta = item.metadata
        if computed:
            rows = [str(c) for c in meta.get("concepts") or ["(none)"]]
            # the chain's steps (older folders kept them in ``difficulty``)
            cols = [str(meta.get("steps", meta.get("difficulty", "(none)")))]
        else:
            rows = [str(meta.get("subtask") or "(none)")]
            cols = [str(s) for s in meta.get("skills") or ["(none)"]]
        pairs.extend((r, c) for r in rows for c in cols)

    def order(v: str) -> tuple[int, float, str]:
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)

    row_labels = sorted({r for r, _ in pairs})
    col_labels = sorted({c for _, c in pairs}, key=order)
    counts = [[sum(1 for p in pairs if p == (r, c)) for c in col_labels] for r in row_labels]
    if computed:
        return "concept", "difficulty (steps)", row_labels, col_labels, counts
    return "subtask", "skill", row_labels, col_labels, counts


def coverage_heatmap(items: Sequence[Item]) -> Plot:
    """Heatmap of item counts (see :func:`coverage_table`); left out for a single cell."""
    row_name, col_name, rows, cols, counts = coverage_table(items)
    if not rows or not cols:
        return Plot(None, "no items")
    if len(rows) * len(cols) < 2:
        return Plot(None, f"one {row_name} and one {col_name} only; the table says it all")
    plt = _pyplot()
    fig, ax = plt.subplots(
        figsize=(max(4.5, 0.9 * len(cols) + 3), max(2.5, 0.45 * len(rows) + 1.5))
    )
    image = ax.imshow(np.asarray(counts), cmap="Blues", aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    top = max(max(r) for r in counts) or 1
    for i, row in enumerate(counts):
        for j, value in enumerate(row):
            ax.text(j, i, str(value), ha="center", va="center",
                    color="white" if value > top / 2 else "black", fontsize=8)  # fmt: skip
    ax.set_xlabel(col_name)
    ax.set_ylabel(row_name)
    ax.set_title(f"Coverage: items per {row_name} and {col_name}")
    fig.colorbar(image, ax=ax, shrink=0.8)
    return Plot(_png(fig))


def judge_distributions(summary: Mapping[str, Any]) -> Plot:
    """Stacked bars: how many items got each score (1-5) on each judge dimension."""
    distribution = summary.get("distribution") or {}
    dims = [d for d in distribution if sum(distribution[d].values())]
    if not dims:
        return Plot(None, "no item was rated")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    bottom = np.zeros(len(dims))
    colors = ["#d7191c", "#fdae61", "#ffffbf", "#a6d96a", "#1a9641"]
    for score in range(1, 6):
        counts = np.asarray([distribution[d].get(str(score), 0) for d in dims], dtype=float)
        ax.bar([d.upper() for d in dims], counts, bottom=bottom, label=str(score),
               color=colors[score - 1], edgecolor="grey")  # fmt: skip
        bottom += counts
    ax.set_ylabel("items")
    ax.set_title("Judge scores per dimension (1 = very poor, 5 = excellent)")
    ax.legend(title="score", fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return Plot(_png(fig))

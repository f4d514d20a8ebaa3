"""The report's figures, drawn with matplotlib's Agg backend and returned as base64 PNG.

Each function returns the PNG as base64 text (for an ``<img src="data:image/png;base64,...">``
tag), or None when there is nothing to draw. matplotlib is imported lazily.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchsmith.item import Item


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


def subtask_scores(models: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Grouped bars: accuracy per subtask for each model, with 95% interval whiskers."""
    subtasks = sorted({s for m in models.values() for s in m.get("by_subtask", {})})
    if not subtasks or not models:
        return None
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
    return _png(fig)


def difficulty_histogram(per_item: Sequence[Mapping[str, Any]]) -> str | None:
    """Histogram of item difficulty: the share of models answering each item correctly."""
    values = [r["p_correct"] for r in per_item if r.get("p_correct") is not None]
    if not values:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.hist(values, bins=np.linspace(0, 1, 11), edgecolor="black")
    ax.set_xlabel("share of models correct (0 = no model, 1 = every model)")
    ax.set_ylabel("items")
    ax.set_title("Item difficulty")
    return _png(fig)


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
            cols = [str(meta.get("difficulty", "(none)"))]
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


def coverage_heatmap(items: Sequence[Item]) -> str | None:
    """Heatmap of item counts (see :func:`coverage_table`)."""
    row_name, col_name, rows, cols, counts = coverage_table(items)
    if not rows or not cols:
        return None
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
    return _png(fig)


def judge_distributions(summary: Mapping[str, Any]) -> str | None:
    """Stacked bars: how many items got each score (1-5) on each judge dimension."""
    distribution = summary.get("distribution") or {}
    dims = [d for d in distribution if sum(distribution[d].values())]
    if not dims:
        return None
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
    return _png(fig)

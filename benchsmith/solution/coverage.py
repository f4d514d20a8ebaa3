"""Coverage: items allocated over concepts x difficulty, and the report of what was made.

Allocation gives every fillable cell an equal share (or a share by weight, keyed by concept
or by ``(concept, difficulty)``), by largest remainders with ties broken in reading order.
Cells the material cannot fill get nothing and are listed with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Cell = tuple[str, int]


def allocate(
    n: int,
    cells: list[Cell],
    *,
    weights: Mapping[Any, float] | None = None,
) -> dict[Cell, int]:
    """Split ``n`` over ``cells`` in proportion to their weights (1 each by default).

    Args:
        n: The number of items.
        cells: The fillable cells, in order.
        weights: Optional weights by concept name or by ``(concept, difficulty)``.

    Returns:
        Items per cell; the counts sum to ``n`` when there is any cell.
    """
    if not cells or n <= 0:
        return {c: 0 for c in cells}

    def weight(cell: Cell) -> float:
        if weights is None:
            return 1.0
        return float(weights.get(cell, weights.get(cell[0], 0.0)))

    raw = {c: max(weight(c), 0.0) for c in cells}
    total = sum(raw.values())
    if total <= 0:
        raw = {c: 1.0 for c in cells}
        total = float(len(cells))
    exact = {c: n * w / total for c, w in raw.items()}
    counts = {c: int(v) for c, v in exact.items()}
    left = n - sum(counts.values())
    order = sorted(cells, key=lambda c: (-(exact[c] - counts[c]), cells.index(c)))
    for cell in order[:left]:
        counts[cell] += 1
    return counts


@dataclass
class CoverageReport:
    """Items per concept x difficulty: requested, produced, and the cells that cannot be filled.

    Attributes:
        concepts: Row labels, in reading order.
        difficulties: Column labels (steps).
        requested: Allocated items per cell.
        produced: Items made per cell.
        unfillable: Why a cell gets nothing (no chain of that length, values never in range).
        shortfall: Why a cell made fewer than requested.
    """

    concepts: list[str]
    difficulties: list[int]
    requested: dict[Cell, int] = field(default_factory=dict)
    produced: dict[Cell, int] = field(default_factory=dict)
    unfillable: dict[Cell, str] = field(default_factory=dict)
    shortfall: dict[Cell, str] = field(default_factory=dict)

    def table(self) -> str:
        """A Markdown table of produced items (``-`` marks a cell that cannot be filled)."""
        head = "| concept | " + " | ".join(f"k={k}" for k in self.difficulties) + " | total |"
        rule = "| --- | " + " | ".join("---:" for _ in self.difficulties) + " | ---: |"
        rows = [head, rule]
        for concept in self.concepts:
            cells = []
            for k in self.difficulties:
                cell = (concept, k)
                cells.append("-" if cell in self.unfillable else str(self.produced.get(cell, 0)))
            total = sum(self.produced.get((concept, k), 0) for k in self.difficulties)
            rows.append(f"| {concept} | " + " | ".join(cells) + f" | {total} |")
        totals = [
            sum(self.produced.get((c, k), 0) for c in self.concepts) for k in self.difficulties
        ]
        rows.append("| total | " + " | ".join(map(str, totals)) + f" | {sum(totals)} |")
        notes = [f"- {c} k={k}: {why}" for (c, k), why in self.unfillable.items()]
        notes += [f"- {c} k={k} short: {why}" for (c, k), why in self.shortfall.items()]
        return "\n".join(rows + ([""] + notes if notes else []))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form for report.json."""

        def cells(data: Mapping[Cell, Any]) -> list[dict[str, Any]]:
            return [{"concept": c, "difficulty": k, "value": v} for (c, k), v in data.items()]

        return {
            "concepts": self.concepts,
            "difficulties": self.difficulties,
            "requested": cells(self.requested),
            "produced": cells(self.produced),
            "unfillable": cells(self.unfillable),
            "shortfall": cells(self.shortfall),
        }

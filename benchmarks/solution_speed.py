"""Solution-graph generation speed (template wording, no model) and the coverage table.

Run: .venv/bin/python benchmarks/solution_speed.py [N]
Reports the time to build the graph and plan the cells (once per build), then items per
second for making N items, and the coverage table for the sample chapter.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from benchsmith.solution import generate_items
from benchsmith.solution.knowledge import build_knowledge

CHAPTER = Path(__file__).resolve().parents[1] / "examples/references/time-value-of-money.md"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    started = time.perf_counter()
    knowledge = build_knowledge([CHAPTER])
    built = time.perf_counter()
    result = generate_items([CHAPTER], n, seed=1, knowledge=knowledge)
    done = time.perf_counter()
    stats = result.stats
    item_seconds = stats["seconds_items"]
    print(
        f"graph: {built - started:.2f} s ({stats['formulas_admitted']} formulas admitted, "
        f"{stats['formulas_rejected']} rejected, {stats['quantities']} quantities)"
    )
    print(f"plan (derivations of every cell, probed): {stats['seconds_plan']:.2f} s")
    print(
        f"items: {len(result.items)} in {item_seconds:.2f} s = "
        f"{len(result.items) / max(item_seconds, 1e-9):.0f} items/s"
    )
    print(
        f"end to end: {len(result.items) / (done - started):.0f} items/s "
        f"({done - started:.2f} s including graph and plan)"
    )
    print()
    print(result.coverage.table())
    print()
    for rejected in result.rejected_formulas:
        print(f"rejected formula {rejected.text!r}: {rejected.reason}")


if __name__ == "__main__":
    main()

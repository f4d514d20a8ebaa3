"""Computed problems end to end (template wording, no model), and the coverage table.

The headline is end to end: reading the reference, building the solution graph, planning
the cells (the derivations of every concept and difficulty, probed) and making the items,
the way a build from ``--reference`` pays for them; item-making alone is shown apart, as a
part. Each repeat runs in a fresh process, so no cache of an earlier repeat is hit.

Run: ``python benchmarks/solution_speed.py [--items 200] [--repeats 3] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from _common import Summary, figure, load_average

CHAPTER = Path(__file__).resolve().parents[1] / "examples/references/time-value-of-money.md"


def child(n: int) -> None:
    """Make ``n`` items once and print the timings as JSON (child process)."""
    from benchsmith.solution import generate_items
    from benchsmith.solution.knowledge import build_knowledge

    started, cpu = time.perf_counter(), time.process_time()
    knowledge = build_knowledge([CHAPTER])
    result = generate_items([CHAPTER], n, seed=1, knowledge=knowledge)
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    stats = result.stats
    print(
        json.dumps(
            {
                "items": len(result.items),
                "total_s": total,
                "cpu_s": cpu,
                "graph_s": total - stats["seconds_plan"] - stats["seconds_items"],
                "plan_s": stats["seconds_plan"],
                "items_s": stats["seconds_items"],
                "formulas": [stats["formulas_admitted"], stats["formulas_rejected"]],
                "coverage": result.coverage.table(),
                "rejected": [f"{r.text!r}: {r.reason}" for r in result.rejected_formulas],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--coverage", action="store_true", help="print the coverage table")
    parser.add_argument("--quick", action="store_true", help="one repeat")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 1
    runs = []
    for _ in range(args.repeats):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(args.items)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    made = runs[0]["items"]
    rate = Summary.of([r["items"] / r["total_s"] for r in runs])
    part = {k: Summary.of([r[k] for r in runs]) for k in ("graph_s", "plan_s", "items_s")}
    items_only = Summary.of([r["items"] / max(r["items_s"], 1e-9) for r in runs])
    print(f"{args.items} items requested, {made} made; {args.repeats} repeat(s); {load_average()}")
    per_cpu = Summary.of([r["items"] / r["cpu_s"] for r in runs])
    print(
        f"end to end: {rate.text('.1f', ' items/s')}; total "
        f"{Summary.of([r['total_s'] for r in runs]).text('.2f', ' s')} "
        f"({per_cpu.text('.1f', ' items per CPU second')}, less sensitive to a shared machine)"
    )
    print(
        f"  of which graph {part['graph_s'].text('.2f', ' s')}, plan "
        f"{part['plan_s'].text('.2f', ' s')}, items {part['items_s'].text('.2f', ' s')} "
        f"(item-making alone {items_only.text('.0f', ' items/s')}, not the build's rate)"
    )
    print(f"formulas admitted, rejected: {runs[0]['formulas']}")
    if args.coverage:
        print()
        print(runs[0]["coverage"])
        for line in runs[0]["rejected"]:
            print(f"rejected formula {line}")
    figure(
        "computed_items_per_s",
        f"computed problems end to end (planning included), {args.items} items",
        ">= 100 items/s",
        f"{rate.text('.1f', ' items/s')} [planning {part['plan_s'].median:.2f} s]",
    )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()

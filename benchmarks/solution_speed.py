"""Computed problems end to end (template wording, no model), and the coverage table.

The headline is end to end: reading the reference, building the solution graph, planning
the cells (the derivations of every concept and difficulty, probed) and making the items,
the way a build from ``--reference`` pays for them; item-making alone is shown apart, as a
part. Each run is a fresh process.

Solved formulas and plans are cached by content under ``$BENCHSMITH_HOME/cache/solution``
(:mod:`benchsmith.solution.cache`), so both figures are measured: *cold*, the first build of
a reference (each cold run gets an empty, temporary ``BENCHSMITH_HOME``), and *warm*, a build
of a reference built before (a second run on the home the cold run filled). The headline is
the cold figure, the warm one in brackets.

Run: ``python benchmarks/solution_speed.py [--items 200] [--repeats 3] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
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
    cold: list[dict] = []
    warm: list[dict] = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="benchsmith-home-") as home:
            env = {**os.environ, "BENCHSMITH_HOME": home}
            env.pop("BENCHSMITH_SOLUTION_CACHE", None)
            for runs in (cold, warm):  # the cold run fills the empty cache, the warm run reads it
                out = subprocess.run(
                    [sys.executable, __file__, "--child", str(args.items)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                ).stdout
                runs.append(json.loads(out.strip().splitlines()[-1]))
    made = cold[0]["items"]
    print(f"{args.items} items requested, {made} made; {args.repeats} repeat(s); {load_average()}")
    rates = {}
    for label, runs in (("cold", cold), ("warm", warm)):
        rate = rates[label] = Summary.of([r["items"] / r["total_s"] for r in runs])
        part = {k: Summary.of([r[k] for r in runs]) for k in ("graph_s", "plan_s", "items_s")}
        items_only = Summary.of([r["items"] / max(r["items_s"], 1e-9) for r in runs])
        per_cpu = Summary.of([r["items"] / r["cpu_s"] for r in runs])
        what = "empty cache" if label == "cold" else "cache filled by the cold run"
        print(
            f"end to end, {label} ({what}): {rate.text('.1f', ' items/s')}; total "
            f"{Summary.of([r['total_s'] for r in runs]).text('.2f', ' s')} "
            f"({per_cpu.text('.1f', ' items per CPU second')}, less sensitive to a shared machine)"
        )
        print(
            f"  of which graph {part['graph_s'].text('.2f', ' s')}, plan "
            f"{part['plan_s'].text('.2f', ' s')}, items {part['items_s'].text('.2f', ' s')} "
            f"(item-making alone {items_only.text('.0f', ' items/s')}, not the build's rate)"
        )
    if [r["coverage"] for r in warm] != [r["coverage"] for r in cold]:
        print("WARNING: the warm runs' coverage differs from the cold runs'")
    print(f"formulas admitted, rejected: {cold[0]['formulas']}")
    if args.coverage:
        print()
        print(cold[0]["coverage"])
        for line in cold[0]["rejected"]:
            print(f"rejected formula {line}")
    cold_plan = Summary.of([r["plan_s"] for r in cold]).median
    figure(
        "computed_items_per_s",
        f"computed problems end to end (planning included), {args.items} items",
        ">= 100 items/s",
        f"{rates['cold'].text('.1f', ' items/s')} cold "
        f"[warm {rates['warm'].text('.1f', ' items/s')}; planning {cold_plan:.2f} s cold]",
        cold=rates["cold"].as_dict(),
        warm=rates["warm"].as_dict(),
    )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()

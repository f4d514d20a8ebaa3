"""Run every benchmark script and print one table of their headline figures with the goals.

Each script runs alone in its own process (as ``python benchmarks/NAME.py``), its output
shown as it comes; its ``FIGURE`` lines (see ``_common.figure``) are collected. At the end:
one table, the issue-16 figures first in the issue's order, each with its goal and the
measured value (median and range of the repeats), and the machine's load average sampled
during the run (the machine may be shared: read ratios, not absolute times).

Usage: ``python benchmarks/run_all.py [--quick] [--only NAME ...]`` (``make benchmarks``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from _common import FIGURE_PREFIX

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "llm_overhead",
    "local_model",
    "tools_overhead",
    "catalog_speed",
    "build_speed",
    "solution_speed",
    "demo_speed",
]
SLOW = {"demo_speed"}
"""Scripts left out of ``--quick`` (``make demo`` takes minutes whatever the mode)."""
ORDER = [
    "build_ratio_500",
    "build_ratio_2000",
    "first_call",
    "computed_items_per_s",
    "mc_share",
    "memory_per_item",
    "build_linearity",
    "demo_wall",
]


class LoadSampler(threading.Thread):
    """Samples the 1-minute load average every few seconds until stopped."""

    def __init__(self, every: float = 5.0) -> None:
        """Start sampling now."""
        super().__init__(daemon=True)
        self.every = every
        self.samples: list[float] = [os.getloadavg()[0]]
        self._stop_event = threading.Event()

    def run(self) -> None:
        """Sample until :meth:`stop`."""
        while not self._stop_event.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> list[float]:
        """Stop and return the samples."""
        self._stop_event.set()
        self.join()
        self.samples.append(os.getloadavg()[0])
        return self.samples


def run_script(name: str, extra: list[str]) -> tuple[int, list[dict], float]:
    """Run one script; its exit code, figures and wall time."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / f"{name}.py"), *extra],
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    figures = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(FIGURE_PREFIX):
            figures.append(json.loads(line[len(FIGURE_PREFIX) :]))
        else:
            print(line, end="", flush=True)
    return proc.wait(), figures, time.perf_counter() - started


def table(rows: list[tuple[str, str, str]]) -> str:
    """A Markdown table of (figure, goal, measured)."""
    head = ("figure", "goal", "measured (median, range, n)")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"
        for r in [head, *rows]
    ]
    lines.insert(1, "| " + " | ".join("-" * w for w in widths) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each script's quickest mode")
    parser.add_argument("--only", nargs="*", choices=SCRIPTS, default=SCRIPTS)
    args = parser.parse_args()
    sampler = LoadSampler()
    sampler.start()
    started = time.perf_counter()
    figures: dict[str, dict] = {}
    failed: list[str] = []
    walls: dict[str, float] = {}
    for name in args.only:
        if args.quick and name in SLOW:
            print(f"\n== {name}: left out of --quick ==", flush=True)
            continue
        print(f"\n== {name} ==", flush=True)
        code, got, wall = run_script(name, ["--quick"] if args.quick else [])
        walls[name] = wall
        if code != 0:
            failed.append(f"{name} (exit {code})")
        for fig in got:
            figures[fig["key"]] = fig
    loads = sampler.stop()
    total = time.perf_counter() - started
    keys = [k for k in ORDER if k in figures] + [k for k in figures if k not in ORDER]
    print("\n== benchmarks ==")
    print(table([(figures[k]["name"], figures[k]["goal"], figures[k]["value"]) for k in keys]))
    print(
        f"\nload average (1 min) during the run: median {statistics.median(loads):.2f}, "
        f"range {min(loads):.2f}-{max(loads):.2f} ({len(loads)} samples) on "
        f"{os.cpu_count()} cores; total {total:.0f} s ("
        + ", ".join(f"{n} {w:.0f} s" for n, w in walls.items())
        + ")"
        + ("; quick mode" if args.quick else "")
    )
    if failed:
        print("failed: " + ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()

"""``make demo`` on the embedded model: its wall time, and each demo build's time per item.

Runs ``make demo DEMO_OUT=<a temporary folder>`` (the set-up steps are idempotent, so on a
machine where ``make install`` ran they take seconds) and times it whole, then reads each
demo build's ``report.json``: its wall time, accepted items, seconds per accepted item, the
model calls it made and how many of those only reworded a question that was then worded
from the template anyway (the embedded 135M model's rewordings rarely pass the checks).
Run it on an idle machine: the builds run one at a time, each with its own model server.

Run: ``python benchmarks/demo_speed.py``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from _common import figure, load_average

ROOT = Path(__file__).resolve().parents[1]


def build_figures(folder: Path) -> dict:
    """One demo build's figures from its report."""
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    items = int(report.get("items") or 0)
    wall = float(report.get("wall_time_s") or 0.0)
    wording = report.get("wording") or {}
    calls = (report.get("llm") or {}).get("by_role") or {}
    return {
        "items": items,
        "wall_s": wall,
        "s_per_item": wall / items if items else None,
        "calls": {role: c.get("calls", 0) for role, c in calls.items()},
        "template_worded": wording.get("template", 0),
        "model_worded": wording.get("model", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the demo here and keep it")
    parser.add_argument("--quick", action="store_true", help="(the same: the demo is fixed)")
    args = parser.parse_args()
    out = args.keep or Path(tempfile.mkdtemp(prefix="benchsmith-demo-")) / "demo"
    before = load_average()
    started = time.perf_counter()
    subprocess.run(["make", "-C", str(ROOT), "demo", f"DEMO_OUT={out}"], check=True)
    total = time.perf_counter() - started
    print(f"make demo: {total:.0f} s wall; {before} before, {load_average()} after")
    rows = []
    for folder in sorted(p for p in out.iterdir() if (p / "report.json").is_file()):
        fig = build_figures(folder)
        rows.append((folder.name, fig))
        per = f"{fig['s_per_item']:.1f} s/item" if fig["s_per_item"] else "no items"
        print(
            f"  {folder.name}: {fig['items']} items in {fig['wall_s']:.0f} s ({per}); model "
            f"calls {fig['calls']}; questions worded by the model {fig['model_worded']}, "
            f"by the template {fig['template_worded']}"
        )
    figure(
        "demo_wall",
        "make demo wall time (embedded model, installed machine)",
        "-",
        f"{total:.0f} s; "
        + ", ".join(
            f"{name} {fig['s_per_item']:.1f} s/item" for name, fig in rows if fig["s_per_item"]
        ),
    )


if __name__ == "__main__":
    main()

"""The demo's six builds, defined once for ``make demo`` and for the reviewer test.

``python -m benchsmith.testing.demo OUT`` runs them one after the other (each starts the
embedded model's server; two cores cannot take them in parallel) into ``OUT/<name>``:

- ``spoken-capitals``: an approved plan, English and French speech with background noise;
- ``digit-images``: an approved plan, blurred handwritten digits;
- ``from-intent``: planned from "spoken questions about world capitals";
- ``planets-table``: open-book superlatives over ``examples/tables/planets.csv`` (the rows
  in the prompt), a question program chosen from the intent;
- ``planets-compare``: closed-book comparisons of two planets' masses from the same table;
- ``time-value-of-money``: computed problems from the sample chapter.

A build that ends short of its size exits 3; the demo carries on and says so, and exits
non-zero only for other failures.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository (the demo's specs and chapter live in its ``examples/``)."""

SHORTFALL_EXIT = 3


def demo_builds(out: Path) -> dict[str, list[str]]:
    """The ``benchsmith build`` arguments of each demo benchmark, by folder name."""
    examples = ROOT / "examples"
    return {
        "spoken-capitals": [
            "--spec", str(examples / "specs" / "spoken-capitals.json"), "--seed", "1",
            "--out", str(out / "spoken-capitals"), "--concurrency", "2",
        ],
        "digit-images": [
            "--spec", str(examples / "specs" / "digit-images.json"), "--seed", "1",
            "--out", str(out / "digit-images"), "--concurrency", "2",
        ],
        "from-intent": [
            "spoken questions about world capitals", "--size", "6", "--max-subtasks", "1",
            "--out", str(out / "from-intent"), "--concurrency", "2",
        ],
        "planets-table": [
            "Give the model a few rows of the planets table and ask which planet has the most "
            "moons", "--size", "8", "--dataset", str(examples / "tables" / "planets.csv"),
            "--out", str(out / "planets-table"), "--concurrency", "2",
        ],
        "planets-compare": [
            "Which of the two planets is heavier? General knowledge, multiple choice",
            "--size", "8", "--dataset", str(examples / "tables" / "planets.csv"),
            "--out", str(out / "planets-compare"), "--concurrency", "2",
        ],
        "time-value-of-money": [
            "problems on the time value of money", "--size", "12", "--max-subtasks", "1",
            "--reference", str(examples / "references" / "time-value-of-money.md"),
            "--out", str(out / "time-value-of-money"), "--concurrency", "2",
        ],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run every demo build into the folder given as the only argument."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m benchsmith.testing.demo OUT", file=sys.stderr)
        return 2
    out = Path(args[0])
    benchsmith = Path(sys.executable).with_name("benchsmith")
    failed = []
    for name, build in demo_builds(out).items():
        print(f"== demo: {name}", flush=True)
        code = subprocess.call([str(benchsmith), "build", *build])
        if code == SHORTFALL_EXIT:
            print(f"== demo: {name} ended short of its size (see its report.md)", flush=True)
        elif code != 0:
            failed.append(f"{name} (exit {code})")
    if failed:
        print(f"demo builds failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

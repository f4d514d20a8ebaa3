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

Then a panel of real models and the two baselines (:data:`PANEL`: the embedded SmolLM2-135M,
the embedded Qwen2.5-Coder-1.5B reader, ``baseline:random`` and ``baseline:first``) answers
the text benchmarks (:data:`PANEL_BENCHMARKS`): ``benchsmith eval`` (accuracy with intervals,
pairwise tests, separability, ``report.html``) and ``benchsmith calibrate`` (item difficulty
and discrimination fitted from the same answers, which ``eval`` recorded: no model is asked
twice). ``--no-panel`` leaves it out.

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

PANEL = ("baseline:random", "baseline:first", "local", "local:reader")
"""The demo's panel: both baselines and both embedded models (135M and 1.5B)."""
PANEL_BENCHMARKS = ("planets-table", "planets-compare")
"""The demo benchmarks the panel answers: multiple-choice text items every model can read
(the spoken and image demos need a model that takes audio or images, which neither embedded
model does; the computed problems ask for a number, which none of the four got right in
12 when measured)."""


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
            "moons", "--size", "20", "--dataset", str(examples / "tables" / "planets.csv"),
            "--out", str(out / "planets-table"), "--concurrency", "2",
        ],
        "planets-compare": [
            "Which of the two planets is heavier? General knowledge, multiple choice",
            "--size", "20", "--dataset", str(examples / "tables" / "planets.csv"),
            "--out", str(out / "planets-compare"), "--concurrency", "2",
        ],
        "time-value-of-money": [
            "problems on the time value of money", "--size", "12", "--max-subtasks", "1",
            "--reference", str(examples / "references" / "time-value-of-money.md"),
            "--out", str(out / "time-value-of-money"), "--concurrency", "2",
            # read by the patterns: the 1.5B reader would add about 5 minutes on 2 cores
            # (51 questions), and make demo must stay under 15 minutes on a fresh machine
            "--role-model", "reader=local",
        ],
    }  # fmt: skip


def demo_panel(
    out: Path, quiet: bool = False, benchmarks: tuple[str, ...] = PANEL_BENCHMARKS
) -> list[list[str]]:
    """The ``benchsmith`` commands that run :data:`PANEL` on the demo's text benchmarks.

    Per benchmark (all of :data:`PANEL_BENCHMARKS` unless ``benchmarks`` names fewer):
    ``eval`` (its answers recorded in ``eval_runs``), then ``calibrate`` on the same panel
    (which reads those answers back rather than asking again).
    """
    models = [arg for spec in PANEL for arg in ("--model", spec)]
    flags = ["--quiet"] if quiet else []
    commands = []
    for name in benchmarks:
        folder = str(out / name)
        commands.append(["eval", folder, *models, *flags])
        commands.append(["calibrate", folder, *models, *flags])
    return commands


def main(argv: list[str] | None = None) -> int:
    """Run every demo build into the folder given, then the panel (unless ``--no-panel``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    panel = "--no-panel" not in args
    args = [a for a in args if a != "--no-panel"]
    if len(args) != 1:
        print("usage: python -m benchsmith.testing.demo OUT [--no-panel]", file=sys.stderr)
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
    for command in demo_panel(out) if panel else []:
        if not (Path(command[1]) / "data").is_dir():
            continue  # its build failed, said above
        print(f"== demo: {' '.join(command[:2])} on the panel {', '.join(PANEL)}", flush=True)
        code = subprocess.call([str(benchsmith), *command])
        if code != 0:
            failed.append(f"{command[0]} {Path(command[1]).name} (exit {code})")
    if failed:
        print(f"demo builds failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

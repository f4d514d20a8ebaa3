"""Calibrated builds: a panel answers the candidates, and the build keeps what separates.

    from benchsmith.evaluate.calibrated_build import calibrated_build

    result = calibrated_build(out="out/caps", panel=["a@URL", "b@URL", "c@URL"],
                              mix={"easy": 0.3, "medium": 0.4, "hard": 0.3}, spec="spec.json")

The loop, within the build's budget (every call of the build and of the panel is counted in
its ledgers and recorded, so a killed run resumes):

1. the build realizes its quotas (``benchsmith build``);
2. the panel answers every item (``benchsmith calibrate``'s machinery, one answer per model
   per item unless ``epochs`` says more);
3. each item gets a *measured* difficulty: the share of the panel's answers that were right
   (``easy`` from 2/3 on, ``hard`` up to 1/3, ``medium`` between: the panel's own cut points,
   fixed); items every model or no model solves, or whose fitted discrimination is below
   ``min_discrimination``, separate nothing and are taken out; so are the items of a label
   beyond its share of the mix (the least discriminating first);
4. the items taken out are revoked in the build's ledger, as a reviewer's rejections are
   (:mod:`benchsmith.review.refill`), and the build resumes: it realizes fresh slots (records
   not used before) under the same quotas;
5. until nothing is taken out, or ``max_rounds`` rounds; the last calibration is written
   (``calibration.json``, item metadata, card) and ``report.json``/``report.md`` get each
   round's counts and the mix wanted against the mix kept.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.api import build_benchmark
from benchsmith.config import RunConfig
from benchsmith.difficulty import LABELS
from benchsmith.difficulty_mix import apportion
from benchsmith.evaluate.calibrate import calibrate_benchmark
from benchsmith.evaluate.folder import EvaluationError
from benchsmith.layout import EVAL_RUNS_DIR, RUN_DIR
from benchsmith.ledger import Ledger
from benchsmith.package.calibration import add_to_report

EASY_FROM = 2 / 3
HARD_UP_TO = 1 / 3
MIN_DISCRIMINATION = 0.3
MAX_ROUNDS = 6
UNINFORMATIVE = ("solved_by_all", "solved_by_none", "unanswered")
START = "<!-- benchsmith:calibrated-build -->"
END = "<!-- /benchsmith:calibrated-build -->"


def measured_label(p_correct: float | None) -> str:
    """The panel's difficulty label of an item from the share of right answers."""
    if p_correct is None:
        return "medium"
    if p_correct >= EASY_FROM:
        return "easy"
    if p_correct <= HARD_UP_TO:
        return "hard"
    return "medium"


def choose_drops(
    rows: Sequence[Mapping[str, Any]],
    mix: Mapping[str, float] | None,
    size: int,
    min_discrimination: float,
) -> tuple[dict[str, str], dict[str, int], dict[str, int]]:
    """Which items to take out, and why; the counts wanted and kept per label.

    Args:
        rows: ``calibration.json``'s per-item rows.
        mix: Label to share (None: no mix, only the discrimination floor).
        size: The benchmark's size (the mix is of this many items).
        min_discrimination: Items whose fitted discrimination is lower go.

    Returns:
        Item id to the reason, the wanted counts (empty without a mix) and the counts of
        the items that stay.
    """
    drops: dict[str, str] = {}
    for row in rows:
        if row["flag"] in UNINFORMATIVE:
            drops[row["id"]] = f"calibration: {row['flag'].replace('_', ' ')}"
        elif row["discrimination"] < min_discrimination:
            drops[row["id"]] = (
                f"calibration: discrimination {row['discrimination']:.2f} < {min_discrimination}"
            )
    kept = [r for r in rows if r["id"] not in drops]
    wanted = apportion(size, mix) if mix else {}
    if wanted:
        by_label: dict[str, list[Mapping[str, Any]]] = {k: [] for k in LABELS}
        for row in kept:
            by_label[measured_label(row["p_correct"])].append(row)
        for label, members in by_label.items():
            excess = len(members) - wanted.get(label, 0)
            if excess > 0:
                for row in sorted(members, key=lambda r: (r["discrimination"], r["id"]))[:excess]:
                    drops[row["id"]] = f"calibration: more {label} items than the mix wants"
    counts = Counter(measured_label(r["p_correct"]) for r in rows if r["id"] not in drops)
    return drops, wanted, {k: counts.get(k, 0) for k in LABELS}


@dataclass
class CalibratedBuildResult:
    """What :func:`calibrated_build` produced."""

    out: Path
    rounds: list[dict[str, Any]] = field(default_factory=list)
    wanted: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    calibration: dict[str, Any] = field(default_factory=dict)
    build: Any = None

    @property
    def met(self) -> bool:
        """Every label within one item of the mix (always, without a mix)."""
        return all(abs(self.kept.get(k, 0) - n) <= 1 for k, n in self.wanted.items())


def calibrated_build(
    *,
    out: str | os.PathLike[str],
    panel: Sequence[str],
    mix: Mapping[str, float] | None = None,
    min_discrimination: float = MIN_DISCRIMINATION,
    max_rounds: int = MAX_ROUNDS,
    epochs: int = 1,
    config: RunConfig | None = None,
    panel_config: RunConfig | None = None,
    on_round: Callable[[dict[str, Any]], None] | None = None,
    **build_args: Any,
) -> CalibratedBuildResult:
    """Build, calibrate on ``panel``, revoke what does not fit, refill; repeat.

    Args:
        out: The benchmark folder.
        panel: The panel's model specs (at least three; baselines count).
        mix: The difficulty mix wanted, label to share, measured by the panel.
        min_discrimination: The fitted discrimination an item needs to stay.
        max_rounds: Calibrations before the build stops refilling.
        epochs: Answers per model per item.
        config: The build's configuration.
        panel_config: The panel's run configuration (default: ``config``'s budget and
            seed, records in ``out/eval_runs``).
        on_round: Called with each round's summary (progress).
        **build_args: Passed to :func:`benchsmith.api.build_benchmark` (``intent``,
            ``size``, ``spec``, ``datasets``, ``references``...).

    Raises:
        EvaluationError: A panel of fewer than three models, or no round possible.
    """
    if max_rounds < 1:
        raise EvaluationError(f"max_rounds must be at least 1, got {max_rounds}")
    folder = Path(out)
    config = config or RunConfig()
    resume = build_args.pop("resume", False)
    if panel_config is None:  # the build's settings (budget, seed); the panel's own records
        panel_config = config.with_paths(run_dir=str(folder / EVAL_RUNS_DIR))
    result = CalibratedBuildResult(folder)
    result.build = build_benchmark(out=folder, config=config, resume=resume, **build_args)
    size = result.build.spec.size
    for round_no in range(1, max_rounds + 1):
        calibration = calibrate_benchmark(
            folder, list(panel), config=panel_config, epochs=epochs, write=False
        )
        drops, result.wanted, result.kept = choose_drops(
            calibration.data["items"], mix, size, min_discrimination
        )
        summary = {
            "round": round_no,
            "items": len(calibration.data["items"]),
            "taken_out": len(drops),
            "reasons": dict(Counter(drops.values())),
            "kept": dict(result.kept),
        }
        result.rounds.append(summary)
        if on_round is not None:
            on_round(summary)
        if not drops or round_no == max_rounds:
            break
        ledger = Ledger(folder / RUN_DIR)
        for item_id, reason in sorted(drops.items()):
            if ledger.is_accepted(item_id):
                ledger.revoke(item_id, reason, check="calibration")
        result.build = build_benchmark(out=folder, config=config, resume=True)
    final = calibrate_benchmark(folder, list(panel), config=panel_config, epochs=epochs)
    result.calibration = final.data
    counts = Counter(measured_label(r["p_correct"]) for r in final.data["items"])
    result.wanted = apportion(size, mix) if mix else {}
    result.kept = {k: counts.get(k, 0) for k in LABELS}
    _write_summary(folder, result, result.kept, mix)
    return result


def _write_summary(
    folder: Path,
    result: CalibratedBuildResult,
    labels: Mapping[str, int],
    mix: Mapping[str, float] | None,
) -> None:
    data = {
        "rounds": result.rounds,
        "mix": dict(mix or {}),
        "wanted": result.wanted,
        "measured": dict(labels),
        "met": result.met,
        "labels": f"measured: easy when at least {EASY_FROM:.0%} of the panel's answers are "
        f"right, hard when at most {HARD_UP_TO:.0%}",
    }
    lines = [START, "## Calibrated build", "", data["labels"] + ".", ""]
    if result.wanted:
        lines += ["| Label | Wanted | Measured |", "|---|---|---|"]
        lines += [f"| {k} | {result.wanted[k]} | {labels.get(k, 0)} |" for k in LABELS]
        lines.append("")
    lines += [
        f"- Round {r['round']}: {r['items']} items, {r['taken_out']} taken out"
        + (f" ({', '.join(f'{k}: {n}' for k, n in r['reasons'].items())})" if r["reasons"] else "")
        for r in result.rounds
    ]
    add_to_report(folder, "calibrated_build", data, "\n".join([*lines, END]) + "\n", (START, END))

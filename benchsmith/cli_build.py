"""``benchsmith build``: intent (or an approved spec) in, verified benchmark folder out.

A thin wrapper over :func:`benchsmith.api.build_benchmark` with a progress bar (accepted /
rejected / quota per subtask, its clock kept running while a step takes minutes) and a final
summary that names the folder and the commands to run next.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections import Counter
from typing import IO, Any

import click

from benchsmith.cli_options import (
    CONTEXT_SETTINGS,
    config_from_options,
    config_option,
    out_option,
    planning_options,
    quiet_option,
    review_interactively,
    size_option,
)
from benchsmith.cli_progress import Ticker, refresh_seconds
from benchsmith.difficulty_mix import DifficultyMixError, parse_mix
from benchsmith.layout import CALIBRATION_FILE, REPORT_MD
from benchsmith.naming import slugify
from benchsmith.package.inspect_export import INSPECT_TASK_FILE
from benchsmith.stopping import graceful_signals

SHORTFALL_EXIT = 3
"""Exit code of a build that ended short of its size (the report says why)."""


class BuildProgress:
    """A tqdm bar over the accepted items, with per-subtask counts in its postfix.

    A :class:`~benchsmith.cli_progress.Ticker` redraws the bar every ``refresh_every``
    seconds (default: 1 s on a terminal, 30 s in a log), so its elapsed time keeps running
    while a slot takes minutes.
    """

    def __init__(
        self,
        enabled: bool,
        show_plan: bool = True,
        *,
        file: IO[str] | None = None,
        refresh_every: float | None = None,
    ) -> None:
        """Start without a bar (it appears when the quotas are known)."""
        self.enabled = enabled
        self.show_plan = show_plan
        self.file = file if file is not None else sys.stderr
        self.refresh_every = refresh_every or refresh_seconds(self.file)
        self.bar: Any = None
        self.ticker: Ticker | None = None
        self.quota: Counter[str] = Counter()
        self.accepted: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()

    def __call__(self, node: str, update: dict[str, Any]) -> None:
        """Take one graph update."""
        if node.startswith("planner:"):
            # Each planning step as it happens (a plan on a small model takes minutes).
            if self.show_plan:
                for line in update.get("planner_log") or []:
                    click.echo(f"plan: {line}", err=True)
            return
        if node == "collect" and update.get("targets"):
            self._targets(update)
        elif node in ("realize:accept", "realize:discard"):
            # Each slot as it ends (a slot task realizes many slots before it ends).
            for subtask, counts in (update.get("tallies") or {}).items():
                for status, count in counts.items():
                    for _ in range(count):
                        self._outcome(subtask, status)
        elif node == "package" and not self.enabled:
            for line in update.get("build_log") or []:
                click.echo(line, err=True)

    def _targets(self, update: dict[str, Any]) -> None:
        quota: Counter[str] = Counter(update.get("subtask_targets") or {})
        self.quota = quota
        if self.bar is None and self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=sum(quota.values()), unit="item", desc="accepted", file=self.file)
            self.ticker = Ticker(self.bar, self.refresh_every).start()
        elif self.bar is not None:
            self.bar.total = sum(quota.values())
            self.bar.refresh()

    def _outcome(self, subtask: str, status: str) -> None:
        if status == "accepted":
            self.accepted[subtask] += 1
            if self.bar is not None:
                self.bar.update(1)
        elif status == "rejected":
            self.rejected[subtask] += 1
        if self.bar is not None:
            self.bar.set_postfix_str(
                " ".join(
                    f"{s} {self.accepted[s]}/{q} ✗{self.rejected[s]}" for s, q in self.quota.items()
                ),
                refresh=True,
            )

    def close(self) -> None:
        """Stop the ticker and close the bar."""
        if self.ticker is not None:
            self.ticker.stop()
        if self.bar is not None:
            self.bar.close()


def next_steps(out: str, report: dict[str, Any]) -> list[str]:
    """The summary's last lines: where the benchmark is and the commands to run on it."""
    exports = report.get("exports") or {}
    folder = shlex.quote(out)
    lines = [
        f"benchmark: {out} (report: {os.path.join(out, REPORT_MD)})",
        "next:",
        f"  benchsmith review {folder}",
        f"  benchsmith eval {folder} --model SPEC  "
        "# repeatable: local, openai:MODEL, MODEL@URL, baseline:random",
    ]
    inspect = (exports.get("inspect") or {}).get("file") or INSPECT_TASK_FILE
    # Inspect takes task files by relative path.
    task_file = shlex.quote(os.path.relpath(os.path.join(out, inspect)))
    lines.append(f"  inspect eval {task_file} --model openai/gpt-4o-mini")
    lm = exports.get("lm_eval") or {}
    if lm.get("task") and lm.get("yaml"):
        include = shlex.quote(os.path.dirname(os.path.join(out, lm["yaml"])))
        lines.append(
            f"  lm_eval --include_path {include} --tasks {lm['task']} "
            "--model local-chat-completions "
            "--model_args model=NAME,base_url=http://HOST/v1/chat/completions --apply_chat_template"
        )
    elif lm.get("note"):
        lines.append(f"  (lm-eval: {lm['note']})")
    return lines


def difficulty_option(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> dict[str, float] | None:
    """``--difficulty MIX`` as label to share (None when not given).

    Raises:
        click.BadParameter: The mix names an unknown label or its shares do not sum to 1.
    """
    if value is None:
        return None
    try:
        return parse_mix(value, option="")
    except DifficultyMixError as exc:
        raise click.BadParameter(str(exc), param_hint="--difficulty") from exc


def _default_out(intent: str | None, spec: str | None) -> str:
    base = intent or os.path.splitext(os.path.basename(spec or "benchmark"))[0]
    return os.path.join("out", slugify(base, default="benchmark"))


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("intent", required=False)
@size_option(default=None, help_text="Number of items [default: 100].")
@out_option(
    "The benchmark folder (default: out/<intent slug>). Must be new or empty, unless --resume."
)
@click.option(
    "--intent-file",
    type=click.File("r", encoding="utf-8"),
    metavar="FILE",
    help="Read the intent from FILE ('-': standard input), for a long or multi-line intent "
    "or one that starts with '-' (or put -- before such an INTENT).",
)
@click.option(
    "--spec",
    "spec_path",
    type=click.Path(dir_okay=False, exists=True),
    metavar="FILE",
    help="Realize an approved spec.json instead of planning (with --seed for fresh items).",
)
@config_option("seed")
@planning_options
@config_option("concurrency")
@config_option("judge")
@config_option("tail_backups")
@click.option(
    "--difficulty",
    "difficulty_mix",
    metavar="MIX",
    default=None,
    callback=difficulty_option,
    help="Target mix of predicted difficulty in each subtask, e.g. "
    "easy=0.3,medium=0.4,hard=0.3 (or easy:30%,...; shares sum to 1). Computed items are "
    "chosen among generated candidates to follow it; report.md says where it fell short.",
)
@click.option(
    "--panel",
    "panel",
    multiple=True,
    metavar="SPEC",
    help="Calibrate on this panel (repeatable, at least 3 models; baselines count): the panel "
    "answers the built items, items that separate nothing or exceed --difficulty's share "
    "(measured by the panel) are taken out and refilled, round after round.",
)
@click.option(
    "--min-discrimination",
    type=click.FloatRange(0),
    default=0.3,
    show_default=True,
    help="With --panel: the fitted IRT discrimination an item needs to stay.",
)
@click.option(
    "--panel-rounds",
    type=click.IntRange(1, 50),
    default=6,
    show_default=True,
    help="With --panel: calibrations before the build stops refilling.",
)
@click.option("--resume", is_flag=True, help="Continue the build in --out after a crash or kill.")
@config_option(
    "replay",
    help="With --resume: serve every model call from the run records of --out, with no "
    "network (a call that is not recorded stops the build and says so).",
)
@quiet_option
@click.pass_context
def build(
    ctx: click.Context,
    intent: str | None,
    intent_file: Any,
    size: int | None,
    out: str | None,
    spec_path: str | None,
    datasets: tuple[str, ...],
    references: tuple[str, ...],
    review: bool,
    panel: tuple[str, ...],
    min_discrimination: float,
    panel_rounds: int,
    resume: bool,
    replay: bool,
    quiet: bool,
    **_config_options: Any,
) -> None:
    """Build a verified benchmark for INTENT into --out.

    Plans subtasks, datasets and quotas (or takes --spec), computes every item (a question
    program over a table, or a problem from a reference's formulas) and makes its media
    with the tools, verifies it (structure, media, leaks, language, the recomputed answer,
    an LLM judge, duplicates), discards failures, refills quotas, and writes
    data/test.jsonl, media/, a dataset card, report.json/report.md, rejects.jsonl, an
    Inspect AI task file and an lm-evaluation-harness task. A killed build continues with
    --resume.

    Exit codes: 0 every quota met; 3 the build ended short of its size (the summary and
    report.md say why); 1 a build or model error; 2 a usage or input error; 4 the budget
    ran out; 130 interrupted (the first Ctrl-C writes what is finished and prints how to
    resume; a second one quits at once).

    \b
    Examples:
      benchsmith build "spoken questions about world capitals" --size 50 --language en,fr
      benchsmith build --spec out/capitals/spec.json --seed 7 --out out/capitals-v2
      benchsmith build --dataset cars.csv --out out/cars -- "- keep cars with 6 cylinders"
      benchsmith build --spec spec.json --panel local --panel baseline:random --panel baseline:first
    """
    from benchsmith.api import build_benchmark  # lazy: a tenth of a second off --help

    if intent_file is not None:
        if intent:
            raise click.UsageError("give an INTENT or --intent-file, not both")
        intent = intent_file.read().strip()
        if not intent:
            raise click.UsageError(f"--intent-file {intent_file.name}: the file is empty")
    if not intent and not spec_path and not resume:
        raise click.UsageError("give an INTENT, or --spec FILE, or --resume with --out")
    if spec_path and intent:
        raise click.UsageError("give an INTENT or --spec, not both")
    if spec_path and size is not None:
        raise click.UsageError(
            "--size does not apply with --spec: an approved plan's size and quotas are its "
            "own; change 'size' and the allocations' quotas in the spec file, or plan anew"
        )
    if replay and not resume:
        raise click.UsageError("--replay replays the records of a build: use it with --resume")
    if resume and not out:
        raise click.UsageError("--resume needs the --out folder of the build to continue")
    out_dir = out or _default_out(intent, spec_path)
    config = config_from_options(ctx)
    # build_benchmark starts the language-ID worker before it imports the graph.
    progress = BuildProgress(enabled=not quiet, show_plan=not quiet)
    # Ctrl-C / SIGTERM: stop starting work, write what is finished, say how to resume.
    arguments = {
        "size": size or 100,
        "out": out_dir,
        "config": config,
        "datasets": datasets,
        "references": references,
        "spec": spec_path,
        "resume": resume,
        "reviewer": review_interactively if review else None,
        "progress": progress,
    }
    with graceful_signals(on_first=_say_stopping, on_second=_stop_children):
        try:
            if panel:
                calibrated = _calibrated(
                    intent, panel, min_discrimination, panel_rounds, config, arguments
                )
                result = calibrated.build
            else:
                result = build_benchmark(intent, **arguments)
        finally:
            progress.close()
    _summary(result)
    if panel:
        _panel_summary(calibrated)


def _calibrated(
    intent: str | None,
    panel: tuple[str, ...],
    min_discrimination: float,
    rounds: int,
    config: Any,
    arguments: dict[str, Any],
) -> Any:
    """A build calibrated on ``panel`` (see :mod:`benchsmith.evaluate.calibrated_build`)."""
    # Lazy: the evaluation modules load the model clients; only --panel needs them here.
    from benchsmith.evaluate.api import check_models
    from benchsmith.evaluate.calibrate import MIN_PANEL
    from benchsmith.evaluate.calibrated_build import calibrated_build

    specs = check_models(panel)
    if len(specs) < MIN_PANEL:
        raise click.UsageError(
            f"--panel needs at least {MIN_PANEL} models (baselines count), got {len(specs)}"
        )

    def said(summary: dict[str, Any]) -> None:
        click.echo(
            f"panel round {summary['round']}: {summary['items']} items, "
            f"{summary['taken_out']} taken out",
            err=True,
        )

    return calibrated_build(
        intent=intent,
        panel=specs,
        mix=config.difficulty_mix,
        min_discrimination=min_discrimination,
        max_rounds=rounds,
        on_round=said,
        **arguments,
    )


def _panel_summary(calibrated: Any) -> None:
    sep = calibrated.calibration.get("separability") or {}
    if calibrated.wanted:
        cells = ", ".join(
            f"{k} {calibrated.kept.get(k, 0)}/{n}" for k, n in calibrated.wanted.items()
        )
        click.echo(f"  difficulty measured by the panel (got/wanted): {cells}")
    if sep.get("share") is not None:
        click.echo(
            f"  separability: {sep['separated']}/{sep['pairs']} panel pairs apart; "
            f"{len(calibrated.rounds)} calibration round(s); see {CALIBRATION_FILE}"
        )


def _say_stopping(signal_name: str) -> None:
    click.echo(
        f"\nbenchsmith: {signal_name}: stopping; no new work starts, requests in flight finish "
        "and what is finished is written (press Ctrl-C again to quit at once)",
        err=True,
    )


def _stop_children() -> None:
    from benchsmith.llm.local import stop_local_server  # lazy: off --help; a second Ctrl-C

    stop_local_server()


def _summary(result: Any) -> None:
    """Print the build's outcome, its quotas and how to use the folder."""
    report = result.report
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    from benchsmith.package.writer import summary_lines  # lazy: off --help; the build loaded it

    llm = report.get("llm", {})
    click.echo(
        f"{report.get('status')}: {report.get('items')} of {report.get('size')} items in "
        f"{result.out} ({report.get('rejected')} rejected; {llm.get('calls', 0)} model "
        f"calls, {llm.get('cached_calls', 0)} from the records; "
        f"{report.get('wall_time_s', 0):.1f} s)"
    )
    for line in summary_lines(report):
        click.echo(f"  {line}")
    for row in report.get("quotas", []):
        click.echo(
            f"  {row['subtask_id']:<24} {row['accepted']:>5}/{row['target']:<5} "
            f"rejected {row['rejected']:<4} from {row['dataset_id']}"
        )
    for short in report.get("shortfalls", []):
        click.echo(
            f"shortfall: {short['subtask_id']}: {short['accepted']} of {short['quota']}: "
            f"{short['reason']}",
            err=True,
        )
    for line in next_steps(str(result.out), report):
        click.echo(line)
    if result.status != "complete":
        # A build short of its size is not a success: its own exit code (see --help).
        raise click.exceptions.Exit(SHORTFALL_EXIT)

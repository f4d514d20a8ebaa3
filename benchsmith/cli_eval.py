"""``benchsmith eval`` and ``benchsmith judge``: thin wrappers over :mod:`benchsmith.evaluate.api`.

The ``benchsmith`` group (:mod:`benchsmith.cli`) adds both commands. :func:`run_models_on`
also serves ``calibrate`` and ``perturb`` (:mod:`benchsmith.cli_calibrate`).
The evaluation modules are imported inside the commands: they load the model clients, which
``benchsmith --help`` and the other commands do not need.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import click

from benchsmith.cli_options import (
    CONTEXT_SETTINGS,
    answers_concurrency_option,
    bench_dir_argument,
    config_from_options,
    model_option,
    models_option,
    quiet_option,
)
from benchsmith.cli_progress import Ticker, refresh_seconds
from benchsmith.layout import read_items

limit_option = click.option(
    "--limit", type=click.IntRange(1), default=None, help="Only the first N items."
)


@contextlib.contextmanager
def progress_bar(
    bench_dir: str, limit: int | None, desc: str, quiet: bool, *, per_item: int = 1
) -> Iterator[Callable[[Any], None] | None]:
    """A progress bar over the items of ``bench_dir``; yields the ``on_done`` callback.

    The bar is drawn only when stderr is a terminal, and cleared when the run fails, so that
    a failure is one line on stderr.
    """
    if quiet:
        yield None
        return
    from tqdm import tqdm

    n_items = len(read_items(bench_dir))
    if limit is not None:
        n_items = min(n_items, limit)
    bar = tqdm(total=n_items * per_item, unit="answer", desc=desc, file=sys.stderr, disable=None)
    # The clock keeps running while a slow model answers (see benchsmith.cli_progress).
    ticker = Ticker(bar, refresh_seconds(sys.stderr)).start()
    try:
        yield lambda _done: bar.update(1)
    except BaseException:
        bar.leave = False
        raise
    finally:
        ticker.stop()
        bar.close()


def run_models_on(
    ctx: click.Context,
    run: Callable[..., Any],
    *,
    answers_per_model: int = 1,
    config_overrides: Mapping[str, Any] | None = None,
    **options: Any,
) -> tuple[list[str], Any]:
    """Check the command's models, then run them on its folder with a bar over the answers.

    For ``eval``, ``calibrate`` and ``perturb``: like :func:`config_from_options`, it reads
    the command's own parameters from ``ctx``: ``DIR``, ``--model``, ``--judge-model``,
    ``--concurrency`` and ``--quiet``.

    Args:
        ctx: The command's context.
        run: The API function: ``run(DIR, specs, config=..., concurrency=..., on_done=...,
            **options)``.
        answers_per_model: Answers each model gives per item (the bar's total).
        config_overrides: Set on the run configuration as given.
        **options: Passed to ``run`` (``limit``, ``epochs``...).

    Returns:
        The checked model specs and what ``run`` returned.
    """
    from benchsmith.evaluate.api import check_models  # lazy: see the module docstring

    params = ctx.params
    specs = check_models(params["models"])
    overrides = dict(config_overrides or {})
    if params["judge_model"]:
        overrides["role_models"] = {"judge": params["judge_model"]}
    config = config_from_options(ctx, **overrides)
    bench_dir, limit = params["bench_dir"], options.get("limit")
    per_item = answers_per_model * len(specs)
    with progress_bar(bench_dir, limit, "answers", params["quiet"], per_item=per_item) as on_done:
        result = run(
            bench_dir,
            specs,
            config=config,
            concurrency=params["concurrency"],
            on_done=on_done,
            **options,
        )
    return specs, result


def wrote(new_calls: int, *paths: object) -> None:
    """The last lines of a command that ran models: new calls, and the files written."""
    click.echo(f"new model calls: {new_calls}")
    click.echo(f"wrote {' and '.join(str(p) for p in paths)}")


@click.command("eval", context_settings=CONTEXT_SETTINGS)
@bench_dir_argument
@models_option(
    "A model to evaluate (repeatable): local (embedded SmolLM2-135M), local:reader "
    "(embedded Qwen2.5-Coder-1.5B), openai:MODEL, MODEL@http://host/v1, "
    "or a baseline: baseline:random, baseline:first."
)
@answers_concurrency_option
@limit_option
@click.option(
    "--judge-model",
    metavar="SPEC",
    default=None,
    help="Grade open-ended answers with this model (judge role); without one (or a judge in "
    "benchsmith.toml) they are scored by an includes match.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (baselines, splits).")
@quiet_option
@click.pass_context
def eval_command(
    ctx: click.Context,
    bench_dir: str,
    models: tuple[str, ...],
    concurrency: int,
    limit: int | None,
    judge_model: str | None,
    seed: int,
    quiet: bool,
) -> None:
    """Run models on every item of the benchmark in DIR and report what it is worth.

    Writes DIR/eval.json, DIR/eval_samples.jsonl and DIR/report.html. Replies are recorded
    in DIR/eval_runs, so rerunning the same command resumes (and makes no new call once done).

    \b
    Examples:
      benchsmith eval out/capitals --model openai:gpt-4o-mini --model baseline:random
      benchsmith eval out/capitals --model qwen2.5@http://localhost:8000/v1 --limit 20
    """
    from benchsmith.evaluate.api import evaluate_benchmark  # lazy: see the module docstring

    specs, result = run_models_on(ctx, evaluate_benchmark, limit=limit)
    data = result.data
    click.echo(f"{data['benchmark']['n_items']} items, {len(specs)} model(s)")
    for model, r in sorted(data["models"].items(), key=lambda kv: -(kv[1]["accuracy"] or 0)):
        acc = "   —  " if r["accuracy"] is None else f"{100 * r['accuracy']:5.1f}%"
        ci = r["ci95"]
        interval = f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""
        extra = f"  skipped {r['skipped']}" if r["skipped"] else ""
        extra += f"  errors {r['errors']}" if r["errors"] else ""
        click.echo(f"  {model:<32} {acc} {interval:<14} n={r['n']}{extra}")
    tau = data["ranking_stability"].get("kendall_tau")
    significant = sum(1 for p in data["pairs"] if p["significant"])
    click.echo(
        f"significant pairs: {significant}/{len(data['pairs'])}; split-half Kendall tau: "
        + ("—" if tau is None else f"{tau:.2f}")
    )
    sep = data.get("separability") or {}
    if sep.get("share") is not None:
        click.echo(
            f"separability: {sep['separated']}/{sep['pairs']} pairs "
            f"({100 * sep['share']:.0f}%) with non-overlapping 95% bootstrap intervals"
        )
    for warning in data["warnings"]:
        click.echo(f"warning: {warning}")
    wrote(result.new_calls, result.eval_path, result.report_path)


@click.command("judge", context_settings=CONTEXT_SETTINGS)
@bench_dir_argument
@model_option
@click.option(
    "--concurrency", type=click.IntRange(1, 64), default=4, show_default=True,
    help="Items rated at once.",
)  # fmt: skip
@limit_option
@quiet_option
@click.pass_context
def judge_command(
    ctx: click.Context,
    bench_dir: str,
    model: str | None,
    concurrency: int,
    limit: int | None,
    quiet: bool,
) -> None:
    """Rate the items of the benchmark in DIR with an LLM judge (1-5 rubric scores).

    Item metrics: FSQ (format and schema quality), QAC (question-answer coherence), CQC
    (contextual grounding), TSD (target-signal dependence), SSC (skill-specific challenge);
    benchmark metric: UIA (user-intent alignment). An item fails when any score is at most 2
    and is attributed to its lowest dimension. --model sets the judge (default: the judge
    role of benchsmith.toml, else the embedded model, which is too small to judge well).
    Writes DIR/judge.json and updates DIR/report.html.
    """
    from benchsmith.evaluate.api import judge_benchmark  # lazy: see the module docstring

    config = config_from_options(ctx, role_models={"judge": model} if model else {})
    with progress_bar(bench_dir, limit, "items", quiet) as on_done:
        result = judge_benchmark(
            bench_dir, config=config, concurrency=concurrency, limit=limit, on_done=on_done
        )
    summary = result.data["summary"]
    click.echo(f"judge: {result.data['model']}; UIA {summary['uia'] or '—'}/5")
    for dim, mean in summary["mean"].items():
        click.echo(f"  {dim.upper()}  mean {'—' if mean is None else f'{mean:.2f}'}")
    click.echo(
        f"{summary['failing']} of {summary['rated']} rated items fail (a score <= 2); "
        + ", ".join(f"{d.upper()} {n}" for d, n in summary["attribution"].items() if n)
    )
    if summary["errors"]:
        click.echo(f"warning: {summary['errors']} item(s) got no valid rating")
    click.echo(f"wrote {result.judge_path} and {result.report_path}")

"""``benchsmith calibrate`` and ``benchsmith perturb``: thin wrappers over the Python API.

:mod:`benchsmith.evaluate.calibrate` and :mod:`benchsmith.evaluate.perturb` do the work; the
``benchsmith`` group (:mod:`benchsmith.cli`) adds both commands. Like ``eval``'s, they
import the evaluation modules only when they run (see :mod:`benchsmith.cli_eval`).
"""

from __future__ import annotations

import click

from benchsmith.cli_eval import run_models_on, wrote
from benchsmith.cli_options import (
    CONTEXT_SETTINGS,
    answers_concurrency_option,
    bench_dir_argument,
    catalog_option,
    models_option,
    quiet_option,
)

panel_option = models_option(
    "A model of the panel (repeatable): local (embedded SmolLM2-135M), local:reader "
    "(embedded Qwen2.5-Coder-1.5B), openai:MODEL, MODEL@http://host/v1, "
    "or a baseline: baseline:random, baseline:first."
)
judge_option = click.option(
    "--judge-model",
    metavar="SPEC",
    default=None,
    help="Grade open-ended answers with this model (judge role); without one they are "
    "scored by an includes match.",
)


@click.command("calibrate", context_settings=CONTEXT_SETTINGS)
@bench_dir_argument
@panel_option
@click.option(
    "--epochs",
    type=click.IntRange(1, 50),
    default=1,
    show_default=True,
    help="Answers per model per item: the first is eval's reproducible answer, each further "
    "one a sample at temperature 0.7 (more answers per item give steadier estimates).",
)
@click.option(
    "--subset",
    "subset_size",
    type=click.IntRange(1),
    default=None,
    help="Items in the ranking-preserving subset [default: 100, or a quarter of a smaller "
    "benchmark].",
)
@answers_concurrency_option
@judge_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (bootstrap, subset).")
@quiet_option
@click.pass_context
def calibrate_command(
    ctx: click.Context,
    bench_dir: str,
    models: tuple[str, ...],
    epochs: int,
    subset_size: int | None,
    concurrency: int,
    judge_model: str | None,
    seed: int,
    quiet: bool,
) -> None:
    """Fit item difficulty and discrimination (2PL IRT) from a panel of models on DIR.

    Every model answers every item (recorded in DIR/eval_runs, so a rerun resumes); a
    two-parameter logistic model is fitted; each item's difficulty and discrimination go
    into its metadata (data/test.jsonl and the Hugging Face split), the card and report.md
    get a Calibration section, and DIR/calibration.json holds everything: per-model
    bootstrap intervals and the share of model pairs they separate, items that every model
    or no model solves, and a subset of items that keeps the panel's ranking with its score
    error against the full set.

    \b
    Examples:
      benchsmith calibrate out/caps --model baseline:random --model baseline:first --model local
      benchsmith calibrate out/caps --model local --model local:reader --model baseline:random
      benchsmith calibrate out/caps --model q@http://h/v1 --model local --model baseline:first
    """
    from benchsmith.evaluate.calibrate import calibrate_benchmark  # lazy: see the docstring

    specs, result = run_models_on(
        ctx, calibrate_benchmark, answers_per_model=epochs, epochs=epochs, subset_size=subset_size
    )
    data = result.data
    click.echo(f"{data['benchmark']['n_items']} items, a panel of {len(specs)}, {epochs} epoch(s)")
    for m in sorted(data["panel"], key=lambda m: -(m["accuracy"] or 0)):
        acc = "   —  " if m["accuracy"] is None else f"{100 * m['accuracy']:5.1f}%"
        low, high = m["ci95"]
        click.echo(
            f"  {m['model']:<32} {acc} [{100 * low:.1f}, {100 * high:.1f}]  "
            f"ability {m['ability']:+.2f}"
        )
    sep, subset = data["separability"], data["subset"]
    click.echo(
        f"separability: {sep['separated']}/{sep['pairs']} pairs ({100 * sep['share']:.0f}%) "
        "with non-overlapping 95% bootstrap intervals"
    )
    for flag, ids in sorted(data["flags"].items()):
        click.echo(f"flagged {flag.replace('_', ' ')}: {len(ids)}")
    click.echo(
        f"subset of {subset['size']}: ranking kept {'yes' if subset['ranking_kept'] else 'no'}, "
        f"mean abs error {100 * subset['mean_abs_error']:.1f} points"
    )
    wrote(result.new_calls, result.path)


@click.command("perturb", context_settings=CONTEXT_SETTINGS)
@bench_dir_argument
@panel_option
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the fresh instances [default: the published build's seed + 1000].",
)
@click.option(
    "--fresh",
    "fresh_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of the fresh build [default: DIR-fresh-seedN beside DIR]; one that holds a "
    "finished build is used as it is.",
)
@click.option(
    "--build-model",
    metavar="SPEC",
    default=None,
    help="The model of every role of the fresh build [default: benchsmith.toml's, else local].",
)
@catalog_option("Dataset catalog of the fresh build (default: $BENCHSMITH_HOME/catalog).")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="Significance level of the Holm-adjusted p-values.",
)
@answers_concurrency_option
@judge_option
@quiet_option
@click.pass_context
def perturb_command(
    ctx: click.Context,
    bench_dir: str,
    models: tuple[str, ...],
    seed: int | None,
    fresh_dir: str | None,
    build_model: str | None,
    catalog_dir: str | None,
    alpha: float,
    concurrency: int,
    judge_model: str | None,
    quiet: bool,
) -> None:
    """Check the panel for contamination: published items against fresh instances of them.

    Builds DIR's approved plan (spec.json) again with a new seed (same subtasks, programs
    and quotas; new records, values and distractors), runs every model on both sets, and
    tests per model whether it does better on the published items than on their fresh
    instances (exact McNemar test on the pairs, one-sided, Holm-adjusted over the panel).
    Writes DIR/perturb.json and a section of DIR/report.md. The fresh build uses
    --build-model (or the models of benchsmith.toml) and --catalog (where the datasets of
    the plan are).

    \b
    Examples:
      benchsmith perturb out/capitals --model local --model baseline:random
      benchsmith perturb out/capitals --model a@http://h/v1 --model b@http://h/v1 --seed 7
    """
    from benchsmith.evaluate.perturb import perturb_benchmark  # lazy: see the docstring

    _specs, result = run_models_on(
        ctx,
        perturb_benchmark,
        answers_per_model=2,  # the published items and their fresh instances
        config_overrides={"model": build_model} if build_model else None,
        seed=seed,
        fresh_dir=fresh_dir,
        alpha=alpha,
    )
    data = result.data
    click.echo(f"fresh instances: {result.fresh_dir} (seed {data['fresh']['seed']})")
    for model, row in data["models"].items():
        if not row["n"]:
            click.echo(f"  {model:<32} {row['note']}")
            continue
        click.echo(
            f"  {model:<32} published {100 * row['published_accuracy']:5.1f}%  fresh "
            f"{100 * row['fresh_accuracy']:5.1f}%  gap {100 * row['gap']:+.1f}  "
            f"p={row['p_value']:.3g} (Holm {row['p_holm']:.3g})"
            + ("  significant" if row["significant"] else "")
        )
    click.echo(f"wrote {result.path}")

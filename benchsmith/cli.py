"""The ``benchsmith`` command: a thin wrapper over the Python API.

Errors a user can cause (a bad flag, an unknown model spec, an unreachable endpoint, a
missing system package) print one line on stderr and exit non-zero, never a traceback.

``benchsmith --help`` imports this module and every command module, so what would slow it
down (the API, the graph and its agents, the model clients, the tools) is imported inside
the command that needs it, each with a note.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from benchsmith.catalog.commands import catalog
from benchsmith.cli_build import build
from benchsmith.cli_calibrate import calibrate_command, perturb_command
from benchsmith.cli_eval import eval_command, judge_command
from benchsmith.cli_options import (
    CONTEXT_SETTINGS,
    config_from_options,
    model_option,
    out_option,
    planning_options,
    review_interactively,
    role_model_option,
    size_option,
)
from benchsmith.cli_options import parse_role_models as _parse_role_models
from benchsmith.cli_review import review_command
from benchsmith.config import LLMSettings, load_file_config
from benchsmith.errors import BenchsmithError, ConfigError
from benchsmith.llm.roles import resolve_role_models
from benchsmith.llm.usage import price_for
from benchsmith.naming import slugify
from benchsmith.stopping import StopRequested


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    metavar="PATH",
    help="Configuration file (default: $BENCHSMITH_CONFIG, else ./benchsmith.toml).",
)
@click.version_option(package_name="benchsmith")
@click.pass_context
def cli(ctx: click.Context, config_file: str | None) -> None:
    """Build fresh, verified evaluation benchmarks from a plain-language intent.

    Models default to the embedded SmolLM2-135M (offline, for proving the plumbing); point
    any role at a capable model with --model or benchsmith.toml. Run `benchsmith doctor`
    to see what is installed and reachable.

    \b
    Exit codes (every command):
      0    success (for a build: every quota met)
      1    a model, tool or build failure (an endpoint, the plan)
      2    a usage or input error (a flag, a file, a folder, the configuration)
      3    the build ended short of its size (the summary and report.md say why)
      4    the budget ran out (what was accepted is written)
      130  interrupted (Ctrl-C or SIGTERM; a build says how to resume)
    """  # noqa: D301 - click's no-rewrap marker is the backspace character \b itself
    ctx.ensure_object(dict)
    ctx.obj["config_file"] = config_file


@cli.command(context_settings=CONTEXT_SETTINGS)
@model_option
@role_model_option
@click.option(
    "--embedded",
    is_flag=True,
    help="Show only the embedded models (`local`, `local:reader`): installed or not, path, "
    "size, assembled and verified (with --json: a list of them).",
)
@click.option(
    "--prepare",
    is_flag=True,
    help="Join the reader model's installed parts into $BENCHSMITH_HOME/models and verify "
    "its size and SHA-256 (once: later runs check the size only), then show the embedded "
    "models. `make` runs it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the resolution as JSON.")
@click.pass_context
def models(
    ctx: click.Context,
    model: str | None,
    role_models: tuple[str, ...],
    embedded: bool,
    prepare: bool,
    as_json: bool,
) -> None:
    """Show which model serves each agent role, and where that choice came from.

    Order: --role-model, --model, the config file ([models] ROLE, then default), the
    environment (BENCHSMITH_MODEL_<ROLE>, then BENCHSMITH_MODEL), then `local`. Then the
    embedded models: `local` (SmolLM2-135M) and `local:reader` (Qwen2.5-Coder-1.5B).
    """
    if embedded or prepare:
        _show_embedded_models(prepare=prepare, as_json=as_json)
        return
    file_config = load_file_config(ctx.obj["config_file"])
    resolved = resolve_role_models(
        model=model, role_models=_parse_role_models(role_models), file_config=file_config
    )
    settings = LLMSettings(**file_config.llm)
    rows = []
    for role, r in resolved.items():
        price = price_for(r.spec, file_config.prices)
        rows.append(
            {
                "role": role,
                "spec": r.spec.text,
                "provider": r.spec.provider,
                "endpoint": r.spec.base_url
                or ("embedded" if r.spec.provider == "local" else "api.openai.com"),
                "structured_method": settings.structured_method or r.spec.default_structured_method,
                "price_usd_per_mtok": None
                if price is None
                else {"input": price.input, "output": price.output},
                "source": r.source,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        price = row["price_usd_per_mtok"]
        price_text = (
            "price unknown"
            if price is None
            else f"${price['input']:g}/${price['output']:g} per Mtok"
        )
        click.echo(
            f"{row['role']:<13} {row['spec']:<32} {row['structured_method']:<16} "
            f"{price_text:<26} from {row['source']}"
        )
    click.echo("\nembedded models:")
    _show_embedded_models(prepare=False, as_json=False)


def _show_embedded_models(*, prepare: bool, as_json: bool) -> None:
    """Print the embedded models, after joining the reader's parts when ``prepare``."""
    # Lazy: httpx (~70 ms) through the server module, off --help.
    from benchsmith.llm.local import EMBEDDED_MODELS
    from benchsmith.llm.reader_model import reader_model_path

    if prepare:
        reader_model_path()  # a LocalModelError names the missing or wrong part
    statuses = [m.status() for m in EMBEDDED_MODELS.values()]
    if as_json:
        click.echo(json.dumps([s.as_dict() for s in statuses], indent=2))
        return
    for s in statuses:
        size = "" if s.size_bytes is None else f"{s.size_bytes / 1e6:.0f} MB"
        where = f"  {s.path}" if s.path else ""
        click.echo(f"  {s.spec:<13} {s.title:<36} {s.state:<14} {size:>8}  {s.detail}{where}")


@cli.command(context_settings=CONTEXT_SETTINGS)
@model_option
@role_model_option
@click.option(
    "--probe",
    is_flag=True,
    help="Also send one structured request to the model of the design role (starting the "
    "embedded model if it is that one) and report its answer and timings. The reader model "
    "is probed only when asked (--model local:reader): it takes 20-35 s on 2 cores.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def doctor(
    ctx: click.Context,
    model: str | None,
    role_models: tuple[str, ...],
    probe: bool,
    as_json: bool,
) -> None:
    """Check what is installed and reachable.

    Reports espeak-ng, ffmpeg, the embedded model, configured endpoints and the network.
    Exits 1 when a required part is missing (or the probe fails).
    """
    from benchsmith.doctor import Check, probe_structured, run_checks  # lazy: httpx, off --help

    file_config = load_file_config(ctx.obj["config_file"])
    parsed_roles = _parse_role_models(role_models)
    resolved = resolve_role_models(model=model, role_models=parsed_roles, file_config=file_config)
    checks = run_checks(resolved, os.environ)
    probe_result = None
    if probe:
        # Lazy: the model clients' SDKs take seconds, and only --probe sends a request.
        from benchsmith.llm.client import LLMRuntime
        from benchsmith.llm.local import local_server

        config = config_from_options(ctx)
        try:
            role_model = LLMRuntime.from_config(config, file_config=file_config).for_role("design")
            answer, seconds = probe_structured(role_model)
        except BenchsmithError as exc:
            checks.append(Check("structured probe", "unreachable", str(exc), required=True))
        else:
            local = role_model.spec.provider == "local"
            server = local_server(model=role_model.spec.model) if local else None
            startup = server.startup_seconds if server else None
            detail = f"{role_model.spec.text} answered {answer.model_dump_json()} in {seconds:.2f}s"
            if startup is not None:
                detail += f" (server start-up {startup:.2f}s)"
            checks.append(Check("structured probe", "ok", detail, required=True))
            probe_result = {
                "answer": answer.model_dump(),
                "seconds": seconds,
                "startup_seconds": startup,
            }
    failed = [c for c in checks if c.required and c.status != "ok"]
    if as_json:
        report = {"checks": [c.as_dict() for c in checks], "probe": probe_result}
        click.echo(json.dumps(report, indent=2))
    else:
        for c in checks:
            click.echo(f"{c.status:<12} {c.name:<18} {c.detail}")
    if failed:
        if as_json:
            raise click.exceptions.Exit(1)
        raise BenchsmithError(f"doctor: not ready: {'; '.join(c.detail for c in failed)}")


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("intent")
@size_option(default=100, help_text="Number of items.")
@out_option("Folder for spec.json and the run records (default: out/plan-<slug>).")
@planning_options
@click.option("--json", "as_json", is_flag=True, help="Print the spec as JSON.")
@click.pass_context
def plan(
    ctx: click.Context,
    intent: str,
    size: int,
    out: str | None,
    datasets: tuple[str, ...],
    references: tuple[str, ...],
    review: bool,
    as_json: bool,
    **_config_options: Any,
) -> None:
    """Plan a benchmark for INTENT: subtasks, datasets, tool plans and quotas.

    Prints a readable plan and writes spec.json. Nothing is generated yet: `benchsmith
    build` realizes the plan.

    \b
    Examples:
      benchsmith plan "spoken questions about world capitals" --size 50 --review
      benchsmith build --spec out/plan-spoken-questions-about-world-capitals/spec.json
    """
    # Lazy: the agents take seconds, and the API a tenth of a second that --help need not pay.
    from benchsmith.agents.review import summarize
    from benchsmith.api import plan_benchmark

    out_dir = out or os.path.join("out", "plan-" + slugify(intent, default="benchmark"))
    config = config_from_options(ctx)
    result = plan_benchmark(
        intent,
        size=size,
        out=out_dir,
        config=config,
        datasets=datasets,
        references=references,
        reviewer=review_interactively if review else None,
        progress=_plan_progress,
    )
    if as_json:
        click.echo(result.spec.model_dump_json(indent=2))
    else:
        click.echo(summarize(result.spec))
        for warning in result.warnings:
            click.echo(f"\nwarning: {warning}")
        click.echo(f"\nspec written to {result.spec_path}")


def _plan_progress(node: str, update: dict) -> None:
    """Print each planning step as it happens (on stderr; a plan can take minutes)."""
    if node.startswith("planner:"):
        for line in update.get("planner_log") or []:
            click.echo(f"plan: {line}", err=True)


@cli.group(context_settings=CONTEXT_SETTINGS)
def tools() -> None:
    """The deterministic tools items are made with: list them, or run one by hand."""


@tools.command("list", context_settings=CONTEXT_SETTINGS)
@click.option("--category", help="Only this category (speech, image, audio, search, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print names, descriptions and schemas.")
def tools_list(category: str | None, as_json: bool) -> None:
    """Show every tool with its inputs and parameters."""
    from benchsmith.tools.registry import registry  # lazy: every tool module, off --help

    specs = [s for s in registry().values() if category is None or s.category == category]
    if category is not None and not specs:
        raise ConfigError(f"no tools in category {category!r}")
    if as_json:
        rows = [
            {
                "name": s.name,
                "category": s.category,
                "inputs": s.inputs.describe(),
                "description": s.description,
                "parameters": s.parameters_schema(),
            }
            for s in specs
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    for s in specs:
        click.echo(f"{s.name}  [{s.category}; {s.inputs.describe()}]")
        click.echo(f"    {s.description}")
        schema = s.parameters_schema()
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        for key, prop in props.items():
            kind = prop.get("type") or ("enum" if "enum" in prop else "value")
            if "enum" in prop:
                kind = "|".join(str(v) for v in prop["enum"])
            default = "" if key in required else f" = {json.dumps(prop.get('default'))}"
            click.echo(f"      {key}: {kind}{default}  {prop.get('description', '')}")


def _parse_params(values: Sequence[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise ConfigError(f"--param {value!r}: write it as KEY=VALUE, e.g. width=256")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


@tools.command("run", context_settings=CONTEXT_SETTINGS)
@click.argument("name")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter (repeatable); VALUE is read as JSON when it parses (numbers, true, "
    "lists), else as text.",
)
@click.option(
    "--input", "inputs", multiple=True, type=click.Path(), metavar="FILE", help="Input file."
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default="media",
    show_default=True,
    help="Folder the outputs are written to (the media folder).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed.")
def tools_run(
    name: str, params: tuple[str, ...], inputs: tuple[str, ...], out: str, seed: int
) -> None:
    """Run one tool by hand (e.g. to try a plan step) and print its provenance as JSON."""
    # Lazy: the tools and their libraries take a second or more, off --help.
    from benchsmith.tools.context import ToolContext
    from benchsmith.tools.registry import run_tool

    ctx = ToolContext(media_dir=Path(out), seed=seed, run_dir=Path(out) / ".records")
    result = run_tool(name, _parse_params(params), list(inputs), ctx)
    click.echo(result.model_dump_json(indent=2))


cli.add_command(catalog)
cli.add_command(build)
cli.add_command(eval_command)
cli.add_command(judge_command)
cli.add_command(calibrate_command)
cli.add_command(perturb_command)
cli.add_command(review_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; turn every user error into one line and an exit code."""
    try:
        from dotenv import load_dotenv

        load_dotenv(os.path.join(os.getcwd(), ".env"), override=False)
        code = cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="benchsmith",
            standalone_mode=False,
        )
        # Outside standalone mode click returns a command's Exit code instead of raising it
        # (a build short of its size raises Exit(3)).
        if isinstance(code, int) and code:
            return code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("benchsmith: interrupted", err=True)
        return 130
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "benchsmith"
        click.echo(f"benchsmith: error: {exc.format_message()} (see '{command} --help')", err=True)
        return 2
    except click.ClickException as exc:
        click.echo(f"benchsmith: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except StopRequested as exc:
        click.echo(f"benchsmith: {exc}", err=True)
        return exc.exit_code
    except BenchsmithError as exc:
        click.echo(f"benchsmith: error: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("benchsmith: interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Arguments and options more than one command takes, defined once.

Each name is a click decorator (or a stack of them); :func:`planning_options` applies every
option that shapes a plan, so ``plan`` and ``build`` offer the same flags with the same help.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar, get_args, get_origin

import click

from benchsmith.config import RunConfig, RunPaths
from benchsmith.errors import ConfigError
from benchsmith.llm.specs import ROLES
from benchsmith.spec import MODALITIES

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

F = TypeVar("F", bound=Callable[..., Any])


def parse_role_models(values: Sequence[str]) -> dict[str, str]:
    """``ROLE=SPEC`` values as a role-to-spec map.

    Raises:
        ConfigError: A value is not ``ROLE=SPEC`` or names an unknown role.
    """
    out: dict[str, str] = {}
    for value in values:
        role, sep, spec = value.partition("=")
        if not sep or not spec:
            raise ConfigError(
                f"--role-model {value!r}: write it as ROLE=SPEC, e.g. judge=openai:gpt-4o"
            )
        if role not in ROLES:
            raise ConfigError(
                f"--role-model {value!r}: unknown role {role!r}; roles are {', '.join(ROLES)}"
            )
        out[role] = spec
    return out


def split_codes(values: Sequence[str]) -> list[str]:
    """Repeated and comma-separated codes (``--language en,fr --language de``) as one list."""
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


def split_modalities(values: Sequence[str]) -> list[str]:
    """``--modalities audio,image`` as a list, each checked.

    Raises:
        click.BadParameter: A value is not text, image or audio.
    """
    out = split_codes(values)
    bad = [m for m in out if m not in MODALITIES]
    if bad:
        raise click.BadParameter(
            f"{', '.join(bad)} is not a modality; use {', '.join(MODALITIES)}",
            param_hint="--modalities",
        )
    return list(dict.fromkeys(out))


def config_option(name: str, *decls: str, **overrides: Any) -> Callable[[F], F]:
    """A click option for the :class:`RunConfig` field ``name``, typed by that field.

    Bounds become ``IntRange``/``FloatRange``, a ``Literal`` a ``Choice``; the default and
    the help come from the field. The flag is ``--name-with-dashes`` unless ``decls`` names
    it; the parameter is always ``name``, so :func:`config_from_options` finds it.
    """
    field = RunConfig.model_fields[name]
    annotation = field.annotation
    low, high = RunConfig.bounds(name)
    kind: Any = None
    choices = [a for a in get_args(annotation) if get_origin(a) is Literal] or (
        [annotation] if get_origin(annotation) is Literal else []
    )
    if choices:
        kind = click.Choice(list(get_args(choices[0])))
    elif annotation is bool:
        overrides.setdefault("is_flag", True)
    elif int in (annotation, *get_args(annotation)):
        kind = click.IntRange(low, high) if low is not None or high is not None else int
    elif float in (annotation, *get_args(annotation)):
        kind = click.FloatRange(low, high) if low is not None or high is not None else float
    options: dict[str, Any] = {
        "default": field.get_default(call_default_factory=True),
        "show_default": field.default is not None and annotation is not bool,
        "help": field.description,
    }
    if kind is not None:
        options["type"] = kind
    options.update(overrides)
    flags = decls or ("--" + name.replace("_", "-"),)
    return click.option(*flags, name, **options)


def config_from_options(ctx: click.Context, **overrides: Any) -> RunConfig:
    """The run configuration of a command: every option the user gave, nothing else.

    Options named after a :class:`RunConfig` (or :class:`RunPaths`) field are taken when
    they came from the command line or the environment, not from a default, so that
    ``"seed" in config.model_fields_set`` means the user chose a seed. ``--role-model`` and
    ``--language`` values are parsed here; ``overrides`` are set as given.

    Raises:
        ConfigError: A value is out of range or a role is unknown.
    """
    from click.core import ParameterSource

    given = {
        name: value
        for name, value in ctx.params.items()
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
    }
    if "role_models" in given:
        given["role_models"] = parse_role_models(given["role_models"])
    if "languages" in given:
        given["languages"] = split_codes(given["languages"])
    if "modalities" in given:
        given["modalities"] = list(given["modalities"])
    root = ctx.find_root()
    config_file = (root.obj or {}).get("config_file") if isinstance(root.obj, dict) else None
    values: dict[str, Any] = {"config_file": config_file} if config_file else {}
    values.update({k: v for k, v in given.items() if k in RunConfig.model_fields})
    paths = {k: v for k, v in given.items() if k in RunPaths.model_fields}
    values.update(overrides)
    if paths:
        values["paths"] = RunPaths(**paths)
    return RunConfig(**values)


def review_interactively(pending: dict[str, Any]) -> dict[str, Any]:
    """Show the plan; ask to approve, edit (in $EDITOR), reject or take the runner-up readings."""
    click.echo(pending["summary"])
    runner_up = any(g.get("runner_up") for g in pending["spec"].get("groundings", []))
    choices = ["approve", "edit", "reject"] + (["runner-up"] if runner_up else [])
    action = click.prompt(
        "\napprove, edit or reject the plan"
        + (" (runner-up: take each program's runner-up reading)?" if runner_up else "?"),
        type=click.Choice(choices),
        default="approve",
    )
    if action == "runner-up":
        return {"action": "runner-up"}
    if action == "edit":
        edited = click.edit(json.dumps(pending["spec"], indent=2), extension=".json")
        if edited is None:
            return {"action": "approve"}
        try:
            return {"action": "edit", "spec": json.loads(edited)}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"the edited plan is not valid JSON: {exc}") from exc
    if action == "reject":
        return {"action": "reject", "reason": click.prompt("why", default="", show_default=False)}
    return {"action": "approve"}


def size_option(*, default: int | None, help_text: str) -> Callable[[F], F]:
    """``--size N``: the number of items (1 to 100,000)."""
    return click.option(
        "--size",
        type=click.IntRange(1, 100_000),
        default=default,
        show_default=default is not None,
        help=help_text,
    )


def out_option(help_text: str) -> Callable[[F], F]:
    """``--out DIR``: the folder a command writes."""
    return click.option(
        "--out", type=click.Path(file_okay=False), default=None, metavar="DIR", help=help_text
    )


def catalog_option(help_text: str) -> Callable[[F], F]:
    """``--catalog DIR``: the dataset catalog a command plans or builds from."""
    return click.option(
        "--catalog",
        "catalog_dir",
        type=click.Path(file_okay=False),
        default=None,
        metavar="DIR",
        help=help_text,
    )


def _source_option(flag: str, name: str, metavar: str, what: str) -> Callable[[F], F]:
    """A repeatable option naming an existing file (or folder) the run grounds in."""
    return click.option(
        flag,
        name,
        multiple=True,
        type=click.Path(exists=True),
        metavar=metavar,
        help=f"{what} to ground in (repeatable).",
    )


bench_dir_argument = click.argument(
    "bench_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False)
)
"""``DIR``: the benchmark folder a command reads (``eval``, ``judge``, ``review``...)."""

quiet_option = click.option("--quiet", is_flag=True, help="No progress bar.")


def models_option(help_text: str) -> Callable[[F], F]:
    """``--model SPEC`` (repeatable, at least one): the models that answer the items."""
    return click.option(
        "--model", "models", multiple=True, required=True, metavar="SPEC", help=help_text
    )


answers_concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Answers requested at once (each endpoint's own limit also applies).",
)


model_option = click.option(
    "--model",
    "model",
    metavar="SPEC",
    help="Model for every role: local (embedded, the default), local:reader (the embedded "
    "1.5B reader), openai:MODEL, ollama:MODEL, vllm:MODEL, or MODEL@http://host:port/v1.",
)
role_model_option = click.option(
    "--role-model",
    "role_models",
    multiple=True,
    metavar="ROLE=SPEC",
    help=f"Model for one role (repeatable). Roles: {', '.join(ROLES)}.",
)

_PLANNING: list[Callable[[F], F]] = [
    model_option,
    role_model_option,
    _source_option("--dataset", "datasets", "PATH", "A data file or folder"),
    _source_option("--reference", "references", "FILE", "A reference document"),
    catalog_option("Dataset catalog (default: $BENCHSMITH_HOME/catalog)."),
    click.option(
        "--modality",
        "--modalities",
        "modalities",
        multiple=True,
        metavar="MODALITY",
        callback=lambda _ctx, _param, values: tuple(split_modalities(values)),
        help="Input modalities the items must use: text, image, audio (repeatable or "
        "comma-separated, e.g. audio,image).",
    ),
    click.option(
        "--language",
        "--languages",
        "languages",
        multiple=True,
        metavar="CODE",
        help="Language of the items (repeatable or comma-separated, e.g. en,fr).",
    ),
    config_option("programs"),
    config_option("program", metavar="PROGRAM"),
    config_option("max_subtasks"),
    config_option("budget_usd"),
    config_option("budget_tokens"),
    click.option(
        "--review", is_flag=True, help="Show the plan and ask to approve, edit or reject it."
    ),
]


def planning_options(fn: F) -> F:
    """Apply every option that shapes a plan (models, sources, constraints, budget, review)."""
    for option in reversed(_PLANNING):
        fn = option(fn)
    return fn

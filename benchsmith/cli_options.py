"""Options the ``plan`` and ``build`` commands share, defined once.

Each name is a click decorator (or a stack of them); :func:`planning_options` applies every
option that shapes a plan, so both commands offer the same flags with the same help.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from benchsmith.errors import ConfigError
from benchsmith.llm.specs import ROLES

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


MODALITY_NAMES = ("text", "image", "audio")


def split_modalities(values: Sequence[str]) -> list[str]:
    """``--modalities audio,image`` as a list, each checked.

    Raises:
        click.BadParameter: A value is not text, image or audio.
    """
    out = split_codes(values)
    bad = [m for m in out if m not in MODALITY_NAMES]
    if bad:
        raise click.BadParameter(
            f"{', '.join(bad)} is not a modality; use {', '.join(MODALITY_NAMES)}",
            param_hint="--modalities",
        )
    return list(dict.fromkeys(out))


model_option = click.option(
    "--model",
    "model",
    metavar="SPEC",
    help="Model for every role: local (embedded, the default), openai:MODEL, "
    "ollama:MODEL, vllm:MODEL, or MODEL@http://host:port/v1.",
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
    click.option(
        "--dataset",
        "datasets",
        multiple=True,
        type=click.Path(exists=True),
        metavar="PATH",
        help="A data file or folder to ground in (repeatable).",
    ),
    click.option(
        "--reference",
        "references",
        multiple=True,
        type=click.Path(exists=True),
        metavar="FILE",
        help="A reference document to ground in (repeatable).",
    ),
    click.option(
        "--catalog",
        "catalog_dir",
        type=click.Path(file_okay=False),
        default=None,
        metavar="DIR",
        help="Dataset catalog (default: $BENCHSMITH_HOME/catalog).",
    ),
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
    click.option(
        "--max-subtasks",
        type=click.IntRange(1, 12),
        default=4,
        show_default=True,
        help="Most subtasks.",
    ),
    click.option("--budget-usd", type=float, default=None, help="Hard cap on model spending."),
    click.option("--budget-tokens", type=int, default=None, help="Hard cap on model tokens."),
    click.option(
        "--review", is_flag=True, help="Show the plan and ask to approve, edit or reject it."
    ),
]


def planning_options(fn: F) -> F:
    """Apply every option that shapes a plan (models, sources, constraints, budget, review)."""
    for option in reversed(_PLANNING):
        fn = option(fn)
    return fn

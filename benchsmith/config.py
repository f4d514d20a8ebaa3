"""Run configuration: one typed object, plus the optional configuration file.

``RunConfig`` is the graph's context schema and the argument bundle of the Python API.
Values are resolved in one order everywhere: an explicit argument (flag or API argument),
then the configuration file, then the environment, then the built-in default. Nothing
silently overrides an explicit value; ``benchsmith models`` shows where each came from.

The configuration file is TOML, found at ``--config PATH``, else ``$BENCHSMITH_CONFIG``,
else ``./benchsmith.toml`` when it exists::

    [models]
    default = "openai:gpt-4o-mini"      # every role
    judge = "openai:gpt-4o"             # one role

    [llm]
    structured_method = "json_schema"   # or function_calling / json_mode
    max_concurrency = 8
    timeout_s = 60

    [prices."my-model"]                 # USD per million tokens
    input = 0.5
    output = 1.5
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchsmith.errors import ConfigError, describe_validation_error
from benchsmith.llm.specs import ROLES, STRUCTURED_METHODS, StructuredMethod

CONFIG_FILE_NAME = "benchsmith.toml"


class LLMSettings(BaseModel):
    """How model calls are made; every field may be set in ``[llm]`` of the config file."""

    model_config = ConfigDict(extra="forbid")

    structured_method: StructuredMethod | None = Field(
        default=None,
        description="Force a structured-output method; None picks the endpoint's best.",
    )
    max_attempts: int = Field(
        default=3, ge=1, le=10, description="Attempts per structured call (invalid replies)."
    )
    max_retries: int = Field(
        default=4, ge=0, le=20, description="Retries of transient errors (429, 5xx, timeouts)."
    )
    max_retry_wait_s: float = Field(
        default=60.0, gt=0, description="Longest single wait between transient retries."
    )
    timeout_s: float = Field(default=120.0, gt=0, description="Timeout of one HTTP request.")
    max_concurrency: int = Field(
        default=4, ge=1, le=256, description="Requests in flight at once per remote endpoint."
    )
    local_max_concurrency: int = Field(
        default=1, ge=1, le=8, description="Requests in flight at once to the embedded model."
    )
    temperature: float | None = Field(
        default=None, ge=0, le=2, description="Sampling temperature; None: 0 for local."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Cap on reply tokens; None: 512 for local."
    )
    local_context: int = Field(
        default=8192, ge=2048, description="Context window of the embedded model's server."
    )


class Price(BaseModel):
    """USD per million tokens for one model."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)


@dataclass(frozen=True)
class FileConfig:
    """What the configuration file says (empty when there is none)."""

    path: Path | None = None
    models: dict[str, str] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)


def find_config_file(
    explicit: str | os.PathLike[str] | None, env: Mapping[str, str]
) -> Path | None:
    """Locate the configuration file.

    Args:
        explicit: A path given as an argument; it must exist.
        env: The environment (``BENCHSMITH_CONFIG``).

    Returns:
        The file to read, or None when there is none.

    Raises:
        ConfigError: An explicitly named file does not exist.
    """
    for source, value in (
        ("--config", explicit),
        ("BENCHSMITH_CONFIG", env.get("BENCHSMITH_CONFIG")),
    ):
        if value:
            path = Path(value).expanduser()
            if not path.is_file():
                raise ConfigError(f"config file {str(path)!r} (from {source}) does not exist")
            return path
    default = Path.cwd() / CONFIG_FILE_NAME
    return default if default.is_file() else None


def load_file_config(
    explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> FileConfig:
    """Read and check the configuration file.

    Args:
        explicit: A path given as an argument (``--config``).
        env: The environment; defaults to ``os.environ``.

    Returns:
        The parsed configuration (empty if there is no file).

    Raises:
        ConfigError: The file is not valid TOML or has an unknown key or a bad value; the
            message names the file and the key.
    """
    env = os.environ if env is None else env
    path = find_config_file(explicit, env)
    if path is None:
        return FileConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid TOML: {exc}") from exc
    unknown = set(data) - {"models", "llm", "prices"}
    if unknown:
        raise ConfigError(
            f"config file {str(path)!r}: unknown section(s) {sorted(unknown)}; "
            "expected [models], [llm], [prices]"
        )
    models = data.get("models", {})
    bad = [k for k in models if k != "default" and k not in ROLES]
    if bad or not all(isinstance(v, str) for v in models.values()):
        raise ConfigError(
            f"config file {str(path)!r} [models]: keys must be 'default' or a role "
            f"({', '.join(ROLES)}) with a spec string; got {sorted(models)}"
        )
    llm = data.get("llm", {})
    try:
        LLMSettings(**llm)
        prices = {name: Price(**p) for name, p in data.get("prices", {}).items()}
    except (ValidationError, TypeError) as exc:
        raise ConfigError(f"config file {str(path)!r}: {_first_error(exc)}") from exc
    return FileConfig(path=path, models=dict(models), llm=dict(llm), prices=prices)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return describe_validation_error(exc, limit=1)
    return str(exc)


JUDGE_MODES = ("auto", "enforce", "advisory", "off")


@dataclass
class RunConfig:
    """Configuration of one run; the graph's context schema.

    Every field is optional: unset fields come from the configuration file, then the
    environment, then the defaults.
    """

    model: str | None = field(
        default=None,
        metadata={"description": "Model spec for every role (local, openai:MODEL, MODEL@URL)."},
    )
    role_models: dict[str, str] = field(
        default_factory=dict,
        metadata={"description": "Model spec per role, e.g. {'judge': 'openai:gpt-4o'}."},
    )
    config_file: str | None = field(
        default=None, metadata={"description": "Path of a benchsmith.toml to read."}
    )
    run_dir: str | None = field(
        default=None,
        metadata={"description": "Folder for the run records (model calls, cache)."},
    )
    replay: bool = field(
        default=False,
        metadata={"description": "Serve every model call from the run records; no network."},
    )
    budget_usd: float | None = field(
        default=None, metadata={"description": "Hard cap on model spending in USD."}
    )
    budget_tokens: int | None = field(
        default=None, metadata={"description": "Hard cap on model tokens (input + output)."}
    )
    structured_method: str | None = field(
        default=None,
        metadata={
            "description": f"Force a structured-output method: {', '.join(STRUCTURED_METHODS)}."
        },
    )
    seed: int = field(default=0, metadata={"description": "Seed for every random choice."})
    catalog_dir: str | None = field(
        default=None,
        metadata={"description": "Dataset catalog folder (default: $BENCHSMITH_HOME/catalog)."},
    )
    run_catalog_dir: str | None = field(
        default=None,
        metadata={"description": "Catalog of this run's own --dataset/--reference sources."},
    )
    modalities: list[str] = field(
        default_factory=list,
        metadata={"description": "Input modalities the benchmark must use (text, image, audio)."},
    )
    languages: list[str] = field(
        default_factory=list, metadata={"description": "Languages items must be in (ISO codes)."}
    )
    answer_formats: list[str] = field(
        default_factory=list,
        metadata={"description": "Allowed answer formats (multiple_choice, short_answer, ...)."},
    )
    max_subtasks: int = field(
        default=4, metadata={"description": "Most subtasks the design agent may keep (1-12)."}
    )
    max_design_rounds: int = field(
        default=2, metadata={"description": "Propose/critique rounds of the design agent."}
    )
    max_regrounding: int = field(
        default=2,
        metadata={"description": "Times ungrounded subtasks go back to design before dropping."},
    )
    max_allocation_rounds: int = field(
        default=5, metadata={"description": "Allocate/diagnose/adjust rounds before giving up."}
    )
    review: bool = field(
        default=False,
        metadata={"description": "Pause for a human to approve or edit the plan (interrupt)."},
    )
    out_dir: str | None = field(
        default=None,
        metadata={"description": "The benchmark folder a build writes (data/, media/, ...)."},
    )
    concurrency: int = field(
        default=4, metadata={"description": "Sample slots realized at once (1-64)."}
    )
    max_fix_attempts: int = field(
        default=2,
        metadata={"description": "Local fixes of a failing item before it is discarded (0-5)."},
    )
    max_refill_rounds: int = field(
        default=3,
        metadata={"description": "Rounds that refill quotas after rejections (0-20)."},
    )
    max_slots_factor: float = field(
        default=3.0,
        metadata={
            "description": "Most sample slots a grounding may use, as a multiple of its quota."
        },
    )
    judge: str = field(
        default="auto",
        metadata={
            "description": "The verification role's LLM judge: enforce (a failing verdict "
            "rejects the item), advisory (recorded only), off, or auto (enforce, except off "
            "when that role is the embedded 135M model, too small to judge)."
        },
    )

    def __post_init__(self) -> None:
        """Check the values a user can get wrong."""
        if self.budget_usd is not None and self.budget_usd < 0:
            raise ConfigError(f"budget_usd must be >= 0, got {self.budget_usd}")
        if self.budget_tokens is not None and self.budget_tokens < 0:
            raise ConfigError(f"budget_tokens must be >= 0, got {self.budget_tokens}")
        bad = [r for r in self.role_models if r not in ROLES]
        if bad:
            raise ConfigError(f"unknown role(s) {bad}; roles are {', '.join(ROLES)}")
        if not 1 <= self.max_subtasks <= 12:
            raise ConfigError(f"max_subtasks must be from 1 to 12, got {self.max_subtasks}")
        for name in ("max_design_rounds", "max_regrounding", "max_allocation_rounds"):
            if not 0 <= getattr(self, name) <= 20:
                raise ConfigError(f"{name} must be from 0 to 20, got {getattr(self, name)}")
        if not 1 <= self.concurrency <= 64:
            raise ConfigError(f"concurrency must be from 1 to 64, got {self.concurrency}")
        if self.judge not in JUDGE_MODES:
            raise ConfigError(f"judge must be one of {', '.join(JUDGE_MODES)}, got {self.judge!r}")
        if not 0 <= self.max_fix_attempts <= 5:
            raise ConfigError(f"max_fix_attempts must be from 0 to 5, got {self.max_fix_attempts}")
        if not 0 <= self.max_refill_rounds <= 20:
            raise ConfigError(
                f"max_refill_rounds must be from 0 to 20, got {self.max_refill_rounds}"
            )
        if not 1.0 <= self.max_slots_factor <= 50:
            raise ConfigError(f"max_slots_factor must be from 1 to 50, got {self.max_slots_factor}")
        bad_modalities = [m for m in self.modalities if m not in ("text", "image", "audio")]
        if bad_modalities:
            raise ConfigError(f"unknown modality {bad_modalities}; use text, image or audio")
        formats = ("multiple_choice", "short_answer", "numeric", "open")
        bad_formats = [f for f in self.answer_formats if f not in formats]
        if bad_formats:
            raise ConfigError(f"unknown answer format {bad_formats}; use {', '.join(formats)}")
        if self.structured_method is not None and self.structured_method not in STRUCTURED_METHODS:
            raise ConfigError(
                f"unknown structured method {self.structured_method!r}; "
                f"use one of {', '.join(STRUCTURED_METHODS)}"
            )

    @classmethod
    def field_descriptions(cls) -> dict[str, str]:
        """Field name to description, for ``--help`` texts and documentation."""
        return {f.name: f.metadata.get("description", "") for f in fields(cls)}

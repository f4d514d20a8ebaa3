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
import threading
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from benchsmith.difficulty import Label
from benchsmith.errors import ConfigError, describe_validation_error
from benchsmith.llm.specs import ROLES, STRUCTURED_METHODS, Role, StructuredMethod
from benchsmith.spec import AnswerFormat, Modality

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


JudgeMode = Literal["auto", "enforce", "advisory", "off"]
JUDGE_MODES: tuple[JudgeMode, ...] = get_args(JudgeMode)
# A behaviour that is forced on, forced off, or decided by the run (auto).
Switch = Literal["auto", "on", "off"]
# How many times a feedback loop of the graph may go round (its router reads the cap).
LoopCap = Annotated[int, Field(ge=0, le=20)]


class RunPaths(BaseModel):
    """Where a run reads and writes: kept apart from the settings that shape its results.

    Every folder is optional: a plan without an output folder writes nothing, and the
    catalog defaults to ``$BENCHSMITH_HOME/catalog``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: str | None = Field(
        default=None, description="The benchmark folder a build writes (data/, media/, ...)."
    )
    run_dir: str | None = Field(
        default=None, description="Folder for the run records (model calls, ledger, cache)."
    )
    catalog_dir: str | None = Field(
        default=None, description="Dataset catalog folder (default: $BENCHSMITH_HOME/catalog)."
    )
    run_catalog_dir: str | None = Field(
        default=None, description="Catalog of this run's own --dataset/--reference sources."
    )


T = TypeVar("T")


class RunShared:
    """What the nodes of one run share beyond its state: one object, made on first use.

    A build's nodes, its slot steps in parallel threads among them, all get the run's
    :class:`RunConfig` object as the graph's context (LangGraph hands a subgraph its
    parent's), so what that object holds is the run's and nobody else's: the build's
    workspace (:func:`benchsmith.agents.workspace.open_workspace`). It is no part of the
    configuration's value: a copy (``model_copy``, ``with_paths``) is another run's and
    starts empty, and equality and pickling ignore it.
    """

    def __init__(self) -> None:
        """Start empty."""
        self._lock = threading.Lock()
        self._value: Any = None

    def get(self, make: Callable[[], T]) -> T:
        """The shared object, made by ``make()`` on the first call (once, whatever the threads)."""
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    self._value = make()
                value = self._value
        return value

    def peek(self) -> Any:
        """The shared object if it was made, else None."""
        return self._value

    def clear(self) -> None:
        """Let go of the shared object (the next :meth:`get` makes a new one)."""
        with self._lock:
            self._value = None

    def __eq__(self, other: object) -> bool:
        """Equal to any other: what a run opened does not tell two configurations apart."""
        return isinstance(other, RunShared)

    def __hash__(self) -> int:
        """One hash for all, as they are all equal."""
        return 0

    def __copy__(self) -> RunShared:
        """An empty one: a copy of the configuration is another run's."""
        return RunShared()

    def __deepcopy__(self, memo: dict[int, Any]) -> RunShared:
        """An empty one: a copy of the configuration is another run's."""
        return RunShared()

    def __reduce__(self) -> tuple[type[RunShared], tuple[()]]:
        """Pickled empty (a lock and a workspace do not travel)."""
        return (RunShared, ())


class RunConfig(BaseModel):
    """Configuration of one run; the graph's context schema.

    The bounds and choices here are the only ones: the CLI builds its options from these
    fields (see :func:`benchsmith.cli_options.config_option`). Model choices left unset
    come from the configuration file, then the environment, then the defaults. Whether a
    field was given explicitly is ``name in config.model_fields_set`` (a resumed build keeps
    its recorded seed unless a new one is given), never a special value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(
        default=None,
        description="Model spec for every role (local, openai:MODEL, MODEL@URL).",
    )
    role_models: dict[Role, str] = Field(
        default_factory=dict,
        description="Model spec per role, e.g. {'judge': 'openai:gpt-4o'}.",
    )
    config_file: str | None = Field(default=None, description="Path of a benchsmith.toml to read.")
    replay: bool = Field(
        default=False, description="Serve every model call from the run records; no network."
    )
    budget_usd: float | None = Field(
        default=None, ge=0, description="Hard cap on model spending in USD."
    )
    budget_tokens: int | None = Field(
        default=None, ge=0, description="Hard cap on model tokens (input + output)."
    )
    structured_method: StructuredMethod | None = Field(
        default=None,
        description=f"Force a structured-output method: {', '.join(STRUCTURED_METHODS)}.",
    )
    seed: int = Field(default=0, description="Seed of every random choice.")
    modalities: list[Modality] = Field(
        default_factory=list,
        description="Input modalities the benchmark must use (text, image, audio).",
    )
    languages: list[str] = Field(
        default_factory=list, description="Languages items must be in (ISO codes)."
    )
    answer_formats: list[AnswerFormat] = Field(
        default_factory=list,
        description="Allowed answer formats (multiple_choice, short_answer, ...).",
    )
    max_subtasks: int = Field(
        default=4, ge=1, le=12, description="Most subtasks (programs and references) a plan has."
    )
    max_allocation_rounds: LoopCap = Field(
        default=5, description="Allocate/diagnose/adjust rounds before giving up."
    )
    review: bool = Field(
        default=False, description="Pause for a human to approve or edit the plan (interrupt)."
    )
    concurrency: int = Field(default=4, ge=1, le=64, description="Sample slots realized at once.")
    max_refill_rounds: LoopCap = Field(
        default=3, description="Rounds that refill quotas after rejections."
    )
    max_slots_factor: float = Field(
        default=3.0,
        ge=1.0,
        le=50.0,
        description="Most sample slots a grounding may use, as a multiple of its quota.",
    )
    programs: Literal["auto", "model", "reader", "rules"] = Field(
        default="auto",
        description="Who reads the intent into a question program over the tables: "
        "rules (the code reads its words; the grounding model only picks among near-ties), "
        "reader (the rules, and where they are unsure of a slot - the column asked, a "
        "filter, open or closed book, a rank's direction - the reader role's model answers "
        "one multiple-choice question that code checks against the data), "
        "model (the grounding model proposes the program from the typed library; the code "
        "checks every field, value and join, runs it once, and keeps the rules' reading "
        "when the proposal fails); auto is model with a grounding model that is not "
        "embedded, else reader unless the reader role is the embedded SmolLM2.",
    )
    program: str | None = Field(
        default=None,
        description="A question program written by hand, used instead of the reader's: the "
        "kind, then NAME=VALUE pairs, e.g. 'superlative table=us-airports field=latitude "
        "direction=max book=open k=4' or \"count table=iris book=open rows=12 where='species "
        "== virginica'\". Names: table, key, answer, field, direction, aggregate, book, k, "
        "rows, features, where (FIELD OP VALUE, repeatable), hops (VIA@TABLE:KEY), format, "
        "choices. Checked against the table and run once.",
    )
    tail_backups: Switch = Field(
        default="auto",
        description="At the end of each fan-out, when every slot has started and some are "
        "still on a chain of replacements, slots that finish take a backup candidate "
        "for such a chain (at most one each); whichever is accepted first fills the place "
        "and the other stops at its next step (a backup accepted second is dropped, never "
        "packaged). It trades a few model calls for the wait on the slowest chain; auto "
        "does it unless a budget caps the run.",
    )
    judge: JudgeMode = Field(
        default="auto",
        description="The LLM judge of every item: enforce (a failing verdict rejects the "
        "item), advisory (recorded on the item only), off; auto enforces it, and skips it "
        "when the verification role is the embedded 135M model (too small to judge; use "
        "advisory to record its verdicts anyway).",
    )
    difficulty_mix: dict[Label, float] | None = Field(
        default=None,
        description="Target share of easy, medium and hard items in each subtask (from "
        "--difficulty easy=0.3,medium=0.4,hard=0.3): items computed by a generator are "
        "chosen among its candidates by their predicted difficulty, further candidates "
        "are generated for a short label, and the report gives the mix reached; None "
        "keeps the generators' own order.",
    )
    paths: RunPaths = Field(
        default_factory=RunPaths, description="The run's folders (output, records, catalogs)."
    )
    _shared: RunShared = PrivateAttr(default_factory=RunShared)

    @field_validator("difficulty_mix")
    @classmethod
    def _mix_sums_to_one(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return None
        if any(v < 0 for v in value.values()) or abs(sum(value.values()) - 1) > 0.01:
            raise ValueError(f"the shares {value} must be >= 0 and sum to 1 within 0.01")
        return value

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises :class:`ConfigError` naming the field and the rule."""
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(f"run configuration: {describe_validation_error(exc)}") from exc

    def __copy__(self) -> RunConfig:
        """A copy (``model_copy``, ``with_paths``) that shares nothing this run opened."""
        copied = super().__copy__()
        copied._shared = RunShared()
        return copied

    @property
    def shared(self) -> RunShared:
        """What the nodes of this object's run share (see :class:`RunShared`)."""
        return self._shared

    def with_paths(self, **paths: str | None) -> RunConfig:
        """A copy with some of the run's folders set."""
        return self.model_copy(update={"paths": self.paths.model_copy(update=paths)})

    def key(self) -> str:
        """A canonical text of the whole configuration (one model runtime per key)."""
        return self.model_dump_json()

    @classmethod
    def field_descriptions(cls) -> dict[str, str]:
        """Field name to description, for ``--help`` texts and documentation."""
        return {name: f.description or "" for name, f in cls.model_fields.items()}

    @classmethod
    def bounds(cls, name: str) -> tuple[float | None, float | None]:
        """The inclusive ``(lowest, highest)`` a field allows (None: unbounded)."""
        low = high = None
        for rule in cls.model_fields[name].metadata:
            low = getattr(rule, "ge", low)
            high = getattr(rule, "le", high)
        return low, high

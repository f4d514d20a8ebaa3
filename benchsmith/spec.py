"""The benchmark specification: what the planner decides and the executor realizes.

``BenchmarkSpec`` is written as ``spec.json``. Its parts are the contract between the
planner (design, grounding, allocation) and the executor: subtasks, groundings (a dataset
plus an ordered plan of registered tool steps with parameter ranges, and its scores) and
allocations (a quota per grounding; the quotas sum to the size). A question program's typed
parameters (:class:`ProgramSpec`: a kind from the library, the fields it reads, the
conditions that select its records, ``k``, the direction of a ranking, the aggregate, the
hops of a multi-hop question, closed- or open-book) are part of the spec too: the
programs of :mod:`benchsmith.programs` run them.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

AnswerFormat = Literal["multiple_choice", "short_answer", "numeric", "open"]
Modality = Literal["text", "image", "audio"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = get_args(AnswerFormat)
"""Every answer format, in the order prompts and options list them."""
MODALITIES: tuple[Modality, ...] = get_args(Modality)
"""Every input modality of an item."""
Difficulty = Literal["easy", "medium", "hard"]
Scalar = str | int | float | bool
COMPUTED = ("solution_graph", "question_program")
"""Strategies whose items are generated and computed, not worded from one record by a model."""


class Subtask(BaseModel):
    """One independent, testable part of the benchmark."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,47}$", description="Short slug, unique.")
    name: str = Field(min_length=1, max_length=80)
    description: str = Field(min_length=1, max_length=600)
    skills: list[str] = Field(default_factory=list, max_length=8)
    input_modalities: list[Modality] = Field(default_factory=lambda: ["text"], min_length=1)
    output_modality: Literal["text"] = "text"
    answer_format: AnswerFormat = "short_answer"
    difficulty: Difficulty = "medium"
    languages: list[str] = Field(default_factory=list)
    weight: float = Field(default=1.0, gt=0, le=10, description="Relative importance.")


class ParamRange(BaseModel):
    """The values a plan step's parameter may take: a choice list or a numeric interval."""

    model_config = ConfigDict(extra="forbid")

    choices: list[Scalar] | None = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ParamRange:
        numeric = self.min is not None or self.max is not None
        if (self.choices is None) == (not numeric):
            if self.choices is None:
                raise ValueError("give either choices or min/max")
            raise ValueError("give choices or min/max, not both")
        if numeric and (self.min is None or self.max is None or self.min > self.max):
            raise ValueError(f"need min <= max, got min={self.min} max={self.max}")
        if self.choices is not None and not self.choices:
            raise ValueError("choices is empty")
        return self


class PlanStep(BaseModel):
    """One tool step of a transformation plan."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(description="A registered tool name.")
    params: dict[str, Any] = Field(default_factory=dict, description="Fixed parameters.")
    ranges: dict[str, ParamRange] = Field(
        default_factory=dict, description="Parameters chosen per item within these ranges."
    )
    input_field: str | None = Field(
        default=None, description="Record field whose file feeds this step (None: previous)."
    )
    purpose: str = Field(default="", max_length=200)


class Scores(BaseModel):
    """How good a (dataset, plan) candidate is, each in [0, 1]."""

    model_config = ConfigDict(extra="forbid")

    intent_alignment: float = Field(ge=0, le=1)
    robustness: float = Field(ge=0, le=1)
    signal_preservation: float = Field(ge=0, le=1)

    @property
    def overall(self) -> float:
        """The mean of the three scores."""
        return round((self.intent_alignment + self.robustness + self.signal_preservation) / 3, 4)


# -- question programs ----------------------------------------------------------------------
Kind = Literal[
    "lookup",
    "filtered_lookup",
    "compare",
    "superlative",
    "count",
    "aggregate",
    "classify",
    "multihop",
]
KINDS: tuple[str, ...] = get_args(Kind)
Op = Literal["==", "!=", "<", "<=", ">", ">="]
Book = Literal["closed", "open"]
Aggregate = Literal["count", "mean", "median", "sum", "min", "max"]


class Condition(BaseModel):
    """A filter on records: ``field op value`` (a value of a column, a numeric bound)."""

    model_config = ConfigDict(extra="forbid")

    field: str
    op: Op = "=="
    value: str | float

    def describe(self) -> str:
        """``continent == Europe``."""
        return f"{self.field} {self.op} {self.value}"


class Hop(BaseModel):
    """One step of a multi-hop question: the value of ``via`` keys the lookup in ``table``."""

    model_config = ConfigDict(extra="forbid")

    via: str = Field(description="The field of the current record whose value is the next key.")
    table: str = Field(description="The dataset the next record is in (may be the same one).")
    key_field: str = Field(description="The field of that dataset the value is looked up in.")
    conditions: list[Condition] = Field(
        default_factory=list,
        description=(
            "The records of that dataset the step may land on (its names in one language, "
            "of a dataset of names in many)."
        ),
    )


class ProgramSpec(BaseModel):
    """One question program with its parameters (the grounding of a records subtask)."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    book: Book = "closed"
    table: str = Field(description="The dataset id the records come from.")
    key_field: str | None = Field(
        default=None, description="The field that names a record in the question."
    )
    answer_field: str | None = Field(
        default=None,
        description="The field whose value is the answer (lookups, classify, multihop).",
    )
    field: str | None = Field(
        default=None,
        description="The number or date field ranked or aggregated (a multihop that ranks "
        "first, then reports answer_field of the record ranked first).",
    )
    direction: Literal["max", "min"] | None = None
    aggregate: Aggregate | None = None
    conditions: list[Condition] = Field(default_factory=list)
    features: list[str] = Field(
        default_factory=list, description="The fields a classify question states."
    )
    hops: list[Hop] = Field(default_factory=list)
    media_field: str | None = Field(
        default=None,
        description="A media field (image or sound) of the table that each item shows: the "
        "record's own picture, which a classification asks about (the record's key), or the "
        "pictures a count or comparison is over.",
    )
    shown: list[str] = Field(
        default_factory=list,
        description="More fields an open-book table shows besides those the question needs "
        "(the columns the intent lists).",
    )
    k: int = Field(default=2, ge=1, le=12, description="Records compared or shown.")
    rows_shown: int = Field(default=0, ge=0, le=12, description="Rows in an open-book prompt.")
    answer_format: Literal["multiple_choice", "short_answer", "numeric"] = "multiple_choice"
    n_choices: int = Field(default=4, ge=2, le=6)

    def describe(self) -> str:
        """A one-line description (for the plan, the log and the model's choice)."""
        parts = [self.kind, self.book + "-book"]
        if self.aggregate:
            parts.append(self.aggregate)
        if self.direction:
            parts.append(self.direction)
        if self.field:
            parts.append(f"of {self.field}")
        if self.answer_field:
            parts.append(f"answer {self.answer_field}")
        if self.key_field:
            parts.append(f"by {self.key_field}")
        if self.hops:
            parts.append("via " + " -> ".join(f"{h.via}@{h.table}" for h in self.hops))
        if self.conditions:
            parts.append("where " + " and ".join(c.describe() for c in self.conditions))
        if self.media_field:
            parts.append(f"shown as {self.media_field}")
        if self.shown:
            parts.append(f"showing {', '.join(self.shown)}")
        if self.kind in ("compare", "superlative") or (self.kind == "multihop" and self.field):
            parts.append(f"k={self.k}")
        return " ".join(parts)

    def reading(self) -> str:
        """How the program reads the intent, in one sentence for the plan.

        ``superlative, open book: 4 rows of us-airports, which has the largest latitude``.
        """
        book = f"{self.book} book"
        rows = self.rows_shown or self.k
        where = (
            " where " + " and ".join(c.describe() for c in self.conditions)
            if self.conditions
            else ""
        )
        most = "largest" if self.direction == "max" else "smallest"
        more = "larger" if self.direction == "max" else "smaller"
        sentence = {
            "lookup": f"the {self.answer_field} of a {self.table} record named by its "
            f"{self.key_field}",
            "filtered_lookup": f"the {self.answer_field} of a {self.table} record{where}, "
            f"named by its {self.key_field}",
            "compare": f"2 records of {self.table}{where}, which has the {more} {self.field}",
            "superlative": f"{self.k} rows of {self.table}{where}, which has the {most} "
            f"{self.field}",
            "count": f"{rows} rows of {self.table}, how many{where or ' there are'}",
            "aggregate": f"the {self.aggregate} of {self.field} over {rows} rows of "
            f"{self.table}{where}",
            "classify": f"the {self.answer_field} of a {self.table} record from its "
            f"{', '.join(self.features) or 'other fields'}",
            "multihop": f"from a {self.table} record's {self.key_field} through "
            + " then ".join(f"{h.via} to {h.table}" for h in self.hops)
            + f" to its {self.answer_field}",
        }[self.kind]
        if self.kind == "multihop" and self.field:
            # Two steps: rank the records, then report a field of the first.
            through = "".join(f" through {h.via} to {h.table}" for h in self.hops)
            sentence = (
                f"{self.k} records of {self.table}{where}: the {self.answer_field}{through} "
                f"of the one with the {most} {self.field}"
            )
        if self.media_field:
            # The records are shown as their pictures (or sounds), not named.
            sentence = {
                "classify": f"the {self.answer_field} of a {self.table} record from its "
                f"{self.media_field}{where}",
                "count": f"{rows} {self.media_field}s of {self.table}, how many{where}",
                "compare": f"2 {self.media_field}s of {self.table}{where}, which has the "
                f"{more} {self.field}",
            }.get(self.kind, sentence)
        if self.shown and self.book == "open":
            sentence += f" (the table also shows {', '.join(self.shown)})"
        return f"{self.kind.replace('_', ' ')}, {book}: {sentence}"

    def fields_used(self) -> list[str]:
        """Every field of the main table the program reads."""
        # A multi-hop answer is a field of the table the last hop leads to.
        answer = None if self.hops else self.answer_field
        used = [self.key_field, answer, self.field, *self.features]
        used += [c.field for c in self.conditions]
        used += [h.via for h in self.hops[:1]]
        return [f for f in dict.fromkeys(used) if f]

    def to_metadata(self) -> dict[str, Any]:
        """The program's parameters as item metadata."""
        return self.model_dump(exclude_none=True)


class Grounding(BaseModel):
    """A subtask grounded in a dataset or a reference: how its items are computed.

    Every item is computed: a question program executed over a table's records
    (``question_program``), or a problem generated from a reference's formulas
    (``solution_graph``). The record-template strategy (one raw record per item, worded by
    a model) is retired: a spec that still uses it is refused with a way forward.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    subtask_id: str
    dataset_id: str
    question_field: str | None = Field(
        default=None, description="Record field that names what a question is about."
    )
    answer_field: str = Field(
        description="Record field holding the ground-truth answer ('computed' when the "
        "program computes it)."
    )
    plan: list[PlanStep] = Field(
        default_factory=list,
        description="The tool steps that show an item (speak it, render it, degrade it).",
    )
    strategy: Literal["solution_graph", "question_program"] = Field(
        description="question_program: items computed by executing `program` over the "
        "records; solution_graph: computed problems from a reference's formulas "
        "(answer_field unused)."
    )
    program: ProgramSpec | None = Field(
        default=None,
        description="The question program of a question_program grounding (kind, fields, "
        "conditions, k, closed- or open-book).",
    )
    runner_up: ProgramSpec | None = Field(
        default=None,
        description="The reader's second reading of the intent (a question_program grounding): "
        "review can switch to it.",
    )
    scores: Scores
    rationale: str = ""
    available_records: int = Field(ge=0)
    expected_yield: float = Field(
        default=0.8, gt=0, le=1, description="Share passing verification."
    )
    est_calls_per_item: float = Field(default=3.0, ge=0)
    est_tokens_per_item: int = Field(default=1500, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _retired_records(cls, data: Any) -> Any:
        """Refuse a grounding of the retired record-template strategy, saying what to do."""
        if isinstance(data, dict) and data.get("strategy", "records") == "records":
            raise ValueError(
                f"grounding {data.get('id', '?')!r} uses the retired 'records' strategy (one "
                "record per item through question templates); plan it again from the intent "
                "(benchsmith plan INTENT) so that it becomes a question program, or write the "
                "program by hand with --program"
            )
        return data

    @model_validator(mode="after")
    def _program_present(self) -> Grounding:
        if self.strategy == "question_program" and self.program is None:
            raise ValueError(f"grounding {self.id}: a question_program grounding needs a program")
        return self


class Allocation(BaseModel):
    """How many items a grounding contributes."""

    model_config = ConfigDict(extra="forbid")

    grounding_id: str
    quota: int = Field(ge=0)


class Dropped(BaseModel):
    """A subtask the planner gave up on, and why."""

    subtask_id: str
    reason: str


class BenchmarkSpec(BaseModel):
    """The whole plan (``spec.json``)."""

    model_config = ConfigDict(extra="forbid")

    intent: str
    size: int = Field(ge=1)
    subtasks: list[Subtask]
    groundings: list[Grounding]
    allocations: list[Allocation]
    dropped: list[Dropped] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> BenchmarkSpec:
        subtask_ids = [s.id for s in self.subtasks]
        if len(set(subtask_ids)) != len(subtask_ids):
            raise ValueError("subtask ids must be unique")
        grounding_ids = {g.id for g in self.groundings}
        if len(grounding_ids) != len(self.groundings):
            raise ValueError("grounding ids must be unique")
        for g in self.groundings:
            if g.subtask_id not in subtask_ids:
                raise ValueError(f"grounding {g.id} names unknown subtask {g.subtask_id}")
        for a in self.allocations:
            if a.grounding_id not in grounding_ids:
                raise ValueError(f"allocation names unknown grounding {a.grounding_id}")
        if self.allocations and sum(a.quota for a in self.allocations) != self.size:
            raise ValueError(
                f"quotas sum to {sum(a.quota for a in self.allocations)}, not the size {self.size}"
            )
        return self

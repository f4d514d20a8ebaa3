"""The typed parameters of a question program (what ``spec.json`` stores per grounding).

A program is a kind from the library (:data:`KINDS`) with typed parameters: the fields it
reads, the conditions that select its records, ``k`` (records shown or compared), the
direction of a ranking, the aggregate, the hops of a multi-hop question, and whether it is
closed-book (knowledge) or open-book (the rows it needs are in the prompt).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

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
Aggregate = Literal["count", "mean", "sum", "min", "max"]


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
        default=None, description="The field whose value is the answer (lookups, classify)."
    )
    field: str | None = Field(
        default=None, description="The number or date field ranked or aggregated."
    )
    direction: Literal["max", "min"] | None = None
    aggregate: Aggregate | None = None
    conditions: list[Condition] = Field(default_factory=list)
    features: list[str] = Field(
        default_factory=list, description="The fields a classify question states."
    )
    hops: list[Hop] = Field(default_factory=list)
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
        if self.kind in ("compare", "superlative"):
            parts.append(f"k={self.k}")
        return " ".join(parts)

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

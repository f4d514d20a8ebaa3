"""A question program proposed by a capable model, and the code's check of it.

The rules in :mod:`~benchsmith.programs.intent` read an intent by its words; a capable model
reads it as a person would ("which nation won the final" asks the ``winner``). With a model
that can, the grounding role fills :func:`proposal_schema`: a program from the typed library
whose fields, tables and operators are ``Literal`` choices of what the data has, so it cannot
name a field that does not exist. :func:`to_spec` then checks what a schema cannot: that the
key names one record, that a ranked field is a number or a date, that a condition's value
occurs in its column, that a hop follows a real join, and that the program executes. A
proposal that fails is reported with why, and the rules' reading stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, create_model

from benchsmith.catalog.cards import value_text
from benchsmith.programs.intent import joins, shown_rows
from benchsmith.programs.run import probe
from benchsmith.programs.table import Column, Table
from benchsmith.spec import Aggregate, Book, Condition, Hop, Kind, Op, ProgramSpec

LOOKUPS = ("lookup", "filtered_lookup")
RANKS = ("compare", "superlative")


class ProposalError(ValueError):
    """A proposed program the data cannot serve as proposed (the message says why)."""


class NotServable(ValueError):
    """The model found that no field holds what the intent asks for (the message: what)."""


def proposal_schema(tables: Mapping[str, Table]) -> type[BaseModel]:
    """The schema a model fills to propose one program over ``tables``.

    Tables and fields are ``Literal`` choices of what the data has; free text is capped.
    """
    fields = tuple(sorted({path for t in tables.values() for path in t.columns}))
    field_name = Literal[fields]  # type: ignore[valid-type]
    condition = create_model(
        "ProposedCondition",
        field=(field_name, Field(description="The field the condition reads.")),
        op=(Op, "=="),
        value=(str, Field(max_length=40, description="A value of the field, or a number.")),
    )
    return create_model(
        "ProgramProposal",
        servable=(
            bool,
            Field(default=True, description="false only if no field holds what is asked."),
        ),
        missing=(str, Field(default="", max_length=80, description="If not: what none holds.")),
        kind=(Kind, Field(description="The program kind the intent asks for.")),
        book=(Book, Field(description="open: the rows are shown; closed: recalled.")),
        table=(Literal[tuple(tables)], Field(description="The table the records come from.")),  # type: ignore[valid-type]
        key_field=(field_name | None, Field(default=None, description="Names the record.")),
        answer_field=(field_name | None, Field(default=None, description="What is asked.")),
        field=(field_name | None, Field(default=None, description="Number ranked or summed.")),
        direction=(Literal["max", "min"] | None, None),
        aggregate=(Aggregate | None, None),
        conditions=(list[condition], Field(default_factory=list, max_length=3)),  # type: ignore[valid-type]
        via=(
            field_name | None,
            Field(default=None, description="Multi-hop: the linking field (none: rank first)."),
        ),
        answer_format=(Literal["multiple_choice", "short_answer", "numeric"] | None, None),
        k=(int, Field(default=0, ge=0, le=10, description="Records compared or shown; 0: any.")),
    )


def describe(tables: Mapping[str, Table]) -> str:
    """The tables as the model reads them: fields with their kind and a few values."""
    lines = []
    for table in tables.values():
        noun = table.entity.get("en") or "record"
        lines.append(f"table {table.id}: {len(table.records)} records, one per {noun}")
        for column in table.columns.values():
            seen = [value_text(table.value(r, column.path)) for r in table.rows()]
            values = list(dict.fromkeys(v for v in seen if v))
            shown = ", ".join(v[:30] for v in values[:6]) + (", ..." if len(values) > 6 else "")
            unique = ", names one record" if column.unique else ""
            lines.append(f"  - {column.path} ({column.kind}{unique}): {shown}")
    for a, via, b, key in joins(tables):
        if a != b:
            lines.append(f"join: {a}.{via} is a {b}.{key}")
    return "\n".join(lines)


def _column(table: Table, path: str | None, role: str) -> Column:
    if not path:
        raise ProposalError(f"a {role} is needed and none was given")
    column = table.columns.get(path)
    if column is None:
        raise ProposalError(f"{table.id} has no field {path!r} (the {role})")
    return column


def _condition(table: Table, field: str, op: str, value: str) -> Condition:
    """A proposed condition with its value read as the column holds it."""
    column = _column(table, field, "condition field")
    if column.orderable:
        if column.kind == "number":
            try:
                number: str | float = float(value.replace(",", ""))
            except ValueError:
                raise ProposalError(f"{field!r} is a number; {value!r} is not") from None
        else:
            number = value
        return Condition(field=field, op=op, value=number)  # type: ignore[arg-type]
    if op not in ("==", "!="):
        raise ProposalError(f"{field!r} holds text: only == and != apply, not {op}")
    held = {value_text(table.value(r, field)).casefold(): r for r in table.rows()}
    row = held.get(value.strip().casefold())
    if row is None:
        raise ProposalError(f"no record of {table.id} has {field} = {value!r}")
    return Condition(field=field, op=op, value=value_text(table.value(row, field)))  # type: ignore[arg-type]


def _key(table: Table, path: str | None) -> str:
    key = path or table.key
    column = _column(table, key, "field that names a record")
    if not column.unique:
        raise ProposalError(f"{key!r} does not name one record of {table.id} (values repeat)")
    return column.path


def _shown(table: Table, wanted: int, default: int) -> int:
    """Rows an open-book prompt shows: as the model asked (at most 10), or ``default``."""
    return shown_rows(table, min(wanted or default, 10))


def to_spec(proposal: Any, tables: Mapping[str, Table]) -> ProgramSpec:
    """The program a proposal describes, checked against the data and executed once.

    Raises:
        NotServable: The model said no field holds what the intent asks for.
        ProposalError: The proposal does not fit the data (the message says where).
    """
    if not proposal.servable:
        raise NotServable(proposal.missing or "no field holds what the intent asks for")
    table = tables[proposal.table]
    kind = proposal.kind
    conditions = [_condition(table, c.field, c.op, c.value) for c in proposal.conditions]
    open_book = proposal.book == "open"
    numeric = "numeric" if kind in ("count", "aggregate") else "multiple_choice"
    params: dict[str, Any] = {
        "book": proposal.book,
        "table": table.id,
        "conditions": conditions,
        "answer_format": proposal.answer_format or numeric,
    }
    if kind in LOOKUPS:
        key = _key(table, proposal.key_field)
        answer = _column(table, proposal.answer_field, "field asked").path
        if answer == key:
            raise ProposalError(f"the field asked ({answer!r}) is the one that names the record")
        kind = "filtered_lookup" if conditions else "lookup"
        rows = _shown(table, proposal.k, 5) if open_book else 0
        params |= {"key_field": key, "answer_field": answer, "rows_shown": rows}
    elif kind in RANKS:
        ranked = _column(table, proposal.field, "field ranked")
        if not ranked.orderable:
            raise ProposalError(f"{ranked.path!r} is not a number or a date: it cannot be ranked")
        if proposal.direction is None:
            raise ProposalError("a ranking needs a direction (max or min)")
        k = 2 if kind == "compare" else max(3, min(proposal.k or 4, 8))
        params |= {
            "key_field": _key(table, proposal.key_field),
            "field": ranked.path,
            "direction": proposal.direction,
            "k": k,
            "rows_shown": k if open_book else 0,
        }
    elif kind == "count":
        if not conditions:
            raise ProposalError("a count needs a condition on the records it counts")
        params |= {"book": "open", "rows_shown": _shown(table, proposal.k, 8)}
    elif kind == "aggregate":
        summed = _column(table, proposal.field, "field aggregated")
        if not summed.orderable or proposal.aggregate is None:
            raise ProposalError(f"an aggregate needs a number field and a function ({summed.path})")
        params |= {
            "book": "open",
            "field": summed.path,
            "aggregate": proposal.aggregate,
            "rows_shown": _shown(table, proposal.k, 6),
        }
    elif kind == "classify":
        label = _column(table, proposal.answer_field, "class field")
        if label.orderable or label.unique:
            raise ProposalError(f"{label.path!r} is not a class label (a few repeated values)")
        features = [
            c.path
            for c in table.columns.values()
            if c.path != label.path and c.kind == "number" and not c.unique
        ][:6]
        if not features:
            raise ProposalError(f"{table.id} has no number fields to state as features")
        rows = _shown(table, proposal.k, 6) if open_book else 0
        params |= {"answer_field": label.path, "features": features, "rows_shown": rows}
    elif proposal.via is None:  # multihop in two steps: rank, then report another field
        ranked = _column(table, proposal.field, "field ranked")
        if not ranked.orderable:
            raise ProposalError(f"{ranked.path!r} is not a number or a date: it cannot be ranked")
        key = _key(table, proposal.key_field)
        answer = _column(table, proposal.answer_field, "field asked").path
        if answer in (key, ranked.path):
            raise ProposalError(
                f"the field asked ({answer!r}) is the record's name or the field ranked: "
                "that is a superlative"
            )
        k = max(2, min(proposal.k or 3, 8))
        params |= {
            "key_field": key,
            "answer_field": answer,
            "field": ranked.path,
            "direction": proposal.direction or "max",
            "k": k,
            "rows_shown": k if open_book else 0,
        }
    else:  # multihop along a join
        via = _column(table, proposal.via, "linking field").path
        link = next((j for j in joins(tables) if j[0] == table.id and j[1] == via), None)
        if link is None:
            raise ProposalError(f"the values of {via!r} are not the keys of another table")
        target = tables[link[2]]
        answer = _column(target, proposal.answer_field, "field asked").path
        params |= {
            "key_field": _key(table, proposal.key_field),
            "answer_field": answer,
            "hops": [Hop(via=via, table=target.id, key_field=link[3])],
        }
    try:
        spec = ProgramSpec(kind=kind, **params)
    except ValidationError as exc:
        raise ProposalError(f"not a valid program: {exc.errors()[0]['msg']}") from None
    problem = probe(spec, tables, "en")
    if problem:
        raise ProposalError(problem)
    return spec


__all__ = ["NotServable", "ProposalError", "proposal_schema", "to_spec"]

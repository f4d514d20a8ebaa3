"""A question program written by hand, in a short readable form (``--program``).

When the reader misunderstands an intent, the user states the program instead::

    superlative table=us-airports field=latitude direction=max book=open k=4
    count table=iris book=open rows=12 where="species == virginica"
    lookup table=world-countries key=name answer=capital where="region == Europe"

The first word is the kind; then ``name=value`` pairs (quotes around a value with spaces):
``table``, ``key``, ``answer``, ``field``, ``direction`` (max/min), ``aggregate``
(count/mean/sum/min/max), ``book`` (open/closed), ``k``, ``rows``, ``features`` and
``show`` (more fields an open-book table shows; both comma-separated), ``where``
(``FIELD OP VALUE``, repeatable; ``OP`` one of == != < <= > >=),
``hops`` (``VIA@TABLE:KEY``, comma-separated: the value of ``VIA`` looked up in ``KEY`` of
``TABLE``), ``format`` (multiple_choice/short_answer/numeric) and ``choices``. Every field
is checked against the table, and the program is run once before it is used; an error
names what is wrong.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from benchsmith.errors import ConfigError, describe_validation_error
from benchsmith.programs.run import probe
from benchsmith.programs.table import Table
from benchsmith.spec import Condition, Hop, ProgramSpec

KEYS = {
    "table": "table",
    "key": "key_field",
    "answer": "answer_field",
    "field": "field",
    "direction": "direction",
    "aggregate": "aggregate",
    "book": "book",
    "k": "k",
    "rows": "rows_shown",
    "format": "answer_format",
    "choices": "n_choices",
}
CONDITION = re.compile(r"^\s*([\w.]+)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$")
EXAMPLE = "superlative table=us-airports field=latitude direction=max book=open k=4"


def _number(text: str) -> str | float:
    try:
        return float(text)
    except ValueError:
        return text


def parse_program(text: str, tables: Mapping[str, Table]) -> ProgramSpec:
    """The program ``text`` states, checked against ``tables`` and run once.

    Raises:
        ConfigError: The text is not a program, names a table or field that does not exist,
            or the program gives no item.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"--program {text!r}: {exc}; e.g. --program '{EXAMPLE}'") from exc
    if not words:
        raise ConfigError(f"--program is empty; e.g. --program '{EXAMPLE}'")
    fields: dict[str, Any] = {"kind": words[0].replace("-", "_")}
    conditions: list[Condition] = []
    for word in words[1:]:
        name, sep, value = word.partition("=")
        if not sep:
            raise ConfigError(f"--program: {word!r} is not NAME=VALUE; e.g. '{EXAMPLE}'")
        if name == "where":
            found = CONDITION.match(value)
            if not found:
                raise ConfigError(f"--program: where={value!r} is not 'FIELD OP VALUE'")
            field, op, wanted = found.groups()
            conditions.append(Condition(field=field, op=op, value=_number(wanted.strip("'\""))))
        elif name in ("features", "show"):
            fields["features" if name == "features" else "shown"] = [
                f for f in value.split(",") if f
            ]
        elif name == "hops":
            hops = [re.fullmatch(r"([\w.]+)@([\w.-]+):([\w.]+)", h) for h in value.split(",")]
            if not all(hops):
                raise ConfigError(f"--program: hops={value!r} is not VIA@TABLE:KEY,...")
            fields["hops"] = [
                Hop(via=h.group(1), table=h.group(2), key_field=h.group(3))
                for h in hops
                if h is not None
            ]
        elif name in KEYS:
            fields[KEYS[name]] = value
        else:
            raise ConfigError(f"--program: unknown name {name!r}; names: {', '.join(KEYS)}, "
                              "features, show, where, hops")  # fmt: skip
    fields["conditions"] = conditions
    table = fields.get("table")
    if table not in tables:
        raise ConfigError(
            f"--program: table={table!r} is not a table of the run's catalog; tables: "
            + ", ".join(sorted(tables))
        )
    try:
        spec = ProgramSpec.model_validate(fields)
    except ValidationError as exc:
        raise ConfigError(f"--program {text!r}: {describe_validation_error(exc)}") from exc
    columns = tables[spec.table].columns
    unknown = [f for f in [*spec.fields_used(), *spec.shown] if f not in columns]
    if unknown:
        raise ConfigError(
            f"--program: {', '.join(map(repr, unknown))} is not a field of {spec.table}; "
            f"fields: {', '.join(columns)}"
        )
    problem = probe(spec, tables, "en")
    if problem:
        raise ConfigError(f"--program {text!r} gives no item: {problem}")
    return spec

"""A question-program item checked by re-executing its program over the records.

The item's ``metadata.program`` holds the program's parameters and the rows it used.
:func:`check_program` executes it again (:func:`benchsmith.programs.execute`) over the
tables and fails when the recomputed answer is not the item's answer, when a record the
item is about breaks a condition of the program (a filtered lookup or a comparison over
a subset), when an open-book item's prompt lacks a row it needs, when a classification
does not state its features, when another choice is also correct, or when a program over
pictures shows files other than its records' own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from benchsmith.item import Item
from benchsmith.programs import ProgramError, Table, execute
from benchsmith.programs.run import holds, shown_value
from benchsmith.spec import Condition
from benchsmith.verify.structural import Verdict

PROGRAM = "program"
KINDS_WITH_ONE_RIGHT_CHOICE = (
    "compare",
    "superlative",
    "classify",
    "lookup",
    "filtered_lookup",
    "multihop",
)
"""Kinds whose choices are values: exactly one may equal the recomputed answer."""


def _fail(reason: str) -> Verdict:
    return Verdict(check=PROGRAM, ok=False, reason=reason)


def _same(a: str, b: str) -> bool:
    try:
        return abs(float(a) - float(b)) <= 1e-6 + 1e-9 * abs(float(b))
    except ValueError:
        return a.strip().casefold() == b.strip().casefold()


def check_program(item: Item, tables: Mapping[str, Table]) -> Verdict:
    """Re-execute an item's program and compare; check its rows and its prompt.

    Args:
        item: The item (``metadata.program`` set).
        tables: The tables the program reads, by dataset id.
    """
    meta: dict[str, Any] = item.metadata.get("program") or {}
    language = str(item.metadata.get("language") or "en")
    try:
        recomputed = execute(meta, tables, language)
    except (ProgramError, KeyError, ValueError) as exc:
        return _fail(f"the program does not run again: {exc}")
    answer = item.answer_text()
    if not _same(recomputed, answer):
        return _fail(f"re-executed, the program gives {recomputed!r}, not {answer!r}")
    table = tables[meta["table"]]
    rows = [int(r) for r in meta.get("rows", [])]
    kind = meta.get("kind")
    conditions = [Condition.model_validate(c) for c in meta.get("conditions", [])]
    if kind not in ("count", "aggregate"):
        about = rows
        if kind in ("lookup", "filtered_lookup") and len(rows) > 1:
            # An open-book lookup shows other rows as context; the answer is about one.
            question = str(meta.get("question", ""))
            key = meta.get("key_field") or table.key or ""
            about = [r for r in rows if table.text(r, key) and table.text(r, key) in question][:1]
        for row in about:
            broken = [c.describe() for c in conditions if not holds(table, row, c)]
            if broken:
                return _fail(f"row {row} breaks the condition {', '.join(broken)}")
    # What the test-taker reads or hears: a spoken item's words are its spoken text, a
    # rendered item's the text drawn into its picture (read back by OCR in its own check).
    prompt = "\n".join(
        [
            item.input_text(),
            str(item.metadata.get("spoken_text") or ""),
            str(item.metadata.get("rendered_text") or ""),
        ]
    )
    if meta.get("book") == "open":
        # A classification's first row is the record asked about: stated, never shown.
        for row in rows[1:] if kind == "classify" else rows:
            for field in meta.get("shown_fields", []):
                # As the prompt shows it: in the item's language ("bénin" for "benign").
                text = shown_value(table, row, field, language) or table.text(row, field, language)
                if text and text not in prompt:
                    return _fail(f"the prompt lacks {field}={text!r} of row {row}")
    if kind == "count" and meta.get("book") == "closed" and not meta.get("media_field"):
        # A closed-book count names every record it counts.
        for row in rows:
            name = shown_value(table, row, table.key or "", language) if table.key else None
            if not name or name not in prompt:
                return _fail(f"the prompt does not name row {row} ({name!r}) it counts")
    if kind == "classify":
        for field, value in (meta.get("features") or {}).items():
            if table.text(rows[0], field) != value or value not in prompt:
                return _fail(f"the feature {field}={value!r} is not stated as the record has it")
    if kind == "multihop" and meta.get("field") and meta.get("book") == "closed":
        # A ranking then a report names every record it ranks.
        for row in rows:
            key = meta.get("key_field") or table.key or ""
            name = shown_value(table, row, key, language) if key else None
            if not name or name not in prompt:
                return _fail(f"the prompt does not name row {row} ({name!r}) it ranks")
    ranked = kind in ("compare", "superlative") or (kind == "multihop" and meta.get("field"))
    if item.choices and kind in KINDS_WITH_ONE_RIGHT_CHOICE:
        correct = [c for c in item.choices if _same(c, recomputed)]
        if len(correct) != 1:
            return _fail(f"{len(correct)} choices equal the recomputed answer {recomputed!r}")
    media_field = meta.get("media_field")
    if media_field:
        # A program over pictures: the item shows the records' own files, in order.
        wanted = [PurePath(table.media_file(r, media_field)).name for r in rows]
        trace = item.metadata.get("trace") or []
        shown = next((list(e.get("inputs") or []) for e in trace if e.get("inputs")), [])
        if shown != wanted:
            return _fail(f"the item shows {shown}, not the records' {media_field} {wanted}")
    if ranked:
        field = meta.get("field") or ""
        values = [table.order_value(r, field) for r in rows]
        if len(set(values)) != len(values):
            return _fail("two compared records share the value: no single answer")
    return Verdict(check=PROGRAM, ok=True, reason=f"re-executed: {recomputed}")

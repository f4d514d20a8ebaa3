"""Executing question programs: instances with computed answers, distractors and difficulty.

:func:`generate` runs one :class:`~benchsmith.spec.ProgramSpec` over its table(s)
and returns :class:`Instance` objects: the question (worded by
:mod:`~benchsmith.programs.wording`), the rows an open-book prompt shows, the answer computed
by executing the program over the records, distractors drawn by the program's own rule,
and a difficulty predicted from the parameters. :func:`execute` recomputes an instance's
answer from its metadata alone, for the verifier. Nothing here asks a model.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchsmith import difficulty as predicted
from benchsmith.catalog.cards import value_text
from benchsmith.injection import is_instruction_like
from benchsmith.programs.labels import Noun, language_code_column, language_name, translate_value
from benchsmith.programs.media_words import (
    LETTERS,
    media_classify_question,
    media_compare_question,
    media_count_question,
)
from benchsmith.programs.table import Table, as_date, as_number
from benchsmith.programs.wording import (
    PREAMBLE,
    Words,
    WordsMissing,
    aggregate_question,
    called_in_question,
    classify_question,
    count_question,
    counted,
    hop_question,
    listed_records,
    lookup_question,
    named_in_question,
    rank_question,
    report_question,
    via_noun,
)
from benchsmith.spec import Condition, ProgramSpec


class ProgramError(ValueError):
    """A program cannot run over its table (a field is missing, no record qualifies)."""


@dataclass
class Instance:
    """One executed program: what the test-taker sees and what was computed."""

    question: str
    answer: str
    distractors: list[str]
    rows: list[int]
    records: list[str]
    shown_fields: list[str] = field(default_factory=list)
    table_text: str = ""
    features: dict[str, str] = field(default_factory=dict)
    hops: list[dict[str, Any]] = field(default_factory=list)
    numeric: bool = False
    difficulty: dict[str, Any] = field(default_factory=dict)
    named: list[str] = field(default_factory=list)
    """The record names the question states (a lookup's key, a comparison's records)."""
    variant: dict[str, Any] = field(default_factory=dict)
    """Parameters this instance was made with in place of its program's (``rows_shown``,
    ``k``): a candidate generated for a difficulty mix. Empty: the program's own."""

    def prompt(self, language: str) -> str:
        """The text given to the test-taker (open-book: preamble, table, question)."""
        if not self.table_text:
            return self.question
        return f"{PREAMBLE[language]}\n\n{self.table_text}\n\n{self.question}"

    def metadata(self, spec: ProgramSpec) -> dict[str, Any]:
        """The program's parameters and this instance's execution, as item metadata."""
        meta = spec.to_metadata()
        # The program's join steps; "hops" holds this instance's path through the records.
        meta["joins"] = meta.pop("hops", [])
        # The fields a classification states; "features" holds their values in this item.
        meta["feature_fields"] = meta.pop("features", [])
        meta.update(
            rows=self.rows,
            records=self.records,
            shown_fields=self.shown_fields,
            conditions=[c.model_dump() for c in spec.conditions],
            named=self.named,
        )
        if self.features:
            meta["features"] = self.features
        if self.hops:
            meta["hops"] = self.hops
        return meta


# ------------------------------------------------------------------------------ helpers


def holds(table: Table, row: int, condition: Condition) -> bool:
    """Whether a record satisfies a condition (numbers and dates compared as such)."""
    column = table.columns.get(condition.field)
    if column is None:
        return False
    raw = table.value(row, condition.field)
    if column.orderable:
        left = table.order_value(row, condition.field)
        if column.kind == "date":
            day = as_date(str(condition.value))
            right = float(day.toordinal()) if day else None
            if right is None:  # a year bound on a date column
                year = as_number(condition.value)
                right = (
                    None if year is None else float(as_date(f"{int(year):04d}-01-01").toordinal())
                )  # type: ignore[union-attr]
        else:
            right = as_number(condition.value)
        if left is None or right is None:
            return False
        return {
            "==": left == right,
            "!=": left != right,
            "<": left < right,
            "<=": left <= right,
            ">": left > right,
            ">=": left >= right,
        }[condition.op]
    text = value_text(raw).casefold()
    wanted = str(condition.value).casefold()
    if condition.op == "==":
        return text == wanted
    if condition.op == "!=":
        return bool(text) and text != wanted
    return False


def _eligible(table: Table, spec: ProgramSpec, fields: Sequence[str]) -> list[int]:
    out = []
    naming = [table.columns[f] for f in fields if f in table.columns and table.columns[f].unique]
    for row in table.rows():
        if any(value_text(table.value(row, f)) == "" for f in fields if f):
            continue
        if spec.media_field and not table.media_file(row, spec.media_field):
            continue  # no picture to show
        if any(not c.names_row(value_text(table.value(row, c.path))) for c in naming):
            continue  # a namesake: the question could not say which record it means
        if all(holds(table, row, c) for c in spec.conditions):
            out.append(row)
    return out


def number_text(value: float) -> str:
    """A computed number as text: integers without a point, others to two decimals."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.2f}".rstrip("0").rstrip(".")


AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "mean": lambda xs: sum(xs) / len(xs),
    "median": statistics.median,
    "sum": sum,
    "min": min,
    "max": max,
    "count": len,
}


def aggregate(name: str, numbers: list[float]) -> float:
    """An aggregate of numbers, rounded to two decimals (as items state it)."""
    return round(float(AGGREGATES[name](numbers)), 2)


ROW_LETTERS = "ABCDEFGHIJKL"
"""The names of records no field names, in the order shown."""


def render_table(
    table: Table,
    words: Words,
    rows: Sequence[int],
    fields: Sequence[str],
    letters: Sequence[str] | None = None,
) -> str:
    """A Markdown table of the rows (header: the fields' labels in the item's language).

    ``letters`` name the rows in a first column ("#": A, B, ...) when no field names them.
    """

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    header = [words.label(f).text for f in fields]
    header = [h[:1].upper() + h[1:] for h in header]
    if letters:
        header = ["#", *header]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "|".join(" --- " for _ in header) + "|")
    for index, row in enumerate(rows):
        # Values in the item's language ("Afrique" in a French item), as its question says.
        values = [
            shown_value(table, row, f, words.language) or table.text(row, f, words.language)
            for f in fields
        ]
        if letters:
            values = [letters[index], *values]
        lines.append("| " + " | ".join(cell(v) for v in values) + " |")
    return "\n".join(lines)


MAX_SHOWN = 6
"""Most columns an open-book table shows (the question's own and those the intent lists)."""


def shown_fields(spec: ProgramSpec, table: Table, words: Words, fields: Sequence[str]) -> list[str]:
    """The columns an open-book table shows: the question's ``fields``, then ``spec.shown``.

    A listed column that is not the table's (a picture or a sound is not a column), or has
    no label in the item's language, is left out; the question's own columns always stay.
    """
    out = list(dict.fromkeys(f for f in fields if f))
    for path in spec.shown:
        column = table.columns.get(path)
        if len(out) >= MAX_SHOWN or column is None:
            continue
        try:
            words.label(path)
        except WordsMissing:
            continue
        if path not in out:
            out.append(path)
    return out


def shown_value(table: Table, row: int, path: str, language: str) -> str | None:
    """A value in the item's language: the data's translation or its CLDR name (None: none)."""
    column = table.columns[path]
    if language == "en" or language in column.translations:
        return table.text(row, path, language)
    text = table.text(row, path)
    if column.kind in ("number", "date") or table.neutral(path) or table.written_in(path, language):
        return text
    if table.language_of(path):
        return text  # a field written in one language ("English name") is shown as written
    return translate_value(text, language)


STEPS = {
    "lookup": 1,
    "filtered_lookup": 1,
    "compare": 1,
    "superlative": 1,
    "count": 1,
    "aggregate": 1,
    "classify": 2,
    "multihop": 1,
}
"""Operations a program's answer takes, before its hops and a mean's division: a
classification matches the features, then reads the label."""


def choice_values(spec: ProgramSpec, answer: str, distractors: Sequence[str]) -> list[str]:
    """The wrong choices a multiple-choice item shows (the program's order, no repeats).

    A ranking shows every record it compares; other programs ``n_choices - 1`` values.
    """
    seen = {answer.casefold()}
    wrong: list[str] = []
    rank = spec.kind in ("compare", "superlative")
    for value in distractors:
        if value.casefold() not in seen and (len(wrong) < spec.n_choices - 1 or rank):
            seen.add(value.casefold())
            wrong.append(value)
    return wrong


def _difficulty(
    spec: ProgramSpec, answer: str, distractors: Sequence[str], **params: Any
) -> dict[str, Any]:
    """The ``difficulty_model`` record of an instance (:mod:`benchsmith.difficulty`).

    Scored: the operations (``steps``: the kind's, the hops, a mean's division), the rows
    the question ranges over (``rows``: records compared, rows shown or aggregated), the
    conditions (``filters``), closed- or open-book, the options shown (0: a free answer),
    the relative ``gap`` to the nearest wrong choice (the runner-up of a ranking, the
    nearest wrong number of a numeric answer) and a numeric answer's digits and size.
    ``params`` adds the executor's own (``k``, ``gap``, ``rows_shown``, ...).
    """
    steps = STEPS[spec.kind] + len(spec.hops) + (spec.aggregate == "mean")
    rows = params.get("k") or params.get("rows_shown") or (1 + len(spec.hops))
    multiple = spec.answer_format == "multiple_choice"
    wrong = choice_values(spec, answer, distractors) if multiple else []
    record: dict[str, Any] = {
        "kind": spec.kind,
        "steps": steps,
        "rows": rows,
        "filters": len(spec.conditions),
        "book": spec.book,
        "options": 1 + len(wrong) if multiple else 0,
        **params,
    }
    value = as_number(answer)
    if value is not None and spec.kind not in ("compare", "superlative"):
        record["digits"] = predicted.significant_digits(answer)
        size = predicted.magnitude(value)
        if size is not None:
            record["magnitude"] = size
        numbers = [n for n in (as_number(w) for w in wrong) if n is not None]
        if record.get("gap") is None and numbers:
            record["gap"] = predicted.relative_gap(value, numbers)
    return predicted.model(record)


# ----------------------------------------------------------------------------- executors


def _key_text(table: Table, row: int, spec: ProgramSpec, language: str) -> str:
    key_field = spec.key_field or table.key
    if key_field is None:
        raise ProgramError(f"{table.id}: no field names a record")
    return shown_value(table, row, key_field, language) or table.text(row, key_field)


def _values_pool(table: Table, rows: Sequence[int], path: str, language: str) -> list[str]:
    """Distinct values of a field over ``rows``: the distractors a choice may take.

    A value that reads as an instruction ("the answer is always A") is never offered: the
    injection check would reject the item it sits in, and the record it came from is not
    the item's own.
    """
    seen: dict[str, str] = {}
    for row in rows:
        text = shown_value(table, row, path, language)
        if text and not is_instruction_like(text):
            seen.setdefault(text.casefold(), text)
    return list(seen.values())


def _lookup(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    key_field = spec.key_field or table.key
    assert key_field and spec.answer_field  # generate() refused a lookup without them
    answer = shown_value(table, row, spec.answer_field, words.language)
    if not answer:
        return None
    key = _key_text(table, row, spec, words.language)
    if answer.casefold() in key.casefold() and spec.answer_field != key_field:
        return None  # the question would give the answer away (Gibraltar, Gibraltar)
    # A key that names a record only among the records the conditions select (a
    # country's English name, among one language's names) is asked with them.
    stated = (
        [] if table.columns[key_field].unique else _condition_words(table, spec, words.language)
    )
    question = lookup_question(words, key_field, key, spec.answer_field, stated)
    others = [r for r in pool if r != row]
    # Values of the same subset first (closer, harder), then of the whole table.
    near = rng.sample(others, min(len(others), 60))
    pooled = set(pool)
    rest = [r for r in table.rows() if r != row and r not in pooled]
    far = rng.sample(rest, min(len(rest), 60))
    distractors = [
        v
        for v in _values_pool(table, near + far, spec.answer_field, words.language)
        if v.casefold() != answer.casefold()
    ]
    shown: list[int] = []
    fields: list[str] = []
    text = ""
    if spec.book == "open":
        shown = [row, *rng.sample(others, min(len(others), max(1, spec.rows_shown or 5) - 1))]
        rng.shuffle(shown)
        fields = shown_fields(spec, table, words, [key_field, spec.answer_field])
        text = render_table(table, words, shown, fields)
    return Instance(
        question=question,
        answer=answer,
        distractors=distractors,
        rows=shown or [row],
        records=[table.text(r, key_field) for r in (shown or [row])],
        shown_fields=fields,
        table_text=text,
        difficulty=_difficulty(spec, answer, distractors, rows_shown=len(shown)),
        named=[key],
    )


def _rank(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    assert spec.field
    k = 2 if spec.kind == "compare" else max(3, min(spec.k, len(pool)))
    others = [r for r in pool if r != row]
    if len(others) < k - 1:
        return None
    picked = [row, *rng.sample(others, k - 1)]
    rng.shuffle(picked)
    values = [table.order_value(r, spec.field) for r in picked]
    if any(v is None for v in values) or len(set(values)) != len(values):
        return None  # a tie has no single answer
    direction = spec.direction or "max"
    best = (max if direction == "max" else min)(range(k), key=lambda i: values[i])  # type: ignore[arg-type,return-value]
    # Records no field names (a wine, an iris flower) are shown lettered: "A", "B", ...
    lettered = not (spec.key_field or table.key)
    if lettered:
        names = [ROW_LETTERS[i] for i in range(k)]
    else:
        names = [_key_text(table, r, spec, words.language) for r in picked]
    if len({n.casefold() for n in names}) != k:
        return None
    nums = sorted(v for v in values if v is not None)
    spread = max(abs(nums[-1]), abs(nums[0]), 1e-9)
    # How close the winner's runner-up is (relative to the largest magnitude).
    gap = (nums[-1] - nums[-2] if direction == "max" else nums[1] - nums[0]) / spread
    open_book = spec.book == "open"
    question = rank_question(words, spec.field, direction, names, open_book=open_book)
    text = ""
    fields: list[str] = []
    if open_book:
        fields = [spec.key_field or table.key or spec.field, spec.field]
        fields = shown_fields(spec, table, words, [f for f in fields if f])
        text = render_table(table, words, picked, fields, letters=names if lettered else None)
    return Instance(
        question=question,
        answer=names[best],
        distractors=[n for i, n in enumerate(names) if i != best],
        rows=picked,
        records=names if lettered else [table.text(r, spec.key_field or table.key) for r in picked],  # type: ignore[arg-type]
        shown_fields=fields,
        table_text=text,
        difficulty=_difficulty(
            spec, names[best], [n for i, n in enumerate(names) if i != best], k=k, gap=round(gap, 4)
        ),
        named=names,
    )


def _condition_words(table: Table, spec: ProgramSpec, language: str) -> list[tuple[str, str, str]]:
    out = []
    for c in spec.conditions:
        column = table.columns[c.field]
        value = str(c.value)
        if column.kind == "number":
            number = as_number(c.value)
            value = number_text(number) if number is not None else value
        elif column.kind == "category" and language_code_column(table, c.field):
            # "fi (Finnish)": a language code with the language's name in the item's words.
            name = language_name(value, language)
            value = f"{value} ({name})" if name else value
        elif column.kind == "category" and language != "en":
            value = translate_value(value, language) or value
        out.append((c.field, c.op, value))
    return out


def _over_rows(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    """Count and aggregate over the rows shown (a closed-book count names them in a list)."""
    n = max(4, spec.rows_shown or 6)
    # A row whose counted or filtered value is missing cannot be said to meet the condition
    # or not (Antarctica has no region): it is not shown.
    needed = {f for f in [spec.field, *(c.field for c in spec.conditions)] if f}
    everyone = [r for r in table.rows() if all(value_text(table.value(r, f)) for f in needed)]
    if row not in everyone:
        return None
    others = [r for r in everyone if r != row]
    if len(others) < n - 1:
        return None
    # Rows where the conditions split the sample (some hold, some do not) make the
    # question worth asking; a few draws are tried before one is taken as it is.
    for _attempt in range(6):
        shown = [row, *rng.sample(others, n - 1)]
        rng.shuffle(shown)
        chosen = [r for r in shown if all(holds(table, r, c) for c in spec.conditions)]
        if not spec.conditions or 0 < len(chosen) < len(shown):
            break
    fields = [f for f in [table.key, *(c.field for c in spec.conditions), spec.field] if f]
    fields = shown_fields(spec, table, words, fields)
    text = render_table(table, words, shown, fields)
    conditions = _condition_words(table, spec, words.language)
    listed = spec.kind == "count" and spec.book == "closed"
    if listed:
        # Closed book: the records are named, their values are what the test-taker knows.
        names = [_key_text(table, r, spec, words.language) for r in shown]
        if len({n.casefold() for n in names}) != len(names):
            return None
        fields, text = [], ""
    if spec.kind == "count":
        answer_value = float(len(chosen))
        question = count_question(words, conditions, listed=listed)
        if listed:
            question = f"{listed_records(words, names)} {question}"
        wrong = {len(chosen) + d for d in (-2, -1, 1, 2, 3) if 0 <= len(chosen) + d <= n}
        distractors = [number_text(v) for v in sorted(wrong)]
    else:
        assert spec.field and spec.aggregate
        if not chosen:
            return None
        values = [table.order_value(r, spec.field) for r in chosen]
        numbers = [v for v in values if v is not None]
        every = [v for v in (table.order_value(r, spec.field) for r in shown) if v is not None]
        answer_value = aggregate(spec.aggregate, numbers)
        question = aggregate_question(words, spec.aggregate, spec.field, conditions)
        # Distractors by the program's own rule: the other aggregates, and this one over
        # every row shown (the filter ignored).
        wrong_values = [aggregate(a, numbers) for a in ("mean", "median", "sum", "min", "max")]
        wrong_values.append(aggregate(spec.aggregate, every))
        wrong_values += [round(answer_value * f, 2) for f in (0.9, 1.1, 1.25)]
        distractors = [number_text(v) for v in dict.fromkeys(wrong_values) if v != answer_value]
    return Instance(
        question=question,
        answer=number_text(answer_value),
        distractors=distractors,
        rows=shown,
        records=[table.text(r, table.key) for r in shown] if table.key else [],
        shown_fields=fields,
        table_text=text,
        numeric=True,
        difficulty=_difficulty(
            spec, number_text(answer_value), distractors, rows_shown=n, matching=len(chosen)
        ),
    )


def _classify(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    assert spec.answer_field and spec.features
    answer = shown_value(table, row, spec.answer_field, words.language)
    if not answer:
        return None
    mine = tuple(table.text(row, f) for f in spec.features)
    for other in table.rows():  # the same features with another label: no single answer
        if other != row and tuple(table.text(other, f) for f in spec.features) == mine:
            if (
                table.text(other, spec.answer_field).casefold()
                != table.text(row, spec.answer_field).casefold()
            ):
                return None
    stated = [(f, table.text(row, f)) for f in spec.features]
    question = classify_question(words, spec.answer_field, stated)
    labels = _values_pool(table, list(table.rows()), spec.answer_field, words.language)
    shown: list[int] = []
    fields: list[str] = []
    text = ""
    if spec.book == "open":
        # Labelled examples, every label at least once where the table allows, never the
        # record asked about.
        others = [r for r in table.rows() if r != row]
        by_label: dict[str, list[int]] = {}
        for r in others:
            by_label.setdefault(table.text(r, spec.answer_field).casefold(), []).append(r)
        shown = [rng.choice(rs) for rs in by_label.values()]
        rest = [r for r in others if r not in shown]
        shown += rng.sample(rest, max(0, min(len(rest), (spec.rows_shown or 6) - len(shown))))
        rng.shuffle(shown)
        # Each example row with what names it (a day's date), so a reader can cite it.
        named = [table.key] if table.key and table.key not in spec.features else []
        fields = [*named, *spec.features, spec.answer_field]
        text = render_table(table, words, shown, fields)
    return Instance(
        question=question,
        answer=answer,
        distractors=[v for v in labels if v.casefold() != answer.casefold()],
        rows=[row, *shown],
        records=[table.text(r, table.key) for r in [row, *shown]] if table.key else [],
        shown_fields=fields,
        table_text=text,
        features=dict(stated),
        difficulty=_difficulty(
            spec,
            answer,
            [v for v in labels if v.casefold() != answer.casefold()],
            features=len(spec.features),
            labels=len(labels),
            rows_shown=len(shown),
        ),
    )


# ------------------------------------------------------------------ records shown as media


def _media_classify(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    """What one record's picture shows: its label, the picture the only thing stated."""
    assert spec.answer_field and spec.media_field
    answer = shown_value(table, row, spec.answer_field, words.language)
    if not answer:
        return None
    # The other labels of the records the program may draw (a filter narrows the choices:
    # "only the digits 0 to 4"), in a seeded order: no label is always a distractor.
    labels = _values_pool(table, pool, spec.answer_field, words.language)
    wrong = [v for v in labels if v.casefold() != answer.casefold()]
    rng.shuffle(wrong)
    return Instance(
        question=media_classify_question(words, spec.answer_field),
        answer=answer,
        distractors=wrong,
        rows=[row],
        records=[],
        difficulty=_difficulty(spec, answer, wrong, labels=len(labels)),
    )


def _media_count(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    """How many of the pictures shown show a value (the condition's)."""
    assert spec.media_field
    (condition,) = spec.conditions
    n = max(2, min(12, spec.rows_shown or 6))
    others = [r for r in table.rows() if r != row and table.media_file(r, spec.media_field)]
    if len(others) < n - 1:
        return None
    chosen: list[int] = []
    shown: list[int] = []
    for _attempt in range(6):  # a sample the condition splits is worth asking about
        shown = [row, *rng.sample(others, n - 1)]
        rng.shuffle(shown)
        chosen = [r for r in shown if holds(table, r, condition)]
        if 0 < len(chosen) < len(shown):
            break
    (_field, _op, value), *_ = _condition_words(table, spec, words.language)
    answer = number_text(len(chosen))
    wrong = [number_text(len(chosen) + d) for d in (-2, -1, 1, 2, 3) if 0 <= len(chosen) + d <= n]
    return Instance(
        question=media_count_question(words, condition.field, value, n),
        answer=answer,
        distractors=wrong,
        rows=shown,
        records=[],
        numeric=True,
        difficulty=_difficulty(spec, answer, wrong, rows_shown=n, matching=len(chosen)),
    )


def _media_compare(
    spec: ProgramSpec, table: Table, words: Words, row: int, pool: list[int], rng: random.Random
) -> Instance | None:
    """Which of two pictures, captioned A and B, shows the larger (or smaller) value."""
    assert spec.field
    others = [r for r in pool if r != row]
    if not others:
        return None
    picked = [row, rng.choice(others)]
    rng.shuffle(picked)
    values = [table.order_value(r, spec.field) for r in picked]
    if any(v is None for v in values) or values[0] == values[1]:
        return None  # a tie has no single answer
    direction = spec.direction or "max"
    best = (max if direction == "max" else min)((0, 1), key=lambda i: values[i])  # type: ignore[arg-type,return-value]
    spread = max(abs(v) for v in values if v is not None) or 1e-9
    gap = abs(values[0] - values[1]) / spread  # type: ignore[operator]
    return Instance(
        question=media_compare_question(words, spec.field, direction),
        answer=LETTERS[best],
        distractors=[LETTERS[1 - best]],
        rows=picked,
        records=[],
        difficulty=_difficulty(spec, LETTERS[best], [LETTERS[1 - best]], k=2, gap=round(gap, 4)),
        named=list(LETTERS),
    )


MEDIA_RUNNERS = {"classify": _media_classify, "count": _media_count, "compare": _media_compare}
"""The kinds a program over pictures can be: what one shows, how many show a value, which
of two shows more."""


def _check_media(spec: ProgramSpec, table: Table) -> None:
    """Refuse a program over pictures that its kind cannot ask."""
    if spec.media_field not in table.media:
        raise ProgramError(f"{table.id} has no image or sound field {spec.media_field!r}")
    if spec.kind not in MEDIA_RUNNERS:
        raise ProgramError(
            f"a {spec.kind} program cannot show its records as {spec.media_field}: programs "
            f"over pictures ask {', '.join(MEDIA_RUNNERS)}"
        )
    if spec.kind == "count" and not (len(spec.conditions) == 1 and spec.conditions[0].op == "=="):
        raise ProgramError(
            "a count over pictures asks how many show one value: give one condition "
            "'FIELD == VALUE'"
        )
    if spec.book != ("open" if spec.kind == "count" else "closed"):
        # A count is over the pictures shown, as a text count is over the rows shown.
        raise ProgramError(
            "a count over pictures is open-book (it shows every record it counts); a "
            "classification or comparison of pictures is closed-book"
        )


def follow(
    spec: ProgramSpec, tables: Mapping[str, Table], row: int
) -> list[tuple[Table, int]] | None:
    """The records a multi-hop program passes through from ``row`` (None: a broken link).

    Each hop's ``via`` value must name exactly one record of the next table (among those
    its conditions select: a country's code, among the names in one language).
    """
    path = [(tables[spec.table], row)]
    for hop in spec.hops:
        here, at = path[-1]
        value = here.text(at, hop.via)
        target = tables[hop.table]
        found = [
            r
            for r in target.rows()
            if target.text(r, hop.key_field).casefold() == value.casefold()
            and all(holds(target, r, c) for c in hop.conditions)
        ]
        if not value or len(found) != 1:
            return None
        path.append((target, found[0]))
    return path


def ranked_first(table: Table, rows: Sequence[int], field: str, direction: str) -> int | None:
    """The row that ranks first by ``field`` (None: a value is missing or the top is tied)."""
    values = [table.order_value(r, field) for r in rows]
    if any(v is None for v in values):
        return None
    pick = max if direction == "max" else min
    top = pick(values)  # type: ignore[type-var]
    if values.count(top) != 1:
        return None
    return rows[values.index(top)]


def _reported(
    spec: ProgramSpec, tables: Mapping[str, Table], row: int, language: str
) -> tuple[list[tuple[Table, int]], str] | None:
    """The records from ``row`` along the joins, and the answer field's value at the end."""
    path = follow(spec, tables, row)
    if path is None:
        return None
    last, end = path[-1]
    answer = shown_value(last, end, spec.answer_field or "", language)
    return (path, answer) if answer else None


def _rank_report(
    spec: ProgramSpec,
    tables: Mapping[str, Table],
    words: Words,
    row: int,
    pool: list[int],
    rng: random.Random,
) -> Instance | None:
    """Which of k records ranks first by a field, then a field of that record (two steps).

    "Which of these countries has the largest area: A, B or C? Answer with the capital of
    that country." The answer is the winner's ``answer_field`` (or that of the record its
    joins lead to); the other records' values come first among the wrong choices, so a
    wrong ranking picks a wrong choice. A sample where two records share the answer, or
    the top is tied, is drawn again.
    """
    assert spec.field and spec.answer_field
    table = tables[spec.table]
    k = max(2, min(spec.k, len(pool)))
    others = [r for r in pool if r != row]
    if len(others) < k - 1:
        return None
    picked = [row, *rng.sample(others, k - 1)]
    rng.shuffle(picked)
    direction = spec.direction or "max"
    winner = ranked_first(table, picked, spec.field, direction)
    if winner is None:
        return None
    reached = {r: _reported(spec, tables, r, words.language) for r in picked}
    if reached[winner] is None:
        return None
    path, answer = reached[winner]  # type: ignore[misc]
    names = [_key_text(table, r, spec, words.language) for r in picked]
    theirs = [v[1] for r, v in reached.items() if r != winner and v is not None]
    said = {n.casefold() for n in names}
    if len(said) != len(names) or answer.casefold() in said:
        return None  # namesakes, or an answer that is a record's name
    if answer.casefold() in {t.casefold() for t in theirs}:
        return None  # a wrong ranking would still give the answer
    last, _end = path[-1]
    pooled = _values_pool(
        last,
        rng.sample(list(last.rows()), min(len(last.records), 60)),
        spec.answer_field,
        words.language,
    )
    distractors = list(
        dict.fromkeys(theirs + [v for v in pooled if v.casefold() != answer.casefold()])
    )
    vias = [
        via_noun(Words(t, words.language), h.via)
        for (t, _r), h in zip(path, spec.hops, strict=False)
    ]
    answer_label = Words(last, words.language).label(spec.answer_field)
    open_book = spec.book == "open"
    question = report_question(
        words, spec.field, direction, names, vias, answer_label, open_book=open_book
    )
    key_field = spec.key_field or table.key
    assert key_field  # generate() refused a program whose records have no name
    fields: list[str] = []
    text = ""
    if open_book:
        # Each record's name, the value ranked and the value reported (or the join's key).
        out = spec.hops[0].via if spec.hops else spec.answer_field
        fields = shown_fields(spec, table, words, [key_field, spec.field, out])
        text = render_table(table, words, picked, fields)
    hops = []
    for index, (t, r) in enumerate(path):
        out_field = spec.hops[index].via if index < len(spec.hops) else spec.answer_field
        hop_key = key_field if index == 0 else spec.hops[index - 1].key_field
        hops.append(
            {
                "table": t.id,
                "key_field": hop_key,
                "key": t.text(r, hop_key),
                "field": out_field,
                "row": r,
            }
        )
    values = sorted(v for v in (table.order_value(r, spec.field) for r in picked) if v is not None)
    spread = max(abs(values[-1]), abs(values[0]), 1e-9)
    gap = (values[-1] - values[-2] if direction == "max" else values[1] - values[0]) / spread
    return Instance(
        question=question,
        answer=answer,
        distractors=distractors,
        rows=picked,
        records=[table.text(r, key_field) for r in picked],
        shown_fields=fields,
        table_text=text,
        hops=hops,
        named=names,
        difficulty=_difficulty(spec, answer, distractors, k=k, gap=round(gap, 4)),
    )


def _named_in(
    spec: ProgramSpec, table: Table, last: Table, words: Words, answer: Noun, key: str
) -> str | None:
    """A one-step chain from a record's name in one language, worded as such (None: not one).

    From a table of names in many languages, its records selected by one language ("the
    Swedish names"), to the record of another table the name's code keys: "What is the
    capital of the country whose Swedish name is Tyskland?", not "the capital of the ISO
    alpha-2 of the country name Tyskland".
    """
    if len(spec.hops) != 1 or (spec.key_field and table.columns[spec.key_field].unique):
        return None
    said = [c for c in spec.conditions if c.op == "==" and language_code_column(table, c.field)]
    if len(said) != 1:
        return None
    name = language_name(str(said[0].value), words.language)
    if not name:
        return None
    if words.language == "en":
        name = name[:1].upper() + name[1:]
    try:
        noun = Words(last, words.language).noun()
    except WordsMissing:
        return None
    return named_in_question(words, answer, noun, key, name)


def _called_in(
    spec: ProgramSpec, table: Table, last: Table, words: Words, key_field: str, key: str
) -> str | None:
    """A one-step chain to a record's name in one language, worded as such (None: not one).

    From a record of one table (a country named by its capital) through a code to the
    table of names in many languages, at the name in the language the step selects: "What
    is the country whose capital is Warsaw called in Polish?", not "the name of the ISO
    alpha-2 code of the country Warsaw".
    """
    if len(spec.hops) != 1:
        return None
    said = [
        c for c in spec.hops[0].conditions if c.op == "==" and language_code_column(last, c.field)
    ]
    if len(said) != 1 or (spec.answer_field or "") not in last.columns:
        return None
    name = language_name(str(said[0].value), words.language)
    if not name:
        return None
    try:
        noun = words.noun()
    except WordsMissing:
        return None
    return called_in_question(words, noun, key_field, key, name)


def _multihop(
    spec: ProgramSpec,
    tables: Mapping[str, Table],
    words: Words,
    row: int,
    pool: list[int],
    rng: random.Random,
) -> Instance | None:
    if spec.field:
        return _rank_report(spec, tables, words, row, pool, rng)
    assert spec.hops and spec.answer_field
    table = tables[spec.table]
    path = follow(spec, tables, row)
    if path is None:
        return None
    last, end = path[-1]
    answer = shown_value(last, end, spec.answer_field, words.language) or ""
    key = _key_text(table, row, spec, words.language)
    key_field = spec.key_field or table.key or spec.hops[0].via
    key_value = table.text(row, key_field)
    if not answer or answer.casefold() == key.casefold():
        return None
    answer_label = Words(last, words.language).label(spec.answer_field)
    vias = [
        via_noun(Words(t, words.language), h.via)
        for (t, _r), h in zip(path, spec.hops, strict=False)
    ]
    counts = counted(last, spec.answer_field, Words(last, "en").label(spec.answer_field).text)
    question = _named_in(spec, table, last, words, answer_label, key) if not counts else None
    question = question or _called_in(spec, table, last, words, key_field, key)
    question = question or hop_question(words, vias, answer_label, key, counts=counts)
    # Choices from the records the last step may land on (names in the same language).
    landing = [r for r in last.rows() if all(holds(last, r, c) for c in spec.hops[-1].conditions)]
    distractors = [
        v
        for v in _values_pool(last, landing, spec.answer_field, words.language)
        if v.casefold() != answer.casefold()
    ]
    shown: list[int] = []
    text = ""
    fields: list[str] = []
    if spec.book == "open":
        # The rows every hop needs, among others of the same table(s).
        used = [r for t, r in path if t is table]
        extra = [r for r in table.rows() if r not in used]
        shown = [
            *used,
            *rng.sample(extra, min(len(extra), max(0, (spec.rows_shown or 5) - len(used)))),
        ]
        rng.shuffle(shown)
        if all(t is table for t, _r in path):
            fields = list(
                dict.fromkeys([key_field, *(h.via for h in spec.hops), spec.answer_field])
            )
            text = render_table(table, words, shown, fields)
        else:
            fields = list(dict.fromkeys([key_field, spec.hops[0].via]))
            blocks = [render_table(table, words, shown, fields)]
            for index, (t, r) in enumerate(path[1:]):
                hop = spec.hops[index]
                out_field = (
                    spec.hops[index + 1].via if index + 1 < len(spec.hops) else spec.answer_field
                )
                theirs = [
                    r,
                    *rng.sample([x for x in t.rows() if x != r], min(len(t.records) - 1, 3)),
                ]
                rng.shuffle(theirs)
                blocks.append(
                    render_table(t, Words(t, words.language), theirs, [hop.key_field, out_field])
                )
            text = "\n\n".join(blocks)
    hops = [
        {"table": table.id, "key_field": key_field, "key": key_value, "field": spec.hops[0].via}
    ]
    for index, (t, r) in enumerate(path[1:]):
        hop = spec.hops[index]
        out_field = spec.hops[index + 1].via if index + 1 < len(spec.hops) else spec.answer_field
        hops.append(
            {
                "table": t.id,
                "key_field": hop.key_field,
                "key": t.text(r, hop.key_field),
                "field": out_field,
                "row": r,
            }
        )
    return Instance(
        question=question,
        answer=answer,
        distractors=distractors,
        rows=shown or [row],
        records=[table.text(r, key_field) for r in shown] if shown else [key_value],
        shown_fields=fields,
        table_text=text,
        hops=hops,
        named=[key],
        difficulty=_difficulty(
            spec, answer, distractors, hops=len(spec.hops), rows_shown=len(shown)
        ),
    )


def _check_words(spec: ProgramSpec, tables: Mapping[str, Table], words: Words) -> None:
    """Refuse a language up front when a label, the noun or the answers have no words in it."""
    main = tables[spec.table]
    key = spec.key_field or main.key
    # A French question can do without the record noun where a name or the table says
    # which record is meant ("le pays de Nigel Mansell", "combien de lignes").
    named = key is not None and key == main.key and not main.columns[key].orderable
    if (spec.kind in ("classify", "multihop") and not spec.media_field) or (
        spec.kind in ("lookup", "filtered_lookup") and not named
    ):
        words.noun()  # a picture needs no noun: "which digit does the image show"
    vias = {h.via for h in spec.hops}
    for path in spec.fields_used():
        # A followed field is said as the record it names ("la monnaie").
        if path in vias:
            via_noun(words, path)
        else:
            words.label(path)
    if words.language == "en" or not spec.answer_field:
        return
    table = tables[spec.hops[-1].table] if spec.hops else tables[spec.table]
    column = table.columns.get(spec.answer_field)
    if (
        column is None
        or column.orderable
        or words.language in column.translations
        or table.neutral(column.path)
        or table.written_in(column.path, words.language)
    ):
        return
    values = [table.text(r, column.path) for r in table.rows()]
    missing = sorted({v for v in values if v and translate_value(v, words.language) is None})
    if missing:
        raise WordsMissing(
            f"the values of {column.path!r} in {table.id} have no {words.language} names "
            f"(e.g. {', '.join(missing[:3])}; only CLDR territories, languages and currencies "
            f"translate offline); add a field with the {words.language} values and name it in "
            f"the card's translations of {column.path!r}"
        )


def _needed(spec: ProgramSpec) -> list[str]:
    if spec.kind in ("count", "aggregate"):
        return []
    return spec.fields_used()


def generate(
    spec: ProgramSpec,
    tables: Mapping[str, Table],
    *,
    n: int,
    seed: int,
    language: str = "en",
) -> list[Instance]:
    """Up to ``n`` distinct instances of a program (fewer when the records run out).

    Raises:
        ProgramError: A field the program reads is not in its table.
        WordsMissing: The program cannot be worded in ``language``.
    """
    table = tables[spec.table]
    for path in spec.fields_used():
        if path not in table.columns:
            raise ProgramError(f"{table.id} has no usable field {path!r}")
    if spec.media_field:
        _check_media(spec, table)
    elif spec.kind == "multihop" and not (spec.hops or spec.field):
        raise ProgramError(
            "a multihop follows joins (hops) or ranks the records first (field=FIELD, "
            "direction=max|min), then reports a field: give one or both"
        )
    elif spec.kind == "multihop" and not spec.answer_field:
        raise ProgramError("a multihop reports a field at its end: give it (answer=FIELD)")
    elif spec.kind == "multihop" and spec.field and not (spec.key_field or table.key):
        raise ProgramError(
            f"a ranking names the records it compares, and no field of {table.id} names a "
            "record: give the field that does (key=FIELD)"
        )
    elif spec.kind == "aggregate" and spec.book == "closed":
        raise ProgramError("an aggregate is over the rows shown: it is open-book")
    elif spec.kind in ("lookup", "filtered_lookup") and not spec.answer_field:
        raise ProgramError("a lookup asks for a field: give its answer field (answer=FIELD)")
    elif spec.kind in ("lookup", "filtered_lookup") and not (spec.key_field or table.key):
        raise ProgramError(
            f"a lookup names its record, and no field of {table.id} names a record: give the "
            "field that does (key=FIELD)"
        )
    elif (
        spec.kind in ("compare", "superlative")
        and spec.book == "closed"
        and not (spec.key_field or table.key)
    ):
        raise ProgramError(
            f"a closed-book comparison names the records it compares, and no field of "
            f"{table.id} names a record: show them (book=open; they are lettered A, B, ...) "
            "or give the field that names one (key=FIELD)"
        )
    elif spec.kind == "count" and spec.book == "closed" and table.key is None:
        raise ProgramError(
            f"a closed-book count names the records it counts, and no field of {table.id} "
            "names a record"
        )
    words = Words(table, language)
    _check_words(spec, tables, words)
    rng = random.Random(seed)
    pool = _eligible(table, spec, _needed(spec))
    if spec.kind in ("count", "aggregate"):
        media = spec.media_field
        pool = [r for r in table.rows() if not media or table.media_file(r, media)]
    order = list(pool)
    rng.shuffle(order)
    runner = {
        "lookup": _lookup,
        "filtered_lookup": _lookup,
        "compare": _rank,
        "superlative": _rank,
        "count": _over_rows,
        "aggregate": _over_rows,
        "classify": _classify,
    }
    out: list[Instance] = []
    seen: set[str] = set()
    attempts = 0
    while len(out) < n and attempts < max(4 * n, 50) and order:
        row = order[attempts % len(order)]
        attempts += 1
        if spec.kind == "multihop":
            made = _multihop(spec, tables, words, row, pool, rng)
        elif spec.media_field:
            made = MEDIA_RUNNERS[spec.kind](spec, table, words, row, pool, rng)
        else:
            made = runner[spec.kind](spec, table, words, row, pool, rng)
        if made is None:
            continue
        key = made.prompt(language)
        if spec.media_field:  # one question, many pictures: the records tell items apart
            key += repr(made.rows)
        if key in seen:
            continue
        seen.add(key)
        out.append(made)
    return out


def probe(
    spec: ProgramSpec, tables: Mapping[str, Table], language: str, seed: int = 0
) -> str | None:
    """Why a program cannot make items in a language (None: it can)."""
    try:
        made = generate(spec, tables, n=2, seed=seed, language=language)
    except (ProgramError, WordsMissing) as exc:
        return str(exc)
    if not made:
        return f"no record of {spec.table} gives a {spec.kind} item with these parameters"
    return None


# ----------------------------------------------------------------------------- verifier


def execute(meta: Mapping[str, Any], tables: Mapping[str, Table], language: str = "en") -> str:
    """Recompute an item's answer from its program metadata and the records (the verifier).

    Raises:
        ProgramError: The metadata names rows or fields the table does not have.
    """
    fields = {
        k: v
        for k, v in meta.items()
        if k in ProgramSpec.model_fields and k not in ("hops", "features")
    }
    spec = ProgramSpec.model_validate(
        {**fields, "hops": meta.get("joins", []), "features": meta.get("feature_fields", [])}
    )
    table = tables[spec.table]
    rows = [int(r) for r in meta.get("rows", [])]
    if any(r < 0 or r >= len(table.records) for r in rows):
        raise ProgramError(f"rows {rows} are not all rows of {table.id}")
    if spec.kind in ("lookup", "filtered_lookup"):
        anchor = _anchor(meta, table, spec, rows, language)
        return shown_value(table, anchor, spec.answer_field or "", language) or ""
    if spec.kind in ("compare", "superlative"):
        values = [table.order_value(r, spec.field or "") for r in rows]
        if any(v is None for v in values):
            raise ProgramError("a compared record has no value")
        pick = max if (spec.direction or "max") == "max" else min
        best = pick(range(len(rows)), key=lambda i: values[i])  # type: ignore[arg-type,return-value]
        if spec.media_field:
            return LETTERS[best]  # the pictures are captioned, not named
        if not (spec.key_field or table.key):
            return ROW_LETTERS[best]  # the rows are shown lettered, in order
        return _key_text(table, rows[best], spec, language)
    if spec.kind in ("count", "aggregate"):
        chosen = [r for r in rows if all(holds(table, r, c) for c in spec.conditions)]
        if spec.kind == "count":
            return number_text(len(chosen))
        numbers = [
            v for v in (table.order_value(r, spec.field or "") for r in chosen) if v is not None
        ]
        if not numbers:
            raise ProgramError("no shown row satisfies the conditions")
        return number_text(aggregate(spec.aggregate or "mean", numbers))
    if spec.kind == "classify":
        return shown_value(table, rows[0], spec.answer_field or "", language) or ""
    if spec.kind == "multihop":
        if spec.field:  # ranked first among the rows, then reported
            start = ranked_first(table, rows, spec.field, spec.direction or "max")
            if start is None:
                raise ProgramError("a compared record has no value, or the top is tied")
        else:
            start = _anchor(meta, table, spec, rows, language)
        path = follow(spec, tables, start)
        if path is None:
            raise ProgramError("a link of the multi-hop path names no single record")
        last, end = path[-1]
        return shown_value(last, end, spec.answer_field or "", language) or last.text(
            end, spec.answer_field or ""
        )
    raise ProgramError(f"unknown program kind {spec.kind!r}")


def _anchor(
    meta: Mapping[str, Any], table: Table, spec: ProgramSpec, rows: list[int], language: str
) -> int:
    """The row a lookup asks about: the one whose key the question names (open-book shows more)."""
    if len(rows) == 1:
        return rows[0]
    question = str(meta.get("question", ""))
    for row in rows:
        if _key_text(table, row, spec, language) in question:
            return row
    raise ProgramError("no shown row is named by the question")

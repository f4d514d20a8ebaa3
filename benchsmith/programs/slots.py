"""The reader model's small question about an intent: which column, where the rules are unsure.

The rules (:func:`benchsmith.programs.intent.plan`) read an intent by its words and decide
the program's kind and every slot. Where they are unsure of the column the questions are
about (a lookup's answer, the field ranked or aggregated, the label classified), a small model
is asked one question whose answer is a ``Literal`` of the table's columns. Code checks the
answer against the data (a ranked or aggregated column must hold numbers or dates, a class
must be a category some records share, the answer is not the column that names the record,
and most records have a value) and only then gives it to the rules as a hint
(:class:`~benchsmith.programs.intent.Hints`); a reading the hint breaks (no candidate, or a
program that does not run) is set aside, and the rules' reading stands.

The column is unsure when the intent is not in English (the rules read it through a word
gloss, or through the reader's translation), when no word of the intent names the rules'
column, when near-tied readings disagree on it, or when the rules found no program at all.

Before that, an intent not in English is translated by the reader and the translation is
checked (:mod:`benchsmith.programs.translation`); the rules read a kept translation instead
of the gloss. Where the two readings differ in kind, a second translation worded apart
settles it (two of three).

Only the column is asked. The other slots were asked of the embedded 1.5B the same way and
measured on the set-aside starter intents (``benchmarks/intent_slots.py``): it gave the
first option almost every time, whatever the intent said (open or closed book: "own
knowledge" 9 of 9, right 5; a rank's direction: "largest" 10 of 10, right 7; a filter's
column: 3 of 21 right; asked to copy the words that restrict the records: "none" 30 of 30),
against 24 of 31 right for the column. The rules' cue words read those slots better (book
42/47, direction 15/16, filter 37/40 on the same intents).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from benchsmith.catalog.cards import value_text
from benchsmith.errors import StructuredOutputError
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.programs.intent import (
    HOW_ADJECTIVE,
    Candidate,
    Hints,
    Refusal,
    _format,
    _measured,
    _mentions,
    compass_column,
    measures,
    plan,
)
from benchsmith.programs.run import probe
from benchsmith.programs.table import Table, words_of
from benchsmith.programs.translation import Translation, translate
from benchsmith.spec import ProgramSpec
from benchsmith.stemming import stems

ASKED_KINDS = ("lookup", "filtered_lookup", "classify", "compare", "superlative", "aggregate")
RANK_KINDS = ("compare", "superlative")
MAX_OPTIONS = 40
"""Most columns a ``Literal`` question offers (a wider table is not asked)."""

Ask = Callable[[type[BaseModel], str], Any]
"""Sends one question (its schema and prompt) to the reader and returns the parsed reply."""


@dataclass(frozen=True)
class Question:
    """One question about the column: its words, its ``Literal`` options, the rules' answer."""

    text: str
    options: tuple[str, ...]
    rules: str | None
    """The rules' column (None: they found no program)."""
    why: str
    """Why the rules are unsure of it."""
    slot: str = "asked"

    def schema(self) -> type[BaseModel]:
        """The reply's schema: one ``Literal`` of the options (the grammar keeps to them)."""
        return create_model(
            "SlotAsked",
            answer=(Literal[self.options], Field(description="One of the options.")),  # type: ignore[valid-type]
        )


@dataclass
class Reading:
    """The rules' candidates after the reader's answer, and what was asked and decided."""

    candidates: list[Candidate] | Refusal
    answers: dict[str, str] = field(default_factory=dict)
    """Slot -> the reader's answer (as given, before the check)."""
    taken: dict[str, str] = field(default_factory=dict)
    """Slot -> the answer the code took as a hint."""
    notes: list[str] = field(default_factory=list)
    english: str | None = None
    """The reader's checked translation the rules read (None: the intent, or its gloss)."""
    rescued: bool = False
    """The rules found no program over the table; the reader's column made the one read."""


def describe_table(table: Table) -> str:
    """The columns a question offers: name, label, kind and a few values."""
    lines = []
    for col in table.columns.values():
        if col.path in table.media:
            continue
        shown = ", ".join(value_text(v)[:24] for v in col.values[:4])
        label = col.labels.get("en", "")
        extra = f" ({label})" if label and label.lower() != col.path.lower() else ""
        lines.append(f"- {col.path}{extra}: {col.kind}" + (f"; e.g. {shown}" if shown else ""))
    return f"Table {table.id} ({len(table.records)} records):\n" + "\n".join(lines)


def _slot_column(spec: ProgramSpec) -> str | None:
    if spec.kind in ("lookup", "filtered_lookup", "classify"):
        return spec.answer_field
    return spec.field


def questions(
    intent: str, table: Table, found: list[Candidate] | Refusal, written: str | None = None
) -> list[Question]:
    """The question the rules need answered (none when they are sure of the column).

    ``intent`` is the text the rules read: the user's, or the reader's checked English of an
    intent ``written`` in another language (the column is asked all the same: a translation
    words a column otherwise as often as a gloss leaves it unread).
    """
    language = written or intent_language(intent)
    columns = tuple(c.path for c in table.columns.values() if c.path not in table.media)
    if len(columns) > MAX_OPTIONS:
        return []
    if isinstance(found, Refusal):
        why = f"the rules found no program ({found.missing[:80]})"
        text = "Which column of the table holds what the questions ask about?"
        return [Question(text, columns, None, why)]
    lead = found[0].spec
    if lead.kind not in ASKED_KINDS:
        return []
    current = _slot_column(lead)
    gloss = (intent if written else to_english(intent, language)).lower()
    if lead.kind in RANK_KINDS and current and compass_column(gloss, table) == current:
        return []  # "le plus à l'ouest": the direction names its coordinate
    named = {m.column.path for m in _mentions(gloss, table) if m.strength >= 0.75}
    others = {_slot_column(c.spec) for c in found[1:] if c.spec.kind == lead.kind}
    why = (
        (
            "the intent is read through a translation"
            if written
            else "the intent is read through a word gloss"
        )
        if language != "en"
        else "no word of the intent names it"
        if current not in named
        else "near-tied readings disagree"
        if others - {current}
        else ""
    )
    if not why:
        return []
    text = (
        "Which column are the records compared or ranked by?"
        if lead.kind in RANK_KINDS
        else "Which column's values are combined (averaged, added up, ...)?"
        if lead.kind == "aggregate"
        else "Which column holds the class the questions ask for?"
        if lead.kind == "classify"
        else "Which column holds the answer the questions ask for?"
    )
    return [Question(text, columns, current, why)]


CODE_WORDS = frozenset(
    "code codes iso abbreviation abbreviations abbreviated symbol symbols".split()
)
"""Words of an intent that ask for a code, not a name."""


def check(answer: str, table: Table, lead: ProgramSpec | None, intent: str = "") -> str | None:
    """Why the code does not take the reader's column (None: it does).

    ``intent`` is the (English) text the rules read: a column whose label says it holds codes
    ("currency code") is taken only when the intent asks for a code.
    """
    col = table.columns.get(answer)
    if col is None:
        return f"no column {answer!r}"
    label = col.labels.get("en", "") or answer
    said = set(re.findall(r"[a-z]+", intent.lower()))
    if intent and CODE_WORDS & set(words_of(label)) and not CODE_WORDS & said:
        return f"{answer} holds codes ({label}), and the intent asks for no code"
    kind = lead.kind if lead is not None else None
    if kind in ("compare", "superlative", "aggregate") and not col.orderable:
        return f"{answer} holds neither numbers nor dates, and a {kind} ranks one"
    if kind == "classify" and (col.kind != "category" or col.unique):
        return f"{answer} is not a class (a category some records share)"
    if lead is not None and answer == lead.key_field:
        return f"{answer} names the record the question gives"
    filled = sum(1 for r in table.records if r.get(answer) not in (None, "", []))
    if filled * 2 < len(table.records):
        return f"{answer} is empty in most records"
    return None


def _unranked(found: list[Candidate] | Refusal, answer: str, table: Table) -> str | None:
    """Why the reader's column cannot stand for the quantity the rules found no field for.

    "Which of the two has the longest runway", over airports without runways ("how high
    it sits": the height): the rules refuse a quantity the intent names and no field holds;
    a column that word does not name is the reader's guess, not what was asked. (Another
    word no field holds, "varietà" read as "variety", the reader may still read: the
    cultivar.)
    """
    said = (
        re.match(r"the intent ranks the records by '([^']+)'", found.missing)
        or re.match(
            rf"the intent asks for '({'|'.join(set(HOW_ADJECTIVE.values()))})'", found.missing
        )
        if isinstance(found, Refusal)
        else None
    )
    if said is None:
        return None  # "welches stärker ist": the reader may know what "stronger" measures
    words = said.group(1)
    words += " " + " ".join(q for t in re.findall(r"[a-z]+", words.lower()) for q in _measured(t))
    if any(m.column.path == answer and m.strength >= 0.5 for m in _mentions(words, table)):
        return None
    return f"{answer} is not what {said.group(1)!r} names, the quantity the intent ranks by"


def read(
    intent: str, tables: Mapping[str, Table], main: str, ask: Ask, *, seed: int = 0
) -> Reading:
    """The rules' reading of the intent, with the reader's column where they were unsure.

    Args:
        intent: The user's intent (any language).
        tables: Every table of the run.
        main: The table the questions are about.
        ask: Sends one question to the reader (raises on failure: the rules' reading stands).
        seed: Seed of the probe that runs the new reading once.
    """
    table = tables[main]
    reading = Reading([])
    found, text = _translated(intent, tables, main, ask, reading)
    reading.candidates = found
    lead = found[0].spec if not isinstance(found, Refusal) else None
    written = intent_language(intent) if reading.english else None
    for question in questions(text, table, found, written):
        prompt = render_question(question, describe_table(table), intent)
        answer = str(ask(question.schema(), prompt).answer)
        reading.answers[question.slot] = answer
        why = (
            check(answer, table, lead, text)
            or _unranked(found, answer, table)
            or _unnamed(answer, question.rules, text, table)
            or _unmeasured(answer, question.rules, text, table)
        )
        if why:
            reading.notes.append(f"column: the reader said {answer!r}, set aside: {why}")
            continue
        if answer == question.rules:
            continue  # the reader agrees with the rules
        hinted = plan(text, tables, main, Hints(asked=answer))
        if isinstance(hinted, Refusal):
            reading.notes.append(f"column: the reader's {answer!r} gives no program: "
                                 f"{hinted.missing[:120]}")  # fmt: skip
            continue
        problem = probe(hinted[0].spec, tables, "en", seed=seed)
        if problem:
            reading.notes.append(f"column: the reader's {answer!r} does not run: {problem[:120]}")
            continue
        reading.taken[question.slot] = answer
        reading.rescued = reading.rescued or isinstance(found, Refusal)
        lead_cand = hinted[0]
        lead_cand.why = f"{lead_cand.why}; column read by the reader: {answer}"[:300]
        reading.candidates = hinted
        reading.notes.append(
            f"column: the reader's {answer!r} replaces the rules' {question.rules!r} "
            f"({question.why})"
        )
    return reading


def _reports_more(glossed: list[Candidate] | Refusal, found: list[Candidate] | Refusal) -> bool:
    """Whether the gloss's reading is the translation's ranking and a report after it."""
    if isinstance(glossed, Refusal) or isinstance(found, Refusal):
        return False
    g, t = glossed[0].spec, found[0].spec
    return (
        g.kind == "multihop"
        and g.field is not None
        and t.kind in ("compare", "superlative")
        and t.field == g.field
    )


def _kind(found: list[Candidate] | Refusal) -> str | None:
    """The kind of a reading's leading program (None: a refusal)."""
    return None if isinstance(found, Refusal) else found[0].spec.kind


def _translation(intent: str, ask: Ask, reading: Reading, *, again: bool = False) -> str | None:
    """The reader's checked translation (None: set aside or none), noted in the reading."""
    try:
        translation = translate(intent, ask, again=again)
    except StructuredOutputError as exc:
        translation = Translation(None, f"the reader gave no translation: {exc}"[:300])
    if translation.note:
        reading.notes.append(translation.note)
    return translation.english


def _translated(
    intent: str, tables: Mapping[str, Table], main: str, ask: Ask, reading: Reading
) -> tuple[list[Candidate] | Refusal, str]:
    """The rules' reading of the intent through its translation, or its gloss; the text read.

    A translation whose reading finds no program leaves the gloss's. Where the translation's
    reading and the gloss's differ in kind, a second translation (worded apart) settles it:
    the kind two of the three share stands, read from a translation where one has it (a
    translation names columns the gloss leaves unread), and with no two alike the first
    translation's reading does.
    """
    english = _translation(intent, ask, reading)
    glossed = plan(intent, tables, main)
    lost = _lost(intent, english, tables[main]) if english is not None else None
    asked_again = bool(lost)
    if lost:
        reading.notes.append(f"the reader's translation set aside ({lost})")
        english = _translation(intent, ask, reading, again=True)
        lost = _lost(intent, english, tables[main]) if english is not None else None
        if lost:
            reading.notes.append(f"the second translation set aside too ({lost})")
            english = None
    if english is None:
        return glossed, intent
    found = plan(english, tables, main)
    if isinstance(found, Refusal):
        reading.notes.append(f"its reading found no program ({found.missing[:100]}): "
                             "the gloss reads the intent")  # fmt: skip
        return glossed, intent
    first, gloss_kind = _kind(found), _kind(glossed)
    if _reports_more(glossed, found):
        # The gloss ranks as the translation does, then reports a field of the winner ("the
        # capital of the most populous"): the translation lost the second step.
        reading.notes.append(
            f"the gloss's {gloss_kind} ranks as the translation's {first} does and reports "
            "a field of the winner: the gloss's stands"
        )
        return glossed, intent
    if gloss_kind is not None and gloss_kind != first and not asked_again:
        # (the second wording, unless it is the one being read)
        second = _translation(intent, ask, reading, again=True)
        other = plan(second, tables, main) if second is not None else None
        if second is not None and other is not None and _kind(other) == gloss_kind:
            reading.notes.append(f"the second translation reads a {gloss_kind} as the gloss "
                                 f"does, not the first's {first}")  # fmt: skip
            reading.english = second
            return other, second
        reading.notes.append(f"the first translation's {first} stands over the gloss's "
                             f"{gloss_kind}")  # fmt: skip
    reading.english = english
    return found, english


AGGREGATE_STEMS = frozenset({"averag", "mean", "median", "total", "sum"})
"""Stems that decide an aggregate: a translation that loses one reads another program."""


def _lost(intent: str, english: str, table: Table) -> str | None:
    """What of the gloss's reading a translation loses: a field it names, an aggregate word.

    "a média da temperatura máxima" translated "the highest temperature" loses the mean;
    "a capital do mais populoso" translated "which has the largest population" loses the
    capital; "Telefonvorwahl" translated "phone calls" loses the calling code.
    """
    gloss = to_english(intent, intent_language(intent)).lower()
    named = {m.column.path for m in _mentions(gloss, table) if m.strength >= 0.75}
    kept = {m.column.path for m in _mentions(english, table) if m.strength >= 0.75}
    if named - kept:
        return f"it leaves out {sorted(named - kept)}, which the gloss names"
    cues = (set(stems(gloss)) & AGGREGATE_STEMS) - set(stems(english.lower()))
    if cues:
        return f"it leaves out {sorted(cues)}"

    # "Réponse en nombre" (a number) or "en QCM" (choices): the answer's form, as said
    # ("the number of cylinders" says none).
    def form(text: str) -> str:
        return _format(re.sub(r"\bthe number\b", " ", text.lower()), "unsaid")

    said = form(gloss)
    if said != "unsaid" and form(english) != said:
        return f"it leaves out the {said.replace('_', ' ')} answer the gloss reads"
    return None


def _unnamed(answer: str, rules: str | None, text: str, table: Table) -> str | None:
    """Why the reader's column is not taken over one the intent names in full (None: it is).

    "Mostre seis pacientes ... e pergunte a média do IMC": the gloss names the body mass
    index in full, and no word names the column the reader gave (s4_tch).
    """
    if rules is None or answer == rules:
        return None
    gloss = to_english(text, intent_language(text)).lower()
    strength = {m.column.path: m.strength for m in _mentions(gloss, table)}
    if strength.get(rules, 0.0) >= 0.9 and strength.get(answer, 0.0) < 0.5:
        return f"the intent names {rules} in full and no word of it names {answer}"
    return None


def _unmeasured(answer: str, rules: str | None, text: str, table: Table) -> str | None:
    """Why the reader's column is not taken over the one the intent's rank word measures.

    "quale ha i petali più larghi" (wider petals): the rules rank the petal width, which
    "wider" measures; the reader's petal length does not hold a width (None: it is taken).
    """
    if rules is None or answer == rules or answer not in table.columns:
        return None
    gloss = to_english(text, intent_language(text)).lower()
    measured = {q for w in re.findall(r"[a-z]+", gloss) for q in _measured(w)}
    columns = table.columns
    if (
        rules in columns
        and measures(columns[rules], measured)
        and not measures(columns[answer], measured)
    ):
        return f"the intent's rank word measures {sorted(measured)}, which {rules} holds"
    return None


def render_question(question: Question, context: str, intent: str) -> str:
    """The prompt of one question: the intent (fenced), the table, then the question."""
    from benchsmith.prompts import render, untrusted

    return render(
        "reader_slot",
        table=untrusted(context, "table columns"),
        intent=untrusted(intent, "intent"),
        question=question.text,
        options="\n".join(f"- {o}" for o in question.options),
    )

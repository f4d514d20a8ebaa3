"""Reading a textbook by small questions to a reader model, each answer checked by code.

A small model reads well when it is asked one short, extractive question at a time and
badly when it is asked to compose (a whole list of formulas and quantities in one reply).
So the reader is asked, about one text at a time (the text first, the question last, so
that a llama.cpp server keeps the text as a cached prefix and each question after the
first costs a second or two):

* per symbol a section's formulas use (:func:`read_symbol`): the text's own words for it,
  its unit as the text writes it, and a range only when the text states both ends;
* per section that may state a formula in words (:func:`read_word_formulas`): the
  sentence that states it, and the formula;
* per pair of formulas a chain could join through a shared quantity
  (:func:`same_object`): whether the text applies both to the same object.

Nothing the reader says is taken on its word. Its words for a symbol count only when they
occur in the text near the symbol; its unit only when the text writes it after a value
(or in parentheses, or after "in"); its range only when the text writes both numbers in
one place; a sentence it points to only when it is in the text. A quote that is not in
the text rejects what it supports. Every answer is cached on disk per text (the SHA-256 of
the prompt's text block) and question (:class:`TextReader`), so a second reading of the
same section asks nothing: the plan and the build of a run read the same formulas.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from benchsmith.errors import (
    LocalModelError,
    ModelError,
    ModelUnavailableError,
    StructuredOutputError,
)
from benchsmith.markup import GREEK
from benchsmith.prompts import render, untrusted
from benchsmith.solution import cache
from benchsmith.solution.documents import Section
from benchsmith.solution.errors import FormulaSyntaxError
from benchsmith.solution.expressions import is_name, names_of, parse_expression, safe_name
from benchsmith.solution.formulas import Formula, RejectedFormula
from benchsmith.solution.quantities import (
    DEFAULT_RANGES,
    Quantity,
    kind_bounds,
    parse_definition,
    physical_unit,
)
from benchsmith.solution.quantities import _symbol_core as symbol_pattern
from benchsmith.solution.wording import StructuredModel

READING_VERSION = 1
"""Raise when the questions' meaning changes without a change of their text."""
TEXT_CAP = 6000
"""Characters of a section sent to the reader (the section's start, where it defines)."""
NEAR = 600
"""Characters either side of a mention of a symbol within which its words must occur."""
WORD_FORMULA_QUESTIONS = 2
"""Formulas in words asked of one section at most (the next only after one is found)."""
STOP_AFTER_FAILURES = 3
"""Consecutive failed questions after which the reader is not asked again in a build."""

_CUES = re.compile(
    r"\b(?:is|are|equals|gives|is equal to|is found by|is calculated by)\b[^.;:$\n]{0,80}?"
    r"\b(?:divided by|multiplied by|times|product of|ratio of|sum of|difference between"
    r"|quotient of|minus|plus)\b",
    re.I,
)
"""A relation stated in a sentence ("the efficiency is the work divided by the heat"): a
section without one is not asked for formulas in words."""

Schema = TypeVar("Schema", bound=BaseModel)


def cut_to_cap(schema: type[BaseModel], value: object, info: ValidationInfo) -> object:
    """A string cut to its field's ``max_length`` (an endpoint without a grammar wrote more).

    Under a llama.cpp grammar the cap holds anyway; elsewhere a longer quote is cut rather
    than asked again (a cut quote is still looked up in the text).
    """
    if not isinstance(value, str) or info.field_name is None:
        return value
    metadata = schema.model_fields[info.field_name].metadata
    cap = next((m.max_length for m in metadata if getattr(m, "max_length", None)), None)
    return value[:cap] if cap else value


class CappedAnswer(BaseModel):
    """An answer whose strings are cut to their caps (:func:`cut_to_cap`)."""

    @field_validator("*", mode="before")
    @classmethod
    def _cut(cls, value: object, info: ValidationInfo) -> object:
        """Strings cut to their caps."""
        return cut_to_cap(cls, value, info)


class SymbolAnswer(CappedAnswer):
    """What one symbol of the text stands for, in the text's words."""

    words: str = Field(
        default="",
        max_length=60,
        description="The text's own words for the quantity the symbol stands for, copied "
        "exactly (a short noun phrase); '' if the text does not say.",
    )
    unit: str = Field(
        default="",
        max_length=16,
        description="Its unit exactly as the text writes it after a value (m/s, mg/L, $, %); "
        "'' if the text gives none.",
    )
    low: str = Field(
        default="",
        max_length=16,
        description="The smallest value the text says it takes, only if the text states "
        "both ends of a range; else ''.",
    )
    high: str = Field(
        default="",
        max_length=16,
        description="The largest value the text says it takes, only if the text states "
        "both ends of a range; else ''.",
    )


class WordFormulaAnswer(CappedAnswer):
    """A formula the text states in a sentence rather than in mathematics."""

    sentence: str = Field(
        default="",
        max_length=80,
        description="The first words of the sentence that states it, copied exactly; '' if "
        "the text states no other formula in words.",
    )
    output: str = Field(default="", max_length=16, description="The symbol of the result.")
    expression: str = Field(
        default="",
        max_length=80,
        description="The result's formula over symbols, with + - * / ** and parentheses.",
    )


class SameObjectAnswer(CappedAnswer):
    """Whether the text applies two formulas to one object (one bond, one body)."""

    answer: Literal["yes", "no"] = Field(
        description="yes when the text applies both formulas to the same object, else no."
    )
    quote: str = Field(
        default="",
        max_length=80,
        description="On yes, the words of the text that show it, copied exactly; else ''.",
    )


@dataclass
class TextReader:
    """Asks a reader model small questions about texts; the answers cached on disk.

    Answers are kept in the solution cache (:mod:`benchsmith.solution.cache`, kind
    ``reading``): one record per reader model and text (the SHA-256 of the prompt up to the
    question, so the template's wording is part of it), holding the answer to each question
    asked about it. A question answered before is not asked again, in this process or any
    later one. Unlike the cache's other entries, a record is not keyed by the solution
    code's digest: an answer depends on the prompt and the model, not on the code that
    checks it (which checks cached answers afresh). A question the model fails to answer
    is not cached; after
    :data:`STOP_AFTER_FAILURES` failures in a row, or when the model is not available at
    all, the reader stops and the build goes on with the patterns' reading (said in
    :attr:`notes`).
    """

    model: StructuredModel
    asked: int = 0
    """Questions sent to the model."""
    answered_from_cache: int = 0
    failed: int = 0
    stopped: str = ""
    """Why the reader was stopped ('' while it reads)."""
    notes: list[str] = field(default_factory=list)
    _records: dict[str, dict[str, Any]] = field(default_factory=dict)
    _failures_in_a_row: int = 0

    @property
    def identity(self) -> str:
        """The reader model's identity (provider and model), part of every cache key."""
        spec = getattr(self.model, "spec", None)
        return str(getattr(spec, "identity", "") or type(self.model).__name__)

    def ask(self, text: str, question: str, schema: type[Schema]) -> Schema | None:
        """The answer to ``question`` about ``text`` (None: the reader gave none).

        Args:
            text: The text asked about (a section, or excerpts around two formulas).
            question: The question, with how to answer it (the schema's descriptions are
                not shown to a model that answers under a grammar).
            schema: The answer's schema.
        """
        prefix = render("solution_reading", text=untrusted(text, "textbook text"), question="")
        record_key = json.dumps(
            ["reading", READING_VERSION, self.identity, _digest(prefix)], separators=(",", ":")
        )
        record = self._records.get(record_key)
        if record is None:
            stored = cache.load("reading", record_key)
            record = stored if isinstance(stored, dict) else {}
            self._records[record_key] = record
        entry = _digest(f"{schema.__name__}\0{question}")
        if entry in record:
            try:
                answer = schema.model_validate(record[entry])
            except ValueError:
                pass  # an answer of another shape: ask again (and overwrite it)
            else:
                self.answered_from_cache += 1
                return answer
        if self.stopped:
            return None
        prompt = f"{prefix} {question}"
        self.asked += 1
        try:
            answer = self.model.structured(schema, [("user", prompt)])
        except (ModelUnavailableError, LocalModelError) as exc:
            self._stop(f"the reader model is not available ({_short(exc)})")
            return None
        except (StructuredOutputError, ModelError) as exc:
            self.failed += 1
            self._failures_in_a_row += 1
            if self._failures_in_a_row >= STOP_AFTER_FAILURES:
                self._stop(f"{self._failures_in_a_row} questions in a row failed ({_short(exc)})")
            return None
        self._failures_in_a_row = 0
        record[entry] = answer.model_dump(mode="json")
        cache.store("reading", record_key, record)
        return answer

    def _stop(self, why: str) -> None:
        self.stopped = why
        self.notes.append(f"the reader stopped: {why}; the patterns read the rest alone")

    def summary(self) -> dict[str, Any]:
        """Counts for a report: questions asked, answered from the cache, failed."""
        return {
            "reader": self.identity,
            "asked": self.asked,
            "from_cache": self.answered_from_cache,
            "failed": self.failed,
            "stopped": self.stopped,
        }


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160]


# --- checks against the text -------------------------------------------------------------


def phrase_pattern(words: str) -> re.Pattern[str] | None:
    """A pattern finding ``words`` in a text whatever the spacing, markup or case between them.

    None when the words hold no word of three letters (nothing to find).
    """
    # LaTeX commands are markup, not words: "$\\text{FV}$" in a quote is "$\\mathrm{FV}$"
    tokens = re.findall(r"[^\W_]+|[^\w\s\\{}$`*]", re.sub(r"\\[A-Za-z]+", " ", words))
    if not any(re.fullmatch(r"[^\W\d_]{3,}", t) for t in tokens):
        return None
    # emphasis, math marks, LaTeX commands and spacing the text may have between
    gap = r"(?:[\s*_`$\\{}]|\\[A-Za-z]+)*"
    joined = gap.join(re.escape(t) for t in tokens)
    return re.compile(rf"(?<![^\W_]){joined}(?![^\W_])", re.I)


def find_quote(quote: str, text: str) -> tuple[int, int] | None:
    """The span of ``quote`` in ``text`` (spacing, markup and case aside), or None."""
    quote = quote.strip().rstrip(".…").strip()
    pattern = phrase_pattern(quote)
    match = pattern.search(text) if pattern else None
    if match is None and len(quote.split()) >= 5:
        # a quote cut at its cap ends in part of a word ("... that yields s"): without it
        pattern = phrase_pattern(quote.rsplit(None, 1)[0])
        match = pattern.search(text) if pattern else None
    return (match.start(), match.end()) if match else None


def display_symbol(name: str) -> str:
    """A formula name as a reader sees it in the text: ``I_`` -> I, ``Delta_T`` -> ΔT."""
    plain = name[:-1] if name.endswith("_") and len(name) > 1 else name
    plain = {"lamda": "lambda", "Lamda": "Lambda"}.get(plain, plain)
    letters = {word: letter for letter, word in GREEK.items()}
    if plain.endswith("_prime"):
        return display_symbol(plain.removesuffix("_prime")) + "'"
    head, _, tail = plain.partition("_")
    if head in letters:
        head = letters[head]
        return f"{head}{tail}" if head in "ΔδΣ" else f"{head}_{tail}" if tail else head
    return plain


def mentions(name: str, text: str) -> list[int]:
    r"""Where the text writes the symbol: in math (``F_{r}``, ``\rho``) or bare (``Fr``)."""
    core = symbol_pattern(name)  # the patterns' own spelling
    bare = re.escape(display_symbol(name).replace("_", ""))
    pattern = rf"(?<![A-Za-z]){core}(?![A-Za-z])|(?<![\w\\]){bare}(?!\w)"
    return [m.start() for m in re.finditer(pattern, text)]


def words_near(words: str, name: str, text: str) -> tuple[int, int] | None:
    """Where ``words`` occur in ``text`` within :data:`NEAR` characters of the symbol.

    A text that never writes the symbol where the patterns can see it (a formula in a
    picture, subscripts lost) lets the words be anywhere in it. None: not found.
    """
    spans = all_words_near(words, name, text)
    return spans[0] if spans else None


def all_words_near(words: str, name: str, text: str) -> list[tuple[int, int]]:
    """Every place ``words`` occur within :data:`NEAR` characters of the symbol, in order."""
    pattern = phrase_pattern(words)
    if pattern is None:
        return []
    found = [(m.start(), m.end()) for m in pattern.finditer(text)]
    at = mentions(name, text)
    return [(s, e) for s, e in found if not at or any(abs(a - s) <= NEAR for a in at)]


_MONEY = {"$", "dollar", "dollars", "usd", "us dollars", "us$"}
_PERCENT = {"%", "percent", "per cent", "percentage", "percent per year"}
_YEARS = {"year", "years", "yr", "yrs"}
_PERIODS = {"month", "months", "period", "periods", "payments"}


def unit_reading(unit: str, text: str, near: Sequence[int] | None = None) -> tuple[str, str] | None:
    """``(unit family, printed symbol)`` of a unit the text writes; None if it does not.

    Money and percentages count when the text writes a value with ``$`` or ``%`` (or the
    word); years and months when the text writes a value in them; a physical unit when the
    text writes it after a value, in parentheses or after "in" (``12 m/s``, ``(kPa)``,
    ``in joules``), and it is printed as its symbol (``joules`` -> J). ``near``: where the
    text writes the symbol or its words; the unit must then be written within
    :data:`NEAR` characters of one of them (a rate is not in years because a loan's term
    is, three paragraphs on).
    """
    written = " ".join(unit.split()).strip(" .,;:()")
    low = written.lower()
    if not written or len(written) > 16:
        return None

    def seen(pattern: str, flags: int = 0) -> bool:
        found = [m.start() for m in re.finditer(pattern, text, flags)]
        if near is None:
            return bool(found)
        return any(abs(f - n) <= NEAR for f in found for n in near)

    if low in _MONEY:
        return ("currency", "") if seen(r"\$\s?\d|\bdollars?\b", re.I) else None
    if low in _PERCENT:
        return ("percent", "") if seen(r"\d\s?\\?%|\bpercent|\bper cent", re.I) else None
    escaped = re.escape(written)
    after_value = rf"\d(?:[\s~]|\\[,;: ]|\\(?:text|mathrm|rm)\{{\s*)*{escaped}(?![\w/²³^])"
    beside = rf"\(\s*{escaped}\s*\)|\b(?:in|of)\s+{escaped}(?![\w/²³^])"
    if not seen(rf"{after_value}|{beside}"):
        return None
    if low in _YEARS:
        return "years", ""
    if low in _PERIODS:
        return "periods", ""
    if re.fullmatch(r"[A-Za-z][A-Za-z -]{3,}", written):
        # a unit in words is printed as its symbol ("joules" -> J); a word that names no
        # physical unit ("people", "cases") is a count, which the patterns read
        symbol = physical_unit(written)
        return ("number", symbol) if symbol else None
    return "number", written


def _number(text: str) -> float | None:
    clean = text.strip().replace("−", "-").replace(",", "").lstrip("$").rstrip("%").strip()
    try:
        return float(clean)
    except ValueError:
        return None


def _written_at(value_text: str, value: float, text: str) -> list[int]:
    """Where the text writes a number (as the reader wrote it, or as 1000 / 1,000 / 0.05)."""
    shown = {value_text.strip().lstrip("$").rstrip("%").strip(), f"{value:g}"}
    if value == int(value):
        shown |= {f"{int(value)}", f"{int(value):,}"}
    found: list[int] = []
    for form in shown - {""}:
        pattern = rf"(?<![\d.]){re.escape(form)}(?![\d]|\.\d)"
        found += [m.start() for m in re.finditer(pattern, text)]
    return found


_RANGE_JOIN = r"\s*(?:[^\W\d]{1,12}\.?\s*|[%°$]\s*)?(?:to|and|through|[-–—])\s*\$?\s*"
"""Between a range's two ends: a unit perhaps, then "to", "and" or a dash (5 to 12 %,
100 and 10000, 20–150 mm/h)."""


def range_reading(low: str, high: str, text: str) -> tuple[float, float] | None:
    """``(low, high)`` when the text states them as a range ("between 100 and 10000").

    Both numbers written somewhere is not enough (a worked example writes many numbers):
    the text must join them as a range, low first, with "to", "and" or a dash between.
    """
    a, b = _number(low), _number(high)
    if a is None or b is None or not a < b:
        return None
    for start in _written_at(low, a, text):
        after = text[start : start + 60]
        joined = re.match(rf"[\d.,]+{_RANGE_JOIN}", after)
        if joined and 0 in _written_at(high, b, after[joined.end() :][:20]):
            return a, b
    return None


def symbol_quantity(
    name: str, answer: SymbolAnswer, section: Section, document: str = ""
) -> Quantity | None:
    """A quantity from the reader's answer, each part kept only where the text bears it out.

    The words must occur near the symbol (else None: a reader that does not know what the
    symbol is gives no unit or range worth taking either). They are read as the patterns
    read a definition (:func:`~benchsmith.solution.quantities.parse_definition`: "future
    value" is money, a "rate" a percentage, a range from the worked examples near the
    words); a unit the text writes, or a range it states, overrides that. Parts the text
    does not bear out are *assumed* (the patterns' own reading fills them).
    ``document``: the whole text, whose worked examples may give a range.
    """
    text = section_text(section)
    words = re.sub(r"^(?:the|a|an)\s+", "", " ".join(answer.words.split()), flags=re.I)
    words = words.strip(" .,;:")
    echo = words.replace(" ", "").lower() in {
        name.lower(),
        display_symbol(name).replace("_", "").lower(),
    }
    spans = [] if echo else [widened(text, s) for s in all_words_near(words, name, text)]
    if not spans:
        return None  # a reader that does not know what the symbol is: its unit is noise
    # "rate" is said of r three times: "the rate is $r$", "an annual interest rate of $r$";
    # the place where the text qualifies the words most is the reading
    span = max(spans, key=lambda s: s[1] - s[0])
    words = " ".join(text[span[0] : span[1]].split())
    # "how much input work", "a quantity called thermal efficiency": the name is what follows
    lead = [m.end() for m in _LEAD.finditer(words) if m.end() < len(words)]
    words = words[lead[-1] :] if lead else words
    if " " not in words and document:
        # one bare word where the symbol is first used ("the rate is $r$"): the text's
        # commonest qualified form of it near the symbol elsewhere ("annual interest rate")
        words = qualified(words, name, document) or words
    read = unit_reading(answer.unit, text, [*mentions(name, text), span[0]])
    stated = range_reading(answer.low, answer.high, text)
    if read and read[0] == "percent" and stated and (max(stated) > 1 or "%" in answer.high):
        stated = (stated[0] / 100, stated[1] / 100)
    reader = "reader, checked against the text"
    base = parse_definition(
        safe_name(name), words, section.source(*span), description=words, document=document or text
    )
    base = replace(base, description=words, origins=(("description", reader), *base.origins[1:]))
    if read is not None:
        family, symbol = read
        # a range read for another kind (a percent's 0.04-0.07 for a number of years) is not
        # this unit's
        fresh = "range" in base.assumed or family != base.unit
        low, high = DEFAULT_RANGES[family] if fresh else (base.low, base.high)
        base = replace(
            base,
            unit=family,
            symbol=symbol,
            integer=family in ("years", "periods"),
            low=low,
            high=high,
            bounds=kind_bounds(family, symbol) if fresh else base.bounds,
            choices=() if fresh else base.choices,
            assumed=tuple(a for a in base.assumed if a != "unit")
            + (("range",) if fresh and "range" not in base.assumed else ()),
            origins=(*[o for o in base.origins if o[0] != "unit"], ("unit", reader)),
        )
    if stated is not None:
        base = replace(
            base,
            low=stated[0],
            high=stated[1],
            choices=(),
            bounds=None,
            assumed=tuple(a for a in base.assumed if a != "range"),
            origins=(
                *[o for o in base.origins if o[0] != "range"],
                ("range", "reader: both ends stated in the text"),
            ),
        )
    return base


_STOP = frozenset(
    "the a an with of for and or is are was be to in on at by its their this that these "
    "those which where when as if from into per than then so it we you our your each every "
    "any all some no not".split()
)
"""Words that end a noun phrase read leftwards ("with | annual interest rate")."""
WIDEN = 3
"""Words at most added before the reader's words."""


_LEAD = re.compile(
    r"\b(?:how\s+(?:much|many)|(?:quantity|value|number|term|variable|measure)\s+"
    r"(?:called|known\s+as|named|termed))\s+(?:the\s+)?",
    re.I,
)
"""Words before a quantity's name that are not part of it."""


def qualified(word: str, name: str, document: str) -> str:
    """The text's fullest phrase ending in ``word``, written near ``name`` more than once.

    "annual interest rate" (five times near $r$) over "interest rate" (five) and
    "equivalent simple interest rate" (once, another rate); the commonest phrase if none
    is repeated; '' when the text never qualifies the word near the symbol.
    """
    found = [
        " ".join(document[slice(*widened(document, span))].split())
        for span in all_words_near(word, name, document)
    ]
    counts = Counter(f.lower() for f in found if " " in f)
    if not counts:
        return ""
    best = max(counts, key=lambda f: (counts[f] > 1, len(f.split()), counts[f]))
    return next(f for f in found if f.lower() == best)


def widened(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The span of the reader's words with the words that qualify them just before.

    A small reader shortens ("rate" where the text says "annual interest rate $r$", "number
    of periods" for "the total number of periods"): up to :data:`WIDEN` lowercase words
    directly before its words are taken too, stopping at an article, a preposition or
    anything that is not a plain word (a symbol, a number, punctuation).
    """
    start = span[0]
    for _ in range(WIDEN):
        match = re.search(r"(?<![^\s(])([a-z][a-z-]*)\s+$", text[max(0, start - 40) : start])
        if match is None or match.group(1) in _STOP:
            break
        start -= len(text[max(0, start - 40) : start]) - match.start(1)
    return start, span[1]


# --- the questions -----------------------------------------------------------------------


def section_text(section: Section) -> str:
    """The part of a section the reader sees (its first :data:`TEXT_CAP` characters)."""
    return section.text[:TEXT_CAP]


def symbol_question(name: str, formulas: Sequence[Formula]) -> str:
    """The question about one symbol, naming a formula that uses it."""
    shown = display_symbol(name)
    used = "; ".join(_shown(f)[:70] for f in formulas[:1])
    where = f" (it is used in {used})" if used else ""
    return (
        f"In this text, what quantity does the symbol {shown} stand for{where}? Answer in "
        f'JSON: "words": the text\'s own words for it, copied exactly (a short noun phrase), '
        f'or "" if the text does not say; "unit": its unit exactly as the text writes it '
        f'after a value, or ""; "low" and "high": the smallest and largest values the text '
        f'says it takes, only if the text states both, else "".'
    )


def _shown(formula: Formula) -> str:
    """A formula as the question shows it: as written, or as an equation if in words."""
    return formula.equation() if formula.syntax == "prose" else formula.text.strip("$ ")


def read_symbol(
    reader: TextReader,
    section: Section,
    name: str,
    formulas: Sequence[Formula],
    document: str = "",
) -> Quantity | None:
    """The reader's reading of one symbol of ``section``, checked (None: nothing borne out).

    ``document``: the whole text (its worked examples may give the range).
    """
    answer = reader.ask(section_text(section), symbol_question(name, formulas), SymbolAnswer)
    if answer is None:
        return None
    return symbol_quantity(name, answer, section, document)


def asks_for_word_formulas(section: Section) -> bool:
    """Whether a section may state a formula in words (it has the words of one)."""
    return len(section.text) >= 120 and bool(_CUES.search(section_text(section)))


def word_formula_question(known: Sequence[str]) -> str:
    """The question for a formula stated in words, naming those found already."""
    found = "; ".join(k[:60] for k in known[:8]) or "none"
    return (
        "Does this text state in words (in a sentence, not in mathematics) how one quantity "
        f"is computed from others, other than these formulas: {found}? Answer in JSON: "
        '"sentence": the first words of that sentence, copied exactly, or "" if there is '
        'none; "output": the symbol of the quantity computed; "expression": its formula '
        "over the text's symbols, with + - * / ** and parentheses."
    )


def read_word_formulas(
    reader: TextReader, section: Section, known: Sequence[Formula], start_id: int
) -> tuple[list[Formula], list[RejectedFormula]]:
    """Formulas the section states in words, as the reader points to them, checked.

    The sentence must be in the text (else the formula is rejected, with the reason); the
    formula is parsed as any other (and admitted later, by execution, like every formula).
    """
    formulas: list[Formula] = []
    rejected: list[RejectedFormula] = []
    if not asks_for_word_formulas(section):
        return formulas, rejected
    text = section_text(section)
    seen = [f.equation() for f in known]
    for _ in range(WORD_FORMULA_QUESTIONS):
        answer = reader.ask(text, word_formula_question(seen), WordFormulaAnswer)
        if answer is None or not answer.sentence.strip() or not answer.expression.strip():
            break
        right = answer.expression.split("=", 1)[-1].strip()
        written = f"{answer.output.strip()} = {right}"
        seen.append(written)
        span = find_quote(answer.sentence, text)
        if span is None:
            reason = f"the reader's sentence is not in the text ({answer.sentence[:60]!r})"
            rejected.append(RejectedFormula(written, "prose", section.source(), reason))
            break
        source = section.source(*span)
        parsed = _parse(answer.output, answer.expression)
        if isinstance(parsed, str):
            rejected.append(RejectedFormula(written, "prose", source, parsed))
            break
        output, expr = parsed
        quote = text[span[0] : span[1]]
        formulas.append(
            Formula(
                f"f{start_id + len(formulas)}",
                output,
                expr,
                quote,
                "prose",
                source,
                section.concept,
            )
        )
    return formulas, rejected


def _parse(output: str, expression: str) -> tuple[str, Any] | str:
    """``(output, expr)`` of a formula the reader wrote, or why it is not one."""
    if not is_name(output.strip()):
        return "output is not a name"
    right = expression.split("=", 1)[1] if "=" in expression else expression
    try:
        expr = parse_expression(right)
    except FormulaSyntaxError as exc:
        return f"cannot parse: {exc}"
    name = safe_name(output.strip())
    if not expr.free_symbols:
        return "no quantities on the right"
    if name in names_of(expr):
        return "self-reference"
    return name, expr


def _text_end_before(text: str, start: int) -> int:
    """Where the words before ``start`` end (a display formula stands after a blank line)."""
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start


def lead_in(text: str, start: int) -> str:
    """The words just before a formula that introduce it (its paragraph's last 160 characters)."""
    end = _text_end_before(text, start)
    before = text[max(0, end - 240) : end]
    words = " ".join(before[before.rfind("\n\n") + 1 :].split())
    return words if len(words) <= 160 else words[-160:].split(" ", 1)[-1]


def excerpt(text: str, start: int, end: int) -> tuple[int, int]:
    """The paragraph or so around a formula: from the paragraph that leads to it to after."""
    lead = _text_end_before(text, start)
    lo = max(0, lead - 500)
    paragraph = text.rfind("\n\n", lo, lead)
    return (paragraph + 2 if paragraph >= 0 else lo), min(len(text), end + 200)


def pair_text(a: Formula, b: Formula, texts: Mapping[str, str]) -> str:
    """The excerpts around two formulas (one when they overlap), from their documents."""
    spans = sorted(
        (f.source.file, *excerpt(texts.get(f.source.file, ""), f.source.start, f.source.end))
        for f in (a, b)
    )
    (file1, lo1, hi1), (file2, lo2, hi2) = spans
    if file1 == file2 and lo2 <= hi1:
        return texts.get(file1, "")[lo1 : max(hi1, hi2)]
    return f"{texts.get(file1, '')[lo1:hi1]}\n[...]\n{texts.get(file2, '')[lo2:hi2]}"


def same_object_question(
    a: Formula, b: Formula, shared: Sequence[str], texts: Mapping[str, str]
) -> str:
    """The question whether the text applies two formulas to the same object."""
    names = ", ".join(display_symbol(n) for n in shared)

    def shown(f: Formula) -> str:
        before = lead_in(texts.get(f.source.file, ""), f.source.start)
        return f'{_shown(f)[:80]} after the words "{before}"'

    return (
        f"The text gives the formula (1) {shown(a)}, and the formula (2) {shown(b)}. Both "
        f"use {names}. Does the text apply both formulas to the same object (the same bond, "
        "body, circuit, sample or case), so that a value of one may be used in the other? "
        'Answer in JSON: "answer": "yes" or "no"; "quote": if yes, the words of the text '
        'that show it is the same object, copied exactly, else "".'
    )


def same_object(
    reader: TextReader,
    a: Formula,
    b: Formula,
    shared: Sequence[str],
    texts: Mapping[str, str],
    section: Section | None = None,
) -> tuple[bool | None, str]:
    """Whether the text applies formulas ``a`` and ``b`` to one object, and why.

    True only on a yes whose quote is in the text; False on a no or on a yes the text
    does not bear out; None when the reader gave no answer. ``texts``: each document's
    text by file, as the formulas' sources name them. ``section``: the section both are in,
    whose text is then what the reader sees (the prefix its symbols were asked with);
    else the paragraphs around each.
    """
    text = pair_text(a, b, texts) if section is None else section_text(section)
    answer = reader.ask(text, same_object_question(a, b, shared, texts), SameObjectAnswer)
    if answer is None:
        return None, "the reader gave no answer"
    if answer.answer == "no":
        return False, "the reader: the text applies them to different objects"
    if not answer.quote.strip() or find_quote(answer.quote, text) is None:
        return False, f"the reader's yes quotes words not in the text ({answer.quote[:60]!r})"
    return True, f"the reader: the same object ({answer.quote[:60]!r})"

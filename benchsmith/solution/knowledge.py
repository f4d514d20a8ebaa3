"""From reference documents to an admitted solution graph.

Sections are read; explicit formulas are extracted deterministically (the patterns: the
first pass, and the whole reading when no reader model is given), relations stated in
words (``the current yield is the coupon divided by the price``) too. With a reader model,
each section is then asked small questions (:mod:`.reading`): the formulas it states in
words, and per symbol its formulas use, the text's words for it, its unit and a stated
range; each answer counts only where the text bears it out. Duplicates (the same formula
written twice) are merged, keeping the first source; every quantity gets its definition
from the reader where borne out, else from the text near its formula (then anywhere in the
references, then defaults); formulas are admitted by execution on sampled values. Pairs of
admitted formulas that share only an input are asked whether the text applies both to one
object (:mod:`.objects`); a chain never joins two that it does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import sympy as sp

from benchsmith.solution.admission import admit
from benchsmith.solution.dimensions import implied_unit, unit_disagreement
from benchsmith.solution.documents import Document, Section, read_document
from benchsmith.solution.expressions import safe_name
from benchsmith.solution.formulas import (
    Formula,
    RejectedFormula,
    alias_reason,
    extract_explicit,
    same_formula,
)
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.objects import MAX_PAIR_QUESTIONS, open_pairs, pair
from benchsmith.solution.quantities import (
    DEFAULT_RANGES,
    Quantity,
    default_quantity,
    definitions_of,
    find_definitions,
    kind_bounds,
    merge,
    word_name,
)
from benchsmith.solution.reading import (
    TextReader,
    mentions,
    read_symbol,
    read_word_formulas,
    same_object,
    section_text,
)
from benchsmith.solution.wordformulas import as_formula, find_word_formulas
from benchsmith.solution.wording import StructuredModel

NO_READER = (
    "no reader model: the patterns read the text alone (a symbol's words, unit and range "
    "from the definitions' phrasings they know; formulas in words only in those phrasings)"
)


@dataclass
class Knowledge:
    """The admitted graph and what was found on the way."""

    documents: list[Document]
    graph: SolutionGraph
    found: list[Formula]
    rejected: list[RejectedFormula]
    duplicates: list[RejectedFormula] = field(default_factory=list)
    """Formulas written again (in LaTeX and as a line, or in words): kept once, reported."""
    notes: list[str] = field(default_factory=list)
    """What the reading could not do: no reader, a reader that stopped, pairs unchecked."""
    reading: dict[str, Any] = field(default_factory=dict)
    """The reader's counts (questions asked, from the cache, failed) and its decisions on
    pairs of formulas (empty without a reader)."""

    @property
    def sections(self) -> list[Section]:
        """Every section of every document."""
        return [s for d in self.documents for s in d.sections]


def build_knowledge(
    references: Sequence[str | Path], *, reader: StructuredModel | None = None, seed: int = 0
) -> Knowledge:
    """Read references and build the admitted solution graph.

    Args:
        references: Markdown, text, LaTeX, HTML, CNXML or PDF files.
        reader: A reader model, asked small questions about each section (optional: without
            one the patterns read alone, as :data:`NO_READER` notes).
        seed: Seeds the admission samples.

    Raises:
        SolutionError: A reference cannot be read.
    """
    documents = [read_document(p) for p in references]
    sections = [s for d in documents for s in d.sections]
    asker = TextReader(reader) if reader is not None else None
    found: list[Formula] = []
    rejected: list[RejectedFormula] = []
    duplicates: list[RejectedFormula] = []
    hints: dict[str, Quantity] = {}
    near: dict[str, Section] = {}
    asked: set[str] = set()
    texts = {d.path.as_posix(): d.text for d in documents}

    def ask_symbols(section: Section, formulas: Sequence[Formula]) -> None:
        """The reader's reading of the symbols of ``formulas`` first used in ``section``."""
        if asker is None:
            return
        for name in sorted({n for f in formulas for n in f.names}):
            if name in asked or near.get(name, section) is not section:
                continue
            asked.add(name)
            users = [f for f in formulas if name in f.names]
            hint = read_symbol(asker, section, name, users, texts.get(section.file, ""))
            if hint is not None:
                hints[name] = hint

    # A Greek letter the text defines as a quantity ("$\\pi$ is the expected inflation
    # rate") is that quantity, not 3.14159.
    # "We will approximate $\\pi$ with 3.14": the constant, named only to round it.
    rounded_pi = re.compile(
        r"approximat\w*\s+\$?\\pi|\\pi\$?\s*(?:\\approx|≈)|(?:use|take)\s+3\.14"
    )
    defines_pi = any(
        definitions_of("pi_", s.text) and not rounded_pi.search(s.text) for s in sections
    )
    for section in sections:
        explicit, bad = extract_explicit(section, len(found))
        rejected.extend(bad)
        options = {f.id: answer_option(texts.get(section.file, ""), f) for f in explicit}
        rejected += [
            RejectedFormula(
                f.text,
                f.syntax,
                f.source,
                f"an answer offered to a question ({options[f.id]!r}), "
                "not a relation the text states",
            )
            for f in explicit
            if options[f.id]
        ]
        explicit = [f for f in explicit if not options[f.id]]
        new: list[Formula] = []
        for formula in explicit:  # the same formula written twice (LaTeX and a line) once
            if not _merged(formula, found + new, duplicates):
                new.append(formula)
        if asker is not None:
            prose, bad = read_word_formulas(asker, section, new, len(found) + len(new))
            rejected.extend(bad)
            new += [f for f in prose if not _merged(f, found + new, duplicates)]
        for formula in new:
            if defines_pi and formula.expr.has(sp.pi):
                expr = formula.expr.subs(sp.pi, sp.Symbol("pi_"))
                formula = replace(formula, expr=expr)  # noqa: PLW2901
            found.append(formula)
            for name in formula.names:
                near.setdefault(name, section)
        # While the section is the reader's cached prefix: the symbols it uses first.
        ask_symbols(
            section, [f for f in found[len(found) - len(new) :] if not worked_numbers(f.expr)]
        )
    # A worked example's numbers ("N_2 = 58.8 P") are not a relation the text teaches.
    plugged = {f.id: worked_numbers(f.expr) for f in found}
    rejected += [
        RejectedFormula(
            f.text,
            f.syntax,
            f.source,
            f"a worked example's numbers ({plugged[f.id]}), not a relation between quantities",
        )
        for f in found
        if plugged[f.id]
    ]
    found = [f for f in found if not plugged[f.id]]
    # "y = 2 e^{0.5 x}" after "y = A_0 e^{k x}": the text's formula with numbers for some of
    # its quantities, a worked example's model
    instances = {f.id: g for f in found if (g := instance_of(f, found)) is not None}
    rejected += [
        RejectedFormula(
            f.text,
            f.syntax,
            f.source,
            f"{instances[f.id].text!r} with numbers for some of its quantities: a worked "
            "example, not a relation of its own",
        )
        for f in found
        if f.id in instances
    ]
    found = [f for f in found if f.id not in instances]
    whole = "\n".join(d.text for d in documents)
    readings: dict[tuple[str, str, int], Quantity | None] = {}

    def read(name: str, section: Section) -> Quantity | None:
        """The text's definition of ``name`` near ``section``, read once per build."""
        key = (name, section.file, section.start)
        if key not in readings:
            document = texts.get(section.file, "") or whole
            readings[key] = find_definitions({name}, sections, section, document).get(name)
        return readings[key]

    found = _letter_products(found, near, read)
    for section in sections:  # the letters of a product the text never wrote alone
        own = {name for name, home in near.items() if home is section} - asked
        ask_symbols(section, [f for f in found if f.names & own])
    # "P = PV" left whole is one quantity named twice (as "a = g" is refused when read)
    aliases = [f for f in found if isinstance(f.expr, sp.Symbol)]
    rejected += [
        RejectedFormula(f.text, f.syntax, f.source, alias_reason(f.output, f.expr)) for f in aliases
    ]
    found = [f for f in found if f not in aliases]
    # Renumber after merging so ids are dense and stable.
    found = [
        Formula(f"f{i}", f.output, f.expr, f.text, f.syntax, f.source, f.concept)
        for i, f in enumerate(found)
    ]
    notes: list[str] = []
    _ambiguous(hints, notes, texts)
    patterns = {
        name: read(name, section) or default_quantity(name) for name, section in near.items()
    }
    _taken_by_patterns(hints, patterns, notes)
    quantities: dict[str, Quantity] = {}
    for name in near:
        quantity = patterns[name]
        if name in hints:
            quantity = _with_reading(quantity, hints[name])
        quantities[name] = quantity
    # Relations stated in words join when their noun phrases name defined quantities
    # (symbols the text defines, whether or not a written formula uses them); otherwise
    # they are reported, so that no formula of the text is missed silently.
    words = [(s, w) for s in sections for w in find_word_formulas(s)]
    named = dict(quantities)
    if words:
        for section in sections:
            fresh = _math_symbols(section.text) - set(named)
            named |= find_definitions(fresh, sections, section, texts.get(section.file, ""))
    for _, word in words:
        parsed = as_formula(word, named)
        if isinstance(parsed, str):
            rejected.append(RejectedFormula(word.text, "prose", word.source, parsed))
            continue
        output, expr = parsed
        for name in {output, *map(str, expr.free_symbols)}:
            quantities.setdefault(name, named[name])
        formula = Formula(
            f"f{len(found)}", output, expr, word.text, "prose", word.source, word.concept
        )
        if not _merged(formula, found, duplicates):
            found.append(formula)
    _units_from_inputs(found, quantities)
    # The text's units must agree with the formula computed on plain numbers (Q = C V in
    # μC, F and V would give answers a million times off).
    clash = {f.id: unit_disagreement(f.output, f.expr, quantities) for f in found}
    rejected += [
        RejectedFormula(f.text, f.syntax, f.source, clash[f.id]) for f in found if clash[f.id]
    ]
    admitted, refused = admit([f for f in found if not clash[f.id]], quantities, seed)
    notes = ([NO_READER] if asker is None else []) + notes
    apart, decisions = _objects(asker, admitted, sections, texts, notes)
    graph = SolutionGraph(quantities, admitted, apart, rivals=True)
    reading: dict[str, Any] = {}
    if asker is not None:
        notes += asker.notes
        reading = asker.summary() | {"symbols_read": sorted(hints), "pairs": decisions}
    return Knowledge(documents, graph, found, rejected + refused, duplicates, notes, reading)


def _units_from_inputs(found: Sequence[Formula], quantities: dict[str, Quantity]) -> None:
    """A result whose unit nothing read gets the unit its formula's inputs give it.

    "the simple interest" is in no unit the words say; ``I = P r t`` over dollars, a
    percent and years makes it dollars (and ``T = P + I`` then too). Only an assumed unit
    is filled (a unit the text writes is checked against the inputs instead); a range
    assumed for the old kind becomes the new kind's. Two passes follow a chain of two.
    """
    for _ in range(2):
        for formula in found:
            quantity = quantities.get(formula.output)
            if quantity is None or "unit" not in quantity.assumed:
                continue
            implied = implied_unit(formula.expr, quantities)
            if implied is None:
                continue
            family, symbol = implied
            span = DEFAULT_RANGES[family] if "range" in quantity.assumed else None
            quantities[formula.output] = replace(
                quantity,
                unit=family,
                symbol=symbol,
                integer=False,
                low=span[0] if span else quantity.low,
                high=span[1] if span else quantity.high,
                bounds=kind_bounds(family, symbol) if span else quantity.bounds,
                choices=() if span else quantity.choices,
                assumed=tuple(a for a in quantity.assumed if a != "unit"),
                origins=(
                    *[o for o in quantity.origins if o[0] != "unit"],
                    ("unit", f"from its formula's inputs ({formula.equation()[:60]})"),
                ),
            )


def _with_reading(patterns: Quantity, reader: Quantity) -> Quantity:
    """The reader's reading where the text bears it out, the patterns' for the rest.

    The reader's words, where found near the symbol, beat the patterns' (which read only
    the phrasings they know). A unit or range the reader read in the text beats the
    patterns'; one only inferred from the reader's words (a "value" is money) yields to
    what the patterns read. What neither read stays assumed.
    """
    said = dict(reader.origins)
    unit_read = said.get("unit", "").startswith("reader")
    range_read = said.get("range", "").startswith("reader")
    if "description" in reader.assumed:
        base = merge(patterns, replace(reader, assumed=(*reader.assumed, "description")))
    else:
        base = merge(reader, patterns)
    # A name set in words ("diastolic_BP") is what the text calls the quantity: the
    # reader's words for it replace them only when they say more ("payoff amount" for
    # Payoff), never others ("blood pressure" for diastolic_BP, "percentage" for Rating). A
    # short word may be an abbreviation ("Eff"): the reader's words for it stand.
    own = word_name(patterns.name)
    own_words = (
        own == patterns.description
        and (" " in own or len(own) >= 5)
        and not set(own.lower().split()) <= set(reader.description.lower().split())
    )
    # one word of the reader's, cut short of the patterns' reading ("cost" where the text
    # says "cost per thousand (CPM)"): the fuller words, both the text's
    # says the text's words, or the reader's without their head ("individuals exposed but
    # without disease" where the text lists b = number of individuals exposed but ...)
    said_words = reader.description.lower().split()
    fuller = patterns.description.lower().split()
    headless = (
        len(fuller) > len(said_words) > 0
        and fuller[-len(said_words) :] == said_words
        and fuller[-len(said_words) - 1] == "of"
    )
    cut_short = "description" not in patterns.assumed and (
        headless or (len(said_words) == 1 and set(said_words) < set(fuller))
    )
    parts: dict[str, Quantity] = {
        "description": (
            reader
            if "description" not in reader.assumed and not own_words and not cut_short
            else patterns
        ),
        "unit": reader if unit_read or "unit" in patterns.assumed else patterns,
        "range": reader if range_read or "range" in patterns.assumed else patterns,
    }
    # The reader's words led to worked values of the quantity in its kind ("interest rate":
    # 0.0125, 0.055, ...) where the patterns took a unit from words after the symbol
    # ("annual interest rate r for a number of years"): the values decide.
    found_near = re.match(r"worked examples?\b.* near '", said.get("range", ""))
    worked = bool(found_near) and "range" not in reader.assumed
    if worked and "unit" not in reader.assumed and reader.unit != patterns.unit:
        parts["unit"] = parts["range"] = reader
    unit, span = parts["unit"], parts["range"]
    if unit is patterns and not range_read:
        span = patterns  # a range is in its unit's terms (a percentage as a fraction)
    merged = replace(
        base,
        description=parts["description"].description,
        unit=unit.unit,
        symbol=unit.symbol,
        per=unit.per,
        integer=unit.integer,
        low=span.low,
        high=span.high,
        choices=span.choices,
        bounds=span.bounds,
        assumed=tuple(p for p in ("description", "unit", "range") if p in parts[p].assumed),
        origins=tuple(
            (p, dict(parts[p].origins).get(p, "assumed")) for p in ("description", "unit", "range")
        ),
        source=reader.source or patterns.source,
    )
    if "description" in merged.assumed:
        merged = replace(merged, description=patterns.description)
    return merged


def _objects(
    asker: TextReader | None,
    admitted: Sequence[Formula],
    sections: Sequence[Section],
    texts: dict[str, str],
    notes: list[str],
) -> tuple[set[frozenset[str]], list[dict[str, Any]]]:
    """Pairs of admitted formulas no chain may join, and the reader's decision on each.

    Only pairs the code cannot tell are asked (:func:`~benchsmith.solution.objects.open_pairs`),
    those of one section together (its text stays the reader's cached prefix); without a
    reader, or past :data:`~benchsmith.solution.objects.MAX_PAIR_QUESTIONS`, a pair is kept
    as before, and ``notes`` says how many were not checked.
    """
    home = {f.id: _section_of(f, sections) for f in admitted}
    order = {id(s): i for i, s in enumerate(sections)}

    def place(item: tuple[Formula, Formula, tuple[str, ...]]) -> int:
        """A pair of one section by that section, in reading order; other pairs last."""
        a, b, _ = item
        section = home[a.id]
        return order[id(section)] if section is not None and section is home[b.id] else len(order)

    apart: set[frozenset[str]] = set()
    decisions: list[dict[str, Any]] = []
    unchecked = 0
    for a, b, shared in sorted(open_pairs(admitted), key=place):
        if asker is None or asker.stopped or len(decisions) >= MAX_PAIR_QUESTIONS:
            unchecked += 1
            continue
        section = home[a.id] if home[a.id] is home[b.id] else None
        same, why = same_object(asker, a, b, shared, texts, section)
        decisions.append({"formulas": [a.text, b.text], "shared": list(shared), "same": same,
                          "why": why})  # fmt: skip
        if same is None:
            unchecked += 1
        elif not same:
            apart.add(pair(a.id, b.id))
    if unchecked:
        notes.append(
            f"{unchecked} pair(s) of formulas share only an input and were not asked whether "
            "the text applies both to one object: chains may join them"
        )
    return apart, decisions


def _ambiguous(
    hints: dict[str, Quantity], notes: list[str], texts: Mapping[str, str] | None = None
) -> None:
    """Where the reader gave the same words for several symbols, keep them for one at most.

    "heat" for both the heat from the hot and into the cold reservoir would make a problem
    that gives one and asks the other unreadable. The words stay with the symbol the text
    writes nearest to them ("the output work ($W_o$)"), when one is clearly nearest (by
    :data:`CLEARLY_NEAREST` characters); the patterns read the others.
    """
    named: dict[str, list[str]] = {}
    for name, hint in hints.items():
        if "description" not in hint.assumed:
            named.setdefault(hint.description.lower(), []).append(name)
    for words, names in named.items():
        if len(names) < 2:
            continue
        distance = {n: _distance_to_mention(n, hints[n], texts or {}) for n in names}
        ranked = sorted(names, key=lambda n: distance[n])
        keep = ranked[0] if distance[ranked[1]] - distance[ranked[0]] >= CLEARLY_NEAREST else None
        for name in names:
            if name == keep:
                continue
            hint = hints[name]
            assumed = (*hint.assumed, "description")
            hints[name] = replace(hint, description=f"quantity {name}", assumed=assumed)
        others = ", ".join(sorted(n for n in names if n != keep))
        kept = f" kept for {keep}, the symbol written nearest them;" if keep else ""
        notes.append(
            f"the reader gave the same words ({words!r}) for {', '.join(sorted(names))}:"
            f"{kept} the patterns read {others}"
        )


def _taken_by_patterns(
    hints: dict[str, Quantity], patterns: Mapping[str, Quantity], notes: list[str]
) -> None:
    """The reader's words for a symbol that the text's definition gives another, dropped.

    "molar mass" for ``m`` where the text defines ``M`` as the molar mass and ``m`` as the
    mass of the sample: the patterns' own definition of ``m`` stands. So do words that are
    part of another symbol's definition ("exposed but without disease" for ``d`` where the
    text lists ``b`` = number of individuals exposed but without disease): they name the
    other as well as this one.
    """
    defined = {
        q.description.lower(): name
        for name, q in patterns.items()
        if "description" not in q.assumed
    }

    def within(words: str, description: str) -> bool:
        return f" {' '.join(words.split())} " in f" {' '.join(description.split())} "

    for name, hint in hints.items():
        said = hint.description.lower()
        other = defined.get(said) or next(
            (n for d, n in defined.items() if n != name and said and within(said, d)), None
        )
        own = patterns.get(name)
        if other in (None, name) or "description" in hint.assumed:
            continue
        if own is None or "description" in own.assumed:
            continue  # the patterns have nothing better for it
        hints[name] = replace(
            hint, description=own.description, assumed=(*hint.assumed, "description")
        )
        notes.append(
            f"the reader's words for {name} ({hint.description!r}) are (in) the text's definition"
            f" of {other}: the patterns' reading of {name} ({own.description!r}) stands"
        )


CLEARLY_NEAREST = 40
"""Characters by which one symbol must be nearer the reader's words than the others."""


def _distance_to_mention(name: str, hint: Quantity, texts: Mapping[str, str]) -> float:
    """Characters between the reader's words (as found in the text) and the symbol."""
    source = hint.source
    text = texts.get(source.file, "") if source is not None else ""
    at = mentions(name, text) if text else []
    if source is None or not at:
        return float("inf")
    return float(min(min(abs(a - source.start), abs(a - source.end)) for a in at))


def _section_of(formula: Formula, sections: Sequence[Section]) -> Section | None:
    """The section a formula was read in, when the reader saw it there (None: not seen)."""
    for section in sections:
        if section.file == formula.source.file and section.start <= formula.source.start:
            if formula.source.end <= min(section.end, section.start + len(section_text(section))):
                return section
    return None


def _letter_products(
    found: list[Formula],
    near: dict[str, Section],
    read: Callable[[str, Section], Quantity | None],
) -> list[Formula]:
    r"""Upright letters side by side that the text never names are a product of its symbols.

    "$P = \mathrm{IV}$" where the text defines $I$ (the current) and $V$ (the voltage) but
    never "IV" is P = I V; "PV" that a finance text defines ("present value (PV)") stays one
    quantity. ``near`` is updated with the letters; ``read`` gives the text's definition of
    a symbol near a section (or None).
    """
    known: dict[str, bool] = {}

    def defined(name: str, section: Section) -> bool:
        if name not in known:
            quantity = read(name, section)
            known[name] = quantity is not None and "description" not in quantity.assumed
        return known[name]

    out: list[Formula] = []
    for formula in found:
        swap: dict[sp.Symbol, sp.Expr] = {}
        for symbol in formula.expr.free_symbols:
            name = str(symbol)
            section = near.get(name)
            if (
                section is None
                or not re.fullmatch(r"[A-Za-z]{2,4}", name)
                or defined(name, section)
                or not all(defined(safe_name(letter), section) for letter in name)
            ):
                continue
            swap[symbol] = sp.Mul(*(sp.Symbol(safe_name(letter)) for letter in name))
            for letter in name:
                near.setdefault(safe_name(letter), section)
        out.append(replace(formula, expr=formula.expr.xreplace(swap)) if swap else formula)
    return out


UNIT_CONSTANTS = frozenset(
    float(n) for n in (0, 1, 2, 3, 4, 10, 12, 24, 52, 60, 100, 360, 365, 1000, 3600, 1000000)
)
"""Whole numbers a formula may carry (periods per year, percent, units); others are values."""


def answer_option(text: str, formula: Formula) -> str:
    """The question a formula is offered as an answer to ('' when it is none).

    A review question lists formulas to choose from ("How is the efficiency of a heat pump
    expressed?" then "- Eff = W √Q_c", "- Eff = W / Q_c", ...): each list entry that holds
    only a formula, after a line that asks, is an option, and most options are wrong.
    """
    source = formula.source
    if source is None or not text or source.file is None:
        return ""
    start = source.start
    line_start = text.rfind("\n", 0, start) + 1
    if not re.fullmatch(r"\s*[-*+]\s*", text[line_start:start]):
        return ""
    line_end = text.find("\n", source.end)
    if text[source.end : len(text) if line_end < 0 else line_end].strip(" .,;"):
        return ""  # words after the formula: an entry that states something
    for line in reversed(text[:line_start].splitlines()):
        if not line.strip() or re.match(r"\s*[-*+]\s+\$[^$]+\$+\s*$", line):
            continue  # a blank line or another formula offered
        return line.strip() if line.rstrip().endswith("?") else ""
    return ""


def worked_numbers(expr: sp.Expr) -> str:
    """The numbers that make an expression a worked example's, not a formula ('' if none).

    Formulas carry exact constants (1/2, 4, pi, 1000 for kWh); a decimal such as 58.8 is a
    value plugged in.
    """
    numbers = [a for a in expr.atoms(sp.Number) if a not in (sp.S.Half, sp.S.NegativeOne)]
    # A relation between two or more quantities may carry a short coefficient of its own
    # ("(P - 0.2 S)^2 / (P + 0.8 S)", "0.693 V_d / CL"); a worked line has one quantity
    # left ("58.8 P") or values of several digits.
    related = len(expr.free_symbols) >= 2
    odd = [
        a
        for a in numbers
        if isinstance(a, sp.Float)
        # "= 196" at the end of a worked line is a result, not a constant of a formula
        and (not float(a).is_integer() or abs(float(a)) not in UNIT_CONSTANTS)
        and not (related and abs(float(a)) < 10 and len(f"{abs(float(a)):g}".strip("0.")) <= 3)
    ]
    return ", ".join(str(a) for a in odd[:3])


def instance_of(formula: Formula, others: Sequence[Formula]) -> Formula | None:
    """The formula of ``others`` that ``formula`` is, with numbers for some of its inputs.

    "y = 2 e^{0.5 x}" is "y = A_0 e^{k x}" with A_0 = 2 and k = 0.5: same output, the other
    inputs matched one to one by symbols. None when ``formula`` has no number of its own.
    """
    numbers = [a for a in formula.expr.atoms(sp.Number) if abs(a) != 1 and a != sp.S.Half]
    if not numbers:
        return None
    for other in others:
        if other.output != formula.output or len(other.inputs) <= len(formula.inputs):
            continue
        wilds = {s: sp.Wild(f"w_{s}") for s in other.expr.free_symbols}
        try:
            matched = formula.expr.match(other.expr.xreplace(wilds))
        except (TypeError, ValueError, RecursionError):
            continue
        if not matched or any(w not in matched for w in wilds.values()):
            continue
        values = [matched[w] for w in wilds.values()]
        symbols = [v for v in values if isinstance(v, sp.Symbol)]
        given = [v for v in values if v.is_number]
        if given and len(symbols) + len(given) == len(values) and len(set(symbols)) == len(symbols):
            return other
    return None


def _math_symbols(text: str) -> set[str]:
    """Plain symbols written alone in inline math (``$W$``, ``$v_0$``), as formula names."""
    found = re.findall(r"(?<![$\\])\$\s*([A-Za-z][A-Za-z0-9]*(?:_\{?[A-Za-z0-9]+\}?)?)\s*\$", text)
    return {safe_name(re.sub(r"[{}]", "", f)) for f in found}


def _merged(formula: Formula, kept: Sequence[Formula], duplicates: list[RejectedFormula]) -> bool:
    """Whether ``formula`` repeats one of ``kept``; a repeat is recorded in ``duplicates``."""
    first = next((g for g in kept if same_formula(formula, g)), None)
    if first is None:
        return False
    where = first.source.section or first.source.file
    reason = f"the same relation as {first.text!r} ({where}); kept once"
    duplicates.append(RejectedFormula(formula.text, formula.syntax, formula.source, reason))
    return True

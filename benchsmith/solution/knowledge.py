"""From reference documents to an admitted solution graph.

Sections are read; explicit formulas are extracted deterministically, relations stated in
words (``the current yield is the coupon divided by the price``) too, and, with a model,
other formulas in prose; duplicates (the same formula written twice) are merged, keeping the
first source; every quantity gets its definition from the text near its formula (then
anywhere in the references, then the model's hints, then defaults); formulas are admitted
by execution on sampled values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import sympy as sp

from benchsmith.solution.admission import admit
from benchsmith.solution.dimensions import unit_disagreement
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
from benchsmith.solution.prose import extract_prose
from benchsmith.solution.quantities import (
    Quantity,
    default_quantity,
    definitions_of,
    find_definitions,
    merge,
)
from benchsmith.solution.wordformulas import as_formula, find_word_formulas
from benchsmith.solution.wording import StructuredModel


@dataclass
class Knowledge:
    """The admitted graph and what was found on the way."""

    documents: list[Document]
    graph: SolutionGraph
    found: list[Formula]
    rejected: list[RejectedFormula]
    duplicates: list[RejectedFormula] = field(default_factory=list)
    """Formulas written again (in LaTeX and as a line, or in words): kept once, reported."""

    @property
    def sections(self) -> list[Section]:
        """Every section of every document."""
        return [s for d in self.documents for s in d.sections]


def build_knowledge(
    references: Sequence[str | Path], *, model: StructuredModel | None = None, seed: int = 0
) -> Knowledge:
    """Read references and build the admitted solution graph.

    Args:
        references: Markdown, text or PDF files.
        model: A role model for formulas in prose and quantity hints (optional).
        seed: Seeds the admission samples.

    Raises:
        SolutionError: A reference cannot be read.
    """
    documents = [read_document(p) for p in references]
    sections = [s for d in documents for s in d.sections]
    found: list[Formula] = []
    rejected: list[RejectedFormula] = []
    duplicates: list[RejectedFormula] = []
    hints: dict[str, Quantity] = {}
    near: dict[str, Section] = {}
    # A Greek letter the text defines as a quantity ("$\\pi$ is the expected inflation
    # rate") is that quantity, not 3.14159.
    defines_pi = any(definitions_of("pi_", s.text) for s in sections)
    for section in sections:
        explicit, bad = extract_explicit(section, len(found))
        rejected.extend(bad)
        new: list[Formula] = []
        for formula in explicit:  # the same formula written twice (LaTeX and a line) once
            if not _merged(formula, found + new, duplicates):
                new.append(formula)
        if model is not None:
            prose, bad, quantity_hints = extract_prose(
                model, section, found + new, len(found) + len(new)
            )
            rejected.extend(bad)
            new += [f for f in prose if not _merged(f, found + new, duplicates)]
            for hint in quantity_hints:
                hints.setdefault(hint.name, hint)
        for formula in new:
            if defines_pi and formula.expr.has(sp.pi):
                expr = formula.expr.subs(sp.pi, sp.Symbol("pi_"))
                formula = replace(formula, expr=expr)  # noqa: PLW2901
            found.append(formula)
            for name in formula.names:
                near.setdefault(name, section)
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
    texts = {d.path.as_posix(): d.text for d in documents}
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
    quantities: dict[str, Quantity] = {}
    for name, section in near.items():
        quantity = read(name, section) or default_quantity(name)
        if name in hints:
            # the model's reading, where the text bears it out, beats the patterns' reading;
            # the patterns fill what it does not (and it fills what they assumed)
            hint = hints[name]
            quantity = (
                merge(hint, quantity)
                if "description" not in hint.assumed
                else merge(quantity, replace(hint, assumed=(*hint.assumed, "description")))
            )
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
    # The text's units must agree with the formula computed on plain numbers (Q = C V in
    # μC, F and V would give answers a million times off).
    clash = {f.id: unit_disagreement(f.output, f.expr, quantities) for f in found}
    rejected += [
        RejectedFormula(f.text, f.syntax, f.source, clash[f.id]) for f in found if clash[f.id]
    ]
    admitted, refused = admit([f for f in found if not clash[f.id]], quantities, seed)
    graph = SolutionGraph(quantities, admitted)
    return Knowledge(documents, graph, found, rejected + refused, duplicates)


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

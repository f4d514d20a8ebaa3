"""Formulas stated in prose, found by the model (optional), and quantity hints.

The model answers :class:`ProseExtraction` for one section at a time. Its formulas are parsed
like explicit ones (a formula that does not parse is rejected with the reason); the quoted
sentence gives the source span (the whole section when the quote is not found verbatim).
Its quantity hints fill what the text did not define (read definitions win).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from benchsmith.prompts import render, untrusted
from benchsmith.solution.documents import Section
from benchsmith.solution.errors import FormulaSyntaxError
from benchsmith.solution.expressions import is_name, names_of, parse_expression, safe_name
from benchsmith.solution.formulas import Formula, RejectedFormula
from benchsmith.solution.quantities import DEFAULT_RANGES, UNITS, Quantity
from benchsmith.solution.wording import StructuredModel

Unit = Literal["currency", "percent", "years", "periods", "count", "number"]


class ProseFormula(BaseModel):
    """One formula the text states in words."""

    output: str = Field(max_length=40, description="The symbol of the quantity defined.")
    expression: str = Field(
        max_length=300,
        description="The right-hand side over other symbols, e.g. 'PMT * n - P'.",
    )
    quote: str = Field(
        default="", max_length=400, description="The exact sentence of the text stating it."
    )


class QuantityHint(BaseModel):
    """What one quantity is, its unit and a plausible range."""

    name: str = Field(max_length=40, description="The symbol.")
    description: str = Field(
        max_length=80, description="The text's own words for it, copied exactly (a noun phrase)."
    )
    unit: Unit = Field(description="The unit family.")
    unit_written: str = Field(
        default="",
        max_length=16,
        description="Its unit exactly as the text writes it after a value (m/s, mg/L); '' if none.",
    )
    low: float = Field(description="Smallest plausible value (percent as a fraction).")
    high: float = Field(description="Largest plausible value (percent as a fraction).")


class ProseExtraction(BaseModel):
    """Formulas in prose of one section, and the quantities they use."""

    formulas: list[ProseFormula] = Field(default_factory=list, max_length=12)
    quantities: list[QuantityHint] = Field(default_factory=list, max_length=30)


def hint_quantity(hint: QuantityHint, document: str = "") -> Quantity | None:
    """A quantity from a model hint, each part marked read only when the text bears it out.

    The model reads definitions better than patterns do, but it may invent: its words count
    as the text's only when they are in ``document`` (case and spacing aside), its unit only
    when the text writes it after a value (or in "units of ..."), its range only when the
    text writes both ends. A part the text does not bear out is *assumed*, so the reading of
    the text's own patterns fills it (:func:`~benchsmith.solution.quantities.merge`).
    None when the hint names no symbol or its unit family is unknown.
    """
    if not is_name(hint.name) or hint.unit not in UNITS:
        return None
    flat = " ".join(document.split()).lower()
    words = " ".join(hint.description.split()).strip(" .,;:")
    words = re.sub(r"^(?:the|a|an)\s+", "", words, flags=re.I)
    assumed = []
    if len(words) < 3 or words.lower() not in flat or not re.search(r"[a-z]{3,}", words):
        assumed.append("description")
    written = hint.unit_written.strip()
    seen = written and re.search(
        rf"(?:\d[\s~$]*|\bunits?\s+of\s+){re.escape(written)}(?![\w/])", document
    )
    family = {"currency": r"\$\s?\d", "percent": r"\d\s?%"}.get(hint.unit)
    if not seen and not (family and re.search(family, document)):
        assumed.append("unit")
    low, high = (hint.low, hint.high) if hint.low < hint.high else DEFAULT_RANGES[hint.unit]
    scale = 100 if hint.unit == "percent" else 1
    if not all(_number_in(v * scale, document) for v in (low, high)):
        assumed.append("range")
    return Quantity(
        safe_name(hint.name),
        words or hint.name,
        "number" if seen and hint.unit not in ("years", "periods") else hint.unit,
        low,
        high,
        hint.unit in ("years", "periods"),
        assumed=tuple(assumed),
        symbol=written if seen else "",
        origins=(("description", "model, checked against the text"),),
    )


def _number_in(value: float, document: str) -> bool:
    """Whether the text writes ``value`` (1000, 1,000, 0.05, 5)."""
    shown = {f"{value:g}", f"{value:,.0f}" if value == int(value) else f"{value:g}"}
    return any(re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", document) for s in shown)


def extract_prose(
    model: StructuredModel, section: Section, known: list[Formula], start_id: int
) -> tuple[list[Formula], list[RejectedFormula], list[Quantity]]:
    """The model's formulas of a section (parsed), rejects, and its quantity hints."""
    prompt = render(
        "solution_formulas",
        section=section.title,
        known=[f.equation() for f in known] or ["(none)"],
        units=list(UNITS),
        text=untrusted(section.text[:6000], "reference section"),
    )
    reply = model.structured(ProseExtraction, [("user", prompt)])
    formulas: list[Formula] = []
    rejected: list[RejectedFormula] = []
    for item in reply.formulas:
        quote = item.quote.strip()
        at = section.text.find(quote) if quote else -1
        source = section.source(at, at + len(quote)) if at >= 0 else section.source()
        text = f"{item.output} = {item.expression}"
        if not is_name(item.output):
            rejected.append(RejectedFormula(text, "prose", source, "output is not a name"))
            continue
        try:
            expr = parse_expression(item.expression)
        except FormulaSyntaxError as exc:
            rejected.append(RejectedFormula(text, "prose", source, f"cannot parse: {exc}"))
            continue
        output = safe_name(item.output.strip())
        if not expr.free_symbols or output in names_of(expr):
            reason = "no quantities on the right" if not expr.free_symbols else "self-reference"
            rejected.append(RejectedFormula(text, "prose", source, reason))
            continue
        formulas.append(
            Formula(
                f"f{start_id + len(formulas)}",
                output,
                expr,
                quote or text,
                "prose",
                source,
                section.concept,
            )
        )
    hints = [q for q in (hint_quantity(h, section.text) for h in reply.quantities) if q]
    return formulas, rejected, hints

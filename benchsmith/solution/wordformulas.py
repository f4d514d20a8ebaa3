"""Formulas stated in words, found without a model.

Textbooks state simple relations in a sentence: "the average speed is the distance travelled
divided by the time taken", "the current yield equals the annual coupon divided by the
price". Such a sentence is found here; its noun phrases are matched with the descriptions
of the quantities the text defines. When every phrase names a defined quantity, the
sentence becomes a formula (syntax ``prose``); otherwise it is reported with the phrases
that name no defined symbol, so that no formula of the document is missed silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from benchsmith.solution.documents import Section, Source
from benchsmith.solution.quantities import Quantity

_PHRASE = r"[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,4}?"
_OPERATORS = {
    "divided by": "/",
    "over": "/",
    "multiplied by": "*",
    "times": "*",
    "plus": "+",
    "added to": "+",
    "minus": "-",
    "less": "-",
}
_SENTENCE = re.compile(
    rf"\b(?:the|an?|its)\s+(?P<a>{_PHRASE})\s+(?:is|equals|is equal to)\s+(?:the\s+)?"
    rf"(?P<b>{_PHRASE})\s+(?P<op>{'|'.join(_OPERATORS)})\s+(?:the\s+)?(?P<c>{_PHRASE})"
    r"(?=\s*[.;,]|\s*$)",
    re.I,
)


@dataclass(frozen=True)
class WordFormula:
    """A relation stated in a sentence: ``a = b (op) c`` over noun phrases."""

    text: str
    phrases: tuple[str, str, str]
    operator: str
    source: Source
    concept: str


def find_word_formulas(section: Section) -> list[WordFormula]:
    """Every sentence of a section that states ``A is B divided by C`` (and the like)."""
    out = []
    for match in _SENTENCE.finditer(section.text):
        phrases = (match.group("a"), match.group("b"), match.group("c"))
        phrases = tuple(re.sub(r"\s+", " ", p.strip()).lower() for p in phrases)
        out.append(
            WordFormula(
                re.sub(r"\s+", " ", match.group(0)).strip(),
                phrases,  # type: ignore[arg-type]
                _OPERATORS[match.group("op").lower()],
                section.source(match.start(), match.end()),
                section.concept,
            )
        )
    return out


def symbol_for(phrase: str, quantities: Mapping[str, Quantity]) -> str | None:
    """The defined quantity a noun phrase names (its description), or None."""
    for name, quantity in quantities.items():
        if "description" in quantity.assumed:
            continue
        if quantity.description.lower() == phrase:
            return name
    return None


def as_formula(word: WordFormula, quantities: Mapping[str, Quantity]) -> tuple[str, sp.Expr] | str:
    """``(output, expression)`` when every phrase names a defined quantity, else the reason."""
    names = [symbol_for(p, quantities) for p in word.phrases]
    missing = [p for p, n in zip(word.phrases, names, strict=True) if n is None]
    if missing:
        listed = ", ".join(repr(p) for p in missing)
        return f"stated in words; no symbol of the text is defined as {listed}"
    output, left, right = (sp.Symbol(n) for n in names if n is not None)
    expr = sp.sympify(f"a {word.operator} b", locals={"a": left, "b": right})
    return str(output), expr

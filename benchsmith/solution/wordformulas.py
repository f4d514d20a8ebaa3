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

import snowballstemmer
import sympy as sp

from benchsmith.solution.documents import Section, Source
from benchsmith.solution.quantities import Quantity

_PHRASE = r"[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,4}?"
STEMMER = snowballstemmer.stemmer("english")
_ARTICLES = {"the", "a", "an", "its", "of"}
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
_LEAD = r"\b(?:the|an?|its)\s+(?P<a>{p})\s+(?:is|equals|is equal to)\s+(?:the\s+)?"
_END = r"(?=\s*[.;,]|\s*$)"
_SENTENCES = (
    # "the average speed is the distance travelled divided by the time taken"
    re.compile(
        _LEAD.format(p=_PHRASE)
        + rf"(?P<b>{_PHRASE})\s+(?P<op>{'|'.join(_OPERATORS)})\s+(?:the\s+)?(?P<c>{_PHRASE})"
        + _END,
        re.I,
    ),
    # "the work is the product of the force and the distance", "the ratio of B to C", ...
    re.compile(
        _LEAD.format(p=_PHRASE)
        + r"(?P<op>product|ratio|sum|difference|quotient)\s+(?:of|between)\s+(?:the\s+)?"
        + rf"(?P<b>{_PHRASE})\s+(?:and|to|by)\s+(?:the\s+)?(?P<c>{_PHRASE})"
        + _END,
        re.I,
    ),
)
_NAMED = {"product": "*", "ratio": "/", "quotient": "/", "sum": "+", "difference": "-"}


@dataclass(frozen=True)
class WordFormula:
    """A relation stated in a sentence: ``a = b (op) c`` over noun phrases."""

    text: str
    phrases: tuple[str, str, str]
    operator: str
    source: Source
    concept: str


def find_word_formulas(section: Section) -> list[WordFormula]:
    """Sentences stating ``A is B divided by C``, ``A is the product of B and C`` and alike."""
    out = []
    matches = [m for pattern in _SENTENCES for m in pattern.finditer(section.text)]
    for match in sorted(matches, key=lambda m: m.start()):
        op = match.group("op").lower()
        phrases = (match.group("a"), match.group("b"), match.group("c"))
        phrases = tuple(re.sub(r"\s+", " ", p.strip()).lower() for p in phrases)
        out.append(
            WordFormula(
                re.sub(r"\s+", " ", match.group(0)).strip(),
                phrases,  # type: ignore[arg-type]
                _OPERATORS.get(op) or _NAMED[op],
                section.source(match.start(), match.end()),
                section.concept,
            )
        )
    return out


def _stems(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return frozenset(STEMMER.stemWord(w) for w in words if w not in _ARTICLES)


def symbol_for(phrase: str, quantities: Mapping[str, Quantity]) -> str | None:
    """The defined quantity a noun phrase names, or None.

    The phrase names a quantity when it is its description, word for word or up to word
    forms ("distances travelled"), or when it has two words or more and exactly one
    description holds them all ("annual coupon" for the annual coupon payment).
    """
    defined = {n: q for n, q in quantities.items() if "description" not in q.assumed}
    for name, quantity in defined.items():
        if quantity.description.lower() == phrase:
            return name
    wanted = _stems(phrase)
    if not wanted:
        return None
    same = [n for n, q in defined.items() if _stems(q.description) == wanted]
    if len(same) == 1:
        return same[0]
    holding = [n for n, q in defined.items() if wanted <= _stems(q.description)]
    return holding[0] if len(holding) == 1 and len(wanted) >= 2 else None


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

"""Quantities: description, unit and plausible range, read from the text near a formula.

A definition is found where the text names the quantity: ``where r is the interest rate per
period, in percent per period, typically between 0.1% and 12%``, ``Let PMT be ...``, or a
list entry ``- `EAR` — the effective annual rate, ...``. The unit comes from words such as
``in dollars``, ``in percent``, ``in years``, ``in periods``, ``a pure number``; the range from
``between A and B`` (``%`` values are fractions: 5% is 0.05); ``one of 1, 2, 4 or 12`` gives
allowed values. What the text does not say is filled with defaults by unit and by name
(recorded as ``assumed``), or by the model when one is given.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field, replace

from benchsmith.solution.documents import Section, Source

UNITS = ("currency", "percent", "years", "periods", "count", "number")
DEFAULT_RANGES: dict[str, tuple[float, float]] = {
    "currency": (100.0, 100_000.0),
    "percent": (0.01, 0.12),
    "years": (1.0, 30.0),
    "periods": (1.0, 360.0),
    "count": (1.0, 12.0),
    "number": (0.1, 10.0),
}
# Conventional symbols, used only when the text gives no unit.
NAME_UNITS: dict[str, str] = {
    "r": "percent",
    "i": "percent",
    "j": "percent",
    "g": "percent",
    "rate": "percent",
    "n": "periods",
    "k": "periods",
    "t": "years",
    "m": "count",
}
_NUMBER = r"[-−]?\$?\d[\d,]*(?:\.\d+)?%?"
_UNIT_WORDS: list[tuple[str, str]] = [
    (r"\bin (?:us )?dollars\b|\bin euros\b|\bcurrency\b", "currency"),
    (r"\bin percent\b|\bas a percentage\b", "percent"),
    (r"\bin years\b", "years"),
    (r"\bin periods\b|\bin months\b", "periods"),
    (r"\bnumber of\b[^,.;]*\bper\b", "count"),
    (r"\bpure number\b|\bratio\b|\bfactor\b|\bindex\b", "number"),
]


@dataclass(frozen=True)
class Quantity:
    """A named quantity with a description, a unit and a plausible value range.

    Attributes:
        name: The symbol used in formulas (``PV``).
        description: What it is, without a leading article (``present value``).
        unit: One of :data:`UNITS`.
        low: The smallest plausible value (percent as a fraction: 0.05 for 5%).
        high: The largest plausible value.
        integer: Whether given values are whole numbers.
        choices: Allowed values, when the text lists them.
        source: Where the definition was read (None when assumed).
        assumed: Which fields were filled by default rather than read from the text.
    """

    name: str
    description: str
    unit: str = "number"
    low: float = 1.0
    high: float = 100.0
    integer: bool = False
    choices: tuple[float, ...] = ()
    source: Source | None = None
    assumed: tuple[str, ...] = field(default_factory=tuple)

    def contains(self, value: float, slack: float = 1e-9) -> bool:
        """Whether ``value`` lies in the plausible range."""
        span = max(abs(self.high), abs(self.low), 1.0) * slack
        return self.low - span <= value <= self.high + span

    def sample(self, rng: random.Random) -> float:
        """A value for a given, rounded as it will be printed (so text and graph agree)."""
        if self.choices:
            return float(rng.choice(self.choices))
        if self.integer:
            return float(rng.randint(math.ceil(self.low), math.floor(self.high)))
        if self.unit == "percent":
            lo, hi = round(self.low * 10000), round(self.high * 10000)
            return rng.randint(max(lo, 1), max(hi, lo, 1)) / 10000
        if self.low > 0 and self.high / self.low > 50:
            value = math.exp(rng.uniform(math.log(self.low), math.log(self.high)))
        else:
            value = rng.uniform(self.low, self.high)
        if self.unit == "currency":
            return float(round(value)) if abs(value) >= 100 else round(value, 2)
        return float(f"{value:.3g}")


def _number(text: str) -> tuple[float, bool]:
    clean = text.replace("−", "-").replace("$", "").replace(",", "")
    percent = clean.endswith("%")
    value = float(clean.rstrip("%"))
    return (value / 100 if percent else value), percent


def parse_definition(name: str, text: str, source: Source | None = None) -> Quantity:
    """A quantity from the words that define it (the text after ``NAME is``/``NAME —``)."""
    description = re.split(r",\s*(?:in\b|a pure number|typically|between|measured)", text)[0]
    description = re.sub(r"\s*\(.*?\)\s*", " ", description)
    description = re.sub(r"^\s*(?:the|a|an)\s+", "", description.strip(" ,.;:"), flags=re.I)
    description = re.sub(r"\s+", " ", description).strip() or name
    unit = ""
    for pattern, found in _UNIT_WORDS:
        if re.search(pattern, text, flags=re.I):
            unit = found
            break
    assumed: list[str] = []
    if not unit:
        unit = NAME_UNITS.get(name, "number")
        assumed.append("unit")
    low, high = DEFAULT_RANGES[unit]
    choices: tuple[float, ...] = ()
    between = re.search(rf"between\s+({_NUMBER})\s+and\s+({_NUMBER})", text)
    one_of = re.search(rf"one of\s+((?:{_NUMBER}\s*(?:,|or)\s*)+{_NUMBER})", text)
    if between:
        (low, _), (high, _) = _number(between.group(1)), _number(between.group(2))
    elif one_of:
        choices = tuple(_number(v)[0] for v in re.findall(_NUMBER, one_of.group(1)))
        low, high = min(choices), max(choices)
    else:
        assumed.append("range")
    integer = unit in ("years", "periods") or bool(choices)
    return Quantity(name, description, unit, low, high, integer, choices, source, tuple(assumed))


def default_quantity(name: str) -> Quantity:
    """A quantity the text does not define: unit by conventional symbol, default range."""
    unit = NAME_UNITS.get(name, "number")
    low, high = DEFAULT_RANGES[unit]
    choices = (1.0, 2.0, 4.0, 12.0) if name == "m" else ()
    return Quantity(
        name,
        f"quantity {name}",
        unit,
        low,
        high,
        unit in ("years", "periods") or bool(choices),
        choices,
        None,
        ("description", "unit", "range"),
    )


def _definition_spans(name: str, text: str) -> list[tuple[int, int]]:
    """Spans of the defining words of ``name`` in ``text`` (several phrasings)."""
    escaped = re.escape(name).replace("_", r"_?\\?_?")
    patterns = [
        rf"(?m)^\s*[-*+]\s*`?{escaped}`?\s*(?:—|–|:|-)\s*",
        rf"\b(?:where|and|let|,)\s+\$?{escaped}\$?\s+(?:is|be|denotes|means)\s+",
    ]
    spans = []
    for pattern in patterns:
        for match in re.finditer(pattern, text, flags=re.I if pattern[1] != "?" else 0):
            start = match.end()
            # The definition runs to the end of the sentence (a period before a space or end of
            # text, not a decimal point), or to the next "and X is" in the same sentence.
            end_match = re.search(
                r"\.(?=\s|$)|(?:,\s*and|,)\s+\$?[A-Za-z_]\w*\$?\s+is\s+", text[start:]
            )
            end = start + end_match.start() if end_match else len(text)
            spans.append((start, end))
    return spans


def find_definitions(
    names: set[str], sections: list[Section], near: Section
) -> dict[str, Quantity]:
    """Definitions of ``names``: first in the section ``near``, then anywhere in ``sections``."""
    found: dict[str, Quantity] = {}
    ordered = [near, *[s for s in sections if s is not near]]
    for name in sorted(names):
        for section in ordered:
            spans = _definition_spans(name, section.text)
            if spans:
                start, end = spans[0]
                words = re.sub(r"\s+", " ", section.text[start:end])
                found[name] = parse_definition(name, words, section.source(start, end))
                break
    return found


def merge(known: Quantity | None, other: Quantity) -> Quantity:
    """``known`` with its assumed fields filled from ``other`` (read beats assumed)."""
    if known is None:
        return other
    updates: dict[str, object] = {}
    still: list[str] = []
    for part in known.assumed:
        if part in other.assumed:
            still.append(part)
        elif part == "description":
            updates["description"] = other.description
        elif part == "unit":
            updates["unit"] = other.unit
        elif part == "range":
            updates.update(low=other.low, high=other.high, choices=other.choices)
    return replace(known, assumed=tuple(still), **updates)  # type: ignore[arg-type]

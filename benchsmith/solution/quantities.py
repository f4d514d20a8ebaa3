"""Quantities: description, unit and plausible range, read from the text near a formula.

A definition is found where the text names the quantity, in the common textbook phrasings:
``where r is the interest rate per period, in percent per period, typically between 0.1%
and 12%``, ``Let PMT be ...``, ``$s$ denotes the displacement in metres (m)``, ``$F$ stands
for the face value``, ``with $CY$ the current yield``, a description just before the symbol
(``the coupon rate $c$ is quoted as a percentage``), a list entry (``- `EAR` — the effective
annual rate``) or a notation table row (``| $v$ | final velocity | m/s |``).

The unit comes from words such as ``in dollars``, ``as a percentage``, ``in years``, a
physical unit (``metres per second`` -> ``m/s``), or else from the kind the description
names (a rate is a percentage, a price a sum of money, a number of periods a whole count).
The range comes from the definition (``between A and B``, ``one of 1, 2, 4 or 12``,
``usually $1,000``), else from the values the document's worked examples and exercises give
in that unit, else from the kind. A range not stated by the text only guides the drawing of
independent values; derived values are then held to the kind's sane ``bounds`` (no
negative price, no rate above 100 %). ``origins`` records where each field came from. A
symbol the text never defines gets ``description`` among its ``assumed`` fields, and its
formulas are not admitted.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from benchsmith.markup import GREEK, NUMBER
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
_NUMBER = r"[-−+]?\$?\d[\d,]*(?:\.\d+)?%?"
# Physical units as written in prose -> the symbol printed after a value. Longest first.
PHYSICAL_UNITS: list[tuple[str, str]] = [
    (r"met(?:re|er)s? per second squared|m/s²|m/s\^2|m/s2\b|m\s*s\^\{?-2\}?", "m/s²"),
    (r"cubic met(?:re|er)s|m³|m\^3|(?<=\d )m3\b|\\mathrm\{m\}\s*\}\^\{\s*3\s*\}", "m³"),
    (r"radians? per second|rad/s", "rad/s"),
    (r"kilomet(?:re|er)s? per hour|km/h", "km/h"),
    (r"met(?:re|er)s? per second|m/s", "m/s"),
    (r"kilomet(?:re|er)s|km", "km"),
    (r"hectares|(?<=\d )ha\b|(?<=\bin )ha\b", "ha"),
    (r"millimet(?:re|er)s per hour|mm/h", "mm/h"),
    # lengths, areas and volumes in US units (Prealgebra 2e: "216 cu. ft", "1,264 sq. in."),
    # and in centimetres
    *[
        (rf"{kind} {words}|{short}\.? ?{unit}\b\.?|{unit}{power}|{unit}\^{digit}", f"{unit}{power}")
        for kind, short, power, digit in (("square", "sq", "²", "2"), ("cubic", "cu", "³", "3"))
        for words, unit in (
            ("inch(?:es)?", "in"),
            ("(?:feet|foot)", "ft"),
            ("yards?", "yd"),
            ("centimet(?:re|er)s?", "cm"),
        )
    ],  # fmt: skip
    (r"inch(?:es)?(?![ -]?(?:pounds?|lbs?)\b)|(?<=\d )in\.(?=\s)", "in"),
    (r"feet|foot(?![ -]?(?:pounds?|lbs?|candles?)\b)|(?<=\d )ft", "ft"),
    (r"yards|(?<=\d )yd", "yd"),
    (r"miles|(?<=\d )mi\b", "mi"),
    (r"square met(?:re|er)s|m²|m\^2", "m²"),
    (r"centimet(?:re|er)s|(?<=\d )cm", "cm"),
    (r"millimet(?:re|er)s of mercury|mm ?Hg", "mmHg"),
    (r"millimet(?:re|er)s(?! of mercury)|(?<=\d )mm(?! ?Hg)", "mm"),
    (r"met(?:re|er)s|\(m\)|(?<=\d )m", "m"),
    (r"seconds|\(s\)|(?<=\d )s", "s"),
    (r"minutes|\(min\)", "min"),
    (r"kilowatt-hours?|\(kWh\)", "kWh"),
    (r"watt-hours?|\(Wh\)", "Wh"),
    (r"hours|\(h\)", "h"),
    (r"kilograms|kg", "kg"),
    (r"newtons|\(N\)|(?<=\d )N", "N"),
    (r"kilojoules|(?<=\d )kJ", "kJ"),
    (r"joules|\(J\)|(?<=\d )J", "J"),
    (r"watts|\(W\)|(?<=\d )W", "W"),
    (r"volts|\(V\)|(?<=\d )V", "V"),
    (r"amperes|amps|\(A\)|(?<=\d )A", "A"),
    (r"ohms|Ω", "Ω"),
    # Written after a value only ("101.3 kPa", "298 K", "0.50 mol/L").
    (r"kilopascals|kPa", "kPa"),
    (r"pascals|(?<=\d )Pa|(?<=\bin )Pa", "Pa"),
    (r"kelvins?|(?<=\d )K|(?<=\bin )K", "K"),
    (r"°C|degrees Celsius", "°C"),
    (r"mol/L|moles per lit(?:re|er)", "mol/L"),
    (r"g/mol|grams per mole", "g/mol"),
    (r"moles|(?<=\d )mol|(?<=\bin )mol", "mol"),
    (r"millilit(?:re|er)s|(?<=\d )mL|(?<=\bin )mL", "mL"),
    (r"lit(?:re|er)s|(?<=\d )L|(?<=\bin )L", "L"),
    (r"milligrams|(?<=\d )mg(?!/)", "mg"),
    (r"grams|(?<=\d )g|(?<=\bin )g", "g"),
    (r"atmospheres|(?<=\d )atm", "atm"),
    (r"farads|(?<=\d )(?:μF|F)", "F"),
    (r"coulombs|(?<=\d )C|(?<=\bin )C", "C"),
    (r"hertz|(?<=\d )Hz|(?<=\bin )Hz", "Hz"),
    (r"radians|(?<=\d )rad|(?<=\bin )rad", "rad"),
]
_UNIT_WORDS: list[tuple[str, str]] = [
    (r"\bin (?:us )?dollars\b|\bin euros\b|\bcurrency\b", "currency"),
    (r"\bin percent\b|\bas a percentage\b|\bas a percent\b|\ba percentage\b", "percent"),
    (r"\bnumber of\b[^,.;]*\bper\b", "count"),
    (r"\bin years\b|\bnumber of years\b|\bwhole number of years\b", "years"),
    (r"\bin periods\b|\bin months\b|\bnumber of (?:periods|payments|months)\b", "periods"),
    (r"\bpure number\b|\bratio\b|\bfactor\b|\bindex\b", "number"),
]
# The kind of a quantity from its description when the text gives no unit word.
_MONEY_VALUE = re.compile(r"[$€£¥]\s?\d|\d\s?(?:dollars|euros|USD|EUR)\b")
_MATH_SPAN = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\d$])", re.S)


@lru_cache(maxsize=64)
def _writes_money(document: str) -> bool:
    """Whether a text writes a sum of money anywhere (its math set aside: "$0.5 mL$")."""
    return bool(_MONEY_VALUE.search(_MATH_SPAN.sub(" ", document)))


_KIND_WORDS: list[tuple[str, str]] = [
    (r"\bnumber of\b[^,.;]*\bper\b", "count"),
    (r"\bnumber of years\b", "years"),
    (r"\bnumber of (?:periods|payments|months|instalments|installments)\b", "periods"),
    (r"\bnumber of\b|\bcount\b", "count"),
    (r"\brate\b|\byield\b|\breturn\b|\binflation\b|\bpercentage\b", "percent"),
    (
        r"\bprice\b|\bvalue\b|\bpayment\b|\bcoupon\b|\bprincipal\b|\bcost\b|\bbalance\b"
        r"|\bamount\b|\bsalary\b|\brevenue\b|\bprofit\b|\bdividends?\b|\bearnings\b"
        r"|\bcash flows?\b|\bincome\b|\bwages?\b|\bfees?\b|\brent\b"
        r"|\bassets?\b|\bliabilit(?:y|ies)\b|\bcash\b|\binvestments?\b|\breceivables?\b"
        r"|\bequivalents\b|\bdebt\b|\bdistributions?\b|\bgift\b|\bdeposit\b|\bloan\b"
        r"|\bsales\b|\bexpenses?\b|\binventor(?:y|ies)\b",
        "currency",
    ),
]
# The SI unit a physical quantity's name implies ("initial velocity" is in m/s); used only
# when the document writes values in that unit, so a finance "time" stays in years.
_PHYSICAL_KINDS: list[tuple[str, str]] = [
    (r"\bangular (?:frequency|velocity|speed)\b", "rad/s"),
    (r"\bacceleration\b", "m/s²"),
    (r"\bvolume\b", "m³ L mL in³ ft³ cm³"),
    (r"\barea\b", "m² in² ft² cm²"),
    (r"\bmolality\b|\bmolal concentration\b", "mol/kg"),
    (r"\bdose\b", "mg g"),
    (r"\b(?:velocity|speed)\b", "m/s km/h"),
    (r"\b(?:mass)\b", "kg g mg"),
    (
        r"\b(?:time|duration|interval"
        r"|period(?: of (?:motion|oscillation|the pendulum|revolution))?)\b",
        "s min h",
    ),
    (
        r"\b(?:height|distance|displacement|radius|length|position|range|diameter|width)\b",
        "m cm mm km in ft yd mi",
    ),
    (r"\b(?:force|weight|tension|friction)\b", "N"),
    (r"\bspecific heat\b|\bheat capacity\b", ""),  # J/(g·°C): the text's own unit
    (r"\b(?:energy|work|heat)\b", "J kJ"),
    (r"\bpower\b", "W"),
    (r"\b(?:voltage|potential difference|emf)\b", "V"),
    (r"\bcurrent\b", "A"),
    (r"\bresistance\b", "Ω"),
    (r"\bcapacitance\b", "F"),
    (r"\bcharge\b", "C"),
    (r"\bpressure\b|\bBP\b", "Pa kPa atm mmHg"),
    (r"\babsolute temperature\b", "K"),
    (r"\btemperature\b", "K °C"),
    (r"\bconcentration\b|\bmolarity\b", "mol/L mg/L g/L"),
    (r"\bfrequency\b", "Hz"),
]


def _unit_pattern(symbol: str) -> str:
    """How the text writes a unit: its words and forms (``metres per second``) or itself."""
    return next((p for p, s in PHYSICAL_UNITS if s == symbol), re.escape(symbol))


_UNIT_CELL = re.compile(r"(?:1/)?[A-Za-zμΩ°Å][A-Za-z0-9μΩ°Å²³⁻¹/·⋅*^()\- ]{0,14}")


def _unit_cell(text: str) -> str | None:
    """The unit a notation table's last column gives (``W``, ``m²``, ``J/(g·°C)``).

    None when the row has no such column or it holds words ("dimensionless" is a pure
    number: ``""``).
    """
    cell = re.search(r"\|([^|\n]*)\|?\s*$", text)
    if cell is None:
        return None
    value = cell.group(1).strip().strip("$").strip()
    if re.fullmatch(r"(?i)dimensionless|none|pure number|unitless|[-–—]|1", value):
        return ""
    if _UNIT_CELL.fullmatch(value) and not re.search(r"[a-z]{4,}", value):
        return value
    return None


def _kind_units(description: str) -> list[str] | None:
    """The units a physical description's kind allows (None: no kind; []: a pure number)."""
    if re.match(
        r"(?:coefficient|ratio|factor|index|fraction|number|percentage|share|probability)\b",
        description,
        flags=re.I,
    ):
        return []
    for pattern, symbols in _PHYSICAL_KINDS:
        if re.search(pattern, description, flags=re.I):
            return symbols.split() or None
    return None


def _physical_kind(description: str, document: str) -> str:
    """The unit symbol a physical description implies, when the document uses that unit."""
    # "coefficient of kinetic friction" is a pure number; of a kind, the unit the text
    # writes values in most often (°C or K, g or kg)
    counts = []
    for symbol in _kind_units(description) or []:
        shown = _shown_count(symbol, document)
        if shown and symbol.rstrip("²³") in _LENGTHS:
            # lengths, areas and volumes of one text in one system: a text that gives its
            # lengths in inches gives areas in square inches (not feet² beside inches)
            base = symbol.rstrip("²³")
            shown = sum(_shown_count(f"{base}{p}", document) for p in ("", "²", "³"))
        counts.append((shown, symbol))
    best = max(counts, default=(0, ""), key=lambda c: c[0])
    return best[1] if best[0] else ""


_LENGTHS = frozenset("m cm mm km in ft yd mi".split())


@lru_cache(maxsize=8)
def _math_spans(document: str) -> tuple[tuple[int, int], ...]:
    """Where the document's math is (read once per document, not per unit asked about)."""
    found = re.finditer(r"\$\$.+?\$\$|\$[^$\n]+?\$", document, flags=re.S)
    return tuple(m.span() for m in found)


def _shown_count(symbol: str, document: str) -> int:
    r"""How often the document writes a value in this unit ("80-kg", "10$~mg/L").

    Inside math a unit is set upright (``10^{-4} { \mathrm{m} }^{3}``) or ends a value
    ("$= 4.1 \times 10^{-21} J$", "$9.8 m / s^2$"); a bare letter after a number with a
    symbol after it is a factor ("$S = 2 L H$" is 2 times the length, not litres).
    """
    unit = rf"(?:\\mathrm\{{)?\s*(?:{_unit_pattern(symbol)}|{re.escape(symbol)})(?![\w/²^])"
    math = _math_spans(document)
    count = 0
    for match in re.finditer(rf"(?:\d|\}})\$?(?:\s*|-|~)\{{?\s*{unit}", document):
        inside = any(a < match.start() and match.end() <= b for a, b in math)
        factor = re.match(r"\s*(?:[A-Za-z(]|\\(?![,;!]|mathrm))", document[match.end() :])
        count += not inside or "mathrm" in match.group(0) or not factor
    return count


_NOT_UNITS = frozenset("in of to is at on as or and the by for per from than it be are was".split())
_UNIT_TOKEN = (
    r"((?:1/)?[A-Za-zμ°Ω][A-Za-z0-9μ°Ω²³·⋅/()^*-]{0,13}"
    r"(?: (?:°C|K|[a-z]{1,2})(?![\w/]))?)"  # "J/g °C" is J/(g·°C)
)
_VALUE = NUMBER
_GAP = r"(?:\s|~|\\[,;]|\$)*"


def _unit_token(token: str, document: str) -> str:
    """``token`` when it reads as a unit ("mg/L", "m²·K/W", "h"), else ''."""
    token = token.rstrip(".,;:-")
    if " " in token:  # "J/g °C": the second unit is the denominator's, if there is a slash
        first, second = token.split(" ", 1)
        if "/" not in first or "(" in first or second.lower() in _NOT_UNITS:
            token = first
        else:
            top, bottom = first.split("/", 1)
            token = f"{top}/({bottom}·{second})"
    if token.count(")") > token.count("("):
        token = token[: token.rindex(")")]
    if token.lower() in NP_STOP or token.lower() in _NOT_UNITS or not _UNIT_CELL.fullmatch(token):
        return ""
    known = next((s for p, s in PHYSICAL_UNITS if re.fullmatch(p, token)), "")
    if known or token in {s for _, s in PHYSICAL_UNITS}:
        return known or token
    if re.search(rf"\$\s*{re.escape(token)}\s*\$", document):
        return ""  # a symbol of the text ("$P$"), not a unit
    # a word ("times", "persons") or a ticker ("DAL") is not a unit symbol; "mg/dL" is
    word = re.search(r"[a-z]{4,}", token) or re.fullmatch(r"[A-Z][a-z]+|[A-Z]{3,}", token)
    return "" if word else token


def _unit_beside(name: str, description: str, document: str) -> str:
    """The unit the text writes after this quantity's values, outside math, or ''.

    "$C_{ss} = 10$~mg/L", "$R_T$ = 0.13 + 0.04 = 3.76 m²·K/W" (the first value with a
    unit), "a half-life of 6 h" (after the quantity's words). A letter
    inside the math ("$K = 1/2 m v^2$") is a symbol, not a unit: the value and its unit
    must be in prose, or the math must close between them.
    """

    def units(span: str, in_math: bool) -> str:
        # to the end of the sentence or the next clause ("..., and U = 0.27 W/(m²·K)")
        span = re.split(r"\.\s|\n\s*\n|;|\?|,\s|\sand\s", span)[0]
        hits = []
        for match in re.finditer(rf"(?<![\w.]){_VALUE}({_GAP}){_UNIT_TOKEN}", span):
            closes = "$" in match.group(1) or "~" in match.group(1)
            opened = span[: match.start()].replace("$$", "").count("$") % 2 == 1
            if in_math != opened and not closes:
                continue  # the value and the letter after it are in math: a product
            hits.append(_unit_token(match.group(2), document))
        hits = [u for u in hits if u]
        return hits[0] if hits else ""  # a worked line's sums carry no unit till the end

    found: list[str] = []
    for match in re.finditer(rf"(?<![\w\\])(\$?){_symbol_core(name)}\s*(\$?)\s*=", document):
        in_math = bool(match.group(1)) and not match.group(2)
        found.append(units(document[match.end() : match.end() + 120], in_math))
    words = re.escape(description).replace(r"\ ", r"\s+")
    if len(description) >= 4 and description != name:
        for match in re.finditer(rf"\b{words}\s+(?:of|is|was|=|:|equals|at)\s+", document, re.I):
            span = document[match.end() : match.end() + 40]
            if re.match(rf"{_VALUE}", span):
                found.append(units(span, False))
    # "$R$ has units of m²·K/W", "which may have units of 1/°C or 1/K"
    said = rf"(?:(?<![\w\\]){_symbol_core(name)}\$?|\b{words})"
    for match in re.finditer(rf"{said}[^.]{{0,60}}?\bunits?\s+of\s+{_UNIT_TOKEN}", document):
        found.append(_unit_token(match.group(1), document))
    found = [u for u in found if u]
    return max(found, key=found.count) if found else ""


# Sane bounds of derived values by kind (percent as fractions): no negative prices, no rates
# beyond 100 %. A range read from the text is used as it is.
KIND_BOUNDS: dict[str, tuple[float, float]] = {
    "currency": (0.01, 1e9),
    "percent": (-0.2, 1.0),
    "years": (0.5, 100.0),
    "periods": (1.0, 1200.0),
    "count": (1.0, 1000.0),
}


def kind_bounds(unit: str, symbol: str = "") -> tuple[float, float] | None:
    """The sane bounds of a derived value of a kind whose range was not read."""
    return KIND_BOUNDS.get(unit, (1e-9, 1e12) if symbol else None)


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
        symbol: The physical unit printed after a value (``m/s``), when there is one.
        bounds: The plausible range of a *derived* value when the range was not stated
            (``low``/``high`` then only guide the drawing of independent values).
        origins: Where each field came from: ``(field, "definition" | "worked examples ..."
            | "kind" | "assumed")`` pairs.
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
    symbol: str = ""
    bounds: tuple[float, float] | None = None
    origins: tuple[tuple[str, str], ...] = ()
    per: str = ""
    """What a money amount is counted against (``kilowatt-hour`` in dollars per
    kilowatt-hour), printed after the amount."""

    def contains(self, value: float, slack: float = 1e-9) -> bool:
        """Whether ``value`` lies in the plausible range (the kind's bounds when assumed)."""
        low, high = self.bounds or (self.low, self.high)
        span = max(abs(high), abs(low), 1.0) * slack
        return low - span <= value <= high + span

    @property
    def unit_text(self) -> str:
        """The unit as a reader sees it: ``dollars``, ``percent``, ``years``, ``m/s``."""
        if self.symbol:
            return self.symbol
        if self.unit == "currency" and self.per:
            return f"dollars per {self.per}"
        return {"currency": "dollars", "percent": "percent", "years": "years"}.get(
            self.unit, "periods" if self.unit == "periods" else ""
        )

    def sample(self, rng: random.Random) -> float:
        """A value for a given, rounded as it will be printed (so text and graph agree)."""
        if self.choices:
            return float(rng.choice(self.choices))
        if self.integer:
            low = math.ceil(self.low)
            return float(rng.randint(low, max(low, math.floor(self.high))))
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


_CUT = (
    r",|;|\(|\s+(?:in|measured in|expressed in|quoted in|given in)\s+(?:[a-z/]+\s+)?"
    r"(?:dollars|euros|percent|years|periods|months|met|kilomet|seconds|minutes|hours|m/s|"
    r"km|kilograms|kg|newtons|joules|watt|kilowatt|hours|volts|amperes|ohms|hectares|"
    r"millimet|cubic|square|[a-zA-Zμ°]{1,3}[²³]?(?:/[a-zA-Z]{1,3}[²³]?)?(?![\w/]))"
    r"|\s+(?:through|across|on|in|of|for)\s+(?:it|them)\b"
    r"|\s+as a (?:percentage|percent|fraction|decimal|pure number|whole number)"
    r"|\s+a pure number|\s+(?:typically|usually|often|between|from|measured|which|that|"
    r"quoted|expressed)\b"
)


def clean_description(text: str, name: str) -> str:
    """A short noun phrase from defining words (``the final velocity in m/s``)."""
    description = re.split(_CUT, " " + text.strip(), maxsplit=1, flags=re.I)[0]
    # "the change in length $L$": the symbol after the words is not part of them
    description = re.sub(r"\s*\$[^$]{1,30}\$\s*$", "", description.strip(" ,.;:"))
    description = re.sub(r"[$`*]", "", description)
    description = re.sub(r"^\s*(?:the|a|an|its)\s+", "", description.strip(" ,.;:"), flags=re.I)
    # "a quantity called thermal efficiency" is the thermal efficiency
    description = re.sub(
        r"^(?:quantity|value|number|term|variable|measure)\s+(?:called|known\s+as|named|termed)\s+"
        r"(?:the\s+)?",
        "",
        description,
        flags=re.I,
    )
    description = re.sub(r"\s+", " ", description).strip()
    return description or name


def physical_unit(text: str) -> str:
    """The physical unit symbol the words name (``metres per second`` -> ``m/s``), or ''."""
    found: list[tuple[int, int, str]] = []  # the unit named first in the words wins
    for rank, (pattern, symbol) in enumerate(PHYSICAL_UNITS):
        flags = re.I if len(pattern) > 12 else 0  # short symbols are case-sensitive
        match = re.search(rf"(?<![\w/-])(?:{pattern})(?![\w/²^-])", text, flags=flags)
        if match:
            found.append((match.start(), rank, symbol))
    return min(found)[2] if found else ""


def _example_values(
    symbol: str, unit: str, document: str, description: str = "", name: str = ""
) -> tuple[list[float], bool]:
    """Values the document's worked examples and exercises give in this unit.

    Values written just after the quantity's name (``a face value of $1,000``, ``accelerates
    at 2.5 m/s²``) are preferred: when there are any, only they are
    returned, with True; otherwise every value in the unit, with False.
    """
    if symbol:
        written = rf"{_unit_pattern(symbol)}|{re.escape(symbol)}"
        # "80-kg", "1.20×10^12 J" (a power of ten is the value's; its exponent is no value)
        pattern = (
            rf"(?<![\w.^])(\d[\d,]*(?:\.\d+)?(?:\s*[×x]\s*10\^\{{?[-−]?\d+\}}?)?)(?:\s*|-)"
            rf"(?:{written})(?![\w/²^])"
        )
    elif unit == "currency":
        pattern = r"(?<!\$)\$\s?(\d[\d,]*(?:\.\d+)?)(?![\d%])(?!\s*[-+*/=(])"
    elif unit == "percent":
        pattern = r"(?<![\w.$])(\d+(?:\.\d+)?)\s?%"
    else:
        return [], False
    # Every word of the name's head ("face value" of "face value of the bond"), each by its
    # stem (accelerat-ion/-es), with no other number between its last word and the value;
    # or the symbol in math followed by "=".
    head = re.split(r"\s+(?:of|in|per|for|to)\s+", description)[0]
    words = [w[: max(4, len(w) - 3)] for w in re.findall(r"[A-Za-z]+", head) if len(w) >= 3]
    if name and words:
        words_or_symbol = [*words[:-1], rf"(?:{words[-1]}\w*|\${_symbol_core(name)}\s*=)"]
    else:
        words_or_symbol = words

    def next_to(before: str) -> bool:
        if not words:
            return False
        last = list(re.finditer(rf"\b{words_or_symbol[-1]}", before, flags=re.I))
        if not last or re.search(r"\d", before[last[-1].end() :]):
            return False
        return all(re.search(rf"\b{w}", before, flags=re.I) for w in words[:-1])

    values, near = [], []
    for match in re.finditer(pattern, document):
        number = re.sub(r"\s*[×x]\s*10\^\{?([-−]?\d+)\}?", r"e\1", match.group(1))
        try:
            value = float(number.replace(",", "").replace("−", "-"))
        except ValueError:
            continue
        value = value / 100 if unit == "percent" else value
        if value <= 0:
            continue
        values.append(value)
        before = document[max(0, match.start() - 40) : match.start()]
        if next_to(before):
            near.append(value)
    return (near, True) if near else (values, False)


def _estimated_bounds(unit: str, low: float, high: float) -> tuple[float, float]:
    """Bounds of a derived value whose range was estimated from the text's values.

    Within an order of magnitude or so of those values and within the kind's sane bounds
    (no $93 per kWh where the text prices electricity at $0.10 to $0.40).
    """
    kind_low, kind_high = KIND_BOUNDS.get(unit, (low, high))
    return max(low, kind_low), min(high, kind_high)


def parse_definition(
    name: str,
    text: str,
    source: Source | None = None,
    *,
    description: str | None = None,
    document: str = "",
) -> Quantity:
    """A quantity from the words that define it (the text after ``NAME is``/``NAME —``).

    Args:
        name: The symbol.
        text: The defining words (to the end of the definition).
        source: Where the words are.
        description: The description when the text gave it apart (``the price $P$ is ...``).
        document: The whole document, whose worked examples give a range the words do not.
    """
    description = clean_description(description or text, name)
    origins: list[tuple[str, str]] = [("description", "definition")]
    # money per physical unit ("dollars per kilowatt-hour") is money, printed with its "per"
    symbol = "" if re.search(r"\bdollars?\s+per\b", text, flags=re.I) else physical_unit(text)
    value = re.search(rf"(?<![\w.]){_VALUE}[ ~]?{_UNIT_TOKEN}", text)
    if symbol and value and symbol in value.group(1) and symbol != value.group(1):
        symbol = _unit_token(value.group(1), document) or symbol  # "4.184 J/g °C", not °C
    cell = _unit_cell(text) if "|" in text else None
    if cell is not None:
        symbol = cell
    said = clean_description(description or text, name)
    allowed = _kind_units(said)
    coefficient = re.match(r"coefficient\b", said, flags=re.I)  # 1/°C is read, N is not
    if cell is None and not symbol and document and (allowed != [] or coefficient):
        if not re.search(r"\bdollars?\b|\bpercent|%", text, flags=re.I):
            beside = _unit_beside(name, said, document)
            # a value's unit of another kind ("36.4 L" for a length) is not this quantity's
            # a value's unit of another kind ("36 L" for a length) is not this quantity's,
            # when the text writes values in a unit of the kind at all
            shown = _physical_kind(said, document) if allowed else ""
            symbol = shown if shown and beside not in (allowed or []) else beside
    if coefficient and cell is None and not re.match(r"1/|.*⁻¹$", symbol):
        symbol = ""  # a coefficient is a pure number or per a unit (1/°C), never in newtons
    if cell is None and not symbol and document:
        symbol = _physical_kind(description, document)
        genus = re.match(r"\s*(?:the|a|an)\s+(mass|volume|length|time|temperature)\b", text)
        if not symbol and genus:  # "the actual yield m is the mass of product recovered"
            symbol = _physical_kind(genus.group(1), document)
    unit = ""
    for pattern, found in _UNIT_WORDS:
        if re.search(pattern, f"{description} {text}", flags=re.I):
            unit = found
            break
    if not unit and re.search(r"\$\s?\d", text):
        unit = "currency"
    assumed: list[str] = []
    if symbol and unit not in ("years", "periods", "count"):
        unit = "number"
        origins.append(("unit", "definition"))
    elif unit:
        origins.append(("unit", "definition"))
    else:
        kind = next((k for p, k in _KIND_WORDS if re.search(p, description, flags=re.I)), "")
        if (
            kind == "currency"
            and re.search(r"\bamount\b", description, flags=re.I)
            and document
            and not _writes_money(document)
        ):
            # "amount on hand" in a text that writes no sum of money is no sum; "current
            # assets" is money all the same
            bare = re.sub(r"\bamount\b", " ", description, flags=re.I)
            kind = next((k for p, k in _KIND_WORDS if re.search(p, bare, flags=re.I)), "")
        if kind:
            unit = kind
            origins.append(("unit", f"kind (from the description {description!r})"))
        else:
            unit = NAME_UNITS.get(name, "number")
            assumed.append("unit")
            origins.append(("unit", "assumed"))
    low, high = DEFAULT_RANGES[unit]
    choices: tuple[float, ...] = ()
    bounds: tuple[float, float] | None = None
    between = re.search(
        rf"(?:between|from)\s+({_NUMBER})\s*(?:[a-zA-Z/²%]+\s+)?(?:and|to)\s+({_NUMBER})", text
    ) or re.search(rf"({_NUMBER})\s+to\s+({_NUMBER})", text)
    one_of = re.search(rf"one of\s+((?:{_NUMBER}\s*(?:,|or)\s*)+{_NUMBER})", text)
    single = re.search(rf"\b(?:usually|typically|often|commonly)\s+({_NUMBER})", text)
    examples, near = _example_values(symbol, unit, document, description, name)
    where = f"near {description!r}" if near else "in the document"
    if between:
        (low, _), (high, _) = _number(between.group(1)), _number(between.group(2))
        origins.append(("range", "definition"))
    elif one_of:
        choices = tuple(_number(v)[0] for v in re.findall(_NUMBER, one_of.group(1)))
        low, high = min(choices), max(choices)
        origins.append(("range", "definition"))
    elif single:
        value = _number(single.group(1))[0]
        low, high = value / 2, value * 2
        bounds = _estimated_bounds(unit, value / 20, value * 20)
        origins.append(("range", f"definition (usually {single.group(1)})"))
    elif len(examples) >= 2 and min(examples) < max(examples):
        low, high = min(examples), max(examples)
        bounds = _estimated_bounds(unit, low / 10, high * 10)
        shown = ", ".join(f"{v:g}" for v in sorted(set(examples))[:8])
        origins.append(
            ("range", f"worked examples and exercises {where} ({shown} {symbol or unit})")
        )
    elif examples:  # one value: a band around it
        value = examples[0]
        low, high = value / 2, value * 2
        bounds = _estimated_bounds(unit, value / 20, value * 20)
        origins.append(("range", f"worked example {where} ({value:g} {symbol or unit})"))
    else:
        assumed.append("range")
        # A measure in physical units without a stated range: any positive value may be
        # derived (only independent values are drawn from the default band).
        bounds = kind_bounds(unit, symbol)
        origins.append(("range", f"assumed for the kind {unit!r}"))
    if low > high:
        low, high = high, low
    integer = unit in ("years", "periods", "count") or bool(choices)
    per = re.search(r"\bdollars?\s+(?:per|a|an|each)\s+([a-z][a-z-]*[a-z])", text, flags=re.I)
    if integer and not choices:
        low, high = max(math.ceil(low), 1), max(math.floor(high), math.ceil(low), 1)
    return Quantity(
        name,
        description,
        unit,
        low,
        high,
        integer,
        choices,
        source,
        tuple(assumed),
        symbol,
        bounds,
        tuple(origins),
        per.group(1) if per and unit == "currency" else "",
    )


def default_quantity(name: str) -> Quantity:
    """A quantity the text does not define: unit by conventional symbol, default range.

    Its description is the bare symbol and ``description`` is among the assumed fields:
    such a formula is not admitted (no item may say "the quantity X").
    """
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
        origins=(("description", "assumed"), ("unit", "assumed"), ("range", "assumed")),
    )


def _symbol_core(name: str) -> str:
    r"""A pattern for ``name`` as written: ``C_{0}`` for ``C_0``, ``\rho``, ``I`` for ``I_``."""
    plain = name[:-1] if name.endswith("_") and len(name) > 1 else name
    plain = {"lamda": "lambda", "Lamda": "Lambda"}.get(plain, plain)  # sympy's spelling
    if plain.endswith("_prime"):  # r_prime is written r'
        return rf"{_symbol_core(plain.removesuffix('_prime'))}'"
    if re.match(r"[Dd]elta_.", plain):  # Delta_T is written \Delta T, Δ T or \Delta_{T}
        rest = _symbol_core(plain[6:])
        head = plain[:5]
        letter = "Δ" if head == "Delta" else "δ"
        written = rf"(?:\\{head}|{letter})\s*(?:{rest}|\{{{rest}\}})"
        return rf"(?:{written}|\\?{head}_\{{?{re.escape(plain[6:])}\}}?)"
    if "_" in plain:
        head, tail = plain.split("_", 1)
        return rf"{_upright(head)}_\{{?{re.escape(tail)}\}}?"  # \mu_{k}, v_0
    return _upright(plain)


def _upright(name: str) -> str:
    r"""``name`` as a letter, a command (``\rho``) or set upright (``\mathrm{FV}``)."""
    if len(name) > 1 and name.isalpha():
        return rf"(?:\\mathrm\{{{re.escape(name)}\}}|\\?{re.escape(name)})"
    return rf"\\?{re.escape(name)}"


_END = (
    # the next symbol in math or code ends a definition; a dollar amount ($0.40) does not
    r"\.(?=\s|$)|\n\s*\n|\s+and\s+(?=\$(?!\s?\d)|`)|,\s*(?:and\s+)?(?=\$(?!\s?\d)|`)"
    r"|,\s+and\s+(?=(?:the|a|an)\s+(?:[\w'-]+\s+){0,5}\$)"
    r"|,?\s+(?:and\s+)?(?:[A-Z]\w{0,3}|[a-z])\s+(?:is|denotes|stands for)\s+"
)
_VERB = (
    r"(?:(?:is|be)\s+(?=(?:the|a|an|its)\s)|(?:is\s+)?(?:called|known\s+as)\s+|denotes\s+"
    r"|stands\s+for\s+|represents\s+|means\s+)"
)


def _next(text: str, mark: str, start: int) -> int:
    """Where ``mark`` next occurs in ``text`` from ``start`` (the end of the text if never)."""
    at = text.find(mark, start)
    return len(text) if at < 0 else at


def definitions_of(
    name: str, text: str, plain_text: bool = False
) -> list[tuple[int, int, str | None]]:
    """``(start, end, description)`` of each definition of ``name`` in ``text``, best first.

    Phrasings: a list entry (``- `EAR` — the effective annual rate``), a notation table row
    (``| $v$ | final velocity | m/s |``), ``X is the ...`` / ``X denotes ...`` / ``X stands
    for ...`` (after ``where``, ``let``, ``and``, a comma, or with ``X`` in math), ``with X
    the ...``, and a description just before the symbol in math (``the coupon rate $c$``).
    With ``plain_text`` (a plain-text document that marks no math), a symbol written bare counts
    as one in math.
    """
    core = _symbol_core(name)
    bare = rf"(?<![\w\\$`]){core}(?![\w{{])"
    math = rf"(?:\$\s*{core}\s*\$|`{core}`)"
    if plain_text:
        # a plain-text document sets its symbols bare: "Here Q_p is the peak runoff rate",
        # "the curve number CN, which ..."
        math = rf"(?<![\w\\$`']){core}(?![\w{{'(])"
    sym = rf"(?:{math}|{bare})"
    found: list[tuple[int, int, str | None]] = []

    def run_to_end(start: int) -> int:
        end_match = re.search(_END, text[start:])
        return start + end_match.start() if end_match else len(text)

    for match in re.finditer(rf"(?m)^\s*[-*+]\s*{sym}\s*(?:—|–|:|-)\s*", text):
        found.append((match.end(), run_to_end(match.end()), None))
    for match in re.finditer(rf"(?m)^\|\s*{sym}\s*\|([^|\n]+)\|([^|\n]*)", text):
        found.append((match.start(1), match.end(2), match.group(1)))
    verb = [
        rf"{math}\s*{_VERB}",  # "$Q$is the net heat transfer": a space lost in markup
        rf"(?:\b(?i:where|let|and|here|with)|,)\s+{bare}\s+{_VERB}",
        rf"(?m:^)\s*[-*+]\s+{bare}\s+{_VERB}",  # a list entry: "- ΔP represents the ..."
        rf"(?:\b(?:with|where)|,)\s+{math}\s+(?=(?:the|a|an)\s)",
    ]
    # Plain text: "where\n    c = molar concentration of the solute, in mol/L" (a line that
    # sets the symbol equal to words) and "the molar mass M (in g/mol)".
    # "$a$ = number of individuals exposed and with disease" (a list of what symbols are)
    listed = rf"(?m)^[ \t]*(?:where\s+)?{sym}[ \t]*=[ \t]*(?=[a-z]+[ ,][a-z])"
    for match in re.finditer(listed, text):
        # "$x$ = number of successes = 421": the words, not the value set after them
        end = min(_next(text, "\n", match.end()), _next(text, "=", match.end()))
        found.append((match.end(), end, None))
    for match in re.finditer(rf"{bare}\s*\(\s*(?:in|measured in)\s+[^)]{{1,20}}\)", text):
        words = noun_before(text[max(0, match.start() - 120) : match.start()])
        if words:
            found.append((match.start(), match.end(), words))
    # A notation line: "$$r = \mathrm{Interest_Rate}$$" names r in words.
    # "$D = \mathrm{Desired dose (the dose ordered)}$" too: the words, without the aside;
    # "$X = \mathrm{How many mL?}$" asks, it names nothing
    alias = rf"\$\$?\s*{core}\s*=\s*\\mathrm\{{([A-Za-z][^{{}}$?]{{0,80}})\}}\s*\$"
    for match in re.finditer(alias, text):
        joined = re.sub(r"[^A-Za-z]+", "_", re.sub(r"\([^()]*\)", " ", match.group(1)))
        words = word_name(joined.strip("_"))  # "Interest_Rate"; "IV" is letters (I times V)
        if words:
            found.append((match.end(), match.end(), words))
    for number, pattern in enumerate(verb):
        for match in re.finditer(pattern, text):
            # "The precision $P$ is the fraction ...": the name before the symbol, not the
            # genus after "is", is what the text calls it.
            head = text[max(0, match.start() - 120) : match.start()]
            named = None
            if number == 0 and re.search(r"\b(?:[Tt]he|[Aa]n?)\s+[^$.;:,()]{2,50}$", head):
                named = noun_before(head)
            found.append((match.end(), run_to_end(match.end()), named))
    # A noun phrase just before the symbol: "the coupon rate $c$", "and annual coupon rate
    # $c$", "a bond with face value $F$" (the phrase, not the bond), "inflation $h$".
    for match in re.finditer(rf"{math}", text):
        head = text[max(0, match.start() - 120) : match.start()]
        if plain_text:
            # a bare symbol's words are on its own line, and a symbol starting "x = ..."
            # is a formula, not a mention ("Future value of a single sum\nFV = PV ...")
            head = head.rsplit("\n", 1)[-1]
            if re.match(r"\s*=", text[match.end() :]):
                continue
        # "The dividend just paid is $D_0$": the subject of "is" names the symbol.
        copula = re.search(
            r"\b(?:the|a|an)\s+([A-Za-z][^.;:$`,]{2,60}?)\s+(?:is|are|was)\s*$", head, re.I
        )
        words = copula.group(1) if copula else noun_before(head)
        due = re.match(r"\s+(due\s+to\s+[a-z]+)\b", text[match.end() :])
        if words and due and not copula:
            words = f"{words} {due.group(1)}"  # "an acceleration $g$ due to gravity"
        if words:
            # the words after it give its unit up to the next symbol ("$m$ and ... $v$")
            end = min(run_to_end(match.end()), _next(text, "$", match.end()))
            found.append((match.end(), end, owned(words, text, match.start())))
    # An abbreviation after its words: "maximum sustainable yield (MSY)", "present value ($PV$)".
    for match in re.finditer(rf"(?<=[A-Za-z] )\(\s*{sym}\s*\)", text):
        head = text[max(0, match.start() - 120) : match.start()].rstrip()
        words = acronym_phrase(head, name) or noun_before(head)
        if words:
            found.append((match.end(), match.end(), words))
    # The symbol before a counted noun: "$n$ years to maturity" is the number of years.
    counted = (
        rf"{math}\s+(?:training\s+)?((?:years|months|periods|days|weeks|payments|hours|quarters|steps|iterations|epochs|trials|cycles)\b"
        + (r"(?:\s+(?:to|of|until|before|in|on)\s+[a-z][a-z-]*)?|times\s+(?:a|per)\s+[a-z]+)")
    )
    for match in re.finditer(counted, text):
        found.append((match.end(), run_to_end(match.end()), f"number of {match.group(1)}"))
    # A phrase that names the symbol with a verb: "we represent vertical displacement with
    # the symbol $y$", "the interest rate, denoted $r$", "the rate is denoted by $r$".
    naming = (
        rf"\b(?:represent|denote|write|call|define)s?\s+(?:the\s+|a\s+|an\s+)?"
        rf"([a-z][a-z' -]{{2,50}}?)"
        rf"\s+(?:with|by|as)\s+(?:the\s+)?(?:symbol\s+|letter\s+)?(?:{math}|\$\s*{core}\s*=)",
        rf"\b(?:the\s+|a\s+|an\s+)?([a-z][a-z' -]{{2,50}}?),?\s+(?:is\s+|are\s+)?"
        rf"(?:denoted|represented|written|symbolized)\s+(?:by\s+|as\s+)?(?:the\s+)?(?:symbol\s+|letter\s+)?{math}",
    )
    for pattern in naming:
        for match in re.finditer(pattern, text, flags=re.I):
            words = noun_before(match.group(1), allow_end=True)
            if words:
                found.append((match.end(), run_to_end(match.end()), words))
    # A value given with its name: "the time $t = -5.0$ s", "take the point of release to be
    # $y_0 = 0$", "with an initial velocity of 4.9 m/s" beside "$v_0 = -4.9$".
    for match in re.finditer(rf"\$\s*{core}\s*=\s*[-−]?\s*\d", text):
        head = text[max(0, match.start() - 120) : match.start()]
        head = re.sub(r"\s+to\s+be\s*$", "", head)
        words = noun_before(head)
        place = rf"\b(?:to|at|from|into|on|in)\s+(?:the|a|an)\s+{re.escape(words or '')}\s*$"
        if words and not re.search(r"\$\s*$", head) and not re.search(place, head):
            found.append((match.start(), run_to_end(match.end()), words))
    found.extend(_named_by_value(core, text))
    # The subject of a displayed formula: "its price is $$P = ...$$", "the effective annual
    # rate $$EAR = ...$$", "next year's dividend is $$D_1 = ...$$".
    # inline, the subject of a clause: "Recognizing that current is $I = q / t$"
    clause = (
        rf"(?:^|[.!?,;:]\s+|\bthat\s+)(?:the\s+)?([A-Za-z][A-Za-z' -]{{2,40}}?)"
        rf"\s+is\s+\${core}\s*="
    )
    for match in re.finditer(clause, text, flags=re.M):
        subject = match.group(1).strip()
        words = noun_before(subject, allow_end=True)
        before = subject[: len(subject) - len(words or "")].strip()
        lead = re.fullmatch(r"(?:.*\bthat\s*)?(?:the)?", before, flags=re.I | re.S)
        if words and subject.endswith(words) and lead:
            found.append((match.end(), match.end(), words))
    # In plain text a formula set on its own indented line is displayed.
    display = rf"(?m:^[ \t]+){core}\s*=" if plain_text else rf"\$\$\s*{core}\s*="
    for match in re.finditer(display, text):
        before = re.sub(r"[\s:,]*$", "", text[max(0, match.start() - 160) : match.start()])
        before = re.sub(
            r"(?:\s+(?:is|are|was|equals|becomes|gives|reads|by|then|thus|therefore|simply"
            r"|now|given|written|defined|expressed|calculated|found))+$",
            "",
            before,
        )
        words = acronym_phrase(before, name) or noun_before(before, allow_end=True)
        object_of = (
            rf"\b(?:of|to|for|in|on|at|from|into)\s+(?:all\s+)?(?:the\s+)?{re.escape(words or '')}$"
        )
        close = text.find("\n" if plain_text else "$$", match.end())
        constant = not re.search(r"[A-Za-z]", text[match.end() : close if close > 0 else None])
        # "... of all the particles: $$K =": not the subject; "the average value $$g = 9.81$$":
        # the words name the value, not the quantity
        if words and not re.search(object_of, before) and not constant:
            found.append((match.end(), match.end(), owned(words, text, match.start())))
    return found


def _named_by_value(core: str, text: str) -> list[tuple[int, int, str | None]]:
    """The symbol named through a worked example's value.

    The text gives "an initial velocity of 4.9 m/s" and its solution "$v_0 = -4.9$". The
    value must be named once in prose, be written with at least two significant digits and
    be no other symbol's value.
    """
    found: list[tuple[int, int, str | None]] = []
    assigned = (
        r"\$?\s*([A-Za-z\\][\w{}\\]*)\s*=\s*[-−]?\s*(\d+(?:\.\d+)?)\b(?!\s*[\d.(^{]|\s*[-+*/])"
    )
    values: dict[str, set[str]] = {}
    mine: list[tuple[int, str]] = []
    for match in re.finditer(assigned, text):
        number = match.group(2).lstrip("0") or "0"
        values.setdefault(number, set()).add(re.sub(r"[{}\\]", "", match.group(1)))
        if re.fullmatch(core, match.group(1)):
            mine.append((match.start(), number))
    for _, number in mine:
        digits = number.replace(".", "").strip("0")
        if len(digits) < 2 or len(values.get(number, ())) > 1:
            continue
        named = [
            m
            for m in re.finditer(
                rf"\b([A-Za-z][A-Za-z' -]{{2,60}}?)\s+(?:of|is|was|equals|at)\s+(?:about\s+)?[-−]?"
                rf"\$?0*{re.escape(number)}(?!\d|\.\d)\s*([^\s$.,;]*)",
                text,
            )
        ]
        phrases = {noun_before(m.group(1), allow_end=True) for m in named} - {None}
        if len(phrases) == 1:
            first = named[0]
            found.append((first.start(2), first.end(2), phrases.pop()))
    return found


NP_STOP = frozenset(
    "a an the its their his her our this that these those with and or is are was were be "
    "proportional equal related similar identical inversely directly "
    "been being as if when while where which who whose whom than then so such each every "
    "consider let suppose given assume if at by for from into on onto per via under over "
    "pays paid pay gives give has have had grows grow earns earn equals called named "
    "denote denoted denotes write written call also only just it they we you one although "
    "because since however thus therefore hence here there now use using note notice see "
    "not no averages after before during until letting setting taking calling writing "
    "denoting define defines defining "
    # modal verbs and verbs of finding ("Now we must find $v_{0y}$, the component ...")
    "will would can could shall should may might must find finds calculate compute "
    "determine solve obtain".split()
)
"""Words a noun phrase before a symbol does not reach past (its left edge)."""
NP_INNER = frozenset("of to".split())
"""Words inside a noun phrase when content words stand on both sides ("yield to maturity")."""
VERB_END = re.compile(r"(?<!e)ed$")
"""A past participle ("paid", "quoted"), not a noun in -eed ("speed", "seed")."""


def noun_before(text: str, allow_end: bool = False) -> str | None:
    """The noun phrase that ends ``text`` ("... with face value" -> "face value").

    Walks back over content words and stops at a function word, a verb form or
    punctuation; "of"/"to" stay inside when content words stand on both sides ("rate of
    return", "yield to maturity"). Possessive phrases stay ("next year's dividend").
    """
    tail = re.split(r"[.;:!?()\[\]$`]|\n\s*\n", text)[-1]
    if not allow_end and re.search(r"[,]\s*$", tail):
        return None
    words = re.findall(r"[A-Za-z][A-Za-z'-]*|,", tail.replace("’", "'"))
    kept: list[str] = []
    for index in range(len(words) - 1, -1, -1):
        word = words[index]
        low = word.lower()
        if word == ",":
            break
        if low == "the" and kept and index and words[index - 1].lower() == "of":
            kept.insert(0, word)  # "mass of the sample", "value of the bond"
            continue
        if low in NP_INNER and kept and kept[0].lower() not in NP_INNER:
            kept.insert(0, word)
            continue
        if low in NP_STOP or (kept and VERB_END.search(low) and low not in ("required",)):
            # "a required return" keeps its participle; "paid" or "quoted" ends the phrase
            if not (VERB_END.search(low) and low.endswith("ed") and kept and low in ADJECTIVAL):
                break
        kept.insert(0, word)
        if len(kept) >= 6:
            break
    while len(kept) > 2 and kept[0].lower() in OPERATION_NOUNS and kept[1].lower() == "of":
        kept = kept[2:]  # "the product of the particle's mass": the mass
        if kept and kept[0].lower() == "the":
            kept.pop(0)
    while kept and kept[0].lower() in NP_INNER:
        kept.pop(0)
    if len(kept) > 2 and [w.lower() for w in kept[-2:]] in (["of", "magnitude"], ["of", "size"]):
        kept = kept[:-2]  # "an acceleration of magnitude $g$": the acceleration
    if kept and kept[-1].lower() in NP_INNER:
        return None  # "the value of $g$": the symbol is the phrase's object, not its name
    if kept and VERB_END.search(kept[-1].lower()):
        return None  # "quoted annually and compounded $m$": a verb, not a name
    if not kept or all(w.lower() in NP_INNER for w in kept):
        return None
    phrase = " ".join(kept)
    if len(kept) == 1 and kept[0].lower().endswith("ing") and kept[0].lower() not in ING_NOUNS:
        return None  # "..., obtaining $$I = ...$$": a verb, not a name
    if kept[-1].lower() in GENERIC_NOUNS and all(w.lower() in GENERIC_MODIFIERS for w in kept[:-1]):
        return None  # "the symbol $y$", "an average value of 9.8": no name
    return phrase if re.search(r"[a-z]{3,}", phrase) else None


ING_NOUNS = frozenset(
    "spring string ring thing ceiling building lining heating cooling spacing opening "
    "setting reading earnings holding funding pricing rating ranking".split()
)
"""Nouns in -ing that name things ("the spring"), unlike "obtaining" or "using"."""
GENERIC_NOUNS = frozenset(
    "symbol symbols letter letters value values root roots number numbers quantity quantities "
    "variable variables result results answer answers equation equations formula formulas "
    "expression expressions term terms solution solutions magnitude amount case example "
    "unknown unknowns known knowns data input output figure table step steps point constant "
    "constants".split()
)
"""Nouns that do not name a quantity on their own ("the symbol $y$", "the value $v$")."""
OPERATION_NOUNS = frozenset(
    "product sum square squares ratio difference quotient half twice root cube reciprocal "
    "inverse function logarithm average mean".split()
)
"""Nouns of an operation on a quantity ("the square of its speed $v$" names the speed)."""
GENERIC_MODIFIERS = frozenset(
    "average typical initial final measured new same given known numerical approximate exact "
    "other first second third last next previous following corresponding actual resulting "
    "this that".split()
)
"""Words that leave a generic noun generic ("an average value", not "a present value")."""


def acronym_phrase(text: str, name: str) -> str | None:
    """The phrase of the last sentence whose initials spell ``name`` ("current yield": CY)."""
    letters = name.split("_")[0]
    if not (2 <= len(letters) <= 5 and letters.isupper()):
        return None
    sentence = re.split(r"[.!?]\s|\n\s*\n", text)[-1]
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", sentence)
    for i in range(len(words) - len(letters) + 1):
        chunk = words[i : i + len(letters)]
        if "".join(w[0] for w in chunk).upper() == letters and not any(
            w.lower() in NP_STOP for w in chunk
        ):
            return " ".join(chunk).lower() if chunk[0][0].isupper() and i == 0 else " ".join(chunk)
    # "cost per thousand (CPM)": as many words as letters just before it, the first letter
    # the same, a preposition allowed inside (the M is Latin mille)
    last = words[-len(letters) :]
    inner = {w.lower() for w in last[1:-1]}
    if (
        len(last) == len(letters)
        and last[0][0].upper() == letters[0]
        and last[0].lower() not in NP_STOP
        and last[-1].lower() not in NP_STOP
        and not (inner - {"per", "of", "on", "to", "for", "in"}) & NP_STOP
    ):
        return " ".join(last).lower()
    return None


ADJECTIVAL = frozenset("required expected realized realised compounded discounted".split())
"""Participles that qualify a noun ("a required return", "the expected return")."""


def owned(phrase: str, text: str, at: int) -> str:
    """``phrase`` with its owner when the text says "its"/"their" ("price of the bond")."""
    head = text[max(0, at - 160) : at]
    pronoun = re.search(rf"\b(?:its|their)\s+{re.escape(phrase)}\s*(?:is|are|[,:])?\s*$", head)
    if not pronoun:
        return phrase
    subjects = re.findall(
        r"\b(?:a|an|the|A|An|The)\s+([a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+"
        r"(?:pays|is|has|with|that|which|grows|earns|costs|gives)\b",
        text[: at - len(head) + pronoun.start()],
    )
    return f"{phrase} of the {subjects[-1]}" if subjects else phrase


_RANGE_STATEMENT = re.compile(
    rf"([A-Za-z$][A-Za-z$_{{}}\\'\s-]{{1,80}}?)\s+(?:(?:usually|typically|generally|often|normally|"
    rf"mostly|commonly)\s+)?(?:(?:lie|lies|range|ranges|vary|varies|fall|falls|are|is|run|runs)"
    rf"\s+)?(?:(?:between|from)\s+({_NUMBER})\s*(?:[a-zA-Z/²%]+\s+)?(?:and|to)\s+({_NUMBER})"
    # "the MAP falls within the range of 70–110 mm Hg"
    rf"|(?:with)?in\s+(?:the|a)\s+range\s+(?:of\s+|from\s+)?({_NUMBER})\s*(?:[-–—]|to)\s*"
    rf"({_NUMBER}))"
)


def _singular_words(text: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    return [
        w[:-3] + "y" if len(w) > 4 and w.endswith("ies")  # capacities
        else w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss")
        else w
        for w in words
    ]  # fmt: skip


def stated_range(quantity: Quantity, document: str) -> tuple[float, float, str] | None:
    """A range the text states apart from the definition, for this quantity.

    "Face values usually lie between 100 and 10000; coupon rates between 0.01 and 0.12",
    "$m$ is from 1 to 365": the phrase before the numbers names the quantity (its symbol,
    or the words of its description with the same head noun; the closest match wins).
    """
    # "decay period in steps" is stated as "decay periods lie between ..."
    head = re.split(r"\s+(?:in|at|for|on|per|from|across|between)\s+", quantity.description)[0]
    wants = [w for w in (_singular_words(quantity.description), _singular_words(head)) if w]
    best: tuple[int, float, float, str] | None = None
    for match in _RANGE_STATEMENT.finditer(document):
        subject = match.group(1)
        symbol = re.search(rf"\$\s*{_symbol_core(quantity.name)}\s*\$\s*(?:is|are)?\s*$", subject)
        acronym = re.fullmatch(r"[A-Z]{2,6}", quantity.name) and re.search(
            rf"\b{quantity.name}\s*(?:is|are)?\s*$", subject
        )  # "the MAP falls within ...": an abbreviation is written bare
        if symbol or acronym:
            score = 100
        else:
            score = max(
                (_subject_score(p, w) for p in _subjects(subject) for w in wants), default=-1
            )
            if score < 0:
                continue
        low_text, high_text = match.group(2) or match.group(4), match.group(3) or match.group(5)
        (low, _), (high, _) = _number(low_text), _number(high_text)
        if best is None or score > best[0]:
            best = (score, low, high, match.group(0).strip())
    return None if best is None else best[1:]


def _subjects(subject: str) -> list[str]:
    """The phrases a range sentence may be about: its last and its leading noun phrase.

    "Carrying capacities for the island populations discussed below", "the voltage applied
    across the resistor".
    """
    found = [noun_before(subject, allow_end=True) or ""]
    words = re.findall(r"[A-Za-z][\w'-]*", subject)
    while words and words[0].lower() in ("the", "a", "an", "in", "for", "its", "their"):
        words.pop(0)
    leading: list[str] = []
    for word in words:
        low = word.lower()
        if low in NP_INNER and leading and leading[-1].lower() not in NP_INNER:
            leading.append(word)  # "coefficient of friction"
            continue
        if low in NP_STOP or low in NP_INNER or VERB_END.search(low):
            break
        leading.append(word)
    while leading and leading[-1].lower() in NP_INNER:
        leading.pop()
    found.append(" ".join(leading))
    return [f for f in found if f]


def _subject_score(phrase: str, want: list[str]) -> int:
    """How well a range sentence's phrase names a quantity described by ``want`` (-1: not)."""
    said = _singular_words(phrase)
    if not said or said[-1] != want[-1] or not set(said) <= set(want):
        return -1
    if said != want and len(said) < 2:
        return -1  # "rates" alone is the range of the quantity called "rate" only
    return (
        len(set(said) & set(want)) * 10 - abs(len(want) - len(said)) + (50 if said == want else 0)
    )


def with_stated_range(quantity: Quantity, document: str) -> Quantity:
    """``quantity`` with a range stated elsewhere in the text, when its definition has none."""
    if any(f == "range" and o == "definition" for f, o in quantity.origins) or quantity.choices:
        return quantity
    found = stated_range(quantity, document)
    if found is None:
        return quantity
    low, high, sentence = found
    if low > high:
        low, high = high, low
    if quantity.integer:
        low, high = max(math.ceil(low), 1), max(math.floor(high), math.ceil(low), 1)
    origins = tuple(o for o in quantity.origins if o[0] != "range")
    return replace(
        quantity,
        low=low,
        high=high,
        bounds=None,
        assumed=tuple(a for a in quantity.assumed if a != "range"),
        origins=(*origins, ("range", f"stated in the text ({sentence[:80]!r})")),
    )


GREEK_NAMES = frozenset(GREEK.values()) | {"lamda", "Lamda"}
"""Letters spelled out ("omega", "Phi"); "Beta" capitalised is a word (a stock's beta)."""


def word_name(name: str) -> str | None:
    """The words of a name set in words ("Annual_Coupon_Rate" -> "annual coupon rate").

    Formulas written in words (one MathML ``<mi>`` per word) name their quantities so; an
    abbreviation (``PV``) or a letter with a subscript (``v_0``) is not words, but a word
    may stand beside one ("systolic_BP" -> "systolic BP").
    """
    parts = name.split("_")
    if not all(p.isalpha() and len(p) >= 2 for p in parts):
        return None
    if any(p in GREEK_NAMES for p in parts):
        return None  # "omega", "lamda_0": letters, not words
    if not any(len(p) >= 3 and not p.isupper() for p in parts):
        return None  # "PV_FV": abbreviations only
    # "systolic_BP": a word with an abbreviation, which keeps its capitals
    return " ".join(p if p.isupper() else p.lower() for p in parts)


def find_definitions(
    names: set[str], sections: list[Section], near: Section, document: str = ""
) -> dict[str, Quantity]:
    """Definitions of ``names``: first in the section ``near``, then anywhere in ``sections``.

    ``document`` (the whole text) lets worked examples give a range the definition omits.
    """
    found: dict[str, Quantity] = {}
    ordered = [near, *[s for s in sections if s is not near]]
    whole = document or "".join(s.text for s in sections)
    plain = "$" not in whole and "`" not in whole  # no math marked anywhere: symbols are bare
    for name in sorted(names):
        for section in ordered:
            spans = definitions_of(name, section.text, plain_text=plain)
            if spans:
                # The first definition names it; later ones may give what it left out
                # ("time $t = 0$ ..." then "the time $t = -5.0$ s": the unit).
                readings = (
                    parse_definition(
                        name,
                        re.sub(r"\s+", " ", section.text[start:end]),
                        section.source(start, end),
                        description=description,
                        document=document,
                    )
                    for start, end, description in spans[:4]
                )
                read = next(readings)
                for quantity in readings:
                    if not {"unit", "range"} & set(read.assumed):
                        break
                    read = merge(read, quantity)
                found[name] = with_stated_range(read, document or section.text)
                break
        if name in found:
            own = word_name(name)
            if own and "description" not in found[name].assumed:
                # "Gift", "Annual_Distribution": a name set in words is what the text calls it
                found[name] = replace(found[name], description=own)
                kind = next((k for p, k in _KIND_WORDS if re.search(p, own, flags=re.I)), "")
                if kind and not found[name].symbol and "unit" in found[name].assumed:
                    found[name] = with_stated_range(
                        parse_definition(name, own, found[name].source, description=own,
                                         document=document),
                        document or near.text,
                    )  # fmt: skip
            continue
        # "PV_Coupon": the abbreviation's words, of the subscript's ("present value of the
        # coupon"); "Par_Value": a name set in words describes itself.
        head, _, tail = name.partition("_")
        composed = None
        if tail and word_name(tail) and head and not word_name(name):
            base = find_definitions({head}, sections, near, document).get(head)
            if base is not None and "description" not in base.assumed:
                composed = f"{base.description} of the {word_name(tail)}"
        words = composed or word_name(name)
        if words:
            found[name] = with_stated_range(
                parse_definition(name, words, near.source(), description=words, document=document),
                document or near.text,
            )
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
            updates.update(unit=other.unit, symbol=other.symbol)
        elif part == "range":
            updates.update(
                low=other.low, high=other.high, choices=other.choices, bounds=other.bounds
            )
    return replace(known, assumed=tuple(still), **updates)  # type: ignore[arg-type]

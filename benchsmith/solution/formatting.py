"""How values are printed in problem text and choices, and read back.

Givens are sampled already rounded to what these formats print, so a given's printed form
is exact. Answers keep at least four significant digits, well inside a 1% tolerance.
Percent quantities are fractions in the graph (0.0425) and printed as percent (``4.25%``).
"""

from __future__ import annotations

import math
import re

from benchsmith.solution.quantities import Quantity


def _trim(number: str) -> str:
    return number.rstrip("0").rstrip(".") if "." in number else number


def _decimals_for(value: float, minimum: int, significant: int = 4) -> int:
    if value == 0:
        return minimum
    return min(10, max(minimum, significant - 1 - math.floor(math.log10(abs(value)))))


def format_value(value: float, quantity: Quantity) -> str:
    """``value`` as printed for ``quantity`` (``$1,234.56``, ``4.25%``, ``12 years``)."""
    unit = quantity.unit
    if value != 0 and abs(value) < 1e-4:  # too small for fixed decimals: keep 4 digits
        tiny = f"{value * 100:.4g}%" if unit == "percent" else f"{value:.4g}"
        if unit == "currency":
            return f"${tiny}" + (f" per {quantity.per}" if quantity.per else "")
        return tiny
    if unit == "currency":  # money always shows its cents: $36.80, $1,024.21
        sign = "-" if value < 0 else ""
        per = f" per {quantity.per}" if quantity.per else ""
        return f"{sign}${abs(value):,.2f}{per}"
    if unit == "percent":
        percent = value * 100
        return f"{_trim(f'{percent:.{_decimals_for(percent, 2)}f}')}%"
    if float(value).is_integer() and abs(value) < 1e15:
        number = f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    else:
        # A physical measure keeps four significant digits (1006 m); others two decimals.
        minimum = 0 if quantity.symbol else 2
        number = _trim(f"{value:.{_decimals_for(value, minimum)}f}")
    if unit == "years":
        return f"{number} year" if number == "1" else f"{number} years"
    if unit == "periods":
        return f"{number} period" if number == "1" else f"{number} periods"
    if quantity.symbol:
        return f"{number} {quantity.symbol}"
    return number


def parse_value(text: str) -> float:
    """The number a printed value stands for (percent as a fraction)."""
    clean = text.strip().replace(",", "").replace("$", "")
    match = re.match(r"^([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)\s*(%?)", clean)
    if not match:
        raise ValueError(f"not a printed value: {text!r}")
    value = float(match.group(1))
    return value / 100 if match.group(2) else value


def _significant(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` significant figures, in fixed notation (1830, 0.0452)."""
    if value == 0:
        return "0"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, decimals)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) > math.floor(math.log10(abs(value))):
        decimals -= 1  # rounding reached the next power of ten: 0.009999 is 0.0100, not 0.01000
    return f"{rounded:.{max(decimals, 0)}f}"


def percent_decimals(value: float) -> int:
    """Decimal places a percentage answer is given to: two, more for rates under 1 %."""
    return _decimals_for(value * 100, 2, significant=3)


def target_string(value: float, quantity: Quantity) -> str:
    """The numeric target of an item, rounded as :func:`answer_instruction` asks.

    Money to the cent, a percentage as percent (``7.21`` for 7.21 %), a whole count as an
    integer, a measure to three significant figures. The exact value stays in the item's
    ``answer_value``; the rounding is far inside the scoring tolerance (1 %).
    """
    unit = quantity.unit
    if unit == "currency":
        return f"{value:.2f}"
    if unit == "percent":
        return f"{value * 100:.{percent_decimals(value)}f}"
    if unit in ("years", "periods", "count") and quantity.integer:
        return str(round(value))
    if unit == "years":
        return f"{value:.2f}"
    return _significant(value, 3)


def target_value(target: str, quantity: Quantity) -> float:
    """The value a numeric target stands for, in graph units (a percentage as a fraction)."""
    number = float(target)
    return number / 100 if quantity.unit == "percent" else number


def answer_instruction(quantity: Quantity, value: float | None = None) -> str:
    """How a numeric answer should be given: its unit and the precision expected.

    ``value`` (the answer) decides how many decimals a small percentage needs.
    """
    if quantity.unit == "currency":
        return f"Give the answer in {quantity.unit_text}, to the nearest cent."
    if quantity.unit == "percent":
        places = percent_decimals(value) if value is not None else 2
        words = {2: "two", 3: "three", 4: "four"}.get(places, str(places))
        return f"Give the answer as a percentage, to {words} decimal places."
    if quantity.unit in ("years", "periods", "count") and quantity.integer:
        word = {"years": "years", "periods": "periods"}.get(quantity.unit, "")
        return f"Give the answer as a whole number{' of ' + word if word else ''}."
    if quantity.symbol:
        return f"Give the answer in {quantity.symbol}, to three significant figures."
    if quantity.unit == "years":
        return "Give the answer in years, to two decimal places."
    return "Give the answer as a number, to three significant figures."


def close(a: float, b: float, tolerance: float) -> bool:
    """Whether ``a`` is within relative ``tolerance`` of ``b`` (absolute near zero)."""
    return abs(a - b) <= tolerance * max(abs(b), 1e-9)

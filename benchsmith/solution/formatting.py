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
        return f"${tiny}" if unit == "currency" else tiny
    if unit == "currency":
        sign = "-" if value < 0 else ""
        if abs(value) >= 100:
            return f"{sign}${abs(value):,.2f}"
        return f"{sign}${_trim(f'{abs(value):.{_decimals_for(value, 2)}f}')}"
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


def target_string(value: float) -> str:
    """The numeric target of an item: a plain number with six significant digits."""
    return f"{value:.6g}"


def answer_instruction(quantity: Quantity) -> str:
    """How a numeric answer should be given: its unit and the precision expected."""
    if quantity.unit == "currency":
        return "Give the answer in dollars, to the nearest cent."
    if quantity.unit == "percent":
        return (
            "Give the answer as a decimal fraction (for example 0.05 for 5%), "
            "to four significant figures."
        )
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

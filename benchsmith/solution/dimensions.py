"""Whether a formula's units agree, with the units read from the text (sympy's units).

A formula is computed on plain numbers: ``Q = C V`` gives the charge in coulombs only when
the capacitance is in farads and the voltage in volts. When the reader took the text's
units (``μC`` for the charge, ``F`` for the capacitance), the numbers an item prints would
not satisfy the formula in those units, and the answer would be wrong in the unit it is
asked in. :func:`unit_disagreement` substitutes each quantity's unit
(:mod:`sympy.physics.units`) and checks that the two sides agree in dimension and in scale.

A unit the text writes and this module does not know (``persons``, ``K·day``), or a
quantity whose unit was assumed, leaves the formula unchecked: only units read from the
text and understood here can refuse a formula. Temperatures in °C count as kelvins (a
difference is the same in both), angles in degrees as pure numbers (their functions are
taken on the printed value).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

import sympy as sp
from sympy.physics import units as u

from benchsmith.solution.quantities import Quantity, physical_unit

_DOLLAR = sp.Symbol("dollar", positive=True)
"""Money has a dimension of its own: dollars are not metres."""
_BASE: dict[str, sp.Expr] = {
    "m": u.meter, "s": u.second, "g": u.gram, "N": u.newton, "J": u.joule, "W": u.watt,
    "V": u.volt, "A": u.ampere, "Ω": u.ohm, "ohm": u.ohm, "ohms": u.ohm, "F": u.farad,
    "C": u.coulomb, "Pa": u.pascal, "K": u.kelvin, "°C": u.kelvin, "Hz": u.hertz,
    "L": u.liter, "l": u.liter, "mol": u.mole, "h": u.hour, "min": u.minute, "d": u.day,
    "day": u.day, "days": u.day, "yr": u.year, "year": u.year, "atm": u.atmosphere,
    "mmHg": u.mmHg, "in": u.inch, "ft": u.foot, "yd": u.yard, "mi": u.mile,
    "ha": 10_000 * u.meter**2, "Wh": u.watt * u.hour, "rad": sp.S.One, "°": sp.S.One,
    "degree": sp.S.One, "degrees": sp.S.One, "M": u.mole / u.liter, "$": _DOLLAR,
}  # fmt: skip
_PREFIXES = {"k": 10**3, "M": 10**6, "G": 10**9, "m": sp.Rational(1, 10**3),
             "μ": sp.Rational(1, 10**6), "µ": sp.Rational(1, 10**6),
             "n": sp.Rational(1, 10**9), "c": sp.Rational(1, 100)}  # fmt: skip
_SI = [u.meter, u.kilogram, u.second, u.ampere, u.kelvin, u.mole, u.candela]
# A number of years or periods counts them (an exponent in finance), as a percent is a pure
# number; a time in physics has its symbol (s, h, yr).
_KINDS = {"percent": sp.S.One, "count": sp.S.One, "periods": sp.S.One, "years": sp.S.One,
          "currency": _DOLLAR}  # fmt: skip


def _name(token: str) -> sp.Expr | None:
    if token in _BASE:
        return _BASE[token]
    if len(token) > 1 and token[0] in _PREFIXES and token[1:] in _BASE:
        return _PREFIXES[token[0]] * _BASE[token[1:]]
    return None


def parse_unit(text: str) -> sp.Expr | None:
    """A unit as written (``m²·K/W``, ``J/(g·°C)``, ``mg/L``, ``1/°C``), or None if unknown."""
    text = text.strip().replace("²", "^2").replace("³", "^3").replace("⁻¹", "^-1")
    text = re.sub(r"\s*[·⋅*]\s*|\s+", "*", text)
    names: dict[str, sp.Expr] = {}

    def placeholder(match: re.Match[str]) -> str:
        unit = _name(match.group(0))
        if unit is None:
            raise KeyError(match.group(0))
        key = f"U{len(names)}"
        names[key] = unit
        return key

    try:
        source = re.sub(r"°C|°|[A-Za-zμµΩ$]+", placeholder, text)
    except KeyError:
        return None
    if not re.fullmatch(r"[U\d*/^()\-. ]*", source) or not names:
        return None
    try:
        expr = sp.sympify(source.replace("^", "**"), locals=names)
    except (sp.SympifyError, SyntaxError, TypeError):
        return None
    return expr


def quantity_unit(quantity: Quantity) -> sp.Expr | None:
    """A quantity's unit as sympy reads it; None when it was assumed or is not understood."""
    if "unit" in quantity.assumed:
        return None
    if quantity.symbol:
        return parse_unit(quantity.symbol)
    if quantity.unit == "currency" and quantity.per:  # dollars per kilowatt-hour
        per = parse_unit(physical_unit(quantity.per) or quantity.per)
        return _DOLLAR / per if per is not None else None
    return _KINDS.get(quantity.unit, sp.S.One if quantity.unit == "number" else None)


def _converts(expr: sp.Expr) -> bool:
    """Whether ``expr`` carries a constant that may convert units (10, 360, 0.278, 1/1000).

    Small whole numbers and halves are a formula's own (2 pi r, m v^2 / 2); any other
    number may be the text's conversion of mixed units, so only the dimensions are checked.
    """
    numbers = {abs(n) for n in expr.atoms(sp.Number)}
    return any(n not in (0, 1, 2, 3, 4, sp.S.Half) and n != sp.Rational(1, 3) for n in numbers)


def _carried_unit(
    expr: sp.Expr, quantities: Mapping[str, Quantity], seed: int = 0
) -> sp.Expr | None:
    """The unit ``expr`` computes from its inputs' units (None: one is assumed or unknown).

    Computed on one sampled point: the value with units over the plain value.
    """
    units: dict[sp.Symbol, sp.Expr] = {}
    for symbol in sorted(expr.free_symbols, key=str):
        quantity = quantities.get(str(symbol))
        unit = quantity_unit(quantity) if quantity is not None else None
        if unit is None:
            return None
        units[symbol] = unit
    rng = random.Random(seed)
    point = {s: sp.Float(rng.uniform(1.1, 2.9)) for s in units}
    try:
        plain = expr.xreplace(point)
        with_units = expr.xreplace({s: v * units[s] for s, v in point.items()})
        return sp.nsimplify(sp.simplify(with_units / plain), rational=False)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return None


def unit_disagreement(
    output: str, expr: sp.Expr, quantities: Mapping[str, Quantity], seed: int = 0
) -> str | None:
    """Why ``output = expr`` disagrees with its quantities' units (None: agrees or unknown).

    Dimensions must agree; the scale too unless the formula carries a constant of its own
    that may be a conversion (:func:`_converts`).
    """
    unit = quantity_unit(quantities[output]) if output in quantities else None
    carried = _carried_unit(expr, quantities, seed)
    if unit is None or carried is None:
        return None
    names = [output, *sorted(str(s) for s in expr.free_symbols)]
    try:
        ratio = u.convert_to(carried / unit, _SI)
        ratio = sp.nsimplify(sp.simplify(ratio), rational=False)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return None
    if ratio.is_number and abs(complex(ratio) - 1) < 1e-6:
        return None
    if ratio.is_number and _converts(expr):
        return None  # "V_r = 10 Q_d A": the text's constant turns mm times ha into m³
    shown = ", ".join(f"{n} in {quantities[n].symbol or quantities[n].unit}" for n in names)
    if ratio.is_number:
        return f"its units disagree by a factor of {float(complex(ratio).real):g} ({shown})"
    return f"its units disagree ({shown})"


def implied_unit(expr: sp.Expr, quantities: Mapping[str, Quantity]) -> tuple[str, str] | None:
    """``(unit family, symbol)`` that a formula's inputs give its result, or None.

    ``I = P r t`` with the principal in dollars, the rate a percent and the time in years
    computes dollars; ``W = F d`` in newtons and metres, joules. None when an input's unit
    is assumed or unknown, or the result is a pure number (a percent and a count look
    alike), or no unit of :data:`_BASE` has exactly its dimension and scale.
    """
    carried = _carried_unit(expr, quantities)
    if carried is None:
        return None
    if carried.is_number or carried.has(sp.I):
        return None
    if sp.simplify(carried / _DOLLAR).is_number:
        return ("currency", "") if abs(complex(sp.simplify(carried / _DOLLAR)) - 1) < 1e-9 else None
    try:
        si = u.convert_to(carried, _SI)
    except (TypeError, ValueError, AttributeError):
        return None
    for token, unit in _BASE.items():
        if unit is _DOLLAR or unit.is_number or not re.fullmatch(r"[A-Za-zΩ°]{1,3}", token):
            continue
        ratio = sp.simplify(si / u.convert_to(unit, _SI))
        if ratio.is_number and abs(complex(ratio) - 1) < 1e-9:
            return "number", token
    return None

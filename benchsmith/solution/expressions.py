"""Parsing formula text (Python-style or rewritten LaTeX) into sympy expressions.

Names are runs of letters, digits and underscores (``PV``, ``C_0``): a multi-letter name is
one quantity, never a product of letters, as in finance and engineering texts. Products may
be written with ``*`` or by juxtaposition (``PV(1 + r)``, ``2 r``); powers with ``**`` or
``^``. A name that sympy would read as a constant or function (``I``, ``E``, ``S``, ``N``)
gets a trailing underscore, so that the recorded expression strings re-parse to the same
quantities with plain ``sympy.sympify``.
"""

from __future__ import annotations

import math
import re
import tokenize
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication,
    parse_expr,
    standard_transformations,
)

from benchsmith.solution.errors import FormulaSyntaxError

FUNCTIONS: dict[str, Any] = {
    "exp": sp.exp, "log": sp.log, "ln": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos,
    "tan": sp.tan, "log10": lambda x: sp.log(x, 10),
}  # fmt: skip
CONSTANTS: dict[str, Any] = {"pi": sp.pi}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRANSFORMS = (*standard_transformations, implicit_multiplication, convert_xor)
_ALLOWED = re.compile(r"^[A-Za-z0-9_+\-*/^().,\s]*$")
MAX_FORMULA_CHARS = 400


def safe_name(name: str) -> str:
    """``name``, with a trailing underscore when sympy would read it as something else."""
    if name in FUNCTIONS or name in CONSTANTS:
        return name
    clash = hasattr(sp, name) or name in {"E", "I", "N", "O", "Q", "S", "oo", "zoo", "nan"}
    return f"{name}_" if clash else name


def is_name(text: str) -> bool:
    """Whether ``text`` is a single quantity name."""
    return bool(_IDENT.fullmatch(text.strip())) and text.strip() not in FUNCTIONS


_POWERS = {"²": "**2", "³": "**3", "⁴": "**4", "½": "(1/2)"}
_OPERATORS = {"·": "*", "⋅": "*", "×": "*", "∙": "*", "−": "-", "–": "-", "÷": "/"}


def unicode_math(text: str) -> str:
    """Math typed with Unicode signs as plain syntax: ``(P − 0.2·S)²`` -> ``(P - 0.2*S)**2``.

    A root sign takes the name, number or bracketed group after it (``√S``, ``√(2gh)``).
    """
    for sign, plain in (_OPERATORS | _POWERS).items():
        text = text.replace(sign, plain)
    out, i = [], 0
    while i < len(text):
        if text[i] != "√":
            out.append(text[i])
            i += 1
            continue
        j = i + 1
        if j < len(text) and text[j] == "(":
            depth = 0
            for k in range(j, len(text)):
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                if depth == 0:
                    break
            out.append(f"sqrt{text[j : k + 1]}")
            i = k + 1
        else:
            match = re.match(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?", text[j:])
            arg = match.group(0) if match else ""
            out.append(f"sqrt({arg})")
            i = j + len(arg)
    return "".join(out)


def parse_expression(text: str) -> sp.Expr:
    """Parse a right-hand side into a sympy expression over plain symbols.

    Raises:
        FormulaSyntaxError: Too long, unexpected characters, or not a valid expression.
    """
    source = unicode_math(text.strip())
    if not source:
        raise FormulaSyntaxError("empty expression")
    if len(source) > MAX_FORMULA_CHARS:
        raise FormulaSyntaxError(f"expression longer than {MAX_FORMULA_CHARS} characters")
    if not _ALLOWED.match(source):
        bad = sorted({ch for ch in source if not _ALLOWED.match(ch)})
        raise FormulaSyntaxError(f"unexpected characters {''.join(bad)!r}")
    return _parse_cached(source)


@lru_cache(maxsize=4096)
def _parse_cached(source: str) -> sp.Expr:
    local: dict[str, Any] = dict(FUNCTIONS) | CONSTANTS
    for name in _IDENT.findall(source):
        if name not in local:
            local[name] = sp.Symbol(safe_name(name))
    try:
        expr = parse_expr(source, local_dict=local, transformations=_TRANSFORMS)
    except (
        SyntaxError,
        TypeError,
        ValueError,
        AttributeError,
        sp.SympifyError,
        tokenize.TokenError,
    ) as exc:
        raise FormulaSyntaxError(f"not a valid expression ({type(exc).__name__})") from exc
    if not isinstance(expr, sp.Expr):
        raise FormulaSyntaxError("not an arithmetic expression")
    if any(isinstance(f, sp.core.function.AppliedUndef) for f in expr.atoms(sp.Function)):
        raise FormulaSyntaxError("uses an unknown function")
    return expr


def names_of(expr: sp.Expr) -> frozenset[str]:
    """The quantity names an expression uses."""
    return frozenset(str(s) for s in expr.free_symbols)


def expression_string(expr: sp.Expr) -> str:
    """The recorded form of an expression: sympy's string, which ``sympify`` reads back."""
    return str(expr)


@lru_cache(maxsize=4096)
def numeric_function(expr: sp.Expr, names: tuple[str, ...]) -> Any:
    """A fast float function of ``names`` (positional) computing ``expr`` with ``math``.

    Compiled once per expression and names (``lambdify`` takes milliseconds; admission,
    every graph's step forms and the distractors ask for the same functions again).
    """
    symbols = [sp.Symbol(n) for n in names]
    plain = expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols})
    return sp.lambdify(symbols, plain, modules="math")


def is_finite_real(value: object) -> bool:
    """Whether ``value`` is a finite real number (not complex, NaN or infinite)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

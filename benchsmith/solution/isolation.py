"""Closed-form roots of ``output = expr`` for one unknown, without sympy's general solver.

sympy's ``solve`` tries method after method and simplifies what it finds: a tenth of a
second per formula, most of the cost of a cold build. The formulas of a text mostly give
an unknown in one of three simple ways, handled here directly:

- *isolation*: the unknown occurs once, and the operations around it are undone from the
  outside in (``FV = PV (1 + r)^n`` for ``n``: divide by ``PV``, take logarithms);
- *linear*: cleared of denominators, the equation is linear in the unknown
  (``PI = (C_0 + NPV)/C_0`` for ``C_0``, ``i = pi + rho + pi rho`` for ``rho``);
- *linear in a power*: every occurrence of the unknown is inside copies of one power, the
  equation is linear in that power, and the power is isolated
  (``B = P (1 + r)^k - PMT ((1 + r)^k - 1)/r`` for ``k``).

Each way undoes only operations with a single real inverse on the values the quantities
take (a sum, a product, a reciprocal, ``exp``, ``log``, a power with a positive base and a
symbolic exponent), so the root is the one sympy's ``solve`` finds, written differently
perhaps (``log(FV/PV)`` for ``log(FV) - log(PV)``) but equal wherever it is defined. (Where
sympy's heuristics find none although undoing the operations gives one, as for ``n`` in a
growing annuity written with ``((1 + g)/(1 + r))^n``, the isolated root is taken.) Roots
are then checked as ``solve(..., check=True)`` checks them: a root contradicting the
unknown's sign assumption or zeroing a denominator of the equation is dropped. Anything
else (squares and roots, the unknown in both a base and an exponent, several unrelated
occurrences) gives None, and the caller asks sympy.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.assumptions import check_assumptions
from sympy.solvers.solvers import denoms

_SIGNS = ("positive", "nonnegative", "real")


def fast_roots(expr: sp.Expr, output: sp.Symbol, unknown: sp.Symbol) -> list[sp.Expr] | None:
    """The roots of ``output = expr`` for ``unknown``; None when no fast way applies.

    Args:
        expr: The formula's right-hand side (over symbols carrying sign assumptions).
        output: The formula's output symbol (not in ``expr``).
        unknown: The symbol to solve for (in ``expr``).

    Returns:
        The roots as ``sympy.solve(Eq(output, expr), unknown)`` would keep them (none or
        one), or None when the equation is not of a handled kind.
    """
    root = _isolate(expr, unknown, output)
    if root is None:
        root = _linear(expr - output, unknown)
    if root is None:
        root = _linear_in_power(expr, output, unknown)
    if root is None or root.has(unknown) or root.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    return [root] if _kept(expr - output, unknown, root) else []


def _isolate(expr: sp.Expr, x: sp.Symbol, target: sp.Expr) -> sp.Expr | None:
    """``x`` from ``expr = target`` by undoing the operations around its one occurrence."""
    while expr != x:
        if expr.is_Add or expr.is_Mul:
            rest, part = expr.as_independent(x, as_Add=expr.is_Add)
            if part.func is expr.func:
                return None  # x in several terms or factors
            target = target - rest if expr.is_Add else target / rest
            expr = part
        elif isinstance(expr, sp.exp):
            if not _unit_coefficient(expr.args[0]):
                return None
            target, expr = sp.log(target), expr.args[0]
        elif isinstance(expr, sp.log):
            target, expr = sp.exp(target), expr.args[0]
        elif expr.is_Pow:
            base, exponent = expr.args
            if exponent.has(x):
                # b**e = t with b > 0: e = log(t)/log(b), the one real exponent.
                if base.has(x) or base.is_positive is not True:
                    return None
                if not _unit_coefficient(exponent):
                    return None
                target, expr = sp.log(target) / sp.log(base), exponent
            elif exponent == -1:
                target, expr = 1 / target, base
            elif not exponent.is_number and _unit_coefficient(exponent):
                # b**n = t with b > 0 and a symbolic n: b = t**(1/n), the principal root.
                if base.is_positive is not True:
                    return None
                target, expr = target ** (1 / exponent), base
            else:
                return None  # squares and roots may have two real roots: sympy decides
        else:
            return None
    return target


def _unit_coefficient(exponent: sp.Expr) -> bool:
    """Whether an exponent's numeric factor is 1 or -1 (``n``, ``-n``, ``j t``; not ``2 n``)."""
    coefficient, _ = exponent.as_coeff_Mul()
    return coefficient in (sp.S.One, sp.S.NegativeOne)


def _linear(equation: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """The root of ``equation = 0`` when its numerator is linear in ``x`` (else None)."""
    numerator, _ = sp.together(equation).as_numer_denom()
    slope = numerator.diff(x)
    if slope.has(x) or slope.is_zero:
        return None
    intercept = numerator.xreplace({x: sp.S.Zero})
    if intercept.has(x):
        return None
    return -intercept / slope


def _linear_in_power(expr: sp.Expr, output: sp.Symbol, x: sp.Symbol) -> sp.Expr | None:
    """``x`` when the equation is linear in one power holding every occurrence of ``x``."""
    powers = {
        p
        for p in sp.preorder_traversal(expr)
        if (p.is_Pow or isinstance(p, sp.exp)) and p.has(x) and p != x
    }
    for power in sorted(powers, key=sp.default_sort_key):
        y = sp.Dummy("y", positive=power.is_positive)
        replaced = expr.xreplace({power: y})
        if replaced.has(x):
            continue
        value = _linear(replaced - output, y)
        if value is None or value.has(y):
            continue
        root = _isolate(power, x, value)
        if root is not None:
            return root
    return None


def _kept(equation: sp.Expr, x: sp.Symbol, root: sp.Expr) -> bool:
    """Whether ``solve(..., check=True)`` keeps ``root``: sign assumption, denominators."""
    # The sign the unknown was given (the others of assumptions0 follow from it).
    sign = next((s for s in _SIGNS if x.assumptions0.get(s)), None)
    if sign is not None and check_assumptions(root, **{sign: True}) is False:
        return False
    return not any(d.xreplace({x: root}).is_zero for d in denoms(equation, x))

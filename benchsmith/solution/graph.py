"""The solution graph: quantities are nodes, formulas are edges, derivations are chains.

A step computes one quantity of a formula from the others: forward (the formula's output)
or by solving the formula for an input (``n`` from ``FV = PV (1 + r)^n``): directly when the
input can be isolated or the equation is linear in it (:mod:`.isolation`), else with sympy. A
derivation of a target in k steps is a chain of steps in which every quantity is computed
once and never also given; givens may feed several steps. A derivation is refused when its
quantities also satisfy another, non-equivalent formula of the graph (the givens would then
over-determine the problem).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import sympy as sp

from benchsmith.solution import cache
from benchsmith.solution.expressions import numeric_function
from benchsmith.solution.formulas import Formula
from benchsmith.solution.isolation import fast_roots
from benchsmith.solution.quantities import Quantity

_ALLOWED_FUNCTIONS = (sp.exp, sp.log)


@dataclass(frozen=True)
class StepForm:
    """One way to compute a quantity from a formula.

    Attributes:
        formula: The formula used.
        output: The quantity computed.
        candidates: The expression (forward) or the roots of the solved formula (inverted),
            over plain symbols; at run time the first real, in-range root is taken.
        inverted: Whether the formula is solved for one of its inputs.
    """

    formula: Formula
    output: str
    candidates: tuple[sp.Expr, ...]
    inverted: bool

    @cached_property
    def inputs(self) -> tuple[str, ...]:
        """The quantities the step needs, sorted."""
        return tuple(sorted(self.formula.names - {self.output}))

    @cached_property
    def functions(self) -> tuple[Any, ...]:
        """Fast numeric functions of :attr:`inputs`, one per candidate."""
        return tuple(numeric_function(c, self.inputs) for c in self.candidates)

    @cached_property
    def strings(self) -> tuple[str, ...]:
        """The candidates as sympy-parsable strings."""
        return tuple(str(c) for c in self.candidates)


@dataclass(frozen=True)
class Derivation:
    """An ordered chain of steps computing ``target`` from ``givens``."""

    target: str
    steps: tuple[StepForm, ...]
    givens: tuple[str, ...]

    @property
    def k(self) -> int:
        """The number of steps (the difficulty)."""
        return len(self.steps)

    @property
    def concept(self) -> str:
        """The concept of the final step (the one the problem is about)."""
        return self.steps[-1].formula.concept

    def key(self) -> tuple[tuple[str, str], ...]:
        """An identity of the chain: (formula id, output) per step."""
        return tuple((s.formula.id, s.output) for s in self.steps)


def _sign(quantity: Quantity | None) -> str:
    """The sign assumption of a quantity's symbol when a formula is solved."""
    if quantity is None or quantity.low < 0:
        return "real"
    if quantity.low > 0:
        return "positive"
    return "nonnegative"


_SOLVED: dict[tuple[Any, ...], tuple[sp.Expr, ...]] = {}
"""Roots by (expression, output, unknown, signs), shared by every graph of the process
(admission builds several graphs over the same formulas)."""


_SOLVE_FLAGS = {"rational": False, "bivariate": False, "force": False}
"""How sympy's ``solve`` is asked. ``bivariate=False`` skips its search for Lambert-W forms
(``x e^x = c``), whose roots :func:`_usable` refuses anyway; ``force=False`` keeps it from
assuming every symbol positive (a last retry, and in its checks of roots and its combining of
logarithms), which the signs of the quantities contradict (a net present value may be
negative; a root must hold under the signs they have). On a rate in an annuity formula
(``r`` and ``(1 + r)^n`` together), which has no closed form, the two cost over half a
second of a cold build to fail."""


def _solve_roots(
    expr: sp.Expr, output: str, unknown: str, signs: tuple[tuple[str, str], ...]
) -> tuple[sp.Expr, ...]:
    """Solve ``output = expr`` for ``unknown``: the usable roots, over plain symbols.

    The roots of the simple kinds (:mod:`.isolation`) are built directly; the others come
    from sympy's ``solve``.
    """
    symbols = {n: sp.Symbol(n, **{sign: True}) for n, sign in signs}
    assumed = expr.xreplace({sp.Symbol(n): s for n, s in symbols.items()})
    roots = fast_roots(assumed, symbols[output], symbols[unknown])
    if roots is None and _huge_powers(assumed):
        return ()
    if roots is None:
        equation = sp.Eq(symbols[output], assumed)
        try:
            # check=False: sympy's own check of a root can search minimal polynomials for
            # minutes (a half-life formula with 0.5 and e^{-0.000121 t}); it is checked here
            # on sampled values instead
            roots = sp.solve(equation, symbols[unknown], check=True, **_SOLVE_FLAGS)
        except (NotImplementedError, ValueError, TypeError, AttributeError):
            return ()
        roots = [
            r
            for r in roots
            if isinstance(r, sp.Expr) and _root_holds(assumed, symbols[output], symbols[unknown], r)
        ]
    back = {s: sp.Symbol(n) for n, s in symbols.items()}
    plain = [r.xreplace(back) for r in roots if isinstance(r, sp.Expr)]
    return tuple(r for r in plain if _usable(r) and r.free_symbols)


HUGE_EXPONENT = 400
"""A power's numeric exponent past which sympy's ``solve`` is not tried (daily compounding,
365, is under it). ``solve`` builds dense polynomials of that degree: a worked line read as
a formula (``0.5 A_0 = A_0 e^{5730 k}``) took over 20 GB before it was refused."""


def _huge_powers(expr: sp.Expr) -> bool:
    """Whether a power of ``expr`` has a numeric exponent (or factor of one) past the cap."""
    for power in expr.atoms(sp.Pow):
        factor = power.exp if power.exp.is_Number else power.exp.as_coeff_Mul()[0]
        if not factor.is_Number:
            continue
        if abs(factor) > HUGE_EXPONENT or (factor.is_Rational and abs(factor.q) > HUGE_EXPONENT):
            return True
    return False


def _cached_roots(
    expr: sp.Expr, output: str, unknown: str, signs: tuple[tuple[str, str], ...]
) -> tuple[sp.Expr, ...]:
    """:func:`_solve_roots`, read from the cache when solved before (by any process)."""
    key = cache.entry_key("roots", cache.to_text(expr), output, unknown, [list(s) for s in signs])
    stored = cache.load("roots", key)
    if isinstance(stored, list):
        try:
            return tuple(cache.from_text(text) for text in stored)
        except (ValueError, TypeError, RecursionError):
            pass  # corrupt or foreign: solve again (and overwrite it)
    roots = _solve_roots(expr, output, unknown, signs)
    cache.store("roots", key, [cache.to_text(r) for r in roots])
    return roots


def _root_holds(expr: sp.Expr, output: sp.Symbol, unknown: sp.Symbol, root: sp.Expr) -> bool:
    """Whether ``unknown = root`` satisfies ``output = expr`` on sampled values of its signs.

    At least two of six draws must evaluate (in real numbers) and agree to 1e-6, and no
    draw disagree; a root never of the unknown's sign is refused (v^2 = u has the roots
    +sqrt(u) and -sqrt(u); a positive v takes one).
    """
    rng = random.Random(0)
    free = sorted((expr.free_symbols | root.free_symbols) - {unknown}, key=str)
    names = tuple(s.name for s in free)
    try:
        residual = numeric_function(expr.xreplace({unknown: root}) - output, names)
        solved = numeric_function(root, names)
    except (TypeError, ValueError, SyntaxError, RecursionError):
        return False
    agreed = signed = 0
    for _ in range(6):
        point = [-rng.uniform(0.3, 3.0) if s.is_negative else rng.uniform(0.3, 3.0) for s in free]
        try:
            value, at = float(residual(*point)), float(solved(*point))
        except (ArithmeticError, ValueError, TypeError, OverflowError):
            continue
        if not (math.isfinite(value) and math.isfinite(at)):
            continue
        if abs(value) > 1e-6 * max(1.0, abs(at), *(abs(v) for v in point)):
            return False
        agreed += 1
        signed += not (unknown.is_positive and at <= 0 or unknown.is_negative and at >= 0)
    return agreed >= 2 and signed > 0


def _usable(expr: sp.Expr) -> bool:
    if expr.has(sp.I) or expr.has(sp.zoo) or expr.has(sp.nan):
        return False
    for function in expr.atoms(sp.Function):
        if not isinstance(function, _ALLOWED_FUNCTIONS):
            return False
    return not expr.atoms(sp.Piecewise)


class SolutionGraph:
    """Admitted formulas over typed quantities, with derivations of every length."""

    def __init__(
        self,
        quantities: Mapping[str, Quantity],
        formulas: list[Formula],
        apart: Iterable[frozenset[str]] = (),
        rivals: bool = False,
    ) -> None:
        """Build the graph (solving of formulas for inputs happens lazily and is cached).

        Args:
            quantities: Every quantity the formulas name.
            formulas: The admitted formulas.
            apart: Pairs of formula ids the text does not apply to one object: no chain
                passes a value from one to the other (:mod:`.objects`).
            rivals: Whether formulas over the same quantities that cannot both hold are
                rivals (``rivals``) rather than a constraint on one another.
        """
        self.quantities = dict(quantities)
        self.formulas = list(formulas)
        self.apart = frozenset(apart)
        self._forms: dict[str, list[StepForm]] = {}
        self._equivalent = self._equivalence_groups()
        self.rivals = frozenset(
            frozenset({a.id, b.id})
            for a, b in itertools.combinations(self.formulas, 2)
            if rivals and a.names == b.names and self._equivalent[a.id] != self._equivalent[b.id]
        )
        """Pairs of formula ids over the same quantities that cannot both hold (the text uses
        a symbol in two senses: ``I = P r t`` for a term in years, later ``I = P r t / 365``
        in days; ``t = -ln 2 / k`` and ``t = ln 2 / k``). Every world holding both would be
        refused: a chain's world leaves out its formulas' rivals, and no chain uses two."""
        self.memo: dict[Any, Any] = {}
        """Facts derived from the graph once and read often (:mod:`worlds`: its connected
        parts, the formulas of a part); the graph's formulas and quantities never change."""

    # --- steps -------------------------------------------------------------------------

    def _solve(self, formula: Formula, unknown: str) -> tuple[sp.Expr, ...]:
        """The usable roots of ``formula`` solved for ``unknown`` (memoized, then cached).

        The roots depend only on the expression, the output, the unknown and the sign
        assumptions of the symbols: they are solved once per process
        (:data:`_SOLVED`) and kept in the content-addressed cache (:mod:`.cache`) between
        processes.
        """
        signs = tuple(sorted((n, _sign(self.quantities.get(n))) for n in formula.names))
        memo = (formula.expr, formula.output, unknown, signs)
        roots = _SOLVED.get(memo)
        if roots is None:
            roots = _cached_roots(formula.expr, formula.output, unknown, signs)
            _SOLVED[memo] = roots
        return roots

    def forms_for(self, name: str) -> list[StepForm]:
        """Every way to compute ``name``: forward formulas first, then solved ones."""
        if name not in self._forms:
            forms = [StepForm(f, name, (f.expr,), False) for f in self.formulas if f.output == name]
            for f in self.formulas:
                if name in f.inputs:
                    roots = self._solve(f, name)
                    if roots:
                        forms.append(StepForm(f, name, roots, True))
            self._forms[name] = forms
        return self._forms[name]

    # --- consistency -------------------------------------------------------------------

    def _equivalence_groups(self) -> dict[str, int]:
        """Formulas that state the same relation (``FV = PV(1+r)^n`` and ``PV = FV/...``)."""
        rng = random.Random(0)
        group = {f.id: i for i, f in enumerate(self.formulas)}
        for a, b in itertools.combinations(self.formulas, 2):
            if a.names != b.names or group[a.id] == group[b.id]:
                continue
            if self._holds_together(a, b, rng):
                old, new = group[b.id], group[a.id]
                group = {k: (new if v == old else v) for k, v in group.items()}
        return group

    def _holds_together(self, a: Formula, b: Formula, rng: random.Random) -> bool:
        fa = numeric_function(a.expr, tuple(sorted(a.inputs)))
        fb = numeric_function(b.expr, tuple(sorted(b.inputs)))
        checked = 0
        for _ in range(20):
            values = {
                n: self.quantities[n].sample(rng) if n in self.quantities else rng.uniform(1, 2)
                for n in a.inputs
            }
            try:
                values[a.output] = float(fa(*(values[n] for n in sorted(a.inputs))))
                expected = float(fb(*(values[n] for n in sorted(b.inputs))))
            except (ZeroDivisionError, OverflowError, ValueError, TypeError):
                continue
            if abs(expected - values[b.output]) > 1e-9 * max(1.0, abs(expected)):
                return False
            checked += 1
        return checked >= 3

    def rivals_of(self, formula_ids: Iterable[str]) -> frozenset[str]:
        """The formulas that contradict any of ``formula_ids`` (see ``rivals``)."""
        ids = set(formula_ids)
        return frozenset(i for pair in self.rivals if pair & ids for i in pair - ids)

    def equivalence_group(self, formula_id: str) -> int:
        """The group of formulas stating the same relation as ``formula_id``."""
        return self._equivalent[formula_id]

    def over_determined(self, names: frozenset[str], used: set[str]) -> bool:
        """Whether another formula (not equivalent to a used one) relates only ``names``."""
        used_groups = {self._equivalent[i] for i in used}
        rivals = self.rivals_of(used)  # the text's other sense of a symbol constrains nothing
        return any(
            f.names <= names and self._equivalent[f.id] not in used_groups and f.id not in rivals
            for f in self.formulas
        )

    # --- derivations -------------------------------------------------------------------

    def _derive(
        self, name: str, steps: int, ancestors: frozenset[str]
    ) -> Iterator[tuple[tuple[StepForm, ...], frozenset[str]]]:
        """(steps in order, givens) of derivations of ``name`` in exactly ``steps`` steps."""
        for form in self.forms_for(name):
            yield from self._derive_with(form, steps, ancestors)

    def _derive_with(
        self, form: StepForm, steps: int, ancestors: frozenset[str]
    ) -> Iterator[tuple[tuple[StepForm, ...], frozenset[str]]]:
        # A step may not need a quantity that is being derived above it (no cycles); givens
        # may be shared between branches (m feeds both r = j/m and n = m t).
        inputs = frozenset(form.inputs)
        if inputs & ancestors:
            return
        if steps == 1:
            yield (form,), inputs
            return
        below = ancestors | {form.output}
        ordered = sorted(inputs)
        for size in range(1, min(len(ordered), steps - 1) + 1):
            for subset in itertools.combinations(ordered, size):
                for split in _compositions(steps - 1, size):
                    plan = list(zip(subset, split, strict=True))
                    for chain, givens in self._children(plan, below):
                        yield (*chain, form), (inputs - set(subset)) | givens

    def _children(
        self, plan: list[tuple[str, int]], ancestors: frozenset[str]
    ) -> Iterator[tuple[tuple[StepForm, ...], frozenset[str]]]:
        if not plan:
            yield (), frozenset()
            return
        (name, steps), rest = plan[0], plan[1:]
        for chain, givens in self._derive(name, steps, ancestors):
            for chain2, givens2 in self._children(rest, ancestors):
                yield chain + chain2, givens | givens2

    @staticmethod
    def well_formed(chain: tuple[StepForm, ...], givens: frozenset[str]) -> bool:
        """Each quantity computed once, never also given, and only from known values."""
        outputs = [s.output for s in chain]
        if len(set(outputs)) < len(outputs) or set(outputs) & givens:
            return False
        if len({s.formula.id for s in chain}) < len(chain):
            return False
        known = set(givens)
        for step in chain:
            if not set(step.inputs) <= known:
                return False
            known.add(step.output)
        return True

    def derivations(self, final: StepForm, steps: int, cap: int = 200) -> list[Derivation]:
        """Up to ``cap`` consistent derivations of ``steps`` steps ending with ``final``."""
        out: list[Derivation] = []
        seen: set[tuple[tuple[str, str], ...]] = set()
        for chain, givens in self._derive_with(final, steps, frozenset({final.output})):
            derivation = Derivation(final.output, chain, tuple(sorted(givens)))
            if derivation.key() in seen or not self.well_formed(chain, givens):
                continue
            names = givens | {s.output for s in chain}
            if self.over_determined(names, {s.formula.id for s in chain}):
                continue
            seen.add(derivation.key())
            out.append(derivation)
            if len(out) >= cap:
                break
        return out

    def final_forms(self) -> list[StepForm]:
        """Every step form, grouped by the quantity it computes (the possible last steps)."""
        names = sorted({n for f in self.formulas for n in f.names})
        return [form for name in names for form in self.forms_for(name)]

    def concepts(self) -> list[str]:
        """The concepts of the formulas, in reading order."""
        return list(dict.fromkeys(f.concept for f in self.formulas))


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Ways to write ``total`` as an ordered sum of ``parts`` positive integers."""
    for cuts in itertools.combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        yield tuple(bounds[i + 1] - bounds[i] for i in range(parts))

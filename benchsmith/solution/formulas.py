"""Explicit formulas found deterministically: LaTeX math, code blocks, ``name = expression``.

Each formula defines one quantity (a single name on the left) from named quantities. A
right-hand side without names (``FV = 1628.89`` in a worked example) is a value, not a
formula, and is skipped silently; one that does not parse is reported with the reason.
Inline math follows Pandoc's rule (``$`` opens before a non-space and closes after one, not
before a digit), so prices such as ``$100 to $200`` are not math.
"""

from __future__ import annotations

import cmath
import random
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import sympy as sp

from benchsmith.solution.documents import Section, Source
from benchsmith.solution.errors import FormulaSyntaxError
from benchsmith.solution.expressions import (
    is_name,
    names_of,
    numeric_function,
    parse_expression,
    safe_name,
)
from benchsmith.solution.latex import latex_to_plain

_DISPLAY = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\d$])")
_FENCE = re.compile(r"^(\s*)(```|~~~)[^\n]*\n(.*?)^\s*\2\s*$", re.S | re.M)
_LINE = re.compile(r"(?m)^[ \t]*`?([A-Za-z][A-Za-z0-9_]*)[ \t]*=[ \t]*([^=`\n]+?)`?[ \t]*$")
_MATHY = re.compile(r"[*/^()+]|\*\*")


@dataclass(frozen=True)
class Formula:
    """A typed formula node: ``output = expr`` over named input quantities.

    Attributes:
        id: Stable id (``f3``), unique in a graph.
        output: The quantity it defines.
        expr: The right-hand side, a sympy expression over plain symbols.
        text: The formula as written in the source.
        syntax: ``latex``, ``code``, ``line`` or ``prose`` (found by the model).
        source: File, section and span of the formula text.
        concept: The section's concept (innermost heading).
    """

    id: str
    output: str
    expr: sp.Expr
    text: str
    syntax: str
    source: Source
    concept: str

    @cached_property
    def inputs(self) -> frozenset[str]:
        """The quantity names of the right-hand side."""
        return names_of(self.expr)

    @cached_property
    def names(self) -> frozenset[str]:
        """Every quantity the formula relates (inputs and output)."""
        return self.inputs | {self.output}

    def equation(self) -> str:
        """``output = expression`` in sympy's syntax."""
        return _equation(self.output, self.expr)


@lru_cache(maxsize=4096)
def _equation(output: str, expr: sp.Expr) -> str:
    """``output = expr`` (printing an expression is slow; items print the same ones often)."""
    return f"{output} = {expr}"


@dataclass(frozen=True)
class RejectedFormula:
    """A formula that was found but not admitted, with the reason."""

    text: str
    syntax: str
    source: Source
    reason: str

    def to_dict(self) -> dict[str, object]:
        """A JSON-able record for reports."""
        return {
            "text": self.text,
            "syntax": self.syntax,
            "source": self.source.to_dict(),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Candidate:
    """A formula found in the text, before parsing: its sides, syntax and span."""

    lhs: str
    rhs: str
    text: str
    syntax: str
    start: int
    end: int


_MIXED = re.compile(
    r"(?m)(?<![\w$\\{])([A-Za-z][A-Za-z0-9]{0,11})[ \t]*=[ \t]*"
    r"(\$[^$=\n]+\$(?:[ \t]*[–−+×÷*/-][ \t]*\$[^$=\n]+\$)*)(?![ \t]*\$)"
)
"""A name in prose set equal to inline math (in pieces joined by operators in prose)."""
_NAMED_BEFORE = re.compile(
    r"(?m)(?:^|(?<=[.:;]\s))([A-Z][a-z]+(?:[ \t]+[a-z]+){0,3})[ \t]*\$\s*=\s*([^$=\n]+)\$"
)
"""A name in words that starts a sentence, then inline math that opens with "="."""
_PROSE_OPERATORS = str.maketrans({"–": "-", "−": "-", "×": "*", "÷": "/"})
_CODE_MODULE = re.compile(r"\b(?:math|cmath|numpy|np)\.([A-Za-z_]\w*)")
"""A library's function or constant in a code line (``math.sqrt``, ``np.pi``)."""
_CODE_NAMES = {"tau": "(2*pi)", "e": "exp(1)"}
"""Library constants that are not names of the expression language (math.log is ln)."""


def _equation_sides(body: str) -> tuple[str, str] | None:
    # "A ≈ A_0 e^{kt}" states the relation as "=" does (the text rounds a constant in it)
    parts = [p.strip() for p in re.split(r"(?<![<>!=])=(?!=)|\\approx(?![A-Za-z])|≈", body)]
    if len(parts) < 2:
        return None
    return parts[0], parts[1]


def find_candidates(text: str) -> list[Candidate]:
    """Every ``name = expression`` candidate in a section's text, in reading order."""
    found: list[Candidate] = []
    masked = list(text)

    def mask(start: int, end: int) -> None:
        masked[start:end] = " " * (end - start)

    for match in _FENCE.finditer(text):
        body_start = match.start(3)
        for line in _LINE.finditer(match.group(3)):
            rhs = re.split(r"\s#", line.group(2))[0].strip()
            found.append(
                Candidate(
                    line.group(1),
                    rhs,
                    line.group(0).strip(),
                    "code",
                    body_start + line.start(),
                    body_start + line.end(),
                )
            )
        mask(match.start(), match.end())
    masked_text = "".join(masked)
    for match in _NAMED_BEFORE.finditer(masked_text):  # "Odds ratio $= \frac{ad}{bc}$"
        name = "\\mathrm{" + "_".join(match.group(1).split()) + "}"
        found.append(
            Candidate(name, match.group(2).strip(), match.group(0), "latex", match.start(),
                      match.end())
        )  # fmt: skip
        mask(match.start(), match.end())
    masked_text = "".join(masked)
    for match in _MIXED.finditer(masked_text):  # "IQR = $Q_{3}$ – $Q_{1}$"
        rhs = re.sub(r"\$\s*", " ", match.group(2)).translate(_PROSE_OPERATORS)
        found.append(
            Candidate(match.group(1), " ".join(rhs.split()), match.group(0), "latex",
                      match.start(), match.end())
        )  # fmt: skip
        mask(match.start(), match.end())
    masked_text = "".join(masked)
    for pattern in (_DISPLAY, _INLINE):
        for match in pattern.finditer(masked_text):
            body = next(g for g in match.groups() if g is not None)
            sides = _equation_sides(body)
            if sides:
                found.append(Candidate(*sides, match.group(0), "latex", match.start(), match.end()))
            mask(match.start(), match.end())
        masked_text = "".join(masked)
    for match in _LINE.finditer(masked_text):
        rhs = match.group(2).strip()
        if _MATHY.search(rhs) or is_name(rhs):
            found.append(
                Candidate(
                    match.group(1), rhs, match.group(0).strip(), "line", match.start(), match.end()
                )
            )
    return sorted(found, key=lambda c: c.start)


def parse_candidate(candidate: Candidate) -> tuple[str, sp.Expr] | str | None:
    """``(output, expr)``; a reason string when it cannot be a formula; None for a value."""
    lhs = candidate.lhs
    rhs = candidate.rhs
    try:
        if candidate.syntax == "latex":
            lhs, rhs = latex_to_plain(lhs), latex_to_plain(rhs)
        else:  # a code line, fenced or not
            rhs = _CODE_MODULE.sub(lambda m: _CODE_NAMES.get(m.group(1), m.group(1)), rhs)
        if re.search(r"\bconst(?:ant)?\b", f"{lhs} {rhs}"):
            return "says that a quantity is constant (pV = constant), not a formula to compute"
        lhs = function_name(lhs, rhs)
        if not is_name(lhs) and is_name(rhs.strip()) and _MATHY.search(lhs):
            lhs, rhs = rhs.strip(), lhs  # "D/H × Q = X", "OA × DS = DA": the result last
        if not is_name(lhs):
            return solve_relation(candidate.lhs, lhs, rhs)
        expr = parse_expression(rhs)
    except FormulaSyntaxError as exc:
        return f"cannot parse: {exc}"
    if not expr.free_symbols:
        return None
    output = safe_name(lhs.strip())
    if output in names_of(expr):
        return f"defines {output} in terms of itself"
    lone = -expr if expr.could_extract_minus_sign() else expr
    if isinstance(lone, sp.Symbol) and not re.fullmatch(r"[A-Za-z]{2,4}", str(lone)):
        # "a = g", "f_s = P": one quantity named twice; a problem would only rename it
        # ("P = IV" may be a product of letters: the knowledge step decides)
        return alias_reason(output, expr)
    return output, expr


def function_name(lhs: str, rhs: str) -> str:
    """``T`` for a left side in function notation, ``T(t)``, whose arguments the right uses.

    ``T(t) = A e^{kt} + T_s`` defines T; read as a product it would be T = (...)/t. A left
    side whose parentheses hold a name the right side does not use stays as written.
    """
    # "P(X < x)", "P(c < x < d)", "P(X \le x)": a probability of an event is the quantity P
    event = re.fullmatch(r"\s*([A-Z])\s*\((.*(?:[<>≤≥|]|\b(?:le|ge|leq|geq)\b).*)\)\s*", lhs)
    if event:
        return event.group(1)
    match = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*\(\s*([A-Za-z_][\w\s,]*?)\s*\)\s*", lhs)
    if not match:
        return lhs
    arguments = [a.strip() for a in match.group(2).split(",")]
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", rhs))
    if match.group(1) in FUNCTION_WORDS:
        return lhs
    if all(is_name(a) and a in used for a in arguments):
        return match.group(1)
    if match.group(1) in "fgh" and len(arguments) == 1 and arguments[0] in "xt":
        return match.group(1)  # "f(x) = 1/(b - a)": a function constant in x is still f
    return lhs


FUNCTION_WORDS = frozenset({"exp", "log", "ln", "sqrt", "sin", "cos", "tan"})


def alias_reason(output: str, expr: sp.Expr) -> str:
    """Why ``output = expr`` is refused when ``expr`` is one other quantity."""
    return f"{output} is another name for {expr} (nothing to compute)"


def solve_relation(written: str, lhs: str, rhs: str) -> tuple[str, sp.Expr] | str | None:
    """A relation with an expression on the left (``v^2 = u^2 + 2as``), solved.

    The quantity solved for is the one the left side names (its only name, or its first):
    ``1 + i = (1 + r)(1 + p)`` gives ``i = (1 + r)(1 + p) - 1``.
    Quantities are taken as positive, so ``v^2 = ...`` gives the positive root.

    Raises:
        FormulaSyntaxError: A side does not parse.
    """
    left, right = parse_expression(lhs), parse_expression(rhs)
    names = sorted(names_of(left)) or sorted(names_of(right))
    if not names:
        return None
    positive = {s: sp.Symbol(s.name, positive=True) for s in left.free_symbols | right.free_symbols}
    for name in names:
        unknown = next(p for s, p in positive.items() if s.name == name)
        try:
            roots = sp.solve(sp.Eq(left.xreplace(positive), right.xreplace(positive)), unknown)
        except (NotImplementedError, ValueError, TypeError):
            continue
        back = {p: sp.Symbol(s.name) for s, p in positive.items()}
        real = [r.xreplace(back) for r in roots if isinstance(r, sp.Expr) and not r.has(sp.I)]
        if len(real) == 1 and real[0].free_symbols:
            return name, sp.simplify(real[0])
    return f"left-hand side {written!r} cannot be solved for one quantity"


def extract_explicit(
    section: Section, start_id: int = 0
) -> tuple[list[Formula], list[RejectedFormula]]:
    """The explicit formulas of a section, and the candidates that could not be parsed."""
    formulas: list[Formula] = []
    rejected: list[RejectedFormula] = []
    for candidate in find_candidates(section.text):
        parsed = parse_candidate(candidate)
        source = section.source(candidate.start, candidate.end)
        if parsed is None:
            continue
        if isinstance(parsed, str):
            rejected.append(RejectedFormula(candidate.text, candidate.syntax, source, parsed))
            continue
        output, expr = parsed
        formulas.append(
            Formula(
                f"f{start_id + len(formulas)}",
                output,
                expr,
                candidate.text,
                candidate.syntax,
                source,
                section.concept,
            )
        )
    return formulas, rejected


def same_formula(a: Formula, b: Formula) -> bool:
    """Whether two formulas define the same output by the same expression."""
    if a.output != b.output or a.inputs != b.inputs:
        return False
    if a.expr == b.expr:
        return True
    # Compared on sampled points, not by ``sympy.simplify``: a worked line such as
    # "0.5 = e^(5730 k)" makes simplify raise a number to a power of many digits (it ran out
    # of 20 GB on the exponential-models section).
    names = tuple(sorted(a.inputs))
    try:
        fa, fb = numeric_function(a.expr, names), numeric_function(b.expr, names)
    except (TypeError, ValueError, SyntaxError, RecursionError):
        return False
    rng = random.Random(0)
    agreed = 0
    for _ in range(8):
        point = [rng.uniform(0.3, 3.0) for _ in names]
        try:
            x, y = complex(fa(*point)), complex(fb(*point))
        except (ArithmeticError, ValueError, TypeError):
            continue
        if not (cmath.isfinite(x) and cmath.isfinite(y)):
            continue
        if abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
            return False
        agreed += 1
    return agreed >= 3

"""The error family of solution-graph generation."""

from __future__ import annotations

from benchsmith.errors import BenchsmithError


class SolutionError(BenchsmithError):
    """A reference cannot be read, or it yields no usable formulas for the request."""


class FormulaSyntaxError(SolutionError):
    """A formula's text cannot be parsed into a sympy expression."""

"""Solution-graph generation: computed-answer items from reference material.

A reference (Markdown, plain text, PDF) is split into sections; its formulas become typed,
admitted nodes of a solution graph (quantities are nodes, formulas are edges); a problem is a
target quantity plus givens from which it is derivable in k steps, and its answer is computed
by executing the chain. :func:`generate_items` is the entry point.
"""

from benchsmith.solution.coverage import CoverageReport
from benchsmith.solution.errors import SolutionError
from benchsmith.solution.generate import GenerationResult, generate_items

__all__ = ["CoverageReport", "GenerationResult", "SolutionError", "generate_items"]

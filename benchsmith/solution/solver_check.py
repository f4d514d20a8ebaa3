"""The independent solve: the ``solver`` role answers the item; its answer is compared.

The solver sees only the text (and the choices); a disagreement beyond the tolerance is
recorded on the item (``metadata.solver_check``) and sends the item to be reworded or
dropped by the generator.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from benchsmith.prompts import render, untrusted
from benchsmith.solution.formatting import close
from benchsmith.solution.wording import StructuredModel

WORKING_CAP = 600
"""Characters of working kept: the grammar's cap, and where a longer working is cut.

A llama.cpp server turns each character a string may leave out into a nested grammar rule
and refuses a grammar past 2000 rules (llama-cpp-python's server then crashed), so
``max_length=2000`` here made every solver call on a llama.cpp server fail. The working is
not read (only the answer is), so an endpoint that writes more is cut, not asked again.
"""


class SolverAnswer(BaseModel):
    """The solver's answer to a computed problem."""

    working: str = Field(
        default="",
        max_length=WORKING_CAP,
        description="Brief working: the formulas used and the intermediate results.",
    )
    answer: float = Field(
        description=(
            "The final answer as a plain number in the form the question asks for (for a "
            "choice question, the value of the chosen choice). No units or symbols."
        )
    )

    @field_validator("working", mode="before")
    @classmethod
    def _cut_working(cls, value: object) -> object:
        """A longer working is cut to :data:`WORKING_CAP` (it is never read)."""
        return value[:WORKING_CAP] if isinstance(value, str) else value


def solver_check(
    solver: StructuredModel,
    text: str,
    choices: list[str] | None,
    expected: float,
    tolerance: float,
) -> dict[str, Any]:
    """Ask the solver and compare: ``{"answer", "expected", "agrees", "tolerance"}``."""
    prompt = render(
        "solution_solve",
        problem=untrusted(text, "problem"),
        choices=[f"{chr(65 + i)}) {c}" for i, c in enumerate(choices or [])],
    )
    reply = solver.structured(SolverAnswer, [("user", prompt)])
    answer = float(reply.answer)
    agrees = close(answer, expected, tolerance)
    if not agrees and choices:
        # A choice question may be answered in printed units (4.25 for 4.25%).
        agrees = close(answer / 100, expected, tolerance)
    return {"answer": answer, "expected": expected, "agrees": agrees, "tolerance": tolerance}

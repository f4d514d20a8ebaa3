"""Problem text: written by a template (default) or by the model, then checked.

Checks on any text: every given value appears exactly as printed, the target quantity is
asked for (its description appears and the text asks a question), and the text does not
print the answer. The model's text is used only when it passes; otherwise it is asked again
with the failures (bounded), and the template text is used at the end.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from pydantic import BaseModel, Field

from benchsmith.prompts import render, untrusted
from benchsmith.solution.formatting import answer_instruction, format_value
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.problems import Problem

_GIVEN_PHRASES = (
    "{td} is {v}.",
    "Assume {td} is {v}.",
    "You know that {td} is {v}.",
)
_QUESTIONS = ("What is {td}?", "How large is {td}?", "What {d} results?")


TIME_OWNERS = r"\b(?:year|month|week|day|quarter|today|yesterday|tomorrow|period)$"
"""Owners that are times ("next year's dividend"): no article before them."""


def with_the(description: str) -> str:
    """``the`` + a description, except before a possessive ("next year's dividend")."""
    # "next year's dividend", "today's price", "Boltzmann's constant" take no article;
    # "the particle's mass" does (a common noun owns it)
    owner = re.match(r"^(\S+(?:\s+\S+)?)'s\b", description)
    if owner and (owner.group(1)[0].isupper() or re.search(TIME_OWNERS, owner.group(1))):
        return description
    return f"the {description}"


class StructuredModel(Protocol):
    """Anything with ``structured(schema, messages)`` (a :class:`RoleModel`)."""

    def structured(self, schema: Any, messages: Any) -> Any:  # pragma: no cover - protocol
        """Return a validated instance of ``schema``."""


WORDING_CAP = 900
"""Characters a problem text may have (a short situation and a question needs far fewer).

It was 1500: a llama.cpp server turns each character a string may leave out into a nested
grammar rule and refuses a grammar past 2000 rules (1000 optional characters; the server of
llama-cpp-python then crashed), so every wording call on a llama.cpp server failed. 900
keeps a margin under that limit (tests/test_schema_grammar.py compiles it).
"""


class ProblemWording(BaseModel):
    """The problem text the model writes."""

    text: str = Field(
        min_length=20,
        max_length=WORDING_CAP,
        description=(
            "The problem statement for a student: a short realistic situation that states "
            "every given value exactly as written in the list (same digits, symbols and "
            "units) and ends by asking for the target quantity. Do not state the answer, "
            "the formulas or any intermediate result."
        ),
    )


def ordered_givens(problem: Problem) -> list[str]:
    """Givens in the order the chain first uses them."""
    seen: list[str] = []
    for form in problem.derivation.steps:
        for name in form.inputs:
            if name in problem.givens and name not in seen:
                seen.append(name)
    return seen


def given_lines(problem: Problem, graph: SolutionGraph) -> list[tuple[str, str, str]]:
    """(name, description, printed value) of each given, in order of use."""
    return [
        (n, graph.quantities[n].description, format_value(problem.givens[n], graph.quantities[n]))
        for n in ordered_givens(problem)
    ]


def instruction(problem: Problem, graph: SolutionGraph, answer_format: str) -> str:
    """What form the answer takes (numeric items only; choices speak for themselves)."""
    if answer_format == "multiple_choice":
        return "Choose the correct value."
    return answer_instruction(graph.quantities[problem.target], problem.answer)


def template_text(
    problem: Problem, graph: SolutionGraph, answer_format: str, variant: int = 0
) -> str:
    """The problem text by template; ``variant`` picks one of a few phrasings."""
    phrase = _GIVEN_PHRASES[variant % len(_GIVEN_PHRASES)]
    lines = [phrase.format(td=with_the(d), v=v) for _, d, v in given_lines(problem, graph)]
    lines = [line[0].upper() + line[1:] for line in lines]
    target = graph.quantities[problem.target].description
    question = _QUESTIONS[variant % len(_QUESTIONS)].format(d=target, td=with_the(target))
    body = " ".join(lines)
    return f"{body[0].upper()}{body[1:]}\n{question} {instruction(problem, graph, answer_format)}"


def check_text(text: str, problem: Problem, graph: SolutionGraph) -> list[str]:
    """What is wrong with a problem text (empty when it passes)."""
    failures = []
    for name, _, printed in given_lines(problem, graph):
        if printed not in text:
            failures.append(f"the given {name} must appear exactly as {printed}")
    target = graph.quantities[problem.target]
    if target.description.lower() not in text.lower():
        failures.append(f"the text must ask for the {target.description}")
    elif "?" not in text:
        failures.append("the text must end with a question")
    symbols = "|".join(re.escape(n) for n in problem.values)
    if re.search(rf"\bquantity\s+\$?(?:{symbols})\b|\\[a-z]+\{{|\$\$", text):
        failures.append("name quantities by description, not by symbol or LaTeX")
    answer = format_value(problem.answer, target)
    if answer in text:
        failures.append("the text must not state the answer")
    return failures


def model_text(
    model: StructuredModel,
    problem: Problem,
    graph: SolutionGraph,
    answer_format: str,
    *,
    attempts: int = 2,
) -> tuple[str | None, list[str]]:
    """The model's text if one attempt passes the checks, else None and the last failures."""
    target = graph.quantities[problem.target]
    feedback: list[str] = []
    for _ in range(attempts):
        prompt = render(
            "solution_wording",
            concept=problem.derivation.concept,
            givens=[f"{d} ({n}): {v}" for n, d, v in given_lines(problem, graph)],
            target=f"{target.description} ({problem.target})",
            instruction=instruction(problem, graph, answer_format),
            feedback=feedback,
            example=untrusted(template_text(problem, graph, answer_format), "template text"),
        )
        wording = model.structured(ProblemWording, [("user", prompt)])
        text = wording.text.strip()
        feedback = check_text(text, problem, graph)
        if not feedback:
            return text, []
    return None, feedback

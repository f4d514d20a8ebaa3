"""Design: the intent (and constraints) to independent, testable subtasks.

Every subtask is computed, never invented: one per question program the intent asks for
over the catalog's tables (:func:`benchsmith.agents.programs.table_subtasks`, its name and
description said from its program), and one per formula section of a ``--reference``
chapter (:func:`benchsmith.agents.references.reference_subtasks`). An intent neither
serves is refused with the tables searched and what to write instead: a subtask a model
made up around a dataset (the retired record path) could drift from its data.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents import sources  # through the module: tests swap catalog_sources
from benchsmith.agents.alignment import (
    content_stems,
    coverage,
    languages_from_intent,
    topic_stems,
    uncovered_message,
)
from benchsmith.agents.programs import MIN_RELEVANCE, relevance, table_cards, table_subtasks
from benchsmith.agents.references import reference_subtasks
from benchsmith.config import RunConfig
from benchsmith.llm import registry  # through the module: tests swap get_model
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.state import BuildState

_MODALITY_WORDS = {
    "audio": r"\b(spoken|speech|audio|aloud|listen\w*|voice|hear\w*|sound|noisy speech)\b",
    "image": r"\b(image\w*|photo\w*|picture\w*|visual\w*|see|seen|chart\w*|diagram\w*)\b",
}


RENDERED = re.compile(
    r"\b(render\w*|draw\w*|drawn|screenshot\w*|"
    r"(?:image|picture|png) (?:of|with|showing|containing) (?:a |an |the )?(?:[\w-]+ )?"
    r"(?:table|rows|records|list)|"
    r"(?:table|rows|records|list) (?:as|in|into) (?:an? )?(?:image|picture|png)|"
    # "a table of 12 cars shown as an image", "the table with 7 airports (...) as an image"
    r"(?:table|rows|list)\b[^.;]{0,80}\b(?:(?:shown|displayed|presented) )?(?:as|in) "
    r"(?:an? )?(?:image|picture|png)|"
    r"(?:turn\w*|convert\w*|transform\w*) (?:\w+ ){0,3}(?:in|into|to) (?:an? )?"
    r"(?:image|picture|png))\b"
)
"""An intent that asks for the rows or the question shown as a picture ("draw their rows as
an image of a table", "render those rows as a picture of a table")."""


def _with_gloss(intent: str) -> str:
    """The intent, followed by its English gloss when it is written in another language."""
    language = intent_language(intent)
    return intent if language == "en" else f"{intent} {to_english(intent, language)}"


def rendered_intent(intent: str) -> bool:
    """Whether the intent asks for the question (and its rows) drawn as a picture."""
    return bool(RENDERED.search(_with_gloss(intent).lower()))


def modalities_from_intent(intent: str) -> tuple[str, ...]:
    """Input modalities an intent names (``spoken`` -> audio, ``photos`` -> image), if any.

    An intent in another language is read through its English gloss ("leídas en voz alta"
    -> "read aloud").
    """
    text = _with_gloss(intent).lower()
    return tuple(m for m, pattern in _MODALITY_WORDS.items() if re.search(pattern, text))


def uncovered_intent(config: RunConfig, intent: str) -> str | None:
    """The error of an intent that no catalog dataset and no reference covers (else None).

    A reference given for the run always covers it (its formulas become computed problems).
    """
    if config.paths.run_catalog_dir:
        return None  # the run's own --dataset/--reference sources were given for this intent
    topics = topic_stems(intent) or content_stems(intent)  # its content words if no topic
    searched: list[str] = []
    for source in sources.catalog_sources(config):
        for card in source.list():
            searched.append(card.id)
            # Its words, or (read through the gloss of an intent in another language) its
            # name, a field's label in any language, or a value: "welche Ziffer" names digits.
            if coverage(topics, card) > 0 or relevance(intent, card) >= MIN_RELEVANCE:
                return None
    return uncovered_message(intent, topics, searched)


def design_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: the subtasks of the intent's programs and of the run's references."""
    config = sources.run_config(runtime)
    uncovered = uncovered_intent(config, state["intent"])
    if uncovered:
        return {
            "plan_status": "uncovered",
            "error": uncovered,
            "planner_log": [f"design: {uncovered}"],
        }
    languages = list(config.languages) or list(languages_from_intent(state["intent"]))

    # The user's own tables: question programs built from the intent and the data (no design
    # call: the data defines the subtask; a capable grounding model proposes the program),
    # or a refusal naming what is missing.
    grounder = registry.get_model(config, "grounding")
    # A question read aloud or rendered: as the run asks, else as the intent says.
    # (A picture the intent names is the records' own unless it asks for the rows drawn.)
    spoken = [m for m in modalities_from_intent(state["intent"]) if m == "audio"]
    drawn = ["image"] if rendered_intent(state["intent"]) else []
    tabled, refused = table_subtasks(
        config,
        state["intent"],
        languages,
        grounder,
        modalities=[m for m in config.modalities if m != "text"] or spoken or drawn or ["text"],
    )
    # A reference chapter gives computed problems only: its formulas, never record
    # subtasks invented around it.
    computed = reference_subtasks(config, tabled)
    if refused and not computed:
        # Tables the intent is about, and no program over them: the refusal says what is
        # missing.
        return {"plan_status": "uncovered", "error": refused, "planner_log": [f"design: {refused}"]}
    if tabled or computed:
        # The user's references first: the intent's programs beyond the cap are left out.
        tabled = tabled[: max(0, config.max_subtasks - len(computed))]
        return {
            "subtasks": [*tabled, *computed],
            "planner_log": [
                f"design: {s.id}: {s.name} (question programs built from the intent and the data)"
                for s in tabled
            ]
            + [
                f"design: {s.id}: {s.name} (computed problems from the reference's formulas)"
                for s in computed
            ]
            + [f"design: subtasks {', '.join(s.id for s in [*tabled, *computed])}"],
        }
    message = no_program_message(config, state["intent"])
    return {"plan_status": "uncovered", "error": message, "planner_log": [f"design: {message}"]}


def no_program_message(config: RunConfig, intent: str) -> str:
    """Why an intent some catalog card is about gets no subtask, and what to write instead."""
    cards = table_cards(config)
    ranked = sorted(cards, key=lambda c: (-relevance(intent, c), c.id))[:3]
    closest = f" (closest tables: {', '.join(c.id for c in ranked)})" if ranked else ""
    return (
        f"no question program over the catalog's tables could be read from the intent"
        f'{closest}. Name the table and what one item asks, e.g. "show 5 rows of '
        f'world-countries and ask which has the largest population"; or write the program '
        f"with --program (see benchsmith build --help); or give a chapter with --reference"
    )

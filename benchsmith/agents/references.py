"""The solution-graph strategy in the planner: subtasks grounded in the user's references.

A reference given with ``--reference`` (a textbook chapter, lecture notes) whose formulas
are admitted into a solution graph gets a subtask of computed problems, grounded with the
``solution_graph`` strategy: its items are generated from the graph, their answers computed
(see :mod:`benchsmith.solution`). The subtask is added deterministically (no model proposes
subtasks), and its grounding needs no model decision: the data is the reference itself, and
the graph says what it can support.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from benchsmith.catalog.cards import slugify
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig
from benchsmith.spec import Grounding, Scores, Subtask

PREFIX = "computed-"
SUPPLY = 2000
"""Problems a solution-graph grounding offers the allocation (generated when needed)."""

_KNOWLEDGE: dict[str, Any] = {}
_LOCK = threading.Lock()


def reference_cards(config: RunConfig) -> list[Any]:
    """The reference documents of this run (``--reference``), as catalog cards."""
    if not config.paths.run_catalog_dir:
        return []
    catalog = Catalog(config.paths.run_catalog_dir)
    return [c for c in catalog.list() if c.domain == "reference"]


def knowledge_for(card: Any) -> Any | None:
    """The admitted solution graph of a reference card (None: unreadable or no formula)."""
    source = card.provenance.source
    if not source or not Path(source).is_file():
        return None
    with _LOCK:
        if source in _KNOWLEDGE:
            return _KNOWLEDGE[source]
    # lazy: sympy and the solution graph, most of a second, only for a run given --reference
    from benchsmith.solution import SolutionError
    from benchsmith.solution.knowledge import build_knowledge

    try:
        knowledge = build_knowledge([source])
    except SolutionError:
        knowledge = None
    if knowledge is not None and not knowledge.graph.formulas:
        knowledge = None
    with _LOCK:
        _KNOWLEDGE[source] = knowledge
    return knowledge


def reference_subtasks(config: RunConfig, existing: list[Subtask]) -> list[Subtask]:
    """A computed-problems subtask for each reference with formulas not yet covered."""
    have = {s.id for s in existing}
    out = []
    for card in reference_cards(config):
        knowledge = knowledge_for(card)
        if knowledge is None:
            continue
        subtask_id = slugify(f"{PREFIX}{card.id}")[:48].rstrip("-_.")
        if subtask_id in have:
            continue
        concepts = knowledge.graph.concepts()
        out.append(
            Subtask(
                id=subtask_id,
                name=f"Computed problems: {card.name}"[:80],
                description=(
                    f"Problems whose answers are computed from the formulas of the reference "
                    f"{card.name}: derive a target quantity from given values in one to three "
                    f"steps. Concepts: {', '.join(concepts[:8])}."
                )[:600],
                skills=["quantitative reasoning", "formula application"],
                input_modalities=["text"],
                answer_format="numeric",
                difficulty="medium",
            )
        )
    return out


def solution_grounding(subtask: Subtask, card: Any) -> Grounding | None:
    """The solution-graph grounding of a computed subtask in its reference (None: no graph)."""
    knowledge = knowledge_for(card)
    if knowledge is None:
        return None
    graph = knowledge.graph
    return Grounding(
        id=f"{subtask.id}--{card.id}",
        subtask_id=subtask.id,
        dataset_id=card.id,
        strategy="solution_graph",
        question_field=None,
        answer_field="computed",
        plan=[],
        scores=Scores(intent_alignment=1.0, robustness=1.0, signal_preservation=1.0),
        rationale=(
            f"{len(graph.formulas)} admitted formulas ({len(knowledge.rejected)} rejected); "
            "answers computed by executing the solution graph"
        )[:300],
        available_records=SUPPLY,
        expected_yield=0.95,
        est_calls_per_item=1.0,
        est_tokens_per_item=600,
    )


def ground_references(config: RunConfig, subtasks: list[Subtask]) -> list[Grounding]:
    """Solution-graph groundings for the computed subtasks among ``subtasks``."""
    cards = {c.id: c for c in reference_cards(config)}
    out = []
    for subtask in subtasks:
        if not subtask.id.startswith(PREFIX):
            continue
        for card in cards.values():
            if slugify(f"{PREFIX}{card.id}")[:48].rstrip("-_.") == subtask.id:
                grounding = solution_grounding(subtask, card)
                if grounding is not None:
                    out.append(grounding)
    return out

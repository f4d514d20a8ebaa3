"""The solution-graph strategy in the planner: subtasks grounded in the user's references.

A reference given with ``--reference`` (a textbook chapter, lecture notes) whose formulas
are admitted into a solution graph gets a subtask of computed problems, grounded with the
``solution_graph`` strategy: its items are generated from the graph, their answers computed
(see :mod:`benchsmith.solution`). The subtask is added deterministically (no model proposes
subtasks), and its grounding needs no model decision: the data is the reference itself, and
the graph says what it can support.

The plan and the build read a reference the same way, through :func:`reference_knowledge`:
the patterns, then the reader role's model asked small questions (its answers cached on
disk per section text, so the build's reading is the plan's, formula for formula, in this
process or a later one).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from benchsmith.catalog.cards import slugify
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig
from benchsmith.llm import registry  # through the module: tests swap get_model
from benchsmith.llm.specs import LOCAL_MODEL_NAME
from benchsmith.spec import Grounding, Scores, Subtask

PREFIX = "computed-"
SUPPLY = 2000
"""Problems a solution-graph grounding offers the allocation (generated when needed)."""

_KNOWLEDGE: dict[str, Any] = {}
_MAKING: dict[str, threading.Lock] = {}
_LOCK = threading.Lock()


def reference_cards(config: RunConfig) -> list[Any]:
    """The reference documents of this run (``--reference``), as catalog cards."""
    if not config.paths.run_catalog_dir:
        return []
    catalog = Catalog(config.paths.run_catalog_dir)
    return [c for c in catalog.list() if c.domain == "reference"]


def textbook_reader(config: RunConfig) -> Any | None:
    """The reader role's model, unless it is the embedded SmolLM2 (which reads nothing).

    SmolLM2 echoes the symbol it is asked about (0 of 15 read right): asking it would cost
    time and change nothing, so the patterns read alone, as with no reader.
    """
    reader = registry.get_model(config, "reader")
    if reader.spec.provider == "local" and reader.spec.model == LOCAL_MODEL_NAME:
        return None
    return reader


def reference_knowledge(config: RunConfig | None, source: str | Path) -> Any | None:
    """The admitted solution graph of a reference file, read once per process and reader.

    The one reading the plan and the build share: the patterns, then the reader role's
    model (:func:`textbook_reader`), whose answers are cached on disk per section text.
    None when the file cannot be read or no formula is admitted. ``config`` None reads
    with the patterns alone.
    """
    path = Path(source)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    reader = textbook_reader(config) if config is not None else None
    key = f"{path.resolve()}:{digest}:{reader.spec.identity if reader is not None else ''}"
    with _LOCK:
        if key in _KNOWLEDGE:
            return _KNOWLEDGE[key]
        making = _MAKING.setdefault(key, threading.Lock())
    with making:  # one reading per reference, whichever slot thread asks first
        with _LOCK:
            if key in _KNOWLEDGE:
                return _KNOWLEDGE[key]
        # lazy: sympy and the solution graph, most of a second, only for a run given --reference
        from benchsmith.solution import SolutionError
        from benchsmith.solution.knowledge import build_knowledge

        try:
            knowledge = build_knowledge([path], reader=reader)
        except SolutionError:
            knowledge = None
        if knowledge is not None and not knowledge.graph.formulas:
            knowledge = None
        with _LOCK:
            _KNOWLEDGE[key] = knowledge
    return knowledge


def knowledge_for(card: Any, config: RunConfig | None = None) -> Any | None:
    """The admitted solution graph of a reference card (None: unreadable or no formula)."""
    source = card.provenance.source
    if not source or not Path(source).is_file():
        return None
    return reference_knowledge(config, source)


def reference_subtasks(config: RunConfig, existing: list[Subtask]) -> list[Subtask]:
    """A computed-problems subtask for each reference with formulas not yet covered."""
    have = {s.id for s in existing}
    out = []
    for card in reference_cards(config):
        knowledge = knowledge_for(card, config)
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


def solution_grounding(
    subtask: Subtask, card: Any, config: RunConfig | None = None
) -> Grounding | None:
    """The solution-graph grounding of a computed subtask in its reference (None: no graph).

    ``config`` gives the reader (:func:`reference_knowledge`); None reads with the patterns.
    """
    knowledge = knowledge_for(card, config)
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
                grounding = solution_grounding(subtask, card, config)
                if grounding is not None:
                    out.append(grounding)
    return out

"""Grounding: each subtask's computed items, from a table's program or a reference.

A records subtask is grounded by its question program over its table
(:func:`benchsmith.agents.programs.ground_tables`); a computed-problems subtask by its
reference's formulas (:func:`benchsmith.agents.references.ground_references`). A subtask
that neither grounds (no language of it can be worded) is dropped and said so: design is
deterministic, so sending it back would read the intent the same way again.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents import (
    programs,
    references,
    sources,  # through the module: tests swap catalog_sources
)
from benchsmith.config import RunConfig
from benchsmith.llm.registry import get_model
from benchsmith.spec import Dropped, Grounding, Subtask
from benchsmith.state import BuildState


def unworded(subtask_id: str, notes: list[str]) -> str:
    """Why no language of a records subtask can be worded: its languages' own reasons.

    The grounding notes also hold how the intent was read (a translation, the reader's
    column); those go to the log, and only the reasons each language was dropped make the
    message (all the notes when none says so).
    """
    own = [n for n in notes if n.startswith(f"{subtask_id}: language ")]
    return f"no language of the subtask can be worded: {'; '.join(own or notes)}"


def grounding_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: ground every subtask not grounded yet; drop and report the rest."""
    config = sources.run_config(runtime)
    subtasks = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    existing = [Grounding.model_validate(g) for g in state.get("groundings") or []]
    current_ids = {s.id for s in subtasks}
    existing = [g for g in existing if g.subtask_id in current_ids]
    done = {g.subtask_id for g in existing}
    todo = [s for s in subtasks if s.id not in done]
    computed = references.ground_references(
        config, [s for s in todo if s.id.startswith(references.PREFIX)]
    )
    tabled = [s for s in todo if s.id.startswith(programs.PREFIX)]
    notes: list[str] = []
    if tabled:
        programmed, notes, kept = programs.ground_tables(
            config, tabled, state["intent"], get_model(config, "grounding")
        )
        subtasks = [
            s.model_copy(update={"languages": kept[s.id]}) if s.id in kept else s for s in subtasks
        ]
        computed = computed + programmed
    grounded = done | {g.subtask_id for g in computed}
    failed = [
        Dropped(
            subtask_id=s.id,
            reason=(
                unworded(s.id, notes)
                if s.id.startswith(programs.PREFIX)
                else "its reference gives no problem"
            ),
        )
        for s in todo
        if s.id not in grounded
    ]
    log = [
        f"grounding: {g.subtask_id}: "
        + ("question program" if g.strategy == "question_program" else "solution graph")
        + f" of {g.dataset_id} ({g.rationale})"
        for g in computed
    ] + [f"grounding: {note}" for note in notes]
    update: dict[str, Any] = {
        "groundings": existing + computed,
        "subtasks": [s for s in subtasks if s.id not in {d.subtask_id for d in failed}],
    }
    if failed:
        update["dropped"] = [*map(Dropped.model_validate, state.get("dropped") or []), *failed]
        log.append(f"grounding: dropped {', '.join(d.subtask_id for d in failed)}")
    update["planner_log"] = log
    return update

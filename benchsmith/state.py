"""The graph's typed state: input, output and the full working state.

The state holds ids, counts, the plan's pydantic models (subtasks, groundings, allocations,
the spec) and paths, never media bytes or whole datasets. Readers take a value with
``Model.model_validate(value)``, which accepts the model or its JSON form (a spec given to
the API or Studio arrives as JSON; ``preflight`` turns it into the model). Reducers are
used only where values accumulate (``warnings``, ``planner_log``, ``tallies``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

from benchsmith.item import Item
from benchsmith.spec import Allocation, BenchmarkSpec, Dropped, Grounding, Subtask

SlotStatus = Literal["accepted", "rejected", "superseded", "surplus"]
"""How a slot ended: accepted or rejected (in the ledger), or, for tail backups, superseded
(stopped: another slot filled its place) or surplus (verified second: dropped)."""
Tallies = dict[str, dict[str, int]]
"""Finished slots per subtask and status: ``{"capitals": {"accepted": 7, "rejected": 1}}``."""


def add_tallies(left: Tallies | None, right: Tallies | None) -> Tallies:
    """Reducer: add two tallies subtask by subtask and status by status."""
    out = {subtask: dict(counts) for subtask, counts in (left or {}).items()}
    for subtask, counts in (right or {}).items():
        mine = out.setdefault(subtask, {})
        for status, count in counts.items():
            mine[status] = mine.get(status, 0) + count
    return out


class Slot(BaseModel):
    """One attempt at one item: a grounding, a computed candidate, a language and the item id.

    ``record_index`` is the candidate's index among the grounding's generated candidates.

    The quota monitor (``collect``) plans slots; each is sent to the slot subgraph.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    grounding_id: str
    subtask_id: str
    record_index: int
    language: str | None = None
    item_id: str
    round: int = 0

    def record(self) -> dict[str, Any]:
        """The slot as the ledger and the tools record it."""
        return self.model_dump()


class Failure(BaseModel):
    """Why an attempt at a slot failed (a computed item has no local fix: it is discarded)."""

    reason: str
    check: str
    counts: bool = True
    """Whether the failure used an attempt (a slot past the generated candidates, or one a
    tail backup superseded, did not)."""


@dataclass
class Draft:
    """An executed sample: the item (media already in place) and what it was made from.

    Made from a computed problem or program item (its media by
    :func:`benchsmith.agents.execution.media_for_text`).
    """

    item: Item
    question: str
    answer: str
    trace: list[dict[str, Any]]
    clean_speech: Path | None = None
    rendered_image: Path | None = None
    shown_text: str = ""


class SlotInput(TypedDict):
    """What the quota monitor sends to the slot subgraph."""

    slot: Slot


class SlotOutput(TypedDict):
    """What a slot hands back to the build: the tallies only (the item is in the ledger).

    Added up: a slot that replaces a rejected candidate goes on and may end accepted.
    """

    tallies: Annotated[Tallies, add_tallies]


class SlotState(SlotInput, SlotOutput):
    """The working state of one slot.

    ``attempt`` counts the attempts made and ``history`` records every failed one. ``draft``
    is the item with its media paths (None until an attempt made one), ``failure`` the last
    attempt's failure (None once verification passed). The checkpointer serializes the
    dataclass field by field, as it does the pydantic models here.
    ``replaced`` counts the rejected candidates this slot task replaced in place.

    ``claim`` names the place in the quota the slot works for (the id of the slot first
    sent; replacements keep it), ``backup`` says whether the slot is a tail backup for
    another slot's claim, and ``carry_on`` whether ``accept`` or ``discard`` loaded another
    slot to realize (a replacement or a backup) instead of ending.
    """

    replaced: int
    claim: str
    backup: bool
    carry_on: bool
    attempt: int
    history: list[dict[str, Any]]
    draft: Draft | None
    failure: Failure | None
    status: SlotStatus


class BuildInput(TypedDict):
    """What a build starts from (the form Studio shows).

    ``build`` realizes the plan into a benchmark (the run configuration's ``out_dir`` is
    the folder); ``spec`` starts from an approved plan instead of planning again.
    """

    intent: str
    size: int
    build: NotRequired[bool]
    spec: NotRequired[BenchmarkSpec | dict[str, Any] | None]


class BuildOutput(TypedDict):
    """What a build returns.

    ``build_status`` says where the build stands: ``planning``, then ``planned`` when the
    run ends after the planner (a plan-only run, or no feasible plan: ``plan_status`` says
    how planning ended), or ``building`` and at the end the report's status (``complete``
    or ``shortfall``).
    """

    intent: str
    size: int
    models: dict[str, str]
    warnings: list[str]
    plan_status: str
    spec: BenchmarkSpec | None
    error: str | None
    build_status: str
    shortfalls: list[dict[str, Any]]
    report: dict[str, Any] | None


class BuildState(BuildInput, BuildOutput):
    """The working state of a build.

    The executor's part holds ids and counts only: ``pending_slots`` (the first slot of
    each slot task of the round; the tasks take the rest from the workspace's queue),
    ``tallies`` (finished slots per subtask and status; the items are on disk),
    ``targets`` (items per grounding after reallocations) and ``exec_round``.
    """

    warnings: Annotated[list[str], operator.add]
    planner_log: Annotated[list[str], operator.add]
    subtasks: list[Subtask]
    groundings: list[Grounding]
    allocations: list[Allocation]
    dropped: list[Dropped]
    allocation_trace: list[dict[str, Any]]
    started_at: float
    targets: dict[str, int]
    subtask_targets: dict[str, int]
    exec_round: int
    pending_slots: list[Slot]
    tallies: Annotated[Tallies, add_tallies]
    build_log: Annotated[list[str], operator.add]


class PlannerOutput(TypedDict):
    """What the planner subgraph hands back to the build graph.

    ``warnings`` is left out on purpose: the parent already holds the warnings it passed
    in, and returning them through the ``operator.add`` reducer would repeat them.
    """

    plan_status: str
    spec: BenchmarkSpec | None
    error: str | None
    planner_log: list[str]
    subtasks: list[Subtask]
    groundings: list[Grounding]
    allocations: list[Allocation]
    dropped: list[Dropped]
    allocation_trace: list[dict[str, Any]]

"""The graph's typed state: input, output and the full working state.

The state holds ids, counts, small plan records (pydantic dumps) and paths, never media
bytes or whole datasets. Reducers are used only where values accumulate (``warnings``,
``planner_log``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reducer: add two count maps key by key."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class BuildInput(TypedDict):
    """What a build starts from (the form Studio shows).

    ``build`` realizes the plan into a benchmark (the run configuration's ``out_dir`` is
    the folder); ``spec`` starts from an approved plan instead of planning again.
    """

    intent: str
    size: int
    build: NotRequired[bool]
    spec: NotRequired[dict[str, Any] | None]


class BuildOutput(TypedDict):
    """What a build returns."""

    intent: str
    size: int
    models: dict[str, str]
    warnings: list[str]
    plan_status: str
    spec: dict[str, Any] | None
    error: str | None
    build_status: str
    shortfalls: list[dict[str, Any]]
    report: dict[str, Any] | None


class BuildState(BuildInput, BuildOutput):
    """The working state of a build.

    The executor's part holds ids and counts only: ``pending_slots`` (the next round's
    slots), ``tallies`` (finished slots counted by ``SUBTASK:STATUS``; the items are on disk),
    ``targets`` (items per grounding after reallocations) and ``exec_round``.
    """

    warnings: Annotated[list[str], operator.add]
    planner_log: Annotated[list[str], operator.add]
    subtasks: list[dict[str, Any]]
    groundings: list[dict[str, Any]]
    allocations: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    ungrounded: list[dict[str, Any]]
    regroundings: int
    allocation_trace: list[dict[str, Any]]
    started_at: float
    targets: dict[str, int]
    exec_round: int
    pending_slots: list[dict[str, Any]]
    queued_slots: list[dict[str, Any]]
    tallies: Annotated[dict[str, int], add_counts]
    build_log: Annotated[list[str], operator.add]


class PlannerOutput(TypedDict):
    """What the planner subgraph hands back to the build graph.

    ``warnings`` is left out on purpose: the parent already holds the warnings it passed
    in, and returning them through the ``operator.add`` reducer would repeat them.
    """

    plan_status: str
    spec: dict[str, Any] | None
    error: str | None
    planner_log: list[str]
    subtasks: list[dict[str, Any]]
    groundings: list[dict[str, Any]]
    allocations: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    regroundings: int
    allocation_trace: list[dict[str, Any]]

"""The graph's typed state: input, output and the full working state.

The state holds ids, counts, small plan records (pydantic dumps) and paths, never media
bytes or whole datasets. Reducers are used only where values accumulate (``warnings``,
``planner_log``).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict


class BuildInput(TypedDict):
    """What a build starts from (the form Studio shows)."""

    intent: str
    size: int


class BuildOutput(TypedDict):
    """What a build returns."""

    intent: str
    size: int
    models: dict[str, str]
    warnings: list[str]
    plan_status: str
    spec: dict[str, Any] | None
    error: str | None


class BuildState(BuildInput, BuildOutput):
    """The working state of a build."""

    warnings: Annotated[list[str], operator.add]
    planner_log: Annotated[list[str], operator.add]
    subtasks: list[dict[str, Any]]
    groundings: list[dict[str, Any]]
    allocations: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    ungrounded: list[dict[str, Any]]
    regroundings: int
    allocation_trace: list[dict[str, Any]]


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

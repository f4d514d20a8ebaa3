"""Pure, typed routers of the feedback edges.

Loop caps are applied by the nodes (which know the run configuration) when they decide
what to put in the state: a node sets ``ungrounded`` only while another design round is
allowed, and ``plan_status`` to ``redesign`` only while regrounding is allowed. The routers
read that decision and nothing else, so they are pure functions of the state.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END
from langgraph.types import Send

from benchsmith.graph.state import BuildState


def route_after_design(state: BuildState) -> Literal["grounding", "__end__"]:
    """Stop when no dataset or reference covers the intent, else ground the subtasks."""
    return END if state.get("plan_status") == "uncovered" else "grounding"


def route_after_grounding(state: BuildState) -> Literal["design", "allocation"]:
    """Back to design while subtasks are ungrounded (and the cap allows), else allocate."""
    return "design" if state.get("ungrounded") else "allocation"


def route_after_allocation(state: BuildState) -> Literal["design", "review_plan", "__end__"]:
    """Review a feasible plan, redesign an infeasible one (while allowed), else stop."""
    status = state.get("plan_status")
    if status == "ok":
        return "review_plan"
    if status == "redesign":
        return "design"
    return END


def route_after_preflight(state: BuildState) -> Literal["planner", "collect"]:
    """A build from an approved spec skips planning."""
    return "collect" if state.get("build") and state.get("spec") else "planner"


def route_after_planner(state: BuildState) -> Literal["collect", "__end__"]:
    """Realize a feasible plan when building; a plan-only run ends here."""
    if state.get("build") and state.get("plan_status") == "ok" and state.get("spec"):
        return "collect"
    return END


def route_after_collect(state: BuildState) -> list[Send] | Literal["package"]:
    """One ``Send`` per pending sample slot; package when the quota monitor sent none."""
    slots = state.get("pending_slots") or []
    if slots:
        return [Send("realize", slot) for slot in slots]
    return "package"

"""Pure, typed routers of the feedback edges.

Loop caps are applied by the nodes (which know the run configuration) when they decide
what to put in the state: a node sets ``ungrounded`` only while another design round is
allowed, and ``plan_status`` to ``redesign`` only while regrounding is allowed. The routers
read that decision and nothing else, so they are pure functions of the state.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END

from benchsmith.graph.state import BuildState


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

"""Pure, typed routers of the graph's conditional edges.

The nodes decide what goes in the state; the routers read that decision and nothing else,
so they are pure functions of the state (but :func:`route_slot_start`, which reads the
ledger).
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Send

from benchsmith.agents.sources import run_config
from benchsmith.agents.workspace import open_workspace
from benchsmith.config import RunConfig
from benchsmith.state import BuildState, SlotInput, SlotState


def route_after_design(state: BuildState) -> Literal["grounding", "__end__"]:
    """Stop when no dataset or reference covers the intent, else ground the subtasks."""
    return END if state.get("plan_status") == "uncovered" else "grounding"


def route_after_allocation(state: BuildState) -> Literal["review_plan", "__end__"]:
    """Review a feasible plan, else stop (the error says what is short)."""
    return "review_plan" if state.get("plan_status") == "ok" else END


def route_after_preflight(state: BuildState) -> Literal["planner", "collect"]:
    """A build from an approved spec skips planning."""
    return "collect" if state.get("build") and state.get("spec") else "planner"


def route_after_planner(state: BuildState) -> Literal["collect", "finish_plan"]:
    """Realize a feasible plan when building; a plan-only run (or no plan) ends here."""
    if state.get("build") and state.get("plan_status") == "ok" and state.get("spec"):
        return "collect"
    return "finish_plan"


def route_after_collect(state: BuildState) -> list[Send] | Literal["package"]:
    """One ``Send`` per slot task (its first slot); package when the monitor sent none."""
    slots = state.get("pending_slots") or []
    if slots:
        return [Send("realize", SlotInput(slot=slot)) for slot in slots]
    return "package"


# -- the slot subgraph ------------------------------------------------------------------------


def route_slot_start(
    state: SlotState, runtime: Runtime[RunConfig]
) -> Literal["computed", "__end__"]:
    """Where a slot starts: END when the ledger holds it, else its computed item.

    A resumed build never redoes a finished slot. The one router that reads beyond the
    state: the ledger on disk is the source of truth.
    """
    ws = open_workspace(run_config(runtime))
    return END if ws.ledger.is_done(state["slot"].id) else "computed"


def route_after_slot_end(
    state: SlotState, runtime: Runtime[RunConfig]
) -> Literal["computed", "__end__"]:
    """After ``accept`` or ``discard``: END, or the start of the slot it loaded.

    That is a replacement candidate, the round's next slot or a tail backup (``carry_on``).
    """
    return route_slot_start(state, runtime) if state.get("carry_on") else END


def route_after_verify(state: SlotState) -> Literal["accept", "discard"]:
    """Accept a verified item, else discard it (a reserved candidate may replace it)."""
    return "accept" if state.get("failure") is None else "discard"


def route_after_computed(state: SlotState) -> Literal["verify", "discard"]:
    """Verify the computed problem; a slot past the generated problems is discarded."""
    return "verify" if state.get("failure") is None else "discard"

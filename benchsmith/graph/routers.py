"""Pure, typed routers of the feedback edges.

Loop caps are applied by the nodes (which know the run configuration) when they decide
what to put in the state: a node sets ``ungrounded`` only while another design round is
allowed, and ``plan_status`` to ``redesign`` only while regrounding is allowed. The routers
read that decision and nothing else, so they are pure functions of the state.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Send

from benchsmith.agents.sources import run_config
from benchsmith.agents.workspace import open_workspace
from benchsmith.config import RunConfig
from benchsmith.spec import COMPUTED
from benchsmith.state import BuildState, SlotInput, SlotState


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
) -> Literal["computed", "orchestrate", "__end__"]:
    """Where a slot starts: END when the ledger holds it, else computed or orchestrate.

    A resumed build never redoes a finished slot; a solution-graph slot takes a computed
    problem; any other is orchestrated. The one router that reads beyond the state: the
    ledger on disk is the source of truth.
    """
    ws = open_workspace(run_config(runtime))
    slot = state["slot"]
    if ws.ledger.is_done(slot.id):
        return END
    if ws.groundings[slot.grounding_id].strategy in COMPUTED:
        return "computed"
    return "orchestrate"


def route_after_slot_end(
    state: SlotState, runtime: Runtime[RunConfig]
) -> Literal["computed", "orchestrate", "__end__"]:
    """After ``accept`` or ``discard``: END, or the start of the slot it loaded.

    That is a replacement record, the round's next slot or a tail backup (``carry_on``).
    """
    return route_slot_start(state, runtime) if state.get("carry_on") else END


def _fix_or_discard(state: SlotState) -> Literal["orchestrate", "discard"]:
    failure = state.get("failure")
    return "orchestrate" if failure is not None and failure.retry else "discard"


def route_after_orchestrate(state: SlotState) -> Literal["execute", "discard"]:
    """Run the tools of a decision; a slot without a decision (no answer, no template) ends."""
    return "discard" if state.get("failure") is not None else "execute"


def route_after_execute(state: SlotState) -> Literal["verify", "orchestrate", "discard"]:
    """Verify a draft; a failed tool goes back to orchestrate (if fixable) or to discard.

    Fixable: the parameters can be chosen again and the fix budget allows.
    """
    return "verify" if state.get("failure") is None else _fix_or_discard(state)


def route_after_verify(state: SlotState) -> Literal["accept", "orchestrate", "discard"]:
    """Accept a verified item; a fixable failure goes back to orchestrate, else discard.

    Fixable: the check allows a local fix and the fix budget allows another attempt.
    """
    return "accept" if state.get("failure") is None else _fix_or_discard(state)


def route_after_computed(state: SlotState) -> Literal["verify", "discard"]:
    """Verify the computed problem; a slot past the generated problems is discarded."""
    return "verify" if state.get("failure") is None else "discard"

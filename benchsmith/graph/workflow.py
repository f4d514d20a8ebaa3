"""The workflow: the only module that wires nodes and edges.

``START -> preflight -> planner -> collect -> realize (Send per slot) -> collect ... ->
package -> END`` (or ``planner -> finish_plan -> END``), where the planner and ``realize``
(one slot) are subgraphs::

    design -(uncovered intent)-> END
           -> grounding -> allocation -(feasible)-> review_plan -> END
                                      -(infeasible)-> END

    START -(in the ledger)-> END
          -> computed -> verify -(passed)-> accept -> END
                                -(failed)-> discard -> END
          (computed fails to discard: no candidate left)
    discard -(a reserved candidate replaces the rejected one)-> computed
    accept, discard -(the round's next slot, or a tail backup)-> computed

Design is deterministic (the intent's programs and the references' formulas), so no edge
goes back to it; every item is computed, so a failed check discards the slot rather than
asking a model to fix it.

A plan-only run (``build`` false), or a build whose planning found no plan, ends after the
planner in ``finish_plan`` (``build_status`` ``planned``); a build from an approved spec
goes from preflight straight to ``collect``. ``collect`` is the quota monitor: it plans a
round of sample slots and sends one ``realize`` task per slot worker (the run's
``max_concurrency``); each task runs a slot through the slot subgraph, then the round's
next slot, until none is left (``accept``/``discard`` go back to the start with it). It
loops until every quota is met or nothing more can be drawn, then ``package`` writes the
folder.

The planner's and the slot's nodes report their updates to the run's progress callback
themselves (:mod:`benchsmith.graph.progress`), as ``planner:design`` or ``realize:accept``:
a build streams the graph's top-level updates only.

``builder`` is the uncompiled ``StateGraph`` (tests compile it with their own
checkpointer); ``graph`` is the compiled graph that ``langgraph.json`` points at (Studio
sees inside each slot), ``planner`` the compiled planner subgraph and ``slot_graph`` the
slot subgraph as builds run it (no checkpoints of its own).
"""

from __future__ import annotations

import functools
from typing import Any

from langgraph.graph import END, START, StateGraph

from benchsmith.agents.allocation import allocation_node
from benchsmith.agents.collect import collect_node
from benchsmith.agents.design import design_node
from benchsmith.agents.finish import finish_plan
from benchsmith.agents.grounding import grounding_node
from benchsmith.agents.packaging import package_node
from benchsmith.agents.preflight import preflight
from benchsmith.agents.realize import (
    accept_node,
    computed_node,
    discard_node,
    verify_node,
)
from benchsmith.agents.review import review_node
from benchsmith.config import RunConfig
from benchsmith.graph.progress import reported
from benchsmith.graph.routers import (
    route_after_allocation,
    route_after_collect,
    route_after_computed,
    route_after_design,
    route_after_planner,
    route_after_preflight,
    route_after_slot_end,
    route_after_verify,
    route_slot_start,
)
from benchsmith.state import (
    BuildInput,
    BuildOutput,
    BuildState,
    PlannerOutput,
    SlotInput,
    SlotOutput,
    SlotState,
)


def make_planner_builder() -> StateGraph:
    """The planner subgraph: design, grounding, allocation and review."""
    planner = StateGraph(BuildState, context_schema=RunConfig, output_schema=PlannerOutput)
    planner.add_node("design", reported("planner", "design", design_node))
    planner.add_node("grounding", reported("planner", "grounding", grounding_node))
    planner.add_node("allocation", reported("planner", "allocation", allocation_node))
    planner.add_node("review_plan", reported("planner", "review_plan", review_node))
    planner.add_edge(START, "design")
    planner.add_conditional_edges("design", route_after_design)
    planner.add_edge("grounding", "allocation")
    planner.add_conditional_edges("allocation", route_after_allocation)
    planner.add_edge("review_plan", END)
    return planner


def make_slot_builder() -> StateGraph:
    """The slot subgraph: one sample slot from its computed item to its ledger entry."""
    slot = StateGraph(
        SlotState, context_schema=RunConfig, input_schema=SlotInput, output_schema=SlotOutput
    )
    for name, node in (
        ("computed", computed_node),
        ("verify", verify_node),
        ("accept", accept_node),
        ("discard", discard_node),
    ):
        slot.add_node(name, reported("realize", name, node))
    slot.add_conditional_edges(START, route_slot_start)
    slot.add_conditional_edges("computed", route_after_computed)
    slot.add_conditional_edges("verify", route_after_verify)
    slot.add_conditional_edges("accept", route_after_slot_end)
    slot.add_conditional_edges("discard", route_after_slot_end)
    return slot


def compile_slot_graph(*, watch: bool = False) -> Any:
    """The compiled slot subgraph.

    By default without checkpoints of its own (``checkpointer=False``): LangGraph documents
    that such a subgraph never checkpoints, even when the parent has a checkpointer (a
    reviewed build's plan review needs one), so a build does not store every slot step. A
    slot is not resumable step by step anyway: the ledger is the source of truth, and a
    resumed build re-sends only the slots it does not hold.

    ``watch=True`` (the graph Studio serves) inherits the parent's checkpointer instead:
    LangGraph then treats the slot graph as a subgraph, draws its nodes with
    ``get_graph(xray=True)`` and streams each step, at the cost of a checkpoint per step.
    """
    return make_slot_builder().compile(checkpointer=None if watch else False, name="slot")


def make_builder(*, watch_slots: bool = False) -> StateGraph:
    """A fresh, uncompiled build graph (``watch_slots``: see :func:`compile_slot_graph`)."""
    builder = StateGraph(
        BuildState, context_schema=RunConfig, input_schema=BuildInput, output_schema=BuildOutput
    )
    builder.add_node("preflight", reported(None, "preflight", preflight))
    builder.add_node("planner", make_planner_builder().compile())
    builder.add_node("collect", reported(None, "collect", collect_node))
    builder.add_node("realize", compile_slot_graph(watch=watch_slots))
    builder.add_node("package", reported(None, "package", package_node))
    builder.add_node("finish_plan", finish_plan)
    builder.add_edge(START, "preflight")
    builder.add_conditional_edges("preflight", route_after_preflight)
    builder.add_conditional_edges("planner", route_after_planner)
    builder.add_conditional_edges("collect", route_after_collect, ["realize", "package"])
    builder.add_edge("realize", "collect")
    builder.add_edge("package", END)
    builder.add_edge("finish_plan", END)
    return builder


@functools.cache
def build_graph() -> Any:
    """The compiled graph a build runs without a checkpointer, compiled once per process.

    A compiled graph keeps no run's state (each run brings its own input, config and
    context), so builds share it. Compiling takes about 20 ms: this module compiles it
    when it is imported, with the graphs Studio reads, rather than on the way to each
    build's first model call. A build whose plan a person reviews compiles its own, with
    a checkpointer (:func:`benchsmith.api._run_graph`).
    """
    return make_builder().compile(name="benchsmith")


builder = make_builder(watch_slots=True)
graph = builder.compile(name="benchsmith")
slot_graph = compile_slot_graph()
planner = make_planner_builder().compile(name="benchsmith-planner")
build_graph()

"""The workflow: the only module that wires nodes and edges.

``START -> preflight -> planner -> collect -> realize (Send per slot) -> collect ... ->
package -> END``, where the planner is a subgraph::

    design -(uncovered intent)-> END
           -> grounding -(ungrounded, capped)-> design
                        -> allocation -(infeasible, capped)-> design
                                      -(feasible)-> review_plan -> END
                                      -(stop)-> END

A plan-only run (``build`` false) ends after the planner; a build from an approved spec
goes from preflight straight to ``collect``. ``collect`` is the quota monitor: it sends one
``realize`` per sample slot (bounded by the run's ``max_concurrency``) and loops until
every quota is met or nothing more can be drawn, then ``package`` writes the folder.

``builder`` is the uncompiled ``StateGraph`` (tests compile it with their own
checkpointer); ``graph`` is the compiled graph that ``langgraph.json`` points at, and
``planner`` the compiled planner subgraph.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from benchsmith.agents.allocation import allocation_node
from benchsmith.agents.collect import collect_node
from benchsmith.agents.design import design_node
from benchsmith.agents.grounding import grounding_node
from benchsmith.agents.packaging import package_node
from benchsmith.agents.preflight import preflight
from benchsmith.agents.realize import realize_node
from benchsmith.agents.review import review_node
from benchsmith.config import RunConfig
from benchsmith.graph.routers import (
    route_after_allocation,
    route_after_collect,
    route_after_design,
    route_after_grounding,
    route_after_planner,
    route_after_preflight,
)
from benchsmith.graph.state import BuildInput, BuildOutput, BuildState, PlannerOutput


def make_planner_builder() -> StateGraph:
    """The planner subgraph: design, grounding, allocation and review with feedback edges."""
    planner = StateGraph(BuildState, context_schema=RunConfig, output_schema=PlannerOutput)
    planner.add_node("design", design_node)
    planner.add_node("grounding", grounding_node)
    planner.add_node("allocation", allocation_node)
    planner.add_node("review_plan", review_node)
    planner.add_edge(START, "design")
    planner.add_conditional_edges("design", route_after_design)
    planner.add_conditional_edges("grounding", route_after_grounding)
    planner.add_conditional_edges("allocation", route_after_allocation)
    planner.add_edge("review_plan", END)
    return planner


def make_builder() -> StateGraph:
    """A fresh, uncompiled build graph."""
    builder = StateGraph(
        BuildState, context_schema=RunConfig, input_schema=BuildInput, output_schema=BuildOutput
    )
    builder.add_node("preflight", preflight)
    builder.add_node("planner", make_planner_builder().compile())
    builder.add_node("collect", collect_node)
    builder.add_node("realize", realize_node)
    builder.add_node("package", package_node)
    builder.add_edge(START, "preflight")
    builder.add_conditional_edges("preflight", route_after_preflight)
    builder.add_conditional_edges("planner", route_after_planner)
    builder.add_conditional_edges("collect", route_after_collect, ["realize", "package"])
    builder.add_edge("realize", "collect")
    builder.add_edge("package", END)
    return builder


builder = make_builder()
graph = builder.compile(name="benchsmith")
planner = make_planner_builder().compile(name="benchsmith-planner")

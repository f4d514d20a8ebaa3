"""The workflow: the only module that wires nodes and edges.

``builder`` is the uncompiled ``StateGraph`` (tests compile it with their own
checkpointer); ``graph`` is the compiled graph that ``langgraph.json`` points at.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from benchsmith.agents.preflight import preflight
from benchsmith.config import RunConfig
from benchsmith.graph.state import BuildInput, BuildOutput, BuildState


def make_builder() -> StateGraph:
    """A fresh, uncompiled build graph."""
    builder = StateGraph(
        BuildState, context_schema=RunConfig, input_schema=BuildInput, output_schema=BuildOutput
    )
    builder.add_node("preflight", preflight)
    builder.add_edge(START, "preflight")
    builder.add_edge("preflight", END)
    return builder


builder = make_builder()
graph = builder.compile(name="benchsmith")

"""The LangGraph state machine: state, routers and the builder.

Exports ``graph`` (compiled; ``langgraph.json`` points at it), ``builder`` and
``make_builder``, imported lazily so that agents can import ``benchsmith.graph.state``
without pulling in the builder (which imports the agents).
"""

from __future__ import annotations

__all__ = ["builder", "graph", "make_builder"]


def __getattr__(name: str) -> object:
    """Load the builder module on first access of its exports."""
    if name in __all__:
        import importlib

        module = importlib.import_module("benchsmith.graph.workflow")

        return getattr(module, name)
    raise AttributeError(f"module 'benchsmith.graph' has no attribute {name!r}")

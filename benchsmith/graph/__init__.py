"""The LangGraph state machine: state, routers and the builder.

Exports ``graph`` (compiled; ``langgraph.json`` points at it), ``builder`` and
``make_builder``, loaded on first access: ``benchsmith.api`` imports
``benchsmith.graph.progress`` at its top, and the builder imports every agent (seconds),
which a build loads only after it has started the language-ID worker. The graph's state
types are in :mod:`benchsmith.state`, below the agents.
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

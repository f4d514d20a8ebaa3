"""benchsmith: fresh, verified evaluation benchmarks from a plain-language intent.

``benchsmith.graph`` is the compiled LangGraph graph; the model layer is ``benchsmith.llm``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("benchsmith")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "graph"]


def __getattr__(name: str) -> object:
    """Import the compiled graph lazily (LangGraph is slow to import)."""
    if name == "graph":
        from benchsmith.graph import graph

        return graph
    raise AttributeError(f"module 'benchsmith' has no attribute {name!r}")

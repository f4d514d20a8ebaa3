"""benchsmith: fresh, verified evaluation benchmarks from a plain-language intent.

``benchsmith.build_benchmark`` builds a benchmark folder and ``benchsmith.plan_benchmark``
plans one (both from :mod:`benchsmith.api`); ``benchsmith.graph`` is the compiled LangGraph
graph; the model layer is ``benchsmith.llm``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("benchsmith")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "build_benchmark", "graph", "plan_benchmark"]


def __getattr__(name: str) -> object:
    """Import the graph and the API lazily (LangGraph is slow to import)."""
    if name == "graph":
        from benchsmith.graph import graph

        return graph
    if name in ("build_benchmark", "plan_benchmark"):
        from benchsmith import api

        return getattr(api, name)
    raise AttributeError(f"module 'benchsmith' has no attribute {name!r}")

"""Progress of the subgraphs' nodes, reported as each one finishes, outside LangGraph's stream.

A build's progress bar needs the planner's steps and every slot's end (``realize:accept``,
``realize:discard``). Streaming them with ``subgraphs=True`` also streamed every step of
every slot in each mode asked for (the slot's whole state as ``values``, for nothing),
through one queue that the main thread drains while the slot threads hold the GIL: the
backlog grew with the build (about 3 KB an item at its peak, measured with tracemalloc
over builds of 300 and 1,200 items) and the copies cost CPU on the core every slot
thread shares. Now the graph streams its own top-level updates only, and each subgraph
node wrapped by :func:`reported` hands its update to the run's callback itself, on the
thread that ran it, as ``"<subgraph>:<node>"``, the names the stream used. The top-level
nodes in :data:`SELF_REPORTING` do the same; the others' updates (the two subgraphs' totals,
``finish_plan``) still come from the stream.

The callback is registered for the run's :class:`~benchsmith.config.RunConfig` object (the
graph's context) with :func:`reporting`; calls to it are serialized by a lock, so a
callback written for one thread (a tqdm bar) needs no locking of its own.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: ``progress(node, update)``: called with a node's name and the update it returned.
Progress = Callable[[str, dict[str, Any]], None]

SELF_REPORTING = frozenset({"preflight", "collect", "package"})
"""Top-level nodes that report their own updates (so the caller skips them in the stream)."""

_HOOKS: dict[int, tuple[Any, Progress]] = {}
_LOCK = threading.Lock()


@contextlib.contextmanager
def reporting(context: Any, progress: Progress | None) -> Iterator[Progress]:
    """Send the wrapped nodes' updates of the run whose graph context is ``context``.

    Args:
        context: The object the graph is run with as ``context`` (a ``RunConfig``).
        progress: The callback; None reports nothing.

    Yields:
        ``emit(node, update)``: the callback behind the same lock, for the updates the
        caller takes from the graph's stream (a no-op when ``progress`` is None).
    """
    if progress is None:
        yield lambda node, update: None
        return
    key = id(context)

    def emit(node: str, update: dict[str, Any]) -> None:
        with _LOCK:
            progress(node, update)

    with _LOCK:
        _HOOKS[key] = (context, progress)  # holding the object keeps its id unique
    try:
        yield emit
    finally:
        with _LOCK:
            _HOOKS.pop(key, None)


def report(context: Any, node: str, update: Any) -> None:
    """Hand ``update`` to the callback registered for ``context`` (if any, and a dict)."""
    entry = _HOOKS.get(id(context))
    if entry is None or entry[0] is not context or not isinstance(update, dict):
        return
    with _LOCK:
        entry[1](node, update)


def reported(subgraph: str | None, name: str, node: Callable[..., Any]) -> Callable[..., Any]:
    """``node`` (``node(state, runtime)``), reporting its update as ``subgraph:name``.

    A top-level node (``subgraph`` None) reports as ``name``; it reports itself so that its
    update reaches the callback before the tasks it sends run (``collect`` sets the bar's
    total before any slot ends). The wrapper keeps the node's signature, so LangGraph
    passes it the runtime as before.
    """
    label = name if subgraph is None else f"{subgraph}:{name}"

    @functools.wraps(node)
    def run(state: Any, runtime: Any) -> Any:
        update = node(state, runtime)
        report(getattr(runtime, "context", None), label, update)
        return update

    return run

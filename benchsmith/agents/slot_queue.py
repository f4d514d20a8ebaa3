"""The slots of a round that no slot task has taken yet (a leaf module of the executor)."""

from __future__ import annotations

import collections
import threading

from benchsmith.graph.state import Slot


class SlotQueue:
    """The slots of a round that no slot task has taken yet (thread-safe, first in first out).

    ``collect`` sends one slot task per slot worker; a task that finishes its slot takes the
    next one from here and realizes it in place (the slot subgraph runs once per slot), so
    the endpoint never waits for a fan-out to end before the next slots start. A fan-out of
    one ``Send`` per slot instead cost LangGraph about 8 KB and, at every task's end, a walk
    over every pending task (``concurrent.futures.wait``): 1.2 ms a slot with 2,000
    pending, quadratic in the round's size, on the core the slots share.
    """

    def __init__(self, slots: list[Slot] | None = None) -> None:
        """Hold ``slots`` in order."""
        self._slots = collections.deque(slots or [])
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Slots not taken yet."""
        return len(self._slots)

    def take(self) -> Slot | None:
        """The next slot, or None when every slot is taken."""
        with self._lock:
            return self._slots.popleft() if self._slots else None

    def take_many(self, n: int) -> list[Slot]:
        """The next ``n`` slots (fewer when fewer are left)."""
        with self._lock:
            return [self._slots.popleft() for _ in range(min(n, len(self._slots)))]

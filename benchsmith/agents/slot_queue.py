"""A round's slots that no slot task has taken yet, and its candidates in reserve.

A leaf module of the executor: ``collect`` plans a round into a :class:`SlotQueue` and,
per grounding, a :class:`Reserve`; the round's slot tasks take from both through the
build's workspace.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Sequence

from benchsmith.spec import Grounding
from benchsmith.state import Slot


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


def make_slot(
    grounding: Grounding, position: int, index: int, languages: list[str], round_: int
) -> Slot:
    """The slot drawing candidate ``index`` (the ``position``-th of the grounding's order)."""
    return Slot(
        id=f"{grounding.id}#{index}",
        grounding_id=grounding.id,
        subtask_id=grounding.subtask_id,
        record_index=index,
        language=languages[position % len(languages)] if languages else None,
        item_id=f"{grounding.id}-{index:05d}",
        round=round_,
    )


class Reserve:
    """The computed candidates a grounding may still draw this round, beyond the slots planned.

    A slot that ends rejected takes the next one (:meth:`take`) and goes on in place, so
    a rejection is refilled at once instead of waiting for the round to end (a round's
    last slots leave the endpoint idle while they finish). The candidates come in the same
    order and under the same attempt cap as a refill round's, so the candidates used, and
    each one's language, are those the rounds would have drawn. Thread-safe.

    Args:
        grounding: The grounding drawing them.
        free: ``(position, candidate index)`` pairs in draw order (a slot's
            ``record_index`` is its candidate's index).
        languages: The languages its items rotate through.
        round_: The round the slots belong to.
        labels: With a difficulty mix, the predicted label of each candidate index: a
            replacement is the next candidate of the replaced one's label when any is left.
        limit: Most candidates taken (default: all of ``free``).
    """

    def __init__(
        self,
        grounding: Grounding,
        free: list[tuple[int, int]],
        languages: list[str],
        round_: int,
        *,
        labels: Sequence[str | None] | None = None,
        limit: int | None = None,
    ) -> None:
        """Hold ``free`` (pairs of ints, not slots: a large round stays small)."""
        self.grounding = grounding
        self.languages = languages
        self.round = round_
        self._free = collections.deque(free)
        self._labels = labels
        self._left = len(free) if limit is None else max(0, min(limit, len(free)))
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Candidates left."""
        return self._left

    def _label(self, index: int) -> str | None:
        labels = self._labels or ()
        return labels[index] if index < len(labels) else None

    def _pop(self, like: Slot | None) -> tuple[int, int]:
        """The next pair; with labels, the first of ``like``'s label if any (lock held)."""
        if self._labels and like is not None:
            wanted = self._label(like.record_index)
            for at, (_pos, idx) in enumerate(self._free):
                if wanted is not None and self._label(idx) == wanted:
                    pair = self._free[at]
                    del self._free[at]
                    return pair
        return self._free.popleft()

    def take(self, like: Slot | None = None) -> Slot | None:
        """The next candidate's slot, or None when none is left.

        Args:
            like: The slot the candidate replaces: the new slot keeps its language, so a
                slot rejected in French is replaced by another French one and the plan's
                mix of languages holds. Without it, the candidate's own position in the
                order gives the language.
        """
        with self._lock:
            if not self._free or self._left <= 0:
                return None
            self._left -= 1
            pos, idx = self._pop(like)
        slot = make_slot(self.grounding, pos, idx, self.languages, self.round)
        if like is not None and like.language != slot.language:
            slot = slot.model_copy(update={"language": like.language})
        return slot

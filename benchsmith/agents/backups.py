"""Tail backups: speculative slots at the end of a fan-out.

A fan-out of slots ends when its slowest slot does. Near the end every slot has started,
and the slots still running are mostly on a chain of rejections and replacements (the
judge said no, then the grounding's next candidate is verified and judged): several model
calls in a row, with the endpoint's other places idle. As MapReduce does with straggling
tasks, a slot that finishes then takes a *backup* candidate for such a chain, from the same
grounding's reserve: whichever of the two is accepted first fills the place in the quota
(its *claim*), and the other stops at its next step. A backup accepted second is dropped,
never packaged, so the quotas hold exactly; the calls it made are the price, paid only at
the end of a fan-out and at most once per chain.

A claim is the id of the slot first sent for a place; a replacement candidate keeps its
slot's claim. Only claims that have a backup are ever contested, so only those are kept.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any


class TailBackups:
    """The tail-backup bookkeeping of one build (thread-safe).

    Args:
        enabled: Whether backups are started at all (settling always works).
    """

    def __init__(self, enabled: bool) -> None:
        """Start with no fan-out."""
        self.enabled = enabled
        self._lock = threading.Lock()
        self._fresh_left = 0
        self._chains: dict[str, Any] = {}  # claim -> the chain's slot, waiting for a backup
        self._backed: set[str] = set()  # claims with a backup (contested)
        self._settled: set[str] = set()  # contested claims already filled
        self.stats: Counter[str] = Counter()
        """``started``, ``won`` (a backup filled the place), ``superseded`` (slots stopped
        because their place was filled) and ``surplus`` (accepted second, dropped)."""

    def begin_fan_out(self, slots: int) -> None:
        """A new fan-out of ``slots`` slots starts (every slot of the last one has ended)."""
        with self._lock:
            self._fresh_left = slots
            self._chains.clear()
            self._backed.clear()
            self._settled.clear()

    def fresh_started(self) -> None:
        """A slot of the fan-out ran its first step."""
        with self._lock:
            self._fresh_left -= 1

    @property
    def in_tail(self) -> bool:
        """Whether every slot of the fan-out has started."""
        return self._fresh_left <= 0

    def note_chain(self, claim: str, slot: Any) -> None:
        """``slot``, working for ``claim``, goes on after a failure (a replacement)."""
        with self._lock:
            if claim not in self._backed:
                self._chains[claim] = slot

    def settle(self, claim: str, *, backup: bool) -> bool:
        """Fill the place of ``claim``; False when it was filled already (a surplus item)."""
        with self._lock:
            self._chains.pop(claim, None)
            if claim not in self._backed:
                return True
            if claim in self._settled:
                self.stats["surplus"] += 1
                return False
            self._settled.add(claim)
            if backup:
                self.stats["won"] += 1
            return True

    def is_settled(self, claim: str | None) -> bool:
        """Whether the place of ``claim`` is filled (a slot still working for it stops)."""
        if claim is None:
            return False
        with self._lock:
            return claim in self._settled

    def superseded(self) -> None:
        """Count a slot stopped because its place was filled."""
        with self._lock:
            self.stats["superseded"] += 1

    def take(self, draw: Callable[[Any], Any]) -> tuple[str, Any] | None:
        """A backup job for a finished slot: ``(claim, slot)``, or None.

        Only at the tail of a fan-out, for a chain without a backup; ``draw(chain_slot)``
        gives a slot in its place (the grounding's next reserved candidate, in the chain's
        language; None when none is left).
        """
        if not self.enabled or not self.in_tail:
            return None
        with self._lock:
            while self._chains:
                claim, chain_slot = next(iter(self._chains.items()))
                del self._chains[claim]
                slot = draw(chain_slot)
                if slot is None:
                    continue
                self._backed.add(claim)
                self.stats["started"] += 1
                return claim, slot
        return None

    def summary(self) -> dict[str, int]:
        """The counts, for the report."""
        with self._lock:
            return {k: int(self.stats[k]) for k in ("started", "won", "superseded", "surplus")}

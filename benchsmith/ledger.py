"""The build ledger: what every sample slot came to, appended as it happens.

A build writes one line per finished slot to ``.run/slots.jsonl``: the slot, and either the
accepted item or the rejection with its reason. Each line is written whole with one
``write`` (:func:`benchsmith.files.append_jsonl`), and a half-written last
line (a kill in the middle of a write) is cut off when the ledger is opened, so a killed
build resumes from exactly the slots it finished. The package writer turns the ledger into
``data/test.jsonl`` and ``rejects.jsonl``.

A human reviewer's rejection of an accepted item is a line of its own, ``{"revoke": ITEM_ID,
"grounding_id": ..., "reason": ...}``: the item leaves the accepted count of its grounding
(its slot counts as rejected), so the next run of the build realizes a fresh slot in its
place, and the package leaves it out of the data and lists it in ``rejects.jsonl``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchsmith.files import append_jsonl, parse_json, read_whole_lines
from benchsmith.item import Item

LEDGER_FILE = "slots.jsonl"


class Ledger:
    """Thread-safe, append-only record of finished slots.

    Args:
        run_dir: The run folder (``BENCH/.run``); None keeps the ledger in memory.
    """

    def __init__(self, run_dir: str | os.PathLike[str] | None) -> None:
        """Open (or start) the ledger, dropping a half-written last line."""
        self.path = Path(run_dir) / LEDGER_FILE if run_dir is not None else None
        self._lock = threading.Lock()
        self._done: dict[str, str] = {}  # slot id -> status (entries stay on disk)
        self._memory: list[dict[str, Any]] = []  # entries, only without a file
        self._accepted: dict[str, list[str]] = defaultdict(list)
        self._rejected: Counter[str] = Counter()
        self._item_ids: set[str] = set()
        self._revoked: dict[str, dict[str, Any]] = {}  # item id -> the revoke entry
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        if not self.path.exists():
            return
        data = read_whole_lines(self.path)
        for line in data.splitlines():
            try:
                entry = parse_json(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and (
                isinstance(entry.get("slot"), dict) or isinstance(entry.get("revoke"), str)
            ):
                self._index(entry)

    def _index(self, entry: dict[str, Any]) -> None:
        if "revoke" in entry:
            item_id, gid = entry["revoke"], entry["grounding_id"]
            if item_id in self._accepted.get(gid, []):
                self._accepted[gid].remove(item_id)
                self._rejected[gid] += 1
            self._revoked[item_id] = entry
            return
        slot = entry["slot"]
        self._done[slot["id"]] = entry.get("status", "rejected")
        if entry.get("status") == "accepted":
            self._accepted[slot["grounding_id"]].append(entry["item"]["id"])
            self._item_ids.add(entry["item"]["id"])
        else:
            self._rejected[slot["grounding_id"]] += 1

    # -- writing ------------------------------------------------------------------------------
    def accept(self, slot: dict[str, Any], item: Item, **extra: Any) -> None:
        """Record an accepted item.

        Raises:
            ValueError: The slot is already finished or the item id is taken.
        """
        entry = {"slot": slot, "status": "accepted", "item": item.model_dump(mode="json"), **extra}
        with self._lock:
            if slot["id"] in self._done:
                raise ValueError(f"slot {slot['id']} is already finished")
            if item.id in self._item_ids:
                raise ValueError(f"item id {item.id} is already taken")
            self._write(entry)

    def reject(self, slot: dict[str, Any], reason: str, **extra: Any) -> None:
        """Record a discarded slot and the reason."""
        entry = {"slot": slot, "status": "rejected", "reason": reason, **extra}
        with self._lock:
            if slot["id"] in self._done:
                raise ValueError(f"slot {slot['id']} is already finished")
            self._write(entry)

    def revoke(self, item_id: str, reason: str, **extra: Any) -> None:
        """Take an accepted item out (a human reviewer rejected it); its slot counts as rejected.

        Raises:
            ValueError: No accepted item has that id, or it was revoked already.
        """
        with self._lock:
            if item_id in self._revoked:
                raise ValueError(f"item {item_id} was revoked already")
            gid = next((g for g, ids in self._accepted.items() if item_id in ids), None)
            if gid is None:
                raise ValueError(f"no accepted item {item_id} in the ledger")
            self._write({"revoke": item_id, "grounding_id": gid, "reason": reason, **extra})

    def revoked(self) -> dict[str, dict[str, Any]]:
        """Item id to the revoke entry of every item a reviewer took out."""
        with self._lock:
            return dict(self._revoked)

    def is_accepted(self, item_id: str) -> bool:
        """Whether ``item_id`` is an accepted item that was not revoked."""
        with self._lock:
            return item_id in self._item_ids and item_id not in self._revoked

    def _write(self, entry: dict[str, Any]) -> None:
        entry.setdefault("t", round(time.time(), 3))  # when it finished (a build's wall time)
        if self.path is not None:
            append_jsonl(self.path, entry)
        else:
            self._memory.append(entry)
        self._index(entry)

    # -- reading ------------------------------------------------------------------------------
    def is_done(self, slot_id: str) -> bool:
        """Whether a slot finished (accepted or rejected)."""
        with self._lock:
            return slot_id in self._done

    def done_ids(self) -> set[str]:
        """Ids of every finished slot."""
        with self._lock:
            return set(self._done)

    def accepted_count(self, grounding_id: str) -> int:
        """Accepted items of a grounding."""
        with self._lock:
            return len(self._accepted.get(grounding_id, ()))

    def rejected_count(self, grounding_id: str) -> int:
        """Rejected slots of a grounding."""
        with self._lock:
            return self._rejected.get(grounding_id, 0)

    def slots_used(self, grounding_id: str) -> int:
        """Finished slots of a grounding."""
        return self.accepted_count(grounding_id) + self.rejected_count(grounding_id)

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every finished slot's entry, in the order they finished, streamed from the file."""
        for _where, entry in self.located_entries():
            yield entry

    def located_entries(self) -> Iterator[tuple[tuple[int, int], dict[str, Any]]]:
        """``((offset, length), entry)`` of every finished slot; see :meth:`read_at`.

        In memory-only mode the "offset" is the entry's index.
        """
        if self.path is None:
            with self._lock:
                snapshot = list(self._memory)
            for index, entry in enumerate(snapshot):
                yield (index, 0), entry
            return
        if not self.path.exists():
            return
        offset = 0
        with open(self.path, "rb") as fh:
            for raw in fh:
                where = (offset, len(raw))
                offset += len(raw)
                if not raw.endswith(b"\n"):
                    break  # a line still being written
                try:
                    entry = parse_json(raw)
                except json.JSONDecodeError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("slot"), dict):
                    yield where, entry

    def read_at(self, where: tuple[int, int]) -> dict[str, Any]:
        """The entry at a place :meth:`located_entries` gave."""
        if self.path is None:
            with self._lock:
                return self._memory[where[0]]
        offset, length = where
        fd = os.open(self.path, os.O_RDONLY)
        try:
            return parse_json(os.pread(fd, length, offset))
        finally:
            os.close(fd)

    def accepted_items(self, *, revoked: bool = False) -> Iterator[Item]:
        """The accepted items (in the order they finished), without the revoked ones.

        Args:
            revoked: Also yield the items a reviewer took out.
        """
        out = set() if revoked else set(self.revoked())
        for entry in self.entries():
            if entry.get("status") == "accepted" and entry["item"]["id"] not in out:
                yield Item.model_validate(entry["item"])

    def __len__(self) -> int:
        """Number of finished slots."""
        with self._lock:
            return len(self._done)

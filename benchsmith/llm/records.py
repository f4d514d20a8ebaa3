"""Run records: every model request and response of a run, appended as JSONL.

The records are also the cache: a call whose key (model identity, messages, parameters)
is already recorded is served from them, so a resumed run never pays twice and a replayed
run (``--replay``) makes no network call at all.

Each line is one JSON object with a ``kind``:

* ``call`` - a completed request: ``key``, ``prompt_hash``, ``role``, ``model``, ``request``
  (messages and parameters), ``response`` (the reply message), ``usage``, ``cost_usd``,
  ``latency_s``, ``attempts``, ``ts``.
* ``error`` - a request that failed for good (not cached).
* ``structured_failure`` - a reply that was invalid, refused, truncated or empty, with its
  raw text.

Lines are written whole with one ``write`` on a file opened for appending; a line cut
short by a killed process is dropped when the records are next opened. The cache keeps
only where each call's line is in the file (not the record), so a build of thousands of
items does not hold every prompt and reply in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from benchsmith.files import append_jsonl, canonical_json, read_whole_lines, sha256_text

RECORDS_FILE = "llm_calls.jsonl"
__all__ = ["RECORDS_FILE", "RunRecords", "append_jsonl", "request_key"]


def request_key(model_identity: str, messages: list[dict], params: dict[str, Any]) -> str:
    """The cache key of one request."""
    return sha256_text(
        canonical_json({"model": model_identity, "messages": messages, "params": params})
    )


class RunRecords:
    """The append-only record of a run's model calls, and the cache built from it."""

    def __init__(self, run_dir: str | os.PathLike[str] | None = None) -> None:
        """Open (or start) the records of a run.

        Args:
            run_dir: The run folder; None keeps records in memory only.
        """
        self.path: Path | None = None
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        # key (see _compact) -> where its line is in the file (see _place), or the record
        # itself in memory-only mode. A build makes a few calls an item: the index is kept
        # small (about 100 bytes a call instead of 330 with a hex key and a tuple).
        self._calls: dict[bytes | str, int | dict] = {}
        self._memory: list[dict] = []
        self._size = 0
        self._loaded_size = 0
        if run_dir is not None:
            folder = Path(run_dir)
            folder.mkdir(parents=True, exist_ok=True)
            self.path = folder / RECORDS_FILE
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        if not self.path.exists():
            return
        data = read_whole_lines(self.path)  # a killed run's half line is dropped
        offset = 0
        for raw in data.splitlines(keepends=True):
            record = _parse(raw)
            if record is not None and record.get("kind") == "call" and "key" in record:
                self._calls[_compact(record["key"])] = _place(offset, len(raw))
            offset += len(raw)
        self._size = self._loaded_size = len(data)

    @property
    def loaded_records(self) -> list[dict]:
        """The records that were in the file when it was opened (all, in memory-only mode)."""
        if self.path is None:
            with self._lock:
                return list(self._memory)
        if not self._loaded_size:
            return []
        with open(self.path, "rb") as fh:
            data = fh.read(self._loaded_size)
        return [r for r in map(_parse, data.splitlines()) if r is not None]

    def lookup(self, key: str) -> dict | None:
        """The recorded call with this key, or None."""
        with self._lock:
            where = self._calls.get(_compact(key))
        if where is None or isinstance(where, dict):
            return where
        assert self.path is not None
        offset, length = where >> _LENGTH_BITS, where & _LENGTH_MASK
        fd = os.open(self.path, os.O_RDONLY)
        try:
            record = _parse(os.pread(fd, length, offset))
        finally:
            os.close(fd)
        # Another writer could have moved lines; never serve a record under the wrong key.
        return record if record is not None and record.get("key") == key else None

    def append(self, record: dict) -> None:
        """Append one record (and cache it when it is a completed call).

        Only the write itself is serialized: lookups never wait for another call's write.
        """
        is_call = record.get("kind") == "call" and "key" in record
        if self.path is None:
            with self._lock:
                self._memory.append(record)
                if is_call:
                    self._calls[_compact(record["key"])] = record
            return
        line = (canonical_json(record) + "\n").encode("utf-8")
        with self._write_lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            offset = self._size
            self._size += len(line)
        if is_call:
            with self._lock:
                self._calls[_compact(record["key"])] = _place(offset, len(line))

    def __len__(self) -> int:
        """Number of cached calls."""
        with self._lock:
            return len(self._calls)


_LENGTH_BITS = 32
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1


def _place(offset: int, length: int) -> int:
    """A line's offset and length in one int (a line is far shorter than 4 GiB)."""
    return offset << _LENGTH_BITS | length


def _compact(key: str) -> bytes | str:
    """A request key as the index holds it: a SHA-256 hex digest as its 32 bytes."""
    if len(key) == 64:
        with contextlib.suppress(ValueError):
            digest = bytes.fromhex(key)
            if digest.hex() == key:  # only what hexdigest writes maps to bytes
                return digest
    return key


def _parse(raw: bytes) -> dict | None:
    try:
        record = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None

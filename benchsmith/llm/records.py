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

Lines are written whole with one ``write`` on a file opened for appending and flushed to
disk; a line cut short by a killed process is dropped when the records are next opened.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

RECORDS_FILE = "llm_calls.jsonl"


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_text(text: str) -> str:
    """Hex SHA-256 of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_key(model_identity: str, messages: list[dict], params: dict[str, Any]) -> str:
    """The cache key of one request."""
    return sha256_text(
        canonical_json({"model": model_identity, "messages": messages, "params": params})
    )


def append_jsonl(path: str | os.PathLike[str], record: dict) -> None:
    """Append one record as one line, written whole with a single ``write`` and fsynced."""
    line = (canonical_json(record) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


class RunRecords:
    """The append-only record of a run's model calls, and the cache built from it."""

    def __init__(self, run_dir: str | os.PathLike[str] | None = None) -> None:
        """Open (or start) the records of a run.

        Args:
            run_dir: The run folder; None keeps records in memory only.
        """
        self.path: Path | None = None
        self._lock = threading.Lock()
        self._calls: dict[str, dict] = {}
        self.loaded_records: list[dict] = []
        if run_dir is not None:
            folder = Path(run_dir)
            folder.mkdir(parents=True, exist_ok=True)
            self.path = folder / RECORDS_FILE
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            # A killed run left half a line: drop it so the next append starts clean.
            with open(self.path, "r+b") as fh:
                fh.truncate(end)
            data = data[:end]
        for line in data.decode("utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict):
                continue
            self.loaded_records.append(record)
            if record.get("kind") == "call" and "key" in record:
                self._calls[record["key"]] = record

    def lookup(self, key: str) -> dict | None:
        """The recorded call with this key, or None."""
        with self._lock:
            return self._calls.get(key)

    def append(self, record: dict) -> None:
        """Append one record (and cache it when it is a completed call)."""
        with self._lock:
            if record.get("kind") == "call":
                self._calls[record["key"]] = record
            if self.path is None:
                self.loaded_records.append(record)
                return
            append_jsonl(self.path, record)

    def __len__(self) -> int:
        """Number of cached calls."""
        with self._lock:
            return len(self._calls)

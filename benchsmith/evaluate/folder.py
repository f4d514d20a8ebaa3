"""The evaluation commands' view of a benchmark folder: its items, and their error type.

The folder's file names and readers are :mod:`benchsmith.layout`'s; this module only gives
its item reader the error that ``eval``, ``judge``, ``calibrate`` and ``perturb`` raise.
"""

from __future__ import annotations

from pathlib import Path

from benchsmith.errors import BenchsmithError
from benchsmith.item import Item
from benchsmith.layout import FolderError, read_items


class EvaluationError(BenchsmithError):
    """A benchmark folder cannot be evaluated (missing or unreadable items, bad model list)."""

    exit_code = 2


def load_items(bench_dir: str | Path) -> list[Item]:
    """The items of ``BENCH/data/test.jsonl`` (:func:`benchsmith.layout.read_items`).

    Args:
        bench_dir: The benchmark folder.

    Returns:
        The items in file order.

    Raises:
        EvaluationError: The file is missing, a line is not an item, or an id repeats; the
            message names the file and line.
    """
    try:
        return read_items(bench_dir)
    except FolderError as exc:
        raise EvaluationError(str(exc)) from exc

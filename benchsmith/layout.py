"""The benchmark folder's layout: every file name in it, and the one reader or writer of each.

A benchmark folder (ARCHITECTURE.md, "Output folder") holds ``spec.json``, ``data/test.jsonl``,
``media/``, ``report.json`` and ``report.md``, ``rejects.jsonl``, and after the later commands
``review.jsonl``, ``eval.json``, ``calibration.json``, ``perturb.json`` and ``report.html``.
The names live here and nowhere else, and so do the readers and writers that more than one
command needs: the build, packaging, ``eval``, ``review``, ``calibrate`` and ``perturb`` all
go through them.

This module is a leaf: it imports only the item and spec models and the file helpers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchsmith.errors import BenchsmithError, describe_validation_error
from benchsmith.files import atomic_write, parse_json
from benchsmith.item import Item
from benchsmith.spec import BenchmarkSpec

SPEC_FILE = "spec.json"
DATA_FILE = Path("data") / "test.jsonl"
MEDIA_DIR = "media"
REPORT_FILE = "report.json"
REPORT_MD = "report.md"
CARD_FILE = "README.md"
REJECTS_FILE = "rejects.jsonl"
REVIEW_FILE = "review.jsonl"
EVAL_FILE = "eval.json"
CALIBRATION_FILE = "calibration.json"
PERTURB_FILE = "perturb.json"
SAMPLES_FILE = "eval_samples.jsonl"
JUDGE_FILE = "judge.json"
HTML_REPORT = "report.html"
EVAL_RUNS_DIR = "eval_runs"
"""Default folder (inside the benchmark) for the run records of ``eval`` and ``judge``."""
RUN_DIR = ".run"
"""The build's working folder: its journal, settings and catalog, kept for ``--resume``."""
RUN_CATALOG = "catalog"
"""The catalog of a run's own ``--dataset`` and ``--reference`` sources, in its run folder."""


class FolderError(BenchsmithError):
    """A benchmark folder cannot be read (missing or unreadable items, an id that repeats)."""

    exit_code = 2


def spec_path(folder: str | Path) -> Path:
    """Where the folder's plan is."""
    return Path(folder) / SPEC_FILE


def data_path(folder: str | Path) -> Path:
    """Where the folder's items are."""
    return Path(folder) / DATA_FILE


def media_dir(folder: str | Path) -> Path:
    """Where the folder's images and audio are."""
    return Path(folder) / MEDIA_DIR


def report_path(folder: str | Path) -> Path:
    """Where the folder's machine-readable report is."""
    return Path(folder) / REPORT_FILE


def write_spec(folder: str | Path, spec: BenchmarkSpec) -> Path:
    """Write the plan as ``spec.json`` (indented, UTF-8 kept as it is), atomically."""
    text = json.dumps(spec.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    return atomic_write(spec_path(folder), text)


def read_spec(folder: str | Path) -> BenchmarkSpec | None:
    """The folder's plan, or None when ``spec.json`` is missing or not a plan."""
    path = spec_path(folder)
    if not path.is_file():
        return None
    try:
        return BenchmarkSpec.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError):
        return None


def json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of the JSON-lines file ``path``.

    Lines are parsed with :func:`benchsmith.files.parse_json` (``json.loads``'s result).
    The caller checks that the file exists, with a message that fits its command.

    Raises:
        FolderError: A line is not JSON; the message names the file and the line.
    """
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield number, parse_json(line)
            except json.JSONDecodeError as exc:
                raise FolderError(f"{path}:{number}: not a JSON line ({exc})") from exc


def item_lines(folder: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of ``data/test.jsonl``.

    Raises:
        FolderError: The file is missing, or a line is not a JSON object; the message names
            the file and the line.
    """
    path = data_path(folder)
    if not path.is_file():
        raise FolderError(f"{path} does not exist; is {folder} a benchmark folder?")
    for number, data in json_lines(path):
        if not isinstance(data, dict):
            raise FolderError(f"{path}:{number}: not an item (a JSON object is expected)")
        yield number, data


def line_item(path: Path, number: int, data: Any, *, detail_limit: int = 3) -> Item:
    """The item that line ``number`` of ``path`` holds (a value from :func:`json_lines`).

    Raises:
        FolderError: The value is not a valid item; the message names the file, the line
            and up to ``detail_limit`` of the validation errors.
    """
    try:
        return Item.model_validate(data)
    except ValidationError as exc:
        detail = describe_validation_error(exc, limit=detail_limit)
        raise FolderError(f"{path}:{number}: not an item ({detail})") from exc


def read_items(folder: str | Path) -> list[Item]:
    """The items of ``data/test.jsonl`` in file order.

    Raises:
        FolderError: The file is missing or empty, a line is not an item, or an id repeats;
            the message names the file and line.
    """
    path = data_path(folder)
    items: list[Item] = []
    seen: set[str] = set()
    for number, data in item_lines(folder):
        item = line_item(path, number, data, detail_limit=2)
        if item.id in seen:
            raise FolderError(f"{path}:{number}: item id {item.id!r} repeats")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise FolderError(f"{path} holds no items")
    return items


def read_json(path: str | Path) -> dict | None:
    """A JSON object file, or None when it is missing or not an object."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def read_report(folder: str | Path) -> dict | None:
    """The folder's ``report.json`` as a dict, or None when it is missing or unreadable."""
    return read_json(report_path(folder))

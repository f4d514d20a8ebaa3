"""Reading a benchmark folder for evaluation: its items, its spec, where results go."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from benchsmith.errors import BenchsmithError, describe_validation_error
from benchsmith.item import Item
from benchsmith.spec import BenchmarkSpec

DATA_FILE = Path("data") / "test.jsonl"
EVAL_FILE = "eval.json"
CALIBRATION_FILE = "calibration.json"
SAMPLES_FILE = "eval_samples.jsonl"
JUDGE_FILE = "judge.json"
REPORT_FILE = "report.html"
RUN_DIR = "eval_runs"
"""Default folder (inside the benchmark) for the run records of ``eval`` and ``judge``."""


class EvaluationError(BenchsmithError):
    """A benchmark folder cannot be evaluated (missing or unreadable items, bad model list)."""

    exit_code = 2


def load_items(bench_dir: str | Path) -> list[Item]:
    """The items of ``BENCH/data/test.jsonl``.

    Args:
        bench_dir: The benchmark folder.

    Returns:
        The items in file order.

    Raises:
        EvaluationError: The file is missing, a line is not an item, or an id repeats; the
            message names the file and line.
    """
    path = Path(bench_dir) / DATA_FILE
    if not path.is_file():
        raise EvaluationError(f"{path} does not exist; is {bench_dir} a benchmark folder?")
    items: list[Item] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = Item.model_validate(json.loads(line))
            except json.JSONDecodeError as exc:
                raise EvaluationError(f"{path}:{number}: not a JSON line ({exc})") from exc
            except ValidationError as exc:
                detail = describe_validation_error(exc, limit=2)
                raise EvaluationError(f"{path}:{number}: not an item ({detail})") from exc
            if item.id in seen:
                raise EvaluationError(f"{path}:{number}: item id {item.id!r} repeats")
            seen.add(item.id)
            items.append(item)
    if not items:
        raise EvaluationError(f"{path} holds no items")
    return items


def load_spec(bench_dir: str | Path) -> BenchmarkSpec | None:
    """The folder's ``spec.json``, or None when it is missing or unreadable."""
    path = Path(bench_dir) / "spec.json"
    if not path.is_file():
        return None
    try:
        return BenchmarkSpec.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError):
        return None


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

"""The review journal: every human decision on an item, appended to ``BENCH/review.jsonl``.

One decision a line (``id``, ``reviewer``, ``decision`` accept / reject / edit, ``reason``,
``note``, ``edit``, ``time``), each written whole with one ``write`` and fsynced before the
page is told it was saved, so killing the review server loses nothing that was answered. A
line cut short by a kill is dropped when the journal is opened. The latest decision of a
reviewer on an item is the one that counts; earlier ones stay in the file as history.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchsmith.errors import BenchsmithError, describe_validation_error
from benchsmith.files import append_jsonl, read_whole_lines
from benchsmith.layout import REVIEW_FILE

DecisionKind = Literal["accept", "reject", "edit"]
RejectReason = Literal[
    "wrong_target", "not_answerable", "ambiguous", "off_intent", "bad_media", "language", "other"
]
REJECT_REASONS: dict[str, str] = {
    "wrong_target": "wrong target",
    "not_answerable": "not answerable",
    "ambiguous": "ambiguous",
    "off_intent": "off intent",
    "bad_media": "bad media",
    "language": "language",
    "other": "other",
}
"""Each rejection reason and how the page and the report name it."""


class ReviewError(BenchsmithError):
    """A review decision or a review folder cannot be used as given."""

    exit_code = 2


class ItemEdit(BaseModel):
    """What a reviewer changed in an item (unset fields stay as they were)."""

    model_config = ConfigDict(extra="forbid")

    question: str | None = Field(default=None, min_length=1, max_length=4000)
    choices: list[str] | None = Field(default=None, min_length=2, max_length=26)
    target: str | None = Field(default=None, min_length=1, max_length=1000)


class ReviewDecision(BaseModel):
    """One reviewer's decision on one item."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    reviewer: str = Field(min_length=1, max_length=80)
    decision: DecisionKind
    reason: RejectReason | None = None
    note: str = Field(default="", max_length=2000)
    edit: ItemEdit | None = None
    time: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))

    @model_validator(mode="after")
    def _consistent(self) -> ReviewDecision:
        if self.decision == "reject" and self.reason is None:
            raise ValueError("a rejection needs a reason")
        if self.decision != "reject" and self.reason is not None:
            raise ValueError(f"only a rejection takes a reason, not {self.decision!r}")
        if self.decision == "edit" and (self.edit is None or not self.edit.model_fields_set):
            raise ValueError("an edit needs the changed question, choices or target")
        if self.decision != "edit" and self.edit is not None:
            raise ValueError(f"only an edit carries changes, not {self.decision!r}")
        if self.reason == "other" and not self.note.strip():
            raise ValueError("the reason 'other' needs a note saying what is wrong")
        return self

    @property
    def accepted(self) -> bool:
        """Whether the item stays in the benchmark (accepted as it is, or edited)."""
        return self.decision != "reject"


def parse_decision(data: object) -> ReviewDecision:
    """A decision from its JSON form.

    Raises:
        ReviewError: The data is not a valid decision; the message says which field.
    """
    try:
        return ReviewDecision.model_validate(data)
    except ValidationError as exc:
        raise ReviewError(f"not a review decision: {describe_validation_error(exc)}") from exc


class ReviewJournal:
    """The review decisions of one benchmark folder, read once and appended as they come."""

    def __init__(self, bench_dir: str | os.PathLike[str]) -> None:
        """Open ``BENCH/review.jsonl`` (created on the first decision), cutting a torn line.

        Raises:
            ReviewError: A whole line of the file is not a decision (the file and line are
                named; the file is left as it is).
        """
        self.path = Path(bench_dir) / REVIEW_FILE
        self._lock = threading.Lock()
        self._decisions: list[ReviewDecision] = []
        if not self.path.is_file():
            return
        raw = read_whole_lines(self.path)  # a torn last line was never acknowledged
        for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                self._decisions.append(ReviewDecision.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise ReviewError(
                    f"{self.path}:{number}: not a review decision ({exc.__class__.__name__}); "
                    "fix or remove that line"
                ) from exc

    def append(self, decision: ReviewDecision) -> None:
        """Write ``decision`` (fsynced) and keep it; it is the reviewer's latest on its item."""
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_jsonl(self.path, decision.model_dump(mode="json"), fsync=True)
            self._decisions.append(decision)

    def decisions(self) -> list[ReviewDecision]:
        """Every decision, oldest first."""
        with self._lock:
            return list(self._decisions)

    def latest(self, reviewer: str | None = None) -> dict[str, ReviewDecision]:
        """Item id to the latest decision on it (of ``reviewer``, or of anyone)."""
        out: dict[str, ReviewDecision] = {}
        for decision in self.decisions():
            if reviewer is None or decision.reviewer == reviewer:
                out[decision.id] = decision
        return out

    def reviewers(self) -> list[str]:
        """Everyone who decided on an item, in the order they first did."""
        return list(dict.fromkeys(d.reviewer for d in self.decisions()))

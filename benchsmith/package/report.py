"""The build report (``report.json``) as a typed model.

:func:`benchsmith.package.writer.write_package` builds a :class:`BuildReport` and writes
:meth:`BuildReport.dump`: the fields in their declared order, so the file's keys come in
the order they always had, and ``human_review`` and ``difficulty_mix`` only when the build
has them. The sections whose shape another module owns (the model calls, the human review,
the computed problems, the difficulty mix) stay plain JSON objects here.

Later commands add their own top-level sections to the file (``calibration``,
``separability``, ``calibrated_build``, ``contamination``; see
:func:`benchsmith.package.calibration.add_to_report`), each appended where it first
lands. The model keeps them as extra fields, in the order they came in, so a report read
back and dumped again keeps them where they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchsmith.files import write_json
from benchsmith.layout import read_report, report_path


class _Section(BaseModel):
    """A section of fixed shape: a key it does not know is an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


class QuotaRow(_Section):
    """One grounding's quota, its target after reallocation, and what became of its slots."""

    subtask_id: str
    grounding_id: str
    dataset_id: str
    quota: int
    target: int
    accepted: int
    rejected: int


class CheckRow(_Section):
    """A check that did not run (or was not enforced), why, and on how many items."""

    check: str
    why: str
    items: int


class CheckSummary(_Section):
    """Which checks ran behind the acceptance (:meth:`~.checks.CheckTally.summary`)."""

    ran: list[str]
    not_run: list[CheckRow]
    not_enforced: list[CheckRow]
    items: int


class Acceptance(_Section):
    """Acceptance by the enforced checks: what passed over every candidate realized."""

    enforced_checks: float
    accepted: int
    candidates: int
    slots_skipped: int
    checks: CheckSummary
    note: str


class Wording(_Section):
    """How the accepted items were worded: from the template, by the model, or computed."""

    template: int
    model: int
    computed: int
    template_share: float


class CheckNotRun(_Section):
    """A check that could not run on some accepted items, and its causes."""

    items: int
    why: str


class JudgeSummary(_Section):
    """What the LLM judge did over the accepted items."""

    runs: int
    enforced: int
    no: dict[str, int]
    note: str


class InspectTaskInfo(_Section):
    """The Inspect AI task file and the items it runs."""

    file: str
    items: int


class LmEvalTaskInfo(_Section):
    """The lm-evaluation-harness task (the text-only items), or why there is none."""

    task: str | None
    yaml: str | None
    items: int
    skipped: dict[str, int]
    note: str


class HfDatasetInfo(_Section):
    """The Hugging Face dataset card and the file of each config."""

    card: str
    configs: dict[str, str]
    items: int
    images: int
    audio: int


class Exports(_Section):
    """What each export covers (:func:`benchsmith.package.writer.write_exports`)."""

    inspect: InspectTaskInfo
    lm_eval: LmEvalTaskInfo
    hf_datasets: HfDatasetInfo


class BuildReport(BaseModel):
    """``report.json``: how a build went, written by the packaging step.

    Extra fields are the sections later commands add (see the module docstring).
    """

    model_config = ConfigDict(extra="allow")

    intent: str
    size: int
    status: str
    items: int
    rejected: int
    acceptance_rate: float
    items_per_subtask: dict[str, int]
    items_per_modality: dict[str, int]
    quotas: list[QuotaRow]
    shortfalls: list[dict[str, Any]]
    rejection_reasons: dict[str, int]
    tail_backups: dict[str, int]
    acceptance: Acceptance
    wording: Wording
    checks_not_run: dict[str, CheckNotRun]
    judge: JudgeSummary
    read_these: list[dict[str, Any]] = Field(
        description="A few accepted items as a reviewer sees them (writer.reviewer_view)."
    )
    notes: list[str]
    llm: dict[str, Any] = Field(description="Model calls, tokens and cost (the usage ledger).")
    models: dict[str, str]
    seed: int
    wall_time_s: float
    media_files: int
    stale_media_removed: int
    exports: Exports
    computed: list[dict[str, Any]] = Field(
        description="What each solution-graph grounding generated (writer.computed_summaries)."
    )
    ledger_fingerprint: str
    human_review: dict[str, Any] | None = Field(
        default=None,
        description="Human acceptance of the reviewed items (review.summary.human_summary).",
    )
    difficulty_mix: dict[str, Any] | None = Field(
        default=None,
        description="The difficulty mix requested and achieved (difficulty_mix.mix_report).",
    )

    def dump(self) -> dict[str, Any]:
        """The report as ``report.json`` holds it: the optional sections only when present.

        Python mode, not JSON mode: the free-form sections keep their values exactly as
        the build made them (JSON mode would turn a NaN into null where ``json.dumps``
        writes ``NaN``), so the file is byte for byte what it always was.
        """
        return self.model_dump(exclude={k for k in _OPTIONAL if getattr(self, k) is None})


_OPTIONAL = ("human_review", "difficulty_mix")
"""The sections a build has only in some cases: left out of the file when it has none."""


def write_report(folder: str | Path, report: dict[str, Any]) -> Path:
    """Write ``report.json`` (indented, UTF-8 kept as it is), atomically."""
    return write_json(report_path(folder), report)


def read_build_report(folder: str | Path) -> BuildReport | None:
    """The folder's build report, or None when it is missing or not one this version writes."""
    data = read_report(folder)
    if data is None:
        return None
    try:
        return BuildReport.model_validate(data)
    except ValidationError:
        return None

"""Which verification checks decided a benchmark's acceptance, and which did not run.

The acceptance rate is only as good as the checks behind it: 100 % of candidates passing
means little when the judge, the ASR round-trip and the OCR read-back never ran. A
:class:`CheckTally` counts, over every candidate of a build (each accepted item's
``metadata.verification`` verdicts, and the check each rejected candidate failed), which
checks ran, which were skipped, and which could not run and why. Its
:meth:`CheckTally.summary` groups them into the stages a reader knows (:data:`STAGES`) and
says, for each stage that did not run, why: the judge from the build's judge note, the
ASR and OCR checks from their "unavailable" verdicts or the absence of any spoken or
rendered question. The card's acceptance line and the report are written from it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

UNAVAILABLE = "unavailable: "
"""Prefix of a verdict's reason when its check could not run (see
:data:`benchsmith.verify.reviewer.UNAVAILABLE`)."""

_SKIPPED = ("skipped", "not applicable")
_MEASURED = re.compile(r": (?:wer|cer|heard) ")
_UNREACHED = "no candidate reached it"


@dataclass(frozen=True)
class Stage:
    """A verification stage as the card names it, and the check names it covers."""

    key: str
    label: str
    checks: tuple[str, ...]
    optional: bool = False
    """Named in "not run" when none of its checks ran (the judge, ASR, OCR...)."""
    absent: str = ""
    """Why an optional stage did not run when nothing says otherwise."""


STAGES: tuple[Stage, ...] = (
    Stage(
        "structural",
        "structural",
        (
            "schema",
            "media",
            "answer_in_choices",
            "postconditions",
            "no_leak",
            "language",
            "verbatim_source",
        ),
    ),
    Stage("injection", "injection screen", ("injection",)),
    Stage("wording", "wording review", ("entity", "language_id", "meta_text", "sentence")),
    Stage(
        "recompute",
        "answer recompute",
        ("solution_graph", "program", "target"),
        optional=True,
        absent="no item's answer could be recomputed",
    ),
    Stage(
        "judge",
        "LLM judge",
        ("judge",),
        optional=True,
        absent="no judge model configured",
    ),
    Stage(
        "asr",
        "ASR round-trip",
        ("asr",),
        optional=True,
        absent="no spoken question",
    ),
    Stage(
        "ocr",
        "OCR read-back",
        ("ocr",),
        optional=True,
        absent="no question rendered into an image",
    ),
    Stage("duplicates", "duplicates", ("duplicate",), optional=True, absent=_UNREACHED),
)
"""The stages of :func:`benchsmith.agents.verification.verify`, in its order."""

_CHECK_LABELS = {
    "language_id": "language identification",
    "no_leak": "answer leak",
    "language": "script",
    "verbatim_source": "verbatim copy",
    "answer_in_choices": "answer among the choices",
}
_STAGE_OF = {check: stage for stage in STAGES for check in stage.checks}


def check_label(check: str) -> str:
    """A check's name for a reader (``language_id`` -> ``language identification``)."""
    stage = _STAGE_OF.get(check)
    if stage is not None and len(stage.checks) == 1:
        return stage.label
    return _CHECK_LABELS.get(check, check.replace("_", " "))


@dataclass
class CheckTally:
    """What the checks did over a build's candidates (accepted and rejected)."""

    ran: Counter[str] = field(default_factory=Counter)
    unavailable: Counter[str] = field(default_factory=Counter)
    why: dict[str, Counter[str]] = field(default_factory=dict)
    judge_advisory: int = 0
    items: int = 0
    """Accepted items counted (the verdicts of a rejected candidate are not kept)."""

    def add_item(self, metadata: Mapping[str, Any]) -> None:
        """Count the verdicts recorded on one accepted item (and its failed attempts)."""
        self.items += 1
        verification = metadata.get("verification") or {}
        if not isinstance(verification, Mapping):
            return
        for verdict in verification.get("structural") or []:
            if not isinstance(verdict, Mapping):
                continue
            check = str(verdict.get("check") or "")
            reason = str(verdict.get("reason") or "")
            if verdict.get("ok") and reason.startswith(UNAVAILABLE):
                self.unavailable[check] += 1
                # The cause without the item's own measurement ("...: wer 0.83 ...").
                cause = _MEASURED.split(reason[len(UNAVAILABLE) :])[0]
                self.why.setdefault(check, Counter())[cause[:120]] += 1
            elif not (verdict.get("ok") and reason.startswith(_SKIPPED)):
                self.ran[check] += 1
        judged = verification.get("judge")
        if isinstance(judged, Mapping):
            if judged.get("enforced", True):
                self.ran["judge"] += 1
            else:
                self.judge_advisory += 1
        if isinstance(verification.get("duplicate"), Mapping):
            self.ran["duplicate"] += 1
        # Items built before local fixes were retired may carry the checks their fixes failed.
        self.add_failures(metadata.get("fix_history") or [])

    def add_rejected(self, check: str | None, history: Iterable[Any] = ()) -> None:
        """Count a rejected candidate: the check it failed, and those its history names."""
        self.add_failures([{"check": check}, *history])

    def add_failures(self, history: Iterable[Any]) -> None:
        """Count the checks failed attempts name (a failure means the check ran)."""
        for attempt in history:
            check = attempt.get("check") if isinstance(attempt, Mapping) else None
            if check in _STAGE_OF:
                self.ran[str(check)] += 1

    def summary(self, judge_note: str = "") -> dict[str, Any]:
        """The stages that ran, those that did not (with why), and partial ones.

        Args:
            judge_note: How the build ran its judge (see
                :func:`benchsmith.agents.packaging.judge_note`); ``""`` when unknown.

        Returns:
            ``ran`` (stage labels), ``not_run`` (``{"check", "why", "items"}`` each: a
            stage that never ran, or a check that could not run on ``items`` of the
            accepted items), ``not_enforced`` (the same, for checks whose verdicts were
            only recorded) and ``items`` (the accepted items the counts are of).
        """
        ran: list[str] = []
        not_run: list[dict[str, Any]] = []
        not_enforced: list[dict[str, Any]] = []
        for stage in STAGES:
            did = any(self.ran[c] for c in stage.checks)
            if did:
                ran.append(stage.label)
            if stage.key == "judge" and self.judge_advisory:
                not_enforced.append(
                    {
                        "check": stage.label,
                        "why": "advisory: its verdicts were recorded, not enforced",
                        "items": self.judge_advisory,
                    }
                )
                continue
            for check in stage.checks:
                if not self.unavailable[check]:
                    continue
                causes = self.why.get(check, Counter())
                entry = {
                    "check": check_label(check),
                    "why": "; ".join(cause for cause, _ in causes.most_common(3)),
                    "items": self.unavailable[check],
                }
                if any("not enforced" in cause for cause in causes):
                    not_enforced.append(entry)
                else:
                    not_run.append(entry)
            if did or not stage.optional or any(self.unavailable[c] for c in stage.checks):
                continue
            why = stage.absent
            if stage.key == "judge":
                why = judge_reason(judge_note) or why
            not_run.append({"check": stage.label, "why": why, "items": 0})
        return {"ran": ran, "not_run": not_run, "not_enforced": not_enforced, "items": self.items}


def judge_reason(note: str) -> str:
    """Why the judge did not run, in a few words, from the build's judge note."""
    note = " ".join(str(note or "").split())
    if not note:
        return ""
    if note.startswith("off"):
        return "turned off with --judge off"
    if note.startswith("skipped: "):
        return note[len("skipped: ") :].split(";")[0]
    return _UNREACHED


def describe(summary: Mapping[str, Any] | None) -> str:
    """The checks of a :meth:`CheckTally.summary` in one clause, for the card and report.

    ``passed the checks that ran (structural, ...); not run: LLM judge (why), ...``; a check
    that could not run on some of the items only says on how many.
    """
    if not summary:
        return "passed verification (which checks ran was not recorded)"
    ran = ", ".join(summary.get("ran") or []) or "none"
    n_items = summary.get("items") or 0
    text = f"passed the checks that ran ({ran})"

    def entries(rows: Iterable[Mapping[str, Any]]) -> str:
        out = []
        for row in rows:
            count = ""
            if row.get("items") and row["items"] < n_items:
                count = f" on {row['items']} of {n_items} items"
            why = f" ({row['why']})" if row.get("why") else ""
            out.append(f"{row['check']}{count}{why}")
        return ", ".join(out)

    if summary.get("not_run"):
        text += f"; not run: {entries(summary['not_run'])}"
    if summary.get("not_enforced"):
        text += f"; recorded but not enforced: {entries(summary['not_enforced'])}"
    return text

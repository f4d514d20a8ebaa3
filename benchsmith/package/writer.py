"""The benchmark folder writer.

From the build ledger it writes, each file atomically (a temporary file, then
``os.replace``): ``data/test.jsonl`` (accepted items in id order), ``rejects.jsonl``,
``spec.json``, ``report.json`` (a :class:`~benchsmith.package.report.BuildReport`) and
``report.md``, the Hugging Face dataset card ``README.md`` with its Parquet split
(``data/hf/test-DIGEST.parquet``, media embedded, and the Inspect-style
``data/inspect/test-DIGEST.parquet``), the Inspect AI task file and the lm-evaluation-harness
task. Media files no accepted item refers to (left by a killed attempt) are removed from
``media/``.
Writing the same ledger again produces the same files, and a finished build whose ledger
has not changed is left untouched.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.files import atomic_lines, atomic_write, canonical_json, json_line, sha256_text
from benchsmith.item import Item
from benchsmith.layout import (
    CARD_FILE,
    REJECTS_FILE,
    REPORT_MD,
    REVIEW_FILE,
    RUN_DIR,
    data_path,
    media_dir,
    write_spec,
)
from benchsmith.ledger import Ledger
from benchsmith.package.calibration import card_section, reapply_to_items
from benchsmith.package.card import ItemCounts, card_stats, render_card
from benchsmith.package.checks import CheckTally, describe
from benchsmith.package.hf_export import read_records, remove_stale, write_hf_split
from benchsmith.package.inspect_export import write_inspect_task
from benchsmith.package.lmeval_export import TextOnlyCount, write_lmeval_task
from benchsmith.package.portable import portable_files, portable_metadata, scrub_value
from benchsmith.package.report import (
    Acceptance,
    BuildReport,
    CheckNotRun,
    CheckSummary,
    Exports,
    JudgeSummary,
    QuotaRow,
    Wording,
    read_build_report,
    write_report,
)
from benchsmith.review.items import apply_edit
from benchsmith.review.journal import REJECT_REASONS, ReviewJournal
from benchsmith.review.summary import human_summary
from benchsmith.spec import BenchmarkSpec


def ledger_fingerprint(ledger: Ledger, review: HumanReview | None = None) -> str:
    """What the package was made from: the finished slots, and the human review if any."""
    done = sorted(ledger.done_ids())
    if review is None or not (review.decisions or ledger.revoked()):
        return sha256_text(canonical_json(done))
    return sha256_text(
        canonical_json({"slots": done, "revoked": sorted(ledger.revoked()), **review.key()})
    )


@dataclass
class HumanReview:
    """The human review of a folder (``review.jsonl``) as the package applies it."""

    decisions: dict[str, Any] = field(default_factory=dict)  # item id -> latest decision
    journal: Any = None

    @classmethod
    def read(cls, bench_dir: Path) -> HumanReview:
        """The latest decision on each item of ``bench_dir`` (none without a journal)."""
        if not (Path(bench_dir) / REVIEW_FILE).is_file():
            return cls()
        journal = ReviewJournal(bench_dir)
        return cls(decisions=journal.latest(), journal=journal)

    def key(self) -> dict[str, Any]:
        """What of the review changes the package: each item's latest decision."""
        return {
            "review": {
                i: [d.decision, d.edit.model_dump(mode="json") if d.edit else None]
                for i, d in sorted(self.decisions.items())
            }
        }

    def apply(self, item: Any) -> Any:
        """``item`` with its reviewer's edit applied and the decision noted in its metadata."""
        decision = self.decisions.get(item.id)
        if decision is None or not decision.accepted:
            return item
        if decision.edit is not None:
            item = apply_edit(item, decision.edit)
        item.metadata["review"] = {
            "decision": decision.decision,
            "reviewer": decision.reviewer,
            "time": decision.time,
        }
        return item


@dataclass
class DataStats:
    """What :func:`write_data` counted while it read the accepted items."""

    counts: ItemCounts = field(default_factory=ItemCounts)
    """The items written, counted as the card counts them (so report and card agree)."""
    media: set[str] = field(default_factory=set)
    wording: Counter[str] = field(default_factory=Counter)
    unavailable: Counter[str] = field(default_factory=Counter)
    unavailable_why: dict[str, Counter[str]] = field(default_factory=dict)
    judge_runs: int = 0
    judge_enforced: int = 0
    judge_no: Counter[str] = field(default_factory=Counter)
    ledger_times: list[float] = field(default_factory=list)
    computed_items: dict[str, list[Any]] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)
    reviewed_pool: list[Any] = field(default_factory=list)  # accepted ones, revoked included
    checks: CheckTally = field(default_factory=CheckTally)
    # What rejects.jsonl lists (slot id, place in the ledger) and why, counted on the way.
    rejected: list[tuple[str, tuple[int, int]]] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)


def write_data(bench_dir: Path, ledger: Ledger, review: HumanReview | None = None) -> DataStats:
    """Write ``data/test.jsonl`` from the accepted items, in id order, counting them.

    Items a reviewer took out (revoked in the ledger) are left out; edits from the review
    are applied. The files an item cites (its reference document, its formulas' sources)
    are recorded by name, never by the absolute path they had on the building machine
    (see :func:`benchsmith.package.portable.portable_metadata`).

    Streams: only the ids and where each entry is in the ledger are held in memory. The
    same pass notes the discarded slots for :func:`write_rejects`.

    Returns:
        Item counts (per subtask, per modality combination), the media paths the items use,
        the rejected slots and their reasons.
    """
    review = review or HumanReview()
    revoked = ledger.revoked()
    accepted: list[tuple[str, tuple[int, int]]] = []
    stats = DataStats()
    for where, entry in ledger.located_entries():
        if isinstance(entry.get("t"), int | float):
            stats.ledger_times.append(float(entry["t"]))
        if entry["status"] == "rejected" or entry["item"]["id"] in revoked:
            stats.reasons[_reject_reason(entry, revoked)] += 1
            stats.rejected.append((entry["slot"]["id"], where))
        if entry["status"] == "rejected":
            stats.checks.add_rejected(entry.get("check"), entry.get("history") or [])
        if entry["status"] != "accepted":
            continue
        item = _portable(Item.model_validate(entry["item"]), bench_dir)
        stats.checks.add_item(item.metadata)  # revoked ones too: the checks passed them
        if review.journal is not None:  # only what human acceptance counts (id, subtask)
            stats.reviewed_pool.append(
                Item(
                    id=item.id,
                    input="",
                    target="",
                    metadata={"subtask": item.metadata.get("subtask")},
                )
            )
        if item.id in revoked:
            continue
        item = review.apply(item)
        accepted.append((item.id, where))
        meta = item.metadata
        stats.counts.add(item)
        stats.media.update(path for _kind, path in item.media_paths())
        stats.wording[str(meta.get("wording") or "computed")] += 1
        source = meta.get("source") or {}
        if source.get("strategy") == "solution_graph":
            # Only what the coverage recount reads (concepts, steps).
            stats.computed_items.setdefault(str(source.get("grounding")), []).append(
                Item(
                    id=item.id,
                    input="",
                    target=item.target,
                    metadata={
                        "concepts": meta.get("concepts"),
                        "steps": meta.get("steps"),
                        "difficulty": meta.get("difficulty"),
                    },
                )
            )
        verification = meta.get("verification") or {}
        for verdict in verification.get("structural") or []:
            reason = str(verdict.get("reason") or "")
            if verdict.get("ok") and reason.startswith("unavailable: "):
                check = str(verdict.get("check"))
                stats.unavailable[check] += 1
                # The cause without the item's own measurement ("...: wer 0.83 ...").
                cause = re.split(r": (?:wer|cer|heard) ", reason[len("unavailable: ") :])[0]
                stats.unavailable_why.setdefault(check, Counter())[cause[:120]] += 1
        judged = verification.get("judge")
        if isinstance(judged, dict):
            stats.judge_runs += 1
            stats.judge_enforced += bool(judged.get("enforced"))
            for key in ("answerable", "single_answer", "relevant", "clear"):
                if judged.get(key) == "no":
                    stats.judge_no[key] += 1
    accepted.sort()
    stats.samples = [
        reviewer_view(review.apply(_portable(ledger.read_at(where)["item"], bench_dir)))
        for _id, where in _spread(accepted, 5)
    ]
    with atomic_lines(data_path(bench_dir)) as out:
        for _item_id, where in accepted:
            item = review.apply(_portable(ledger.read_at(where)["item"], bench_dir))
            out.write(json_line(item.model_dump(mode="json")) + "\n")
    return stats


def _portable(item: Any, bench_dir: Path) -> Any:
    """An item (or its JSON) with the files its metadata cites recorded portably."""
    if not isinstance(item, Item):
        item = Item.model_validate(item)
    item.metadata = portable_metadata(item.metadata, bench_dir)
    return item


def _spread(rows: list[Any], n: int) -> list[Any]:
    """``n`` rows spread evenly over ``rows`` (all of them when there are fewer)."""
    if len(rows) <= n:
        return list(rows)
    step = len(rows) / n
    return [rows[int(i * step)] for i in range(n)]


def reviewer_view(item: Any) -> dict[str, Any]:
    """An item as a reviewer sees it: shown and spoken text, media, choices, target."""
    meta = item.metadata
    view: dict[str, Any] = {"id": item.id, "language": meta.get("language") or "en"}
    view["shown"] = item.input_text()
    if meta.get("spoken_text"):
        view["spoken"] = meta["spoken_text"]
    elif meta.get("question") and meta.get("question") != view["shown"]:
        view["question"] = meta["question"]
    media = [f"{kind}: {path}" for kind, path in item.media_paths()]
    if media:
        view["media"] = media
    if item.choices:
        view["choices"] = [f"{chr(65 + i)}) {c}" for i, c in enumerate(item.choices)]
    view["target"] = item.target if not item.choices else f"{item.target}) {item.answer_text()}"
    view["wording"] = meta.get("wording") or "computed"
    program = meta.get("program")
    if isinstance(program, dict) and program.get("kind"):
        # What the answer was computed by, in a line (kind, book, fields, conditions).
        parts = [str(program["kind"]), f"{program.get('book', 'closed')}-book"]
        parts += [f"{k} {program[k]}" for k in ("field", "answer_field") if program.get(k)]
        parts += [f"{c['field']} {c['op']} {c['value']}" for c in program.get("conditions", [])]
        view["program"] = ", ".join(parts)
    return view


def wall_time(run_dir: Path, started_at: float, ledger_times: list[float]) -> float:
    """Seconds of work over every part of a build; the current part runs to now.

    ``run_dir/parts.jsonl`` holds the start of each part and, when the part ended by
    itself (finished, failed, Ctrl-C), its end. A part killed with no end line ends at its
    last ledger line (or counts nothing when it finished no slot).
    """
    starts: list[float] = []
    ends: list[float] = []
    path = Path(run_dir) / "parts.jsonl"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(json.JSONDecodeError, TypeError, ValueError, AttributeError):
                entry = json.loads(line)
                if "start" in entry:
                    starts.append(float(entry["start"]))
                elif "end" in entry:
                    ends.append(float(entry["end"]))
    starts = sorted(t for t in starts if t < started_at - 1e-6)
    total = time.time() - started_at
    bounds = [*starts, started_at]
    for begin, nxt in zip(bounds, bounds[1:], strict=False):
        marked = [t for t in ends if begin <= t <= nxt]
        last = [t for t in ledger_times if begin <= t < nxt]
        end = max(marked) if marked else (max(last) if last else begin)
        total += end - begin
    return round(total, 3)


SKIPPED_CHECK = "source"
"""The check of a slot with no candidate behind it: its program or reference gave fewer items
than the slot's place (not an item candidate)."""

HUMAN_CHECK = "human_review"
"""The check name of an item a human reviewer rejected, in ``rejects.jsonl`` and the report."""


def _reject_reason(entry: dict[str, Any], revoked: dict[str, Any]) -> str:
    """How ``rejects.jsonl`` counts a discarded slot, or an item a reviewer took out."""
    if entry["status"] == "rejected":
        return entry.get("check") or "other"
    why = revoked[entry["item"]["id"]]
    return f"human: {REJECT_REASONS.get(why.get('reason'), why.get('reason'))}"


def write_rejects(bench_dir: Path, ledger: Ledger, scanned: DataStats) -> Counter[str]:
    """Write ``rejects.jsonl`` (every discarded slot with its reason); count the reasons.

    ``scanned`` is what :func:`write_data` noted of the same ledger in its pass (one read
    of the ledger for both files). Items a human reviewer rejected are listed with the
    check ``human_review`` and counted as ``human: REASON``. Absolute paths quoted in a
    reason are written as the folder records paths (relative to it, or a file's name).
    """
    revoked = ledger.revoked()
    reasons = Counter(scanned.reasons)
    rejected = sorted(scanned.rejected)
    with atomic_lines(bench_dir / REJECTS_FILE) as out:
        for _slot, where in rejected:
            entry = ledger.read_at(where)
            if entry["status"] == "accepted":  # taken out by a reviewer
                why = revoked[entry["item"]["id"]]
                entry = {
                    **entry,
                    "check": HUMAN_CHECK,
                    "reason": " ".join(
                        filter(None, [str(why.get("reason")), str(why.get("note") or "")])
                    ),
                    "item_id": entry["item"]["id"],
                    "reviewer": why.get("reviewer"),
                }
            row = {
                "slot": entry["slot"]["id"],
                "subtask": entry["slot"]["subtask_id"],
                "grounding": entry["slot"]["grounding_id"],
                "record_index": entry["slot"]["record_index"],
                "language": entry["slot"].get("language"),
                "check": entry.get("check") or "other",
                "reason": entry.get("reason", ""),
                "attempts": entry.get("attempts", 0),
                "history": entry.get("history", []),
            }
            if entry.get("check") == HUMAN_CHECK:
                row.update(item=entry["item_id"], reviewer=entry.get("reviewer"))
            # A reason may quote an input's absolute path (a tool's error message).
            row["reason"] = scrub_value(row["reason"], bench_dir)
            row["history"] = scrub_value(row["history"], bench_dir)
            out.write(json_line(row) + "\n")
    return reasons


def clean_media(bench_dir: Path, used: set[str]) -> int:
    """Remove files in ``media/`` no accepted item refers to; return how many."""
    folder = media_dir(bench_dir)
    removed = 0
    if not folder.is_dir():
        return 0
    for path in folder.rglob("*"):
        if path.is_file() and path.relative_to(bench_dir).as_posix() not in used:
            path.unlink()
            removed += 1
    return removed


def quota_table(spec: BenchmarkSpec, ledger: Ledger, targets: dict[str, int]) -> list[QuotaRow]:
    """One row per grounding: quota, target after reallocation, accepted, rejected."""
    quotas = {a.grounding_id: a.quota for a in spec.allocations}
    rows = []
    for g in spec.groundings:
        if g.id not in quotas and g.id not in targets:
            continue
        rows.append(
            QuotaRow(
                subtask_id=g.subtask_id,
                grounding_id=g.id,
                dataset_id=g.dataset_id,
                quota=quotas.get(g.id, 0),
                target=targets.get(g.id, quotas.get(g.id, 0)),
                accepted=ledger.accepted_count(g.id),
                rejected=ledger.rejected_count(g.id),
            )
        )
    return rows


def render_report_md(report: dict[str, Any]) -> str:
    """The human-readable report."""
    lines = [f"# Build report: {report['intent']}", ""]
    lines.append(
        f"Status: **{report['status']}**. {report['items']} of {report['size']} items accepted; "
        f"{report['rejected']} candidate(s) rejected; wall time {report['wall_time_s']:.1f} s."
    )
    lines += ["", summary_lines_md(report)]
    checks = (report.get("acceptance") or {}).get("checks")
    if checks:
        lines += ["", f"Accepted candidates {describe(checks)}."]
    lines += [
        "",
        "## Quotas",
        "",
        "| subtask | grounding | dataset | quota | target | accepted | rejected |",
    ]
    lines.append("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for r in report["quotas"]:
        lines.append(
            f"| {r['subtask_id']} | {r['grounding_id']} | {r['dataset_id']} | {r['quota']} | "
            f"{r['target']} | {r['accepted']} | {r['rejected']} |"
        )
    if report["shortfalls"]:
        lines += ["", "## Shortfalls", ""]
        for s in report["shortfalls"]:
            lines.append(
                f"- {s['subtask_id']}: {s['accepted']} of {s['quota']} ({s['missing']} missing): "
                f"{s['reason']}"
            )
    mix = report.get("difficulty_mix")
    if mix:
        lines += ["", "## Difficulty mix", ""]
        lines.append(
            "Predicted difficulty (metadata.difficulty_model). Requested "
            + ", ".join(f"{k} {v:.0%}" for k, v in mix["requested"].items())
            + "; achieved "
            + ", ".join(f"{k} {v:.0%}" for k, v in mix["achieved"].items())
            + "."
        )
        lines += ["", "| subtask | label | wanted | got |", "| --- | --- | ---: | ---: |"]
        for subtask, row in mix["subtasks"].items():
            for label, wanted in row["wanted"].items():
                lines.append(f"| {subtask} | {label} | {wanted} | {row['got'][label]} |")
        if mix["notes"]:
            lines += [""] + [f"- {note}" for note in mix["notes"]]
    lines += ["", "## Rejections by check", ""]
    if report["rejection_reasons"]:
        for check, n in sorted(report["rejection_reasons"].items(), key=lambda kv: -kv[1]):
            lines.append(f"- {check}: {n}")
    else:
        lines.append("- none")
    human = report.get("human_review")
    if human:
        lines += ["", "## Human review", "", f"Human acceptance: {human['text']}.", ""]
        lines += ["| subtask | reviewed | accepted | edited | rejected | 95 % interval |"]
        lines.append("| --- | ---: | ---: | ---: | ---: | --- |")
        for subtask, row in human["by_subtask"].items():
            low, high = row["ci95"]
            lines.append(
                f"| {subtask} | {row['reviewed']} | {row['accepted']} | {row['edited']} | "
                f"{row['rejected']} | {100 * low:.1f}-{100 * high:.1f} % |"
            )
        if human["reasons"]:
            reasons = ", ".join(f"{k} {v}" for k, v in human["reasons"].items())
            lines += ["", f"Human rejection reasons: {reasons}."]
        for pair in human["agreement"]:
            lines.append(
                f"Agreement of {' and '.join(pair['reviewers'])}: Cohen's kappa {pair['kappa']} "
                f"on {pair['items']} item(s) both reviewed."
            )
    backups = report.get("tail_backups") or {}
    if backups.get("started"):
        lines += [
            "",
            f"Tail backups: {backups['started']} candidate(s) realized beside a slow slot "
            f"at the end of a fan-out; {backups.get('won', 0)} filled the place first, "
            f"{backups.get('superseded', 0)} slot(s) stopped because their place was filled, "
            f"and {backups.get('surplus', 0)} item(s) verified second were dropped (never "
            "packaged; their model calls are counted below).",
        ]
    llm = report["llm"]
    cost = llm.get("cost_usd")
    lines += [
        "",
        "## Model calls",
        "",
        f"{llm.get('calls', 0)} call(s) ({llm.get('cached_calls', 0)} served from the run "
        f"records), {llm.get('input_tokens', 0)} input and {llm.get('output_tokens', 0)} output "
        f"tokens, cost {'unknown' if cost is None else f'${cost:.4f}'}.",
        "",
        "| role | calls | cached | failed | input tokens | output tokens |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for role, u in sorted(llm.get("by_role", {}).items()):
        lines.append(
            f"| {role} | {u['calls']} | {u['cached_calls']} | {u['failed_calls']} | "
            f"{u['input_tokens']} | {u['output_tokens']} |"
        )
    for computed in report.get("computed", []):
        lines += [
            "",
            f"## Computed items: {computed['grounding_id']} (solution graph of "
            f"{computed['reference']})",
            "",
            "Items delivered per concept and number of steps (`-`: the material cannot fill the "
            "cell):",
            "",
            computed["coverage_table"],
        ]
        unfillable = computed["coverage"].get("unfillable") or []
        for cell in unfillable:
            lines.append(f"- cannot fill {cell}")
        rejected = computed["rejected_formulas"]
        lines += ["", f"Formulas not admitted: {len(rejected)}"]
        lines += [f"- `{r.get('text', '')}`: {r.get('reason', '')}" for r in rejected]
        if computed.get("solution_report"):
            # Only a build with computed problems gets here: the import loads sympy.
            from benchsmith.solution.report import report_markdown

            body = report_markdown(computed["solution_report"])
            lines += ["", body.replace("\n## ", "\n### ").replace("## ", "### ", 1).rstrip()]
    samples = report.get("read_these") or []
    if samples:
        lines += ["", "## Read these", "", "Items as a reviewer sees them:", ""]
        for view in samples:
            lines.append(f"- `{view['id']}` ({view['language']}, {view['wording']} wording)")
            for key in ("spoken", "question", "shown"):
                if view.get(key):
                    label = {"shown": "shown", "spoken": "spoken", "question": "question"}[key]
                    text = str(view[key])
                    if "\n" in text:  # an open-book table: a block inside the list item
                        block = "\n".join(
                            f"    {line}" if line else "" for line in text.split("\n")
                        )
                        lines.append(f"  - {label}:\n\n{block}\n")
                    else:
                        lines.append(f"  - {label}: {text}")
            for media in view.get("media", []):
                lines.append(f"  - {media}")
            if view.get("program"):
                lines.append(f"  - program: {view['program']}")
            if view.get("choices"):
                lines.append(f"  - choices: {' '.join(view['choices'])}")
            lines.append(f"  - target: {view['target']}")
    if report.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {n}" for n in report["notes"]]
    lines += ["", "## Models", ""]
    lines += [f"- {role}: {spec}" for role, spec in sorted(report["models"].items())]
    lines += ["", "## Exports", ""]
    for name, info in report["exports"].items():
        lines.append(f"- {name}: {info}")
    return "\n".join(lines) + "\n"


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The honest headline: enforced acceptance, the judge apart, wording, checks not run."""
    acc = report.get("acceptance") or {}
    skipped = acc.get("slots_skipped") or 0
    lines = [
        f"acceptance by the enforced checks: {acc.get('accepted', report.get('items', 0))} of "
        f"{acc.get('candidates', 0)} candidates ({acc.get('enforced_checks', 0):.0%})"
        + (f"; {skipped} slot(s) past the generated candidates skipped" if skipped else "")
    ]
    judge = report.get("judge") or {}
    if judge.get("runs"):
        kind = judge.get("note") or ("enforced" if judge.get("enforced") else "advisory")
        noes = ", ".join(f"{k} no on {n} of {judge['runs']}" for k, n in judge["no"].items())
        lines.append(f"judge ({kind}): {noes or 'every check yes'}")
    else:
        lines.append(f"judge: not run ({judge.get('note') or 'off'})")
    wording = report.get("wording") or {}
    if report.get("items"):
        computed = f", {wording['computed']} computed problems" if wording.get("computed") else ""
        lines.append(
            f"wording: {wording.get('template', 0)} in their program's or formula's own words, "
            f"{wording.get('model', 0)} worded by the model{computed} (own-words share "
            f"{wording.get('template_share', 0):.0%})"
        )
    for check, info in (report.get("checks_not_run") or {}).items():
        lines.append(f"check not run: {check} on {info['items']} item(s): {info['why']}")
    return lines


def summary_lines_md(report: dict[str, Any]) -> str:
    """:func:`summary_lines` as Markdown bullets."""
    return "\n".join(f"- {line}" for line in summary_lines(report))


def write_package(
    bench_dir: Path,
    spec: BenchmarkSpec,
    ledger: Ledger,
    *,
    targets: dict[str, int],
    shortfalls: list[dict[str, Any]],
    llm_usage: dict[str, Any],
    models: dict[str, str],
    started_at: float,
    seed: int,
    sources: list[Any],
    status: str | None = None,
    judge_note: str = "",
    notes: list[str] | None = None,
    tail_backups: dict[str, int] | None = None,
    difficulty_mix: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the whole benchmark folder from the ledger; return the report.

    ``tail_backups`` counts this run's speculative slots (see
    :mod:`benchsmith.agents.backups`): ``started``, ``won``, ``superseded`` and ``surplus``.
    ``difficulty_mix`` (a build with ``--difficulty``) is the mix requested and achieved
    (:func:`benchsmith.difficulty_mix.mix_report`).

    A folder already packaged from the same ledger is left as it is (its report is
    returned), so rerunning a finished build changes nothing.

    Returns:
        The report as ``report.json`` holds it (:meth:`BuildReport.dump`).
    """
    bench_dir = Path(bench_dir)
    review = HumanReview.read(bench_dir)
    fingerprint = ledger_fingerprint(ledger, review)
    if data_path(bench_dir).is_file():
        old = read_build_report(bench_dir)
        if (
            old is not None
            and old.ledger_fingerprint == fingerprint
            and _hf_split_in_place(bench_dir, old)
        ):
            return old.dump()
    data = write_data(bench_dir, ledger, review)
    n_items = data.counts.n
    reasons = write_rejects(bench_dir, ledger, data)
    human = human_section(data.reviewed_pool, review)
    revoked = len(ledger.revoked())
    removed = clean_media(bench_dir, data.media)
    write_spec(bench_dir, spec)
    rejected = sum(reasons.values())
    # A slot past the generated candidates was skipped before any item
    # was made: listed in rejects.jsonl, but not a candidate the checks turned down.
    skipped = reasons.get(SKIPPED_CHECK, 0)
    automatic = rejected - revoked - skipped
    # The enforced checks accepted the items a human later took out too.
    passed = n_items + revoked
    rate = round(passed / (passed + automatic), 4) if passed + automatic else 0.0
    summary: dict[str, Any] = {
        "candidates rejected": rejected,
        "LLM calls": llm_usage.get("calls", 0),
    }
    checks = data.checks.summary(judge_note)
    if human is not None:
        for subtask, row in human["by_subtask"].items():
            low, high = row["ci95"]
            summary[f"human acceptance, {subtask}"] = (
                f"{row['accepted']} of {row['reviewed']} "
                f"(95 % Wilson interval {100 * low:.1f}-{100 * high:.1f} %)"
            )
        if human["reasons"]:
            summary["human rejection reasons"] = ", ".join(
                f"{k} {v}" for k, v in human["reasons"].items()
            )
    exports = write_exports(
        bench_dir,
        spec,
        sources,
        acceptance_rate=rate,
        summary=summary,
        checks=checks,
        human=(human["overall"]["accepted"], human["overall"]["reviewed"]) if human else None,
    )
    shortfalls = scrub_value(list(shortfalls), bench_dir)
    run_dir = bench_dir / RUN_DIR
    report = BuildReport(
        intent=spec.intent,
        size=spec.size,
        status=status or ("complete" if n_items >= spec.size and not shortfalls else "shortfall"),
        items=n_items,
        rejected=rejected,
        acceptance_rate=rate,
        items_per_subtask=dict(sorted(data.counts.by_subtask.items())),
        items_per_modality=dict(sorted(data.counts.by_modality.items())),
        quotas=quota_table(spec, ledger, targets),
        shortfalls=shortfalls,
        rejection_reasons=dict(sorted(reasons.items())),
        tail_backups=dict(tail_backups or {}),
        acceptance=Acceptance(
            enforced_checks=rate,
            accepted=passed,
            candidates=passed + automatic,
            slots_skipped=skipped,
            checks=CheckSummary.model_validate(checks),
            note="items that passed every enforced check, over every candidate realized "
            "(slots past the candidates a program or reference generated are not candidates; "
            "rejects.jsonl lists them with the check 'source'); checks names the checks that "
            "ran and those that did not",
        ),
        wording=Wording(
            template=data.wording.get("template", 0),
            model=data.wording.get("model", 0),
            computed=data.wording.get("computed", 0),
            template_share=round(data.wording.get("template", 0) / n_items, 4) if n_items else 0.0,
        ),
        checks_not_run={
            check: CheckNotRun(
                items=n,
                why="; ".join(
                    f"{cause} ({k})" for cause, k in data.unavailable_why.get(check, {}).items()
                ),
            )
            for check, n in sorted(data.unavailable.items())
        },
        judge=JudgeSummary(
            runs=data.judge_runs,
            enforced=data.judge_enforced,
            no=dict(sorted(data.judge_no.items())),
            note=judge_note,
        ),
        read_these=data.samples,
        notes=scrub_value(list(notes or []), bench_dir),
        llm=llm_usage,
        models=models,
        seed=seed,
        wall_time_s=wall_time(run_dir, started_at, data.ledger_times),
        media_files=len(data.media),
        stale_media_removed=removed,
        exports=Exports.model_validate(exports),
        computed=computed_summaries(run_dir, data.computed_items),
        ledger_fingerprint=fingerprint,
        human_review=human,
        difficulty_mix=difficulty_mix,
    )
    written = report.dump()
    write_report(bench_dir, written)
    atomic_write(bench_dir / REPORT_MD, render_report_md(written))
    return written


def _hf_split_in_place(bench_dir: Path, report: BuildReport) -> bool:
    """Whether the Hugging Face split files the report names are there.

    A folder packaged before the split existed (or whose split files were deleted) is
    packaged again, to get them.
    """
    configs = report.exports.hf_datasets.configs
    return bool(configs) and all((bench_dir / f).is_file() for f in configs.values())


def human_section(pool: list[Any], review: HumanReview) -> dict[str, Any] | None:
    """Human acceptance of the reviewed items (rejected ones included), or None unreviewed."""
    if review.journal is None:
        return None
    summary = human_summary(pool, review.journal)
    overall = summary["overall"]
    if not overall["reviewed"]:
        return None
    low, high = overall["ci95"]
    summary["text"] = (
        f"{overall['accepted']} of {overall['reviewed']} reviewed items "
        f"({100 * overall['acceptance']:.1f} %, 95 % Wilson interval {100 * low:.1f}-"
        f"{100 * high:.1f} %)"
    )
    return summary


def computed_summaries(
    run_dir: Path, delivered: dict[str, list[Any]] | None = None
) -> list[dict[str, Any]]:
    """What each solution-graph grounding generated, its counts recounted on ``delivered``.

    ``delivered`` maps a grounding id to its accepted items: the coverage table and the
    per-section counts are of those items, not of the candidate pool.
    """
    out = []
    for path in sorted(Path(run_dir).glob("computed-*.json")):
        # Imported only for a build that has computed problems: it loads sympy, about half
        # a second that a records-only build would spend at its very end.
        from benchsmith.solution.report import recount_delivered

        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, OSError):
            continue
        # The formulas' sources by the reference's name (a build before names were kept
        # wrote its absolute path).
        summary = portable_files(summary, Path(run_dir).parent)
        report = summary.get("solution_report")
        if report and report.get("coverage"):
            items = (delivered or {}).get(summary.get("grounding_id"), [])
            report = recount_delivered(report, items)
            summary["solution_report"] = report
            summary["coverage"] = report["coverage"]
            summary["coverage_table"] = report["coverage_table"]
        out.append(summary)
    return out


def write_exports(
    bench_dir: Path,
    spec: BenchmarkSpec,
    sources: list[Any],
    *,
    acceptance_rate: float | None,
    summary: dict[str, Any],
    checks: dict[str, Any] | None = None,
    human: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Write the exports and the dataset card; what each covers.

    The exports: the Hugging Face split (and the Inspect-style config beside it), the lm-eval
    task and the Inspect task file. ``checks`` is what the checks behind
    ``acceptance_rate`` did (see :meth:`benchsmith.package.checks.CheckTally.summary`),
    ``human`` the items a human reviewer accepted and reviewed; the card states both.
    """
    # A calibration of these very items (benchsmith calibrate) stays in their metadata.
    calibration = reapply_to_items(bench_dir)
    # One read of data/test.jsonl: the split's rows, the lm-eval and the card's counts.
    text_only, counts = TextOnlyCount(), ItemCounts()

    def counted() -> Iterator[tuple[dict[str, Any], Any]]:
        for record, item in read_records(data_path(bench_dir)):  # each one an item
            text_only.add(record)
            counts.add(item)
            yield record, item

    hf = write_hf_split(bench_dir, records=counted())
    lmeval = write_lmeval_task(bench_dir, spec, counts=text_only)
    inspect_path = write_inspect_task(bench_dir, spec)
    stats = card_stats(
        counts,
        lmeval=lmeval,
        bench_name=bench_dir.name,
        acceptance_rate=acceptance_rate,
        acceptance_checks=checks,
        human_review=human,
        summary=summary,
        hf_files=hf.files,
    )
    card = render_card(spec, stats, sources)
    if calibration is not None:
        card = card.rstrip("\n") + "\n\n" + card_section(calibration)
    atomic_write(bench_dir / CARD_FILE, card)
    remove_stale(bench_dir, hf.files)  # only now: the old card pointed at them
    return {
        "inspect": {
            "file": inspect_path.relative_to(bench_dir).as_posix(),
            "items": stats.n_items,
        },
        "lm_eval": {
            "task": lmeval.task_name if lmeval.written else None,
            "yaml": lmeval.yaml_path.relative_to(bench_dir).as_posix()
            if lmeval.yaml_path
            else None,
            "items": lmeval.n_items,
            "skipped": lmeval.skip_reasons,
            "note": lmeval.message,
        },
        "hf_datasets": {
            "card": CARD_FILE,
            "configs": hf.files,
            "items": hf.n_items,
            "images": hf.n_images,
            "audio": hf.n_audio,
        },
    }

"""The report of a solution-graph build: formulas, quantities, and sections without items.

Per formula: admitted, or why not. Per quantity: its description, unit and range, and
where each came from (the definition in the text, the worked examples, the kind, or an
assumption). Per section of the document: how many delivered items it got, and why none
when it got none (no formula in it, its formulas not admitted, no chain of the wanted
length, values never plausible). Counts are of the items given (delivered), not of a
candidate pool. How the text was read: the reader model's questions, and what the reading
could not do (no reader, a reader that stopped, pairs left unchecked).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from benchsmith.item import Item
from benchsmith.solution.coverage import CoverageReport
from benchsmith.solution.graph import SolutionGraph
from benchsmith.solution.knowledge import Knowledge


def formula_rows(knowledge: Knowledge) -> list[dict[str, Any]]:
    """Every formula found, in reading order: admitted, or rejected with the reason."""
    admitted = {f.id for f in knowledge.graph.formulas}
    rows = []
    for formula in knowledge.found:
        if formula.id in admitted:
            rows.append(
                {
                    "formula": formula.text,
                    "equation": formula.equation(),
                    "syntax": formula.syntax,
                    "source": formula.source.to_dict(),
                    "status": "admitted",
                    "reason": "",
                }
            )
    for rejected in knowledge.rejected:
        row = rejected.to_dict()
        row["formula"] = row.pop("text")
        rows.append(row | {"equation": "", "status": "rejected"})
    for duplicate in knowledge.duplicates:
        row = duplicate.to_dict()
        row["formula"] = row.pop("text")
        rows.append(row | {"equation": "", "status": "duplicate"})
    return sorted(rows, key=lambda r: (r["source"]["file"], r["source"]["span"][0]))


def quantity_rows(graph: SolutionGraph) -> list[dict[str, Any]]:
    """Every quantity: description, unit, range and where each came from."""
    rows = []
    for name, q in sorted(graph.quantities.items()):
        rows.append(
            {
                "name": name,
                "description": q.description,
                "unit": q.unit,
                "unit_text": q.unit_text,
                "range": [q.low, q.high],
                "choices": list(q.choices),
                "derived_bounds": list(q.bounds) if q.bounds else None,
                "integer": q.integer,
                "origins": dict(q.origins),
                "source": q.source.to_dict() if q.source else None,
            }
        )
    return rows


def delivered_coverage(coverage: CoverageReport, items: Iterable[Item]) -> CoverageReport:
    """The coverage table recounted on the items actually delivered."""
    # The chain length is ``steps`` (``difficulty`` held it before it became a label).
    counts = Counter(
        (i.metadata["concepts"][0], int(i.metadata.get("steps") or i.metadata["difficulty"]))
        for i in items
        if i.metadata.get("concepts")
    )
    return CoverageReport(
        coverage.concepts,
        coverage.difficulties,
        dict(coverage.requested),
        dict(counts),
        dict(coverage.unfillable),
        dict(coverage.shortfall),
    )


def section_rows(knowledge: Knowledge, coverage: CoverageReport) -> list[dict[str, Any]]:
    """Every section of the references: items delivered, and why none when none."""
    rows = []
    rejected_by_section: dict[str, list[str]] = {}
    for r in knowledge.rejected:
        rejected_by_section.setdefault(r.source.section, []).append(f"{r.text}: {r.reason}")
    admitted_sections = {f.source.section for f in knowledge.graph.formulas}
    for section in knowledge.sections:
        concept = section.concept
        delivered = sum(coverage.produced.get((concept, k), 0) for k in coverage.difficulties)
        why = ""
        if not delivered:
            if section.title in rejected_by_section and section.title not in admitted_sections:
                why = "no formula admitted: " + "; ".join(rejected_by_section[section.title])
            elif section.title not in admitted_sections:
                why = "no formula stated in this section"
            else:
                reasons = [
                    coverage.unfillable.get((concept, k)) or coverage.shortfall.get((concept, k))
                    for k in coverage.difficulties
                ]
                why = "; ".join(r for r in reasons if r) or "no item allocated to it"
        rows.append(
            {"section": section.title, "concept": concept, "items": delivered, "why_none": why}
        )
    return rows


def solution_report(
    knowledge: Knowledge, coverage: CoverageReport, items: Iterable[Item] | None = None
) -> dict[str, Any]:
    """The whole report as JSON-able data (``items``: recount the coverage on them)."""
    if items is not None:
        coverage = delivered_coverage(coverage, items)
    return {
        "formulas": formula_rows(knowledge),
        "quantities": quantity_rows(knowledge.graph),
        "sections": section_rows(knowledge, coverage),
        "coverage": coverage.to_dict(),
        "coverage_table": coverage.table(),
        "reading": {"notes": list(knowledge.notes), **knowledge.reading},
    }


def coverage_from_dict(data: dict[str, Any]) -> CoverageReport:
    """A :class:`CoverageReport` back from its :meth:`~CoverageReport.to_dict` form."""

    def cells(rows: list[dict[str, Any]]) -> dict[tuple[str, int], Any]:
        return {(r["concept"], int(r["difficulty"])): r["value"] for r in rows}

    return CoverageReport(
        list(data["concepts"]),
        [int(k) for k in data["difficulties"]],
        cells(data.get("requested", [])),
        cells(data.get("produced", [])),
        cells(data.get("unfillable", [])),
        cells(data.get("shortfall", [])),
    )


def recount_delivered(report: dict[str, Any], items: Iterable[Item]) -> dict[str, Any]:
    """A :func:`solution_report` (as JSON) with coverage and sections recounted on ``items``.

    The report is made when the problems are generated, over the candidate pool; the build
    delivers a prefix of them (its quota, then refills), so the report's counts come from
    the items that were accepted.
    """
    coverage = delivered_coverage(coverage_from_dict(report["coverage"]), items)
    per_concept = Counter()
    for (concept, _k), n in coverage.produced.items():
        per_concept[concept] += n
    sections = []
    for row in report.get("sections", []):
        delivered = per_concept.get(row.get("concept"), 0)
        why = row.get("why_none") or ""
        if not delivered and not why:
            why = "no item of it was delivered (the quota is smaller than the concepts)"
        sections.append(row | {"items": delivered, "why_none": "" if delivered else why})
    return report | {
        "sections": sections,
        "coverage": coverage.to_dict(),
        "coverage_table": coverage.table(),
    }


def report_markdown(report: dict[str, Any]) -> str:
    """A human-readable form of :func:`solution_report`."""
    lines = ["## Formulas", "", "| formula | status | reason |", "| --- | --- | --- |"]
    for row in report["formulas"]:
        text = row["formula"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{text}` | {row['status']} | {row['reason']} |")
    lines += ["", "## Quantities", ""]
    lines += ["| symbol | description | unit | range | from |", "| --- | --- | --- | --- | --- |"]
    for q in report["quantities"]:
        shown = q["choices"] or q["range"]
        origins = "; ".join(f"{k}: {v}" for k, v in q["origins"].items())
        lines.append(
            f"| {q['name']} | {q['description']} | {q['unit_text'] or q['unit']} | "
            f"{shown} | {origins} |"
        )
    lines += ["", "## Sections", ""]
    for row in report["sections"]:
        note = f" ({row['why_none']})" if row["why_none"] else ""
        lines.append(f"- {row['section']}: {row['items']} item(s){note}")
    reading = report.get("reading") or {}
    if reading.get("reader") or reading.get("notes"):
        lines += ["", "## Reading", ""]
        if reading.get("reader"):
            lines.append(
                f"- reader {reading['reader']}: {reading.get('asked', 0)} question(s) asked, "
                f"{reading.get('from_cache', 0)} answered from the cache, "
                f"{reading.get('failed', 0)} failed"
            )
        lines += [f"- {note}" for note in reading.get("notes", [])]
    lines += ["", "## Coverage of the delivered items", "", report["coverage_table"]]
    return "\n".join(lines) + "\n"

"""Where a calibration lands in the benchmark folder besides ``calibration.json``.

- each item's ``metadata.calibration`` in ``data/test.jsonl`` (and so in the Hugging Face
  split, rewritten, with the card pointing at the new files);
- a "Calibration" section in the card (``README.md``) and in ``report.md``, between marker
  comments so that a new calibration replaces the old one;
- ``report.json``'s ``calibration`` key (the figures without the per-item rows).

A folder packaged again from its ledger (after a review) gets the items from the ledger:
:func:`merge_into_items` is what packaging calls to keep the calibration in their metadata,
and :func:`card_section` the section of the card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchsmith.files import atomic_write, json_line
from benchsmith.layout import (
    CALIBRATION_FILE,
    CARD_FILE,
    REPORT_MD,
    FolderError,
    data_path,
    item_lines,
    read_json,
    read_report,
    report_path,
)
from benchsmith.package.report import write_report

START = "<!-- benchsmith:calibration -->"
END = "<!-- /benchsmith:calibration -->"
SEPARABILITY_START = "<!-- benchsmith:separability -->"
SEPARABILITY_END = "<!-- /benchsmith:separability -->"


def item_fields(row: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """What an item's ``metadata.calibration`` holds."""
    return {
        "difficulty": row["difficulty"],
        "discrimination": row["discrimination"],
        "p_correct": row["p_correct"],
        "answers": row["answers"],
        "flag": row["flag"],
        "in_subset": row["in_subset"],
        "panel": [m["model"] for m in data["panel"]],
        "epochs": data.get("epochs", 1),
        "created": data.get("created"),
    }


def merge_into_items(lines: list[str], data: Mapping[str, Any]) -> list[str]:
    """The lines of ``data/test.jsonl`` with each calibrated item's metadata updated."""
    rows = {row["id"]: row for row in data.get("items", [])}
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        record = json.loads(line)
        row = rows.get(record.get("id")) if isinstance(record, dict) else None
        if row is not None:
            metadata = record.setdefault("metadata", {})
            metadata["calibration"] = item_fields(row, data)
            line = json_line(record)
        out.append(line)
    return out


def _merge_into_file(folder: Path, data: Mapping[str, Any]) -> None:
    """Rewrite ``data/test.jsonl`` with the calibration in each calibrated item's metadata."""
    path = data_path(folder)
    lines = path.read_text(encoding="utf-8").splitlines()
    atomic_write(path, "\n".join(merge_into_items(lines, data)) + "\n")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def card_section(data: Mapping[str, Any]) -> str:
    """The calibration section of the card and of ``report.md`` (Markdown)."""
    sep = data["separability"]
    subset = data["subset"]
    flags = {k: len(v) for k, v in data.get("flags", {}).items()}
    lines = [
        START,
        "## Calibration",
        "",
        f"A panel of {len(data['panel'])} models answered every item "
        f"{data.get('epochs', 1)} time(s) ({data['methods']['irt']}). "
        f"Separability: {sep['separated']} of {sep['pairs']} model pairs "
        f"({_pct(sep['share'])}) have 95 % bootstrap intervals that do not overlap "
        f"({data['methods']['ci95']}).",
        "",
        "| Model | Accuracy | 95 % interval | Ability (IRT) |",
        "|---|---|---|---|",
    ]
    for m in sorted(data["panel"], key=lambda m: -(m["accuracy"] or 0)):
        low, high = m["ci95"]
        lines.append(
            f"| `{m['model']}` | {_pct(m['accuracy'])} | {_pct(low)} - {_pct(high)} "
            f"| {m['ability']:+.2f} |"
        )
    items = data["items"]
    b = sorted(r["difficulty"] for r in items)
    a = sorted(r["discrimination"] for r in items)
    lines += [
        "",
        f"- Item difficulty (b): median {b[len(b) // 2]:+.2f}, from {b[0]:+.2f} to {b[-1]:+.2f}; "
        f"discrimination (a): median {a[len(a) // 2]:.2f}. Each item's values are in its "
        "`metadata.calibration`.",
        "- Flagged: "
        + (", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(flags.items())) or "none")
        + ".",
        *(
            [
                f"- The generators' predicted difficulty against the fitted one: Spearman "
                f"{agreement['spearman']:.2f} over {agreement['items']} items."
            ]
            if (agreement := data.get("predicted_vs_fitted") or {}).get("spearman") is not None
            else []
        ),
        f"- A subset of {subset['size']} items keeps the panel's ranking: "
        f"{'yes' if subset['ranking_kept'] else 'no'} (Kendall tau "
        f"{'n/a' if subset['kendall_tau'] is None else format(subset['kendall_tau'], '.2f')}); "
        f"mean absolute error of the estimated full-set accuracy "
        f"{100 * subset['mean_abs_error']:.1f} points. Its ids are in `calibration.json`.",
        END,
    ]
    return "\n".join(lines) + "\n"


def replace_section(text: str, section: str, start_mark: str = START, end_mark: str = END) -> str:
    """``text`` with the section between the marks replaced by ``section`` (appended if none)."""
    start, end = text.find(start_mark), text.find(end_mark)
    if start != -1 and end > start:
        return text[:start] + section + text[end + len(end_mark) :].lstrip("\n")
    return text.rstrip("\n") + "\n\n" + section


def _rewrite_split(folder: Path) -> None:
    """Write the Hugging Face split again and point the card and report at its files."""
    # Here, not at the top: it loads pyarrow (about 0.3 s), which `benchsmith eval` does not
    # need when it imports this module for the separability section.
    from benchsmith.package.hf_export import remove_stale, write_hf_split

    report = read_report(folder) or {}
    hf_report = (report.get("exports") or {}).get("hf_datasets") or {}
    old = dict(hf_report.get("configs") or {})
    hf = write_hf_split(folder)
    card = folder / CARD_FILE
    if card.is_file():
        text = card.read_text(encoding="utf-8")
        for config, path in old.items():
            if config in hf.files:
                text = text.replace(path, hf.files[config])
        atomic_write(card, text)
    if hf_report:
        hf_report["configs"] = hf.files
        write_report(folder, report)
    remove_stale(folder, hf.files)


def add_to_report(
    folder: Path,
    key: str,
    value: Any,
    section: str,
    marks: tuple[str, str] = (START, END),
    *,
    card: bool = False,
) -> None:
    """Put a figure into ``report.json[key]`` and its section into ``report.md``.

    The section (between ``marks``) replaces an earlier one; ``card`` puts it in the card
    (``README.md``) too. Files that do not exist (a folder no build packaged) are left alone.
    """
    for name in (CARD_FILE, REPORT_MD) if card else (REPORT_MD,):
        path = folder / name
        if path.is_file():
            text = replace_section(path.read_text(encoding="utf-8"), section, *marks)
            atomic_write(path, text)
    report = read_report(folder)
    if report is not None:
        report[key] = value  # a section of a later command: appended, or replaced in place
        write_report(folder, report)


def write_calibration(folder: Path, data: Mapping[str, Any]) -> None:
    """Write a calibration into the items, the split, the card and the report of ``folder``."""
    _merge_into_file(folder, data)
    if report_path(folder).is_file() or any((folder / "data").glob("*/test-*.parquet")):
        _rewrite_split(folder)
    summary = {k: v for k, v in data.items() if k != "items"}
    add_to_report(folder, "calibration", summary, card_section(data), card=True)


def current_calibration(folder: Path) -> dict[str, Any] | None:
    """``calibration.json`` when it covers exactly the folder's items, else None.

    A folder packaged again with other items (a review's refills) has a stale calibration:
    its figures are of other items, so packaging leaves them out until ``calibrate`` runs.
    """
    data = read_json(folder / CALIBRATION_FILE)
    if data is None:
        return None
    try:
        ids = {record.get("id") for _number, record in item_lines(folder)}
    except (FolderError, UnicodeDecodeError):
        return None
    rows = data.get("items")
    if not isinstance(rows, list) or {r.get("id") for r in rows} != ids:
        return None
    return data


def reapply_to_items(folder: Path) -> dict[str, Any] | None:
    """Packaging's hook: put a current calibration back into ``data/test.jsonl``.

    Returns:
        The calibration applied, or None (none, or stale).
    """
    data = current_calibration(folder)
    if data is not None:
        _merge_into_file(folder, data)
    return data

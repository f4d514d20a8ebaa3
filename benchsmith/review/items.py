"""Items as the review page shows them, and a reviewer's edit applied to an item.

The page receives plain JSON (it escapes every value itself): for the list, one row an item
with the fields the filters use; for the item view, what the evaluated model receives (the
text, media URLs, the choices with the target marked), the source record, the tool trace
and every check's verdict. (The clean speech before noise is not kept in ``media/``, so the
page plays the audio the model receives.)
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchsmith.catalog.store import Catalog, first_holding
from benchsmith.item import LETTERS, AudioPart, Item, TextPart
from benchsmith.layout import RUN_CATALOG, RUN_DIR
from benchsmith.review.journal import ItemEdit, ReviewDecision, ReviewError
from benchsmith.review.summary import status_of
from benchsmith.verify.structural import check_answer_in_choices, check_schema


def modality(item: Item) -> str:
    """``text``, ``image``, ``audio`` or ``image+audio``: the media the item carries."""
    kinds = sorted({kind for kind, _ in item.media_paths()})
    return "+".join(kinds) if kinds else "text"


def _verdicts(item: Item) -> list[dict[str, Any]]:
    verification = item.metadata.get("verification") or {}
    found = verification.get("structural") if isinstance(verification, dict) else None
    return [v for v in found or [] if isinstance(v, dict)]


def failed_checks(item: Item) -> list[str]:
    """The names of the item's checks that did not pass (recorded at build time)."""
    return [str(v.get("check")) for v in _verdicts(item) if v.get("ok") is False]


def judge_summary(item: Item) -> str:
    """``yes``, ``no: DIMENSION, ...`` or ``not judged``: the LLM judge's verdict on the item."""
    verification = item.metadata.get("verification")
    judged = verification.get("judge") if isinstance(verification, dict) else None
    if not isinstance(judged, dict):
        return "not judged"
    no = [k for k in ("answerable", "single_answer", "relevant", "clear") if judged.get(k) == "no"]
    return "no: " + ", ".join(no) if no else "yes"


def item_row(item: Item, decision: ReviewDecision | None) -> dict[str, Any]:
    """One line of the item list: what the filters and the list need."""
    meta = item.metadata
    text = str(meta.get("question") or item.input_text())
    return {
        "id": item.id,
        "subtask": str(meta.get("subtask") or "-"),
        "language": str(meta.get("language") or "-"),
        "modality": modality(item),
        "wording": str(meta.get("wording") or "-"),
        "status": status_of(decision),
        "failed_checks": failed_checks(item),
        "judge": judge_summary(item),
        "question": text[:160],
    }


def _media_url(path: str, token: str | None) -> str:
    url = "/" + quote(path)
    return f"{url}?token={quote(token)}" if token else url


def item_view(
    item: Item,
    decision: ReviewDecision | None,
    *,
    record: dict[str, Any] | None,
    token: str | None = None,
) -> dict[str, Any]:
    """The whole item as the page shows it (media as URLs under ``/media/``)."""
    meta = item.metadata
    parts: list[dict[str, Any]] = []
    if isinstance(item.input, str):
        parts.append({"type": "text", "text": item.input})
    else:
        for message in item.input:
            content = message.content
            if isinstance(content, str):
                parts.append({"type": "text", "role": message.role, "text": content})
                continue
            for part in content:
                if isinstance(part, TextPart):
                    parts.append({"type": "text", "role": message.role, "text": part.text})
                elif isinstance(part, AudioPart):
                    parts.append({"type": "audio", "url": _media_url(part.audio, token)})
                else:
                    parts.append({"type": "image", "url": _media_url(part.image, token)})
    return {
        **item_row(item, decision),
        "parts": parts,
        "spoken_text": meta.get("spoken_text"),
        "choices": [
            {"letter": LETTERS[i], "text": c, "correct": LETTERS[i] == item.target}
            for i, c in enumerate(item.choices or [])
        ],
        "target": item.target,
        "answer": item.answer_text(),
        "source": meta.get("source"),
        "record": record,
        "trace": meta.get("trace") or [],
        "verdicts": _verdicts(item),
        "judge": (meta.get("verification") or {}).get("judge")
        if isinstance(meta.get("verification"), dict)
        else None,
        "decision": decision.model_dump(mode="json") if decision else None,
    }


def apply_edit(item: Item, edit: ItemEdit) -> Item:
    """``item`` with the reviewer's changes: the question text, the choices, the target.

    The question replaces the item's first text part (a text item's whole input); choices
    and target replace the item's own. The result is checked as a build checks an item
    (the schema of its answer format, the target among the choices).

    Raises:
        ReviewError: The edited item fails a structural check (the check is named).
    """
    data = item.model_dump()
    if edit.question is not None:
        if isinstance(item.input, str):
            data["input"] = edit.question
        else:
            replaced = False
            for message in data["input"]:
                content = message["content"]
                if isinstance(content, str) and not replaced:
                    message["content"], replaced = edit.question, True
                elif isinstance(content, list):
                    for part in content:
                        if part.get("type") == "text" and not replaced:
                            part["text"], replaced = edit.question, True
            if not replaced:
                raise ReviewError(f"{item.id}: the item has no text to replace with a question")
        data["metadata"] = {**data["metadata"], "question": edit.question}
    if edit.choices is not None:
        data["choices"] = edit.choices
    if edit.target is not None:
        data["target"] = edit.target
    edited = Item.model_validate(data)
    fmt = str(edited.metadata.get("answer_format") or "short_answer")
    if edited.choices:
        fmt = "multiple_choice"
    for verdict in (check_schema(edited, fmt), check_answer_in_choices(edited, fmt)):  # type: ignore[arg-type]
        if not verdict.ok:
            raise ReviewError(
                f"{item.id}: the edit fails the {verdict.check} check: {verdict.reason}"
            )
    return edited


def source_record(bench_dir: Path, item: Item) -> dict[str, Any] | None:
    """The dataset record the item was made from, when a catalog that holds it is at hand.

    The build's own catalog (its ``--dataset`` sources) is asked first, then the user's.
    """
    source = item.metadata.get("source")
    if not isinstance(source, dict) or "dataset" not in source or "record_index" not in source:
        return None
    run_catalog = bench_dir / RUN_DIR / RUN_CATALOG
    catalogs = [Catalog(run_catalog)] if run_catalog.is_dir() else []
    with contextlib.suppress(Exception):
        catalogs.append(Catalog.default())
    catalog = first_holding(catalogs, str(source["dataset"]))
    if catalog is None:
        return None
    with contextlib.suppress(Exception):
        for record in catalog.records(
            str(source["dataset"]), offset=int(source["record_index"]), limit=1
        ):
            return {k: v for k, v in record.items() if isinstance(v, str | int | float | bool)}
    return None

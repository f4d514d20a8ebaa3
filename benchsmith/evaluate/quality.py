"""Item quality by an LLM judge: the Benchmark Agent metrics on a 1-5 scale.

One benchmark-level score and five item-level scores, each asked with a rubric prompt
(``benchsmith/prompts/eval_quality_intent.j2`` and ``eval_quality_item.j2``) under the
``judge`` role, with the item text fenced as untrusted data:

- **UIA**, user-intent alignment (benchmark level): the intent, the subtasks and a sample
  of items;
- **FSQ** format and schema quality, **QAC** question-answer coherence, **CQC** contextual
  grounding, **TSD** target-signal dependence, **SSC** skill-specific challenge (per item,
  in one structured call).

An item *fails* when any of its scores is at most :data:`FAIL_AT` (2: "poor" or "very poor").
A failing item is attributed to its most relevant dimension, the one with the lowest
score; ties go to the first in :data:`ATTRIBUTION_ORDER` (QAC, FSQ, CQC, TSD, SSC), which
puts the defects that make an item wrong before those that make it weak.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, Field

from benchsmith.errors import StructuredOutputError
from benchsmith.item import Item, item_for_judge
from benchsmith.llm.client import RoleModel
from benchsmith.prompts import render, untrusted
from benchsmith.spec import BenchmarkSpec

ITEM_DIMENSIONS = ("fsq", "qac", "cqc", "tsd", "ssc")
ATTRIBUTION_ORDER = ("qac", "fsq", "cqc", "tsd", "ssc")
FAIL_AT = 2
UIA_SAMPLE = 8
DIMENSION_NAMES = {
    "uia": "user-intent alignment",
    "fsq": "format and schema quality",
    "qac": "question-answer coherence",
    "cqc": "contextual grounding",
    "tsd": "target-signal dependence",
    "ssc": "skill-specific challenge",
}


def _score(description: str) -> Any:
    return Field(ge=1, le=5, description=description)


class ItemQuality(BaseModel):
    """The judge's 1-5 ratings of one item."""

    fsq: int = _score("Format and schema quality, 1 (malformed) to 5 (well formed).")
    qac: int = _score("Question-answer coherence, 1 (target wrong) to 5 (target exactly right).")
    cqc: int = _score("Contextual grounding, 1 (needs missing context) to 5 (self-contained).")
    tsd: int = _score("Target-signal dependence, 1 (shortcut answers it) to 5 (needs the signal).")
    ssc: int = _score("Skill-specific challenge, 1 (tests nothing) to 5 (tests the skills well).")
    reason: str = Field(default="", max_length=300, description="The main problem, briefly.")


class IntentAlignment(BaseModel):
    """The judge's 1-5 rating of the whole benchmark against its intent."""

    uia: int = _score("User-intent alignment, 1 (unrelated) to 5 (exactly what was asked).")
    reason: str = Field(default="", max_length=300, description="The main gap, briefly.")


def attribute(scores: dict[str, int]) -> str | None:
    """The dimension a failing item is attributed to, or None when it does not fail.

    Args:
        scores: Item dimension to score (1-5).

    Returns:
        The lowest-scored dimension (ties by :data:`ATTRIBUTION_ORDER`) when any score is
        at most :data:`FAIL_AT`, else None.
    """
    present = [d for d in ATTRIBUTION_ORDER if d in scores]
    if not present or min(scores[d] for d in present) > FAIL_AT:
        return None
    return min(present, key=lambda d: (scores[d], ATTRIBUTION_ORDER.index(d)))


def item_block(item: Item) -> str:
    """The item as the judge reads it: question, choices, target answer."""
    return item_for_judge(item, item.input_text(), answer_label="target")


def _media(item: Item) -> str:
    kinds = [kind for kind, _ in item.media_paths()]
    if not kinds:
        return ""
    tools = [
        str(step.get("tool"))
        for step in item.metadata.get("trace") or []
        if isinstance(step, dict) and step.get("tool")
    ]
    made = f", made with {', '.join(dict.fromkeys(tools))}" if tools else ""
    return f"{' and '.join(dict.fromkeys(kinds))}{made}"


def _subtask(spec: BenchmarkSpec | None, item: Item) -> tuple[str, str, list[str]]:
    sid = str(item.metadata.get("subtask") or "")
    if spec is not None:
        for s in spec.subtasks:
            if s.id == sid:
                return s.name, s.description, list(s.skills)
    name = str(item.metadata.get("subtask_name") or sid or "(unknown)")
    return name, "", []


def judge_item(item: Item, judge: RoleModel, spec: BenchmarkSpec | None) -> ItemQuality:
    """Rate one item.

    Raises:
        StructuredOutputError: The judge gave no valid rating.
    """
    name, description, skills = _subtask(spec, item)
    skills = skills or [str(s) for s in item.metadata.get("skills") or []]
    prompt = render(
        "eval_quality_item",
        intent=untrusted(spec.intent if spec else "(unknown)", "intent"),
        subtask_name=name,
        subtask_description=description,
        skills=", ".join(skills) or "(not given)",
        answer_format=str(item.metadata.get("answer_format") or "short_answer"),
        media=_media(item),
        item=untrusted(item_block(item), "item"),
    )
    return judge.structured(ItemQuality, [("user", prompt)])


def judge_intent(
    items: Sequence[Item], judge: RoleModel, spec: BenchmarkSpec | None
) -> IntentAlignment:
    """Rate the whole benchmark against its intent (UIA), from an evenly spaced sample.

    Raises:
        StructuredOutputError: The judge gave no valid rating.
    """
    step = max(1, len(items) // UIA_SAMPLE)
    sample = list(items)[::step][:UIA_SAMPLE]
    subtasks = (
        "\n".join(f"- {s.id}: {s.name}. {s.description}" for s in spec.subtasks)
        if spec
        else "(no spec.json)"
    )
    prompt = render(
        "eval_quality_intent",
        intent=untrusted(spec.intent if spec else "(unknown)", "intent"),
        subtasks=untrusted(subtasks, "subtasks"),
        n_sample=len(sample),
        n_items=len(items),
        sample=untrusted("\n\n".join(item_block(i) for i in sample), "items"),
    )
    return judge.structured(IntentAlignment, [("user", prompt)])


def judge_benchmark_items(
    items: Sequence[Item],
    judge: RoleModel,
    spec: BenchmarkSpec | None,
    *,
    concurrency: int = 4,
    on_done: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Rate every item and the benchmark; the body of ``judge.json``.

    Returns:
        ``model``, ``threshold``, ``attribution_order``, ``uia``, ``items`` (per item:
        ``id``, ``subtask``, ``scores``, ``reason``, ``failing``, ``attributed_to``, or
        ``error``), and ``summary`` (mean and distribution per dimension, failing count,
        attribution counts, errors).
    """

    def one(item: Item) -> dict[str, Any]:
        row: dict[str, Any] = {"id": item.id, "subtask": str(item.metadata.get("subtask") or "")}
        try:
            verdict = judge_item(item, judge, spec)
        except StructuredOutputError as exc:
            row["error"] = str(exc)
        else:
            scores = {d: getattr(verdict, d) for d in ITEM_DIMENSIONS}
            dimension = attribute(scores)
            row.update(
                scores=scores,
                reason=verdict.reason,
                failing=dimension is not None,
                attributed_to=dimension,
            )
        if on_done is not None:
            on_done(item.id)
        return row

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        rows = list(pool.map(one, items))
    try:
        intent = judge_intent(items, judge, spec)
        uia: dict[str, Any] = {"score": intent.uia, "reason": intent.reason}
    except StructuredOutputError as exc:
        uia = {"score": None, "error": str(exc)}
    return {
        "model": judge.spec.text,
        "threshold": FAIL_AT,
        "attribution_order": list(ATTRIBUTION_ORDER),
        "dimensions": DIMENSION_NAMES,
        "uia": uia,
        "items": rows,
        "summary": summarize_quality(rows, uia),
    }


def summarize_quality(rows: Sequence[dict[str, Any]], uia: dict[str, Any]) -> dict[str, Any]:
    """Mean and 1-5 distribution per dimension, failing items and their attribution."""
    rated = [r for r in rows if "scores" in r]
    mean: dict[str, float | None] = {}
    distribution: dict[str, dict[str, int]] = {}
    for d in ITEM_DIMENSIONS:
        values = [r["scores"][d] for r in rated]
        mean[d] = sum(values) / len(values) if values else None
        counts = Counter(values)
        distribution[d] = {str(k): counts.get(k, 0) for k in range(1, 6)}
    attribution = Counter(r["attributed_to"] for r in rated if r["failing"])
    return {
        "uia": uia.get("score"),
        "rated": len(rated),
        "errors": len(rows) - len(rated),
        "mean": mean,
        "distribution": distribution,
        "failing": sum(1 for r in rated if r["failing"]),
        "attribution": {d: attribution.get(d, 0) for d in ATTRIBUTION_ORDER},
    }

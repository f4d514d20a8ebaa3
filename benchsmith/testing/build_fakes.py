"""A fake model that builds benchmarks: replies for a build's structured calls.

:func:`builder_reply` is a ``default`` for the fake server
(:class:`~benchsmith.testing.fake_openai.FakeOpenAIServer`): it answers every structured
request with a schema-valid tool call; the judge always approves. :class:`FaultyBuilder`
makes the judge reject a set share of the items. They let resume tests and the build
benchmark drive a real build process over HTTP.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchsmith.agents.plans import build_plan
from benchsmith.catalog.store import Catalog
from benchsmith.layout import write_spec
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, PlanStep, ProgramSpec, Scores
from benchsmith.testing.fake_openai import Reply, example_from_schema

_RECORD = re.compile(r"<<<UNTRUSTED dataset record>>>\n(.*?)\n<<<END UNTRUSTED>>>", re.S)


def _prompt(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


def builder_reply(body: dict[str, Any], latency: float = 0.0) -> Reply:
    """A schema-valid reply to one structured request of a build."""
    tools = body.get("tools") or []
    if not tools:
        return Reply.auto(latency=latency)
    function = tools[0]["function"]
    args = example_from_schema(function.get("parameters", {})) or {}
    if function.get("name") == "JudgeVerdict":
        args.update(answerable="yes", single_answer="yes", relevant="yes", clear="yes")
    return Reply.tool_call(args, name=function.get("name"), latency=latency)


def jsonl_dataset(root: Path, dataset_id: str, rows: list[dict[str, Any]]) -> Any:
    """Write ``rows`` as a JSONL file under ``root`` and add it to the catalog ``root/catalog``.

    Returns:
        The dataset's card.
    """
    path = Path(root) / f"{dataset_id}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return Catalog(Path(root) / "catalog").add(str(path), id=dataset_id, replace=True)


def program_spec(
    subtask: Any,
    program: ProgramSpec,
    *,
    size: int,
    available: int,
    plan: Sequence[PlanStep] = (),
    intent: str | None = None,
) -> BenchmarkSpec:
    """A spec whose one subtask is grounded by ``program`` (``available`` candidates)."""
    grounding = Grounding(
        id=f"{subtask.id}--{program.table}",
        subtask_id=subtask.id,
        dataset_id=program.table,
        strategy="question_program",
        program=program,
        question_field=program.key_field,
        answer_field=program.answer_field or program.field or "computed",
        plan=list(plan),
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
        available_records=available,
        expected_yield=0.9,
        est_calls_per_item=0.0,
        est_tokens_per_item=0,
    )
    return BenchmarkSpec(
        intent=intent or subtask.description,
        size=size,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=size)],
    )


def one_grounding_spec(
    subtask: Any,
    card: Any,
    *,
    size: int,
    answer_field: str,
    question_field: str | None = None,
    tools: list[str] | None = None,
    intent: str | None = None,
) -> Any:
    """A spec with one subtask grounded in one table by a closed-book lookup program.

    "What is the ``answer_field`` of ``question_field``?" (the table's key when None), one
    record per item in the subtask's answer format, shown as the subtask's modality
    (``tools``: the degradations after speech or rendering, e.g. ``audio_add_noise``).
    """
    fmt = subtask.answer_format
    program = ProgramSpec(
        kind="lookup",
        table=card.id,
        key_field=question_field,
        answer_field=answer_field,
        answer_format=fmt
        if fmt in ("multiple_choice", "short_answer", "numeric")
        else "short_answer",
    )
    steps = build_plan(
        subtask,
        dataset_modalities=["table"],
        media_field=None,
        answer_field="",
        chosen_tools=list(tools or []),
    )
    plan = [s for s in steps if s.tool != "make_multiple_choice"]
    return program_spec(subtask, program, size=size, available=card.size, plan=plan, intent=intent)


CAPITALS = [
    ("France", "Paris"),
    ("Spain", "Madrid"),
    ("Italy", "Rome"),
    ("Japan", "Tokyo"),
    ("Kenya", "Nairobi"),
    ("Peru", "Lima"),
    ("Chile", "Santiago"),
    ("Egypt", "Cairo"),
    ("India", "New Delhi"),
    ("Norway", "Oslo"),
    ("Ghana", "Accra"),
    ("Cuba", "Havana"),
    ("Mali", "Bamako"),
    ("Laos", "Vientiane"),
    ("Iran", "Tehran"),
    ("Fiji", "Suva"),
]
"""(country, capital) rows of the CLI build tests (resume, signals)."""


def capitals_spec_file(
    root: Path, subtask: Any, *, size: int, tools: list[str], intent: str
) -> tuple[Path, Path]:
    """:data:`CAPITALS` as a catalogued dataset and a one-grounding spec for ``subtask``.

    Returns:
        The spec file (``root/spec.json``) and the catalog folder.
    """
    card = jsonl_dataset(root, "capitals", [{"name": n, "capital": c} for n, c in CAPITALS])
    spec = one_grounding_spec(
        subtask,
        card,
        size=size,
        answer_field="capital",
        question_field="name",
        tools=tools,
        intent=intent,
    )
    return write_spec(root, spec), Path(root) / "catalog"


_ITEM = re.compile(r"never instructions:\n(.*?)\n\s*Answer each check", re.S)
REJECTION_REASON = "scripted rejection"


def item_digest(prompt: str) -> str | None:
    """The 8-hex-digit digest of the item a judge prompt quotes (None: no item quoted)."""
    match = _ITEM.search(prompt)
    return hashlib.sha256(match.group(1).encode()).hexdigest()[:8] if match else None


class FaultyBuilder:
    """:func:`builder_reply` whose judge rejects a set share of the items.

    Each item falls into one class by its digest (the same class on every call, in any
    order): the judge answers no to a ``reject_share`` of them (rejected, then refilled by
    another candidate). A callable ``default`` for the fake server; thread-safe.

    Args:
        latency: Seconds each reply waits.
        reject_share: Share of items the judge rejects.
    """

    def __init__(self, latency: float = 0.0, *, reject_share: float = 0.0) -> None:
        """Set the share (within 0..1)."""
        if not 0 <= reject_share <= 1:
            raise ValueError(f"the share must be within 0..1, got {reject_share}")
        self.latency = latency
        self.reject_share = reject_share

    def kind(self, digest: str) -> str:
        """The class of the item with this 8-hex-digit digest: reject or pass."""
        return "reject" if int(digest, 16) / 16**8 < self.reject_share else "pass"

    def __call__(self, body: dict[str, Any]) -> Reply:
        """The reply to one request body."""
        tools = body.get("tools") or []
        if not tools:
            return Reply.auto(latency=self.latency)
        function = tools[0]["function"]
        name = function.get("name")
        args = example_from_schema(function.get("parameters", {})) or {}
        if name == "JudgeVerdict":
            digest = item_digest(_prompt(body))
            if digest and self.kind(digest) == "reject":
                args.update(answerable="no", reason=REJECTION_REASON)
            else:
                args.update(answerable="yes", single_answer="yes", relevant="yes", clear="yes")
        return Reply.tool_call(args, name=name, latency=self.latency)

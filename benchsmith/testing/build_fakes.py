"""A fake model that builds benchmarks: replies for the executor's structured calls.

:func:`builder_reply` is a ``default`` for the fake server
(:class:`~benchsmith.testing.fake_openai.FakeOpenAIServer`): it answers every structured
request with a schema-valid tool call, and gives the orchestration decision a question
made from the record quoted in the prompt (so items from different records differ and pass
the duplicate check). The judge always approves. It lets resume tests and the build
benchmark drive a real build process over HTTP.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import Any

from benchsmith.agents.plans import build_plan
from benchsmith.catalog.store import Catalog
from benchsmith.layout import write_spec
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, Scores
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


def question_for(prompt: str) -> str:
    """A question naming the record quoted in an orchestration prompt."""
    match = _RECORD.search(prompt)
    record = match.group(1) if match else prompt
    first = record.splitlines()[0] if record else "record"
    digest = hashlib.sha256(record.encode()).hexdigest()[:8]
    return f"Which value belongs to {first[:80]} (record {digest})?"


def builder_reply(body: dict[str, Any], latency: float = 0.0) -> Reply:
    """A schema-valid reply to one structured request of a build."""
    tools = body.get("tools") or []
    if not tools:
        return Reply.auto(latency=latency)
    function = tools[0]["function"]
    args = example_from_schema(function.get("parameters", {})) or {}
    if function.get("name") == "SampleDecision":
        args["question"] = question_for(_prompt(body))
    return Reply.tool_call(args, name=function.get("name"), latency=latency)


def jsonl_dataset(root: Path, dataset_id: str, rows: list[dict[str, Any]]) -> Any:
    """Write ``rows`` as a JSONL file under ``root`` and add it to the catalog ``root/catalog``.

    Returns:
        The dataset's card.
    """
    path = Path(root) / f"{dataset_id}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return Catalog(Path(root) / "catalog").add(str(path), id=dataset_id, replace=True)


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
    """A spec with one subtask grounded in one dataset, its plan built like the planner's."""
    modalities = [m for m in card.modalities if m != "table"] or ["text"]
    media = next((f.path for f in card.fields if f.modality in ("image", "audio")), None)
    plan = build_plan(
        subtask,
        dataset_modalities=modalities,
        media_field=media,
        answer_field=answer_field,
        chosen_tools=list(tools or []),
    )
    grounding = Grounding(
        id=f"{subtask.id}--{card.id}",
        subtask_id=subtask.id,
        dataset_id=card.id,
        question_field=question_field,
        answer_field=answer_field,
        plan=plan,
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
        available_records=card.size,
    )
    return BenchmarkSpec(
        intent=intent or subtask.description,
        size=size,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=size)],
    )


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


_DIGEST = re.compile(r"\(record ([0-9a-f]{8})\)")
REJECTION_REASON = "scripted rejection"


class FaultyBuilder:
    """:func:`builder_reply` with a set share of fixes and rejections by the judge.

    Each record falls into one class by its digest (the same class on every call, in any
    order): the judge answers no to a ``reject_share`` of records on every attempt (rejected
    once the fixes are spent, then refilled) and to a ``fix_share`` on the first judging only
    (accepted after one fix; once per model name, so builds that share a server under
    different model names each meet their fixes). A fix is worded differently (the prompt
    carries the judge's reason), so its judging is a new request, not a replay of the first.
    Duplicates come from the data: records that repeat another's fields get the same
    question. A callable ``default`` for the fake server; thread-safe.

    Args:
        latency: Seconds each reply waits.
        fix_share: Share of records the judge rejects once.
        reject_share: Share of records the judge always rejects.
    """

    def __init__(
        self, latency: float = 0.0, *, fix_share: float = 0.0, reject_share: float = 0.0
    ) -> None:
        """Set the shares (each within 0..1, summing to at most 1)."""
        if not (0 <= fix_share <= 1 and 0 <= reject_share <= 1 and fix_share + reject_share <= 1):
            raise ValueError(
                f"shares must be within 0..1 and sum to at most 1, got {fix_share}, {reject_share}"
            )
        self.latency = latency
        self._cuts = (reject_share, reject_share + fix_share)
        self._judged: set[str] = set()
        self._lock = threading.Lock()

    def kind(self, digest: str) -> str:
        """The class of the record with this 8-hex-digit digest: reject, fix or pass."""
        u = int(digest, 16) / 16**8
        reject, fix = self._cuts
        if u < reject:
            return "reject"
        return "fix" if u < fix else "pass"

    def __call__(self, body: dict[str, Any]) -> Reply:
        """The reply to one request body."""
        tools = body.get("tools") or []
        if not tools:
            return Reply.auto(latency=self.latency)
        function = tools[0]["function"]
        name = function.get("name")
        args = example_from_schema(function.get("parameters", {})) or {}
        prompt = _prompt(body)
        if name == "SampleDecision":
            question = question_for(prompt)
            if REJECTION_REASON in prompt:
                question = question.replace("Which value belongs to", "What value goes with")
            args["question"] = question
        elif name == "JudgeVerdict":
            digest = _DIGEST.search(prompt)
            kind = self.kind(digest.group(1)) if digest else "pass"
            if digest and kind == "fix":
                # Per model name: one server may serve several builds (one name each).
                key = f"{body.get('model', '')}/{digest.group(1)}"
                with self._lock:
                    first = key not in self._judged
                    self._judged.add(key)
                kind = "reject" if first else "pass"
            if kind == "reject":
                args.update(answerable="no", reason=REJECTION_REASON)
            else:
                args.update(answerable="yes", single_answer="yes", relevant="yes", clear="yes")
        return Reply.tool_call(args, name=name, latency=self.latency)

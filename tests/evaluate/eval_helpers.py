"""Helpers of the evaluation tests: hand-made benchmark folders and a scripted model runtime."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from benchsmith.config import RunConfig
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, Scores, Subtask
from benchsmith.testing.fake_chat import ScriptedChatModel


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


def mc(item_id, question, choices, target, subtask="capitals", skills=("geography",), **meta):
    return {
        "id": item_id,
        "input": question,
        "choices": list(choices),
        "target": target,
        "metadata": {
            "subtask": subtask,
            "answer_format": "multiple_choice",
            "skills": list(skills),
            "difficulty": meta.pop("difficulty", "easy"),
            "modalities": ["text"],
            **meta,
        },
    }


def free(item_id, question, target, fmt, subtask="free", **meta):
    return {
        "id": item_id,
        "input": question,
        "target": target,
        "metadata": {
            "subtask": subtask,
            "answer_format": fmt,
            "skills": ["recall"],
            "difficulty": "medium",
            **meta,
        },
    }


def image_item(item_id, target="A"):
    return {
        "id": item_id,
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Which digit is shown?"},
                    {"type": "image", "image": f"media/{item_id}.png"},
                ],
            }
        ],
        "choices": ["1", "7"],
        "target": target,
        "metadata": {
            "subtask": "digits",
            "answer_format": "multiple_choice",
            "skills": ["vision"],
            "difficulty": "hard",
            "modalities": ["text", "image"],
        },
    }


CAPITALS = [
    mc("q1", "What is the capital of France?", ["Paris", "Rome", "Oslo"], "A"),
    mc("q2", "What is the capital of Italy?", ["Paris", "Rome", "Oslo"], "B"),
    mc("q3", "What is the capital of Norway?", ["Paris", "Rome", "Oslo"], "C", difficulty="hard"),
    mc(
        "q4",
        "What is the capital of Peru?",
        ["Lima", "Quito"],
        "A",
        skills=["geography", "americas"],
    ),
]


def write_bench(root: Path, rows: list[dict], *, images: bool = False) -> Path:
    bench = root / "bench"
    (bench / "data").mkdir(parents=True, exist_ok=True)
    (bench / "data" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (bench / "media").mkdir(exist_ok=True)
    for row in rows:
        if isinstance(row["input"], list):
            (bench / "media" / f"{row['id']}.png").write_bytes(tiny_png())
    subtask_ids = sorted({r["metadata"]["subtask"] for r in rows})
    spec = BenchmarkSpec(
        intent="capitals of countries",
        size=len(rows),
        subtasks=[
            Subtask(id=s, name=s.title(), description=f"The {s} subtask.", skills=["geography"])
            for s in subtask_ids
        ],
        groundings=[
            Grounding(
                id=f"{s}--data",
                subtask_id=s,
                dataset_id="data",
                answer_field="answer",
                available_records=10,
                scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
            )
            for s in subtask_ids
        ],
        allocations=[
            Allocation(
                grounding_id=f"{s}--data",
                quota=sum(1 for r in rows if r["metadata"]["subtask"] == s),
            )
            for s in subtask_ids
        ],
    )
    (bench / "spec.json").write_text(spec.model_dump_json())
    return bench


def install_fake(config: RunConfig, script, *, judge_source: str = "test"):
    """Every role on a scripted fake; returns (runtime, fake)."""
    fake = ScriptedChatModel(script=script if isinstance(script, list) else [script],
                             repeat_last=True)  # fmt: skip
    spec = parse_model_spec("local", env={})
    models = {r: ResolvedModel(r, spec, judge_source if r == "judge" else "test") for r in ROLES}
    runtime = LLMRuntime(
        models=models,
        records=RunRecords(config.paths.run_dir),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    register_runtime(config, runtime)
    return runtime, fake


def last_user_text(messages) -> str:
    for m in reversed(messages):
        if m.type == "human":
            content = m.content
            if isinstance(content, str):
                return content
            return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return ""

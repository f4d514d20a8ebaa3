"""Helpers of the evaluation tests: hand-made benchmark folders and a scripted model runtime."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, ProgramSpec, Scores, Subtask
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
                question_field="name",
                answer_field="answer",
                strategy="question_program",
                program=ProgramSpec(
                    kind="lookup", table="data", key_field="name", answer_field="answer"
                ),
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


# -- a benchmark for the report: text, image, audio, short answer, hostile text ------------
HOSTILE_QUESTION = "What is the capital of <script>alert(1)</script> France?"


def _digit_png(digit: str) -> bytes:
    import io

    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("RGB", (120, 90), (250, 250, 250))
    draw = ImageDraw.Draw(picture)
    draw.rectangle((2, 2, 117, 87), outline=(60, 90, 160), width=3)
    draw.text((60, 45), digit, fill=(20, 20, 20), anchor="mm", font=ImageFont.load_default(70))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def _tone_wav(hz: float) -> bytes:
    import io
    import math
    import wave

    rate = 8000
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * k / rate))) for k in range(rate)
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return buffer.getvalue()


def media_item(item_id, kind, question, choices, target, subtask):
    part = (
        {"type": "image", "image": f"media/{item_id}.png"}
        if kind == "image"
        else {"type": "audio", "audio": f"media/{item_id}.wav", "format": "wav"}
    )
    return {
        "id": item_id,
        "input": [{"role": "user", "content": [{"type": "text", "text": question}, part]}],
        "choices": list(choices),
        "target": target,
        "metadata": {
            "subtask": subtask,
            "answer_format": "multiple_choice",
            "skills": ["vision" if kind == "image" else "listening"],
            "difficulty": "medium",
            "modalities": ["text", kind],
        },
    }


DIGITS = {
    "dig-1": ("1", ["1", "7"], "A"),
    "dig-2": ("7", ["1", "7"], "B"),
    "dig-3": ("3", ["3", "8"], "A"),
    "dig-4": ("8", ["3", "8"], "B"),
}
"""Image items: the digit drawn, the choices and the letter of the right one."""

REPORT_ROWS = [
    mc("cap-1", "What is the capital of France?", ["Paris", "Rome", "Oslo"], "A"),
    mc("cap-2", HOSTILE_QUESTION, ["Paris", "Rome"], "A"),
    mc("cap-3", "What is the capital of Norway?", ["Paris", "Rome", "Oslo"], "C",
       difficulty="hard"),
    # Every model answers Sydney: the item no model solves.
    mc("cap-4", "Which city is the capital of Australia?",
       ["Sydney", "Melbourne", "Perth", "Canberra"], "D", difficulty="hard"),
    free("cap-5", "What is the capital of Peru?", "Lima", "short_answer", subtask="capitals"),
    *[
        media_item(i, "image", "Which digit is shown in the image?", choices, t, "digits")
        for i, (_d, choices, t) in DIGITS.items()
    ],
    media_item("say-1", "audio", "Listen: which word is spoken?", ["yes", "no"], "A", "spoken"),
    media_item("say-2", "audio", "Listen: which word is spoken?", ["left", "right"], "B", "spoken"),
]  # fmt: skip

TEXT_ANSWERS = {"France": "ANSWER: A", "Norway": "ANSWER: C", "Australia": "ANSWER: A",
                "Peru": "Lima"}  # fmt: skip


def write_report_bench(root: Path) -> Path:
    """An 11-item folder in three subtasks, with real PNG pictures and WAV recordings."""
    bench = write_bench(root, REPORT_ROWS)
    for item_id, (digit, _choices, _letter) in DIGITS.items():
        (bench / "media" / f"{item_id}.png").write_bytes(_digit_png(digit))
    for k, item_id in enumerate(("say-1", "say-2")):
        (bench / "media" / f"{item_id}.png").unlink(missing_ok=True)
        (bench / "media" / f"{item_id}.wav").write_bytes(_tone_wav(440 + 220 * k))
    return bench


def report_models(base_url: str) -> list[str]:
    """Two baselines, a model that sees images (not audio) and a text-only one."""
    return ["baseline:random", "baseline:first", f"vision@{base_url}", f"text-only@{base_url}"]


def report_endpoint(bench: Path):
    """The fake endpoint's reply function for :func:`report_models`.

    ``vision`` reads the pictures (it knows which file shows which digit, and misreads
    ``dig-4``) and refuses audio; ``text-only`` refuses any media. Both know some capitals.
    """
    import base64

    from benchsmith.testing.fake_openai import Reply

    letters = {}  # base64 of each picture -> the letter `vision` answers
    for item_id, (_digit, _choices, letter) in DIGITS.items():
        data = base64.b64encode((bench / "media" / f"{item_id}.png").read_bytes()).decode()
        letters[data] = "A" if item_id == "dig-4" else letter  # dig-4 (target B) is misread

    def reply(body):
        model = body.get("model")
        parts = [
            p
            for m in body.get("messages", [])
            if isinstance(m.get("content"), list)
            for p in m["content"]
        ]
        text = " ".join(
            m["content"] if isinstance(m.get("content"), str) else "" for m in body["messages"]
        ) + " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
        kinds = {p.get("type") for p in parts} - {"text"}
        if kinds and (model == "text-only" or "input_audio" in kinds):
            return Reply.status(400, message="this model takes text only")
        latency = 0.01 if model == "text-only" else 0.02 + 0.01 * (len(text) % 4)
        for part in parts:
            if part.get("type") == "image_url":
                data = part["image_url"]["url"].split(",", 1)[1]
                return Reply.text(f"ANSWER: {letters.get(data, 'A')}", latency=latency)
        for country, answer in TEXT_ANSWERS.items():
            if country in text:
                if model == "text-only" and country == "Norway":
                    answer = "I think it is ANSWER: A"
                return Reply.text(answer, latency=latency)
        return Reply.text("ANSWER: A", latency=latency)

    return reply


def evaluate_report_bench(bench: Path, run_dir: Path):
    """Evaluate :func:`write_report_bench`'s folder with :func:`report_models`.

    Returns:
        The :class:`~benchsmith.evaluate.api.EvalResult` and the model specs.
    """
    from benchsmith.config import Price
    from benchsmith.evaluate.api import evaluate_benchmark
    from benchsmith.testing.fake_openai import FakeOpenAIServer
    from benchsmith.testing.runtime import endpoint_runtime

    config = RunConfig(paths=RunPaths(run_dir=str(run_dir)))
    with FakeOpenAIServer(default=report_endpoint(bench)) as server:
        runtime = endpoint_runtime(
            server.base_url,
            run_dir=config.paths.run_dir,
            max_retries=0,
            prices={"vision": Price(input=0.15, output=0.6)},
        )
        register_runtime(config, runtime)
        try:
            models = report_models(server.base_url)
            result = evaluate_benchmark(bench, models, config=config, concurrency=2)
        finally:
            register_runtime(config, None)
    return result, models

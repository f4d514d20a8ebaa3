"""One prompt for every harness: Inspect, lm-eval and ``benchsmith eval`` send the same messages.

For one item of each answer format (and an image and an audio item), the messages are
rendered by each harness's real code path:

- the exported Inspect task: the generated ``inspect_task.py`` loaded as a module, its task
  built, each sample run through the task's solver chain (with a ``generate`` that records
  what it would send), then converted by Inspect's own OpenAI message conversion;
- the exported lm-eval task: loaded by lm-eval's ``TaskManager`` from ``--include_path``,
  each document's context built by ``Task.fewshot_context`` with and without the chat
  template of lm-eval's ``local-chat-completions`` model;
- ``benchsmith eval``: the request bodies a fake OpenAI-compatible server receives.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import wave
from pathlib import Path

import pytest
from PIL import Image

from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate.api import evaluate_benchmark
from benchsmith.item import Item
from benchsmith.llm.registry import register_runtime
from benchsmith.package.inspect_export import task_name, write_inspect_task
from benchsmith.package.item_prompt import INSTRUCTIONS, MC_TEMPLATE
from benchsmith.package.lmeval_export import write_lmeval_task
from benchsmith.spec import ANSWER_FORMATS, BenchmarkSpec
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply
from benchsmith.testing.runtime import endpoint_runtime


def _meta(fmt: str, **extra) -> dict:
    return {"subtask": fmt, "answer_format": fmt, "language": "en", **extra}


def _user(*parts: dict) -> list[dict]:
    return [{"role": "user", "content": list(parts)}]


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


TEXT_ITEMS = [
    {
        "id": "mc",
        "input": "Which planet is the largest?",
        "choices": ["Mars", "Jupiter", "Venus"],
        "target": "B",
        "metadata": _meta("multiple_choice"),
    },
    {
        "id": "short",
        "input": "  What is the capital of France?\n",
        "target": "Paris",
        "metadata": _meta("short_answer"),
    },
    {
        "id": "num",
        "input": _user(_text("What is 12 times 12?")),
        "target": "144",
        "metadata": _meta("numeric", tolerance=0.0),
    },
    {
        "id": "open",
        "input": "Why is the sky blue?",
        "target": "Rayleigh scattering",
        "metadata": _meta("open"),
    },
]
MEDIA_ITEMS = [
    {
        "id": "img",
        "input": _user({"type": "image", "image": "media/red.png"}, _text("What color is it?")),
        "choices": ["Red", "Green"],
        "target": "A",
        "metadata": _meta("multiple_choice", modalities=["text", "image"]),
    },
    {
        "id": "aud",
        "input": _user(
            _text("Answer the spoken question."),
            {"type": "audio", "audio": "media/q.wav", "format": "wav"},
        ),
        "target": "4",
        "metadata": _meta("short_answer", modalities=["text", "audio"]),
    },
]
ITEMS = TEXT_ITEMS + MEDIA_ITEMS


def make_spec() -> BenchmarkSpec:
    scores = {"intent_alignment": 0.9, "robustness": 0.9, "signal_preservation": 0.9}
    return BenchmarkSpec(
        intent="One item of each answer format, to compare the harnesses' prompts.",
        size=len(ANSWER_FORMATS),
        subtasks=[
            {"id": f, "name": f, "description": f"{f} items.", "answer_format": f}
            for f in ANSWER_FORMATS
        ],
        groundings=[
            {
                "id": f"g-{f}",
                "subtask_id": f,
                "dataset_id": "hand-made",
                "question_field": "name",
                "answer_field": "answer",
                "strategy": "question_program",
                "program": {
                    "kind": "lookup",
                    "table": "hand-made",
                    "key_field": "name",
                    "answer_field": "answer",
                    # A program words open questions as short answers.
                    "answer_format": "short_answer" if f == "open" else f,
                },
                "scores": scores,
                "available_records": 10,
            }
            for f in ANSWER_FORMATS
        ],
        allocations=[{"grounding_id": f"g-{f}", "quota": 1} for f in ANSWER_FORMATS],
    )


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    bench = tmp_path_factory.mktemp("one-prompt") / "one-prompt"
    (bench / "media").mkdir(parents=True)
    Image.new("RGB", (8, 8), (220, 20, 20)).save(bench / "media" / "red.png")
    with wave.open(str(bench / "media" / "q.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 800)
    (bench / "data").mkdir()
    lines = [json.dumps(Item.model_validate(i).model_dump(mode="json")) for i in ITEMS]
    (bench / "data" / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = make_spec()
    (bench / "spec.json").write_text(spec.model_dump_json(), encoding="utf-8")
    write_inspect_task(bench, spec)
    assert write_lmeval_task(bench, spec).n_items == len(TEXT_ITEMS)
    return bench


def _drop_detail(messages: list[dict]) -> list[dict]:
    """Inspect adds ``"detail": "auto"`` to image parts (OpenAI's default); benchsmith omits it."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [
                {**p, "image_url": {"url": p["image_url"]["url"]}}
                if p["type"] == "image_url"
                else p
                for p in content
            ]
        out.append({"role": message["role"], "content": content})
    return out


def benchsmith_eval_messages(bench: Path, tmp_path: Path) -> dict[str, list[dict]]:
    """What ``benchsmith eval`` sends for each item, as a fake endpoint receives it."""
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    with FakeOpenAIServer(default=Reply.text("ANSWER: A")) as server:
        register_runtime(
            config, endpoint_runtime(server.base_url, run_dir=config.paths.run_dir, max_retries=0)
        )
        try:
            result = evaluate_benchmark(
                bench, [f"fake-model@{server.base_url}"], config=config, concurrency=1
            )
        finally:
            register_runtime(config, None)
        bodies = [r.body for r in server.chat_requests()]
    assert {s["status"] for s in result.samples} == {"answered"}
    # One worker asks the items in order; then the judge role (every role is the fake
    # endpoint here) grades the open answer.
    asked = bodies[: len(ITEMS)]
    assert not any("response_format" in b or "tools" in b for b in asked)
    return {item["id"]: body["messages"] for item, body in zip(ITEMS, asked, strict=True)}


def inspect_messages(bench: Path) -> dict[str, list[dict]]:
    """What the exported Inspect task sends: its samples through its solvers, as OpenAI JSON."""
    from inspect_ai._eval.task.images import capture_task_input_media, materialize_sample_input
    from inspect_ai._eval.task.util import sample_messages
    from inspect_ai.model import ModelName, messages_to_openai
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    spec = importlib.util.spec_from_file_location("one_prompt_task", bench / "inspect_task.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task = getattr(module, task_name(bench, make_spec()))()
    sent: dict[str, list[dict]] = {}

    async def run(sample) -> None:
        # As Inspect's task runner does: media paths authorized before the run become data URIs.
        sample = await materialize_sample_input(sample, capture_task_input_media([sample]))
        state = TaskState(
            model=ModelName("openai-api/local/x"),
            sample_id=sample.id,
            epoch=1,
            input=sample.input,
            messages=sample_messages(sample),
            target=Target(sample.target),
            choices=sample.choices,
            metadata=sample.metadata,
        )

        async def generate(state, **_kwargs):
            sent[str(sample.id)] = [dict(m) for m in await messages_to_openai(state.messages)]
            return state

        await task.solver(state, generate)

    async def run_all() -> None:
        for sample in task.dataset:
            await run(sample)

    asyncio.run(run_all())
    return sent


def lmeval_messages(bench: Path, monkeypatch, tmp_path) -> dict[str, tuple[list[dict], str]]:
    """What the exported lm-eval task sends, with --apply_chat_template and without."""
    import datasets
    from lm_eval.models.openai_completions import LocalChatCompletion
    from lm_eval.tasks import TaskManager

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    name = task_name(bench, make_spec())
    manager = TaskManager(include_path=str(bench / "lmeval"), include_defaults=False)
    task = manager.load([name])["tasks"][name]
    assert task.config.doc_to_choice is None and not task.config.description
    chat = LocalChatCompletion(
        model="x",
        base_url="http://127.0.0.1:9/v1/chat/completions",
        tokenizer_backend=None,
        tokenized_requests=False,
    )
    out = {}
    for doc in task.test_docs():
        with_template = task.fewshot_context(
            doc, 0, apply_chat_template=True, chat_template=chat.apply_chat_template
        )
        plain = task.fewshot_context(doc, 0)
        assert task.doc_to_text(doc) == plain
        out[doc["id"]] = (json.loads(with_template.prompt), plain)
    return out


def test_every_harness_sends_the_same_messages(bench, tmp_path, monkeypatch):
    assert {i["metadata"]["answer_format"] for i in TEXT_ITEMS} == set(ANSWER_FORMATS)
    ours = benchsmith_eval_messages(bench, tmp_path)
    theirs = inspect_messages(bench)
    lmeval = lmeval_messages(bench, monkeypatch, tmp_path)

    assert set(theirs) == set(ours) == {i["id"] for i in ITEMS}
    for item_id, messages in ours.items():
        assert _drop_detail(theirs[item_id]) == messages, item_id
    assert set(lmeval) == {i["id"] for i in TEXT_ITEMS}  # lm-eval takes text only
    for item_id, (chat_messages, plain) in lmeval.items():
        assert chat_messages == ours[item_id], item_id
        (message,) = ours[item_id]
        assert plain == message["content"], item_id

    # The rendering itself: one user message, no system message.
    assert all([m["role"] for m in messages] == ["user"] for messages in ours.values())
    text = {i: m[0]["content"] for i, m in ours.items() if isinstance(m[0]["content"], str)}
    assert text["mc"] == MC_TEMPLATE.format(
        letters="A,B,C",
        question="Which planet is the largest?",
        choices="A) Mars\nB) Jupiter\nC) Venus",
    )
    assert text["short"] == f"What is the capital of France?\n\n{INSTRUCTIONS['short_answer']}"
    assert text["num"] == f"What is 12 times 12?\n\n{INSTRUCTIONS['numeric']}"
    assert text["open"] == "Why is the sky blue?"
    image_parts = ours["img"][0]["content"]
    assert [p["type"] for p in image_parts] == ["image_url", "text"]
    assert image_parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert image_parts[1]["text"].startswith("Answer the following multiple choice question")
    assert image_parts[1]["text"].endswith("What color is it?\n\nA) Red\nB) Green")
    audio_parts = ours["aud"][0]["content"]
    assert [p["type"] for p in audio_parts] == ["text", "input_audio"]
    assert audio_parts[0]["text"] == (
        f"Answer the spoken question.\n\n{INSTRUCTIONS['short_answer']}"
    )
    assert audio_parts[1]["input_audio"]["format"] == "wav"

"""Integration: a hand-built benchmark folder's exports, run by their real consumers, offline.

The folder holds six items with real media (a Pillow PNG, espeak-ng WAVs): three text-only
(short answer, multiple choice, numeric as chat parts), one image multiple-choice item, one
audio short-answer item and one with both image and audio. Each consumer runs as a
subprocess from another working directory against the embedded model (SmolLM2-135M through
llama.cpp's OpenAI-compatible server):

- ``datasets.load_dataset(BENCH)`` reads every item through the card's ``configs:``: the
  Hugging Face split by default (media decoded), the Inspect-style items as ``inspect``;
- ``inspect eval`` runs every item through ``inspect_task.py``;
- ``lm_eval`` runs exactly the text-only items through ``lmeval/``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from PIL import Image

from benchsmith.item import Item
from benchsmith.llm.local import local_server, server_available
from benchsmith.package.card import card_stats, render_card
from benchsmith.package.hf_export import write_hf_split
from benchsmith.package.inspect_export import task_name, write_inspect_task
from benchsmith.package.lmeval_export import LmEvalExport, write_lmeval_task
from benchsmith.spec import BenchmarkSpec
from benchsmith.testing.local_build import offline_env, run_checked
from benchsmith.tools.context import ToolContext
from benchsmith.tools.registry import run_tool

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

BIN = Path(sys.executable).parent
MODEL = "smollm2"
TEXT_IDS = {"cap-1", "pla-1", "num-1"}
MEDIA_IDS = {"img-1", "aud-1", "both-1"}
SUBTASKS = [
    ("capitals", "short_answer", ["text"]),
    ("planets", "multiple_choice", ["text"]),
    ("arithmetic", "numeric", ["text"]),
    ("colors", "multiple_choice", ["text", "image"]),
    ("spoken", "short_answer", ["text", "audio"]),
    ("both", "short_answer", ["text", "image", "audio"]),
]


def make_spec() -> BenchmarkSpec:
    scores = {"intent_alignment": 0.9, "robustness": 0.9, "signal_preservation": 0.9}
    return BenchmarkSpec(
        intent="A tiny mixed-modality benchmark: capitals, planets, sums, colors and speech.",
        size=len(SUBTASKS),
        subtasks=[
            {
                "id": sid,
                "name": sid.title(),
                "description": f"The {sid} subtask.",
                "answer_format": fmt,
                "input_modalities": mods,
                "languages": ["en"],
            }
            for sid, fmt, mods in SUBTASKS
        ],
        groundings=[
            {
                "id": f"g-{sid}",
                "subtask_id": sid,
                "dataset_id": "hand-made",
                "question_field": "name",
                "answer_field": "answer",
                "strategy": "question_program",
                "program": {
                    "kind": "lookup",
                    "table": "hand-made",
                    "key_field": "name",
                    "answer_field": "answer",
                    "answer_format": fmt,
                },
                "scores": scores,
                "available_records": 10,
            }
            for sid, fmt, _ in SUBTASKS
        ],
        allocations=[{"grounding_id": f"g-{sid}", "quota": 1} for sid, _, _ in SUBTASKS],
    )


def _meta(subtask: str, fmt: str, mods: list[str], **extra) -> dict:
    return {
        "subtask": subtask,
        "answer_format": fmt,
        "modalities": mods,
        "difficulty": "easy",
        "skills": ["recall"],
        "language": "en",
        "trace": [{"tool": "hand", "params": {"n": 1}}],
        **extra,
    }


def _user(*parts: dict) -> list[dict]:
    return [{"role": "user", "content": list(parts)}]


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def build_items() -> list[Item]:
    image = {"type": "image", "image": "media/red.png"}
    return [
        Item(
            id="cap-1",
            input="What is the capital of France?",
            target="Paris",
            metadata=_meta("capitals", "short_answer", ["text"]),
        ),
        Item(
            id="pla-1",
            input="Which planet is the largest?",
            choices=["Mars", "Jupiter", "Venus"],
            target="B",
            metadata=_meta("planets", "multiple_choice", ["text"]),
        ),
        Item(
            id="num-1",
            input=_user(_text("What is 12 times 12?")),
            target="144",
            metadata=_meta("arithmetic", "numeric", ["text"], tolerance=0.0),
        ),
        Item(
            id="img-1",
            input=_user(image, _text("What color is this square?")),
            choices=["Red", "Green", "Blue"],
            target="A",
            metadata=_meta("colors", "multiple_choice", ["text", "image"]),
        ),
        Item(
            id="aud-1",
            input=_user(
                _text("Answer the spoken question."),
                {"type": "audio", "audio": "media/q.wav", "format": "wav"},
            ),
            target="4",
            metadata=_meta("spoken", "short_answer", ["text", "audio"]),
        ),
        Item(
            id="both-1",
            input=_user(
                image,
                {"type": "audio", "audio": "media/c.wav", "format": "wav"},
                _text("Answer the spoken question about the image."),
            ),
            target="red",
            metadata=_meta("both", "short_answer", ["text", "image", "audio"]),
        ),
    ]


def build_bench(root: Path) -> tuple[Path, BenchmarkSpec, LmEvalExport]:
    """The benchmark folder, its card and both exports, as the writer would leave them."""
    bench = root / "tiny-mixed"
    media = bench / "media"
    media.mkdir(parents=True)
    Image.new("RGB", (64, 64), (220, 20, 20)).save(media / "red.png")
    ctx = ToolContext(media_dir=media)
    for text, name in (("What is two plus two?", "q.wav"), ("Name this color.", "c.wav")):
        run_tool("tts_speak", {"text": text, "voice": "en-us", "output_name": name}, [], ctx)
    items = build_items()
    (bench / "data").mkdir()
    with (bench / "data" / "test.jsonl").open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item.model_dump(mode="json")) + "\n")
    spec = make_spec()
    (bench / "spec.json").write_text(spec.model_dump_json(indent=2), encoding="utf-8")
    write_inspect_task(bench, spec)
    export = write_lmeval_task(bench, spec)
    hf = write_hf_split(bench)
    stats = card_stats(
        items,
        lmeval=export,
        inspect_task=task_name(bench, spec),
        bench_name=bench.name,
        hf_files=hf.files,
    )
    (bench / "README.md").write_text(render_card(spec, stats, []), encoding="utf-8")
    return bench, spec, export


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, BenchmarkSpec, LmEvalExport]:
    return build_bench(tmp_path_factory.mktemp("consumers"))


@pytest.fixture(scope="module")
def base_url() -> str:
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    return local_server().ensure_started()


# Child processes run offline, from another working directory.
_env = offline_env
_run = run_checked


LOAD = """
import json, sys
import datasets
ds = datasets.load_dataset(sys.argv[1], "inspect", split="test")
hf = datasets.load_dataset(sys.argv[1], split="test")
hf = hf.cast_column("audio", datasets.Audio(decode=False))
print(json.dumps({
    "ids": list(ds["id"]),
    "features": {k: type(v).__name__ for k, v in ds.features.items()},
    "inputs": [row["input"] for row in ds],
    "choices": [row["choices"] for row in ds],
    "targets": list(ds["target"]),
    "subtasks": [row["metadata"]["subtask"] for row in ds],
    "hf_ids": list(hf["id"]),
    "hf_features": {k: type(v).__name__ for k, v in hf.features.items()},
    "images": [type(row["image"]).__name__ for row in hf],
    "audio": [row["audio"]["path"] if row["audio"] else None for row in hf],
    "hf_choices": list(hf["choices"]),
    "answers": list(hf["answer"]),
}))
"""


def test_datasets_loads_every_item_through_the_card(bench, tmp_path):
    bench_dir, _, _ = bench
    result = _run(
        [sys.executable, "-c", LOAD, str(bench_dir)], tmp_path / "elsewhere", _env(tmp_path)
    )
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    items = build_items()
    assert loaded["ids"] == [i.id for i in items]
    assert loaded["targets"] == [i.target for i in items]
    assert loaded["subtasks"] == [i.metadata["subtask"] for i in items]
    assert loaded["choices"] == [i.choices for i in items]
    # The inspect config stores the mixed str / chat-message `input` (and `metadata`) as
    # Json and gives back the original values.
    assert loaded["features"]["input"] == "Json"
    assert loaded["inputs"] == [i.model_dump(mode="json")["input"] for i in items]
    # The default config: the same items, the media embedded and decoded.
    assert loaded["hf_ids"] == loaded["ids"]
    assert (loaded["hf_features"]["image"], loaded["hf_features"]["audio"]) == ("Image", "Audio")
    with_image = {"img-1", "both-1"}
    assert loaded["images"] == ["PngImageFile" if i.id in with_image else "NoneType" for i in items]
    assert loaded["audio"] == [
        {"aud-1": "media/q.wav", "both-1": "media/c.wav"}.get(i.id) for i in items
    ]
    assert loaded["hf_choices"] == [i.choices or [] for i in items]
    assert loaded["answers"] == [i.answer_text() for i in items]


def test_inspect_runs_every_item_and_sends_the_media(bench, base_url, tmp_path):
    """``inspect eval`` runs all six items from another directory; each gets a score.

    Observed with the embedded model (llama-cpp-python's server, a text-only model): Inspect
    sends the image as an ``image_url`` part (a ``data:image/png;base64`` URI made from
    ``media/red.png``) and the audio as an ``input_audio`` part (wav), and the server answers
    HTTP 500 to both: ``can only concatenate str (not "list") to str`` when an image is there
    (its chat template handles only string content), ``15 validation errors`` (pydantic: no
    ``input_audio`` content type) when audio is. So the three media samples end with an error
    and, with ``--score-on-error``, a score of incorrect / no answer; the three text samples
    get a completion and a score with no error.
    """
    bench_dir, spec, _ = bench
    log_dir = tmp_path / "logs"
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    task_file = os.path.relpath(bench_dir / "inspect_task.py", cwd)  # as the card shows it
    env = _env(tmp_path, LOCAL_API_KEY="x", LOCAL_BASE_URL=base_url, INSPECT_LOG_DIR=str(log_dir))
    # fmt: off
    _run([
        str(BIN / "inspect"), "eval", task_file, "--model", f"openai-api/local/{MODEL}",
        "--max-tokens", "8", "--temperature", "0", "--max-retries", "0",
        "--no-fail-on-error", "--score-on-error", "--log-format", "json", "--display", "none",
    ], cwd, env)
    # fmt: on
    from inspect_ai.log import read_eval_log

    (log_file,) = log_dir.glob("*.json")
    log = read_eval_log(str(log_file), resolve_attachments=True)
    assert log.status == "success"
    assert log.eval.task == task_name(bench_dir, spec)
    samples = {str(s.id): s for s in log.samples}
    assert set(samples) == TEXT_IDS | MEDIA_IDS
    for sample in samples.values():
        assert "benchsmith_scorer" in (sample.scores or {}), sample.id
        assert sample.metadata["subtask"] and sample.metadata["trace"]  # passed through
    for sid in TEXT_IDS:
        assert samples[sid].error is None, samples[sid].error
        (event,) = [e for e in samples[sid].events if e.event == "model"]
        assert event.error is None and event.call.request["messages"]
        # Text-only chat parts reach the server as a plain string (llama.cpp's server
        # refuses any list content).
        assert all(isinstance(m["content"], str) for m in event.call.request["messages"])
    assert samples["pla-1"].scores["benchsmith_scorer"].value in ("C", "I", "N")
    wanted = {
        "img-1": {"image_url"},
        "aud-1": {"input_audio"},
        "both-1": {"image_url", "input_audio"},
    }
    for sid, parts in wanted.items():
        sample = samples[sid]
        assert sample.error is not None
        assert sample.scores["benchsmith_scorer"].value in ("I", "N")
        (event,) = [e for e in sample.events if e.event == "model"]
        sent = {
            p["type"]
            for m in event.call.request["messages"]
            if isinstance(m["content"], list)
            for p in m["content"]
        }
        assert parts <= sent  # the media reached the request
        media = [c for m in event.input if isinstance(m.content, list) for c in m.content]
        if "image_url" in parts:
            assert any(getattr(c, "image", "").startswith("data:image/png;base64,") for c in media)
        if "input_audio" in parts:
            assert any(getattr(c, "audio", "").startswith("data:audio/") for c in media)
        assert "Error code: 500" in event.error
        reason = "validation errors" if "input_audio" in parts else "can only concatenate str"
        assert reason in event.error


def test_inspect_modality_filter_runs_only_the_text_items(bench, base_url, tmp_path):
    """``-T modality=text`` runs the three text items of the mixed folder, nothing else.

    A text-only server (the embedded model) can then run a mixed benchmark to the end with
    no sample error; each request is the message ``benchsmith eval`` sends for the item.
    """
    from langchain_core.messages import convert_to_openai_messages

    from benchsmith.evaluate.messages import item_messages

    bench_dir, spec, _ = bench
    log_dir = tmp_path / "logs"
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    task_file = os.path.relpath(bench_dir / "inspect_task.py", cwd)
    env = _env(tmp_path, LOCAL_API_KEY="x", LOCAL_BASE_URL=base_url, INSPECT_LOG_DIR=str(log_dir))
    # fmt: off
    _run([
        str(BIN / "inspect"), "eval", task_file, "-T", "modality=text",
        "--model", f"openai-api/local/{MODEL}", "--max-tokens", "8", "--temperature", "0",
        "--log-format", "json", "--display", "none",
    ], cwd, env)
    # fmt: on
    from inspect_ai.log import read_eval_log

    (log_file,) = log_dir.glob("*.json")
    log = read_eval_log(str(log_file), resolve_attachments=True)
    assert log.status == "success"
    assert log.eval.task_args.get("modality") == "text"
    assert log.eval.dataset.samples == len(TEXT_IDS)
    assert log.plan.config.max_retries == 3  # the task's default (Inspect's own: forever)
    assert sorted(str(s.id) for s in log.samples) == sorted(TEXT_IDS)
    items = {i.id: i for i in build_items()}
    for sample in log.samples:
        assert sample.error is None, sample.error
        assert "benchsmith_scorer" in sample.scores
        (event,) = [e for e in sample.events if e.event == "model"]
        ours = convert_to_openai_messages(item_messages(items[str(sample.id)], bench_dir))
        assert event.call.request["messages"] == ours


def test_lmeval_runs_exactly_the_text_only_items(bench, base_url, tmp_path):
    bench_dir, _, export = bench
    assert export.n_items == len(TEXT_IDS) and export.n_skipped == len(MEDIA_IDS)
    out = tmp_path / "lm-out"
    model_args = (
        f"model={MODEL},base_url={base_url}/chat/completions,num_concurrent=1,"
        "tokenized_requests=False,tokenizer_backend=None"
    )
    # fmt: off
    _run([
        str(BIN / "lm_eval"), "--include_path", str(bench_dir / "lmeval"),
        "--tasks", export.task_name, "--model", "local-chat-completions",
        "--model_args", model_args, "--apply_chat_template",
        "--gen_kwargs", "max_gen_toks=8", "--output_path", str(out), "--log_samples",
    ], tmp_path / "elsewhere", _env(tmp_path, OPENAI_API_KEY="x"))
    # fmt: on
    (results_file,) = out.rglob("results_*.json")
    results = json.loads(results_file.read_text())
    task = export.task_name
    assert results["n-samples"][task]["effective"] == export.n_items
    acc = results["results"][task]["acc,none"]
    assert 0.0 <= acc <= 1.0
    (samples_file,) = out.rglob(f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert {r["doc"]["id"] for r in rows} == TEXT_IDS
    assert all(r["acc"] in (0.0, 1.0) for r in rows)
    assert acc == pytest.approx(sum(r["acc"] for r in rows) / len(rows))
    mc = next(r for r in rows if r["doc"]["id"] == "pla-1")
    assert "B) Jupiter" in json.dumps(mc["arguments"])

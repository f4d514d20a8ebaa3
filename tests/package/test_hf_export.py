"""The Hugging Face split of real built folders, read by the real ``datasets`` 5.x.

Three benchmarks are built by ``build_benchmark`` from question programs, with the real
tools (Pillow resize and blur; espeak-ng speech with noise added; no tool for text) and a
scripted fake judge, the only model a program build calls: colour pictures (a
classification of each record's own picture, multiple choice), spoken capitals and written
capitals (closed-book lookups, short answer). Their folders are
then loaded with ``load_dataset(DIR)``: decoded PIL images, audio decoded through the path
the card documents (``Audio(decode=False)`` and soundfile), one schema that concatenates,
the card's features equal to the loaded ones, the ``inspect`` config equal to
``data/test.jsonl`` row for row, and Parquet files that are the same bytes when written again.
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile
import yaml
from PIL import Image

from benchsmith.agents.programs import media_plan
from benchsmith.api import build_benchmark
from benchsmith.config import RunConfig, RunPaths
from benchsmith.errors import ExportError
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.package.card import card_stats, render_card
from benchsmith.package.hf_export import (
    INSPECT_COLUMNS,
    arrow_schema,
    features,
    remove_stale,
    write_hf_split,
)
from benchsmith.package.writer import write_exports
from benchsmith.spec import BenchmarkSpec, ProgramSpec, Subtask
from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec, program_spec
from benchsmith.testing.fake_chat import ScriptedChatModel
from benchsmith.tools.context import ToolContext
from benchsmith.tools.registry import run_tool

datasets = pytest.importorskip("datasets")
from datasets.utils.json import ujson_loads  # noqa: E402  (datasets' own Json decoder)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

COUNTRIES = [("France", "Paris"), ("Spain", "Madrid"), ("Italy", "Rome"), ("Japan", "Tokyo")]
COLORS = ["red", "green", "blue", "yellow", "purple"]
SIZE = 3


def _judge(messages, kwargs):
    """The only model call of a build from a program spec: the judge, who approves."""
    name = kwargs["tool_choice"]["function"]["name"]
    assert name == "JudgeVerdict", f"unexpected model call {name}"
    verdict = dict.fromkeys(("answerable", "single_answer", "relevant", "clear"), "yes")
    return verdict | {"reason": ""}


def _build(root: Path, spec, *, out: Path | None = None, resume: bool = False) -> Path:
    out = out or root / "bench"
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(root / "catalog")
        ),
    )
    fake = ScriptedChatModel(script=[_judge], repeat_last=True)
    local = parse_model_spec("local", env={})
    runtime = LLMRuntime(
        models={r: ResolvedModel(r, local, "test") for r in ROLES},
        records=RunRecords(config.paths.run_dir),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    register_runtime(config, runtime)
    try:
        result = build_benchmark(
            out=out, config=config, spec=None if resume else spec, resume=resume
        )
    finally:
        register_runtime(config, None)
    assert result.items == SIZE, (out / "rejects.jsonl").read_text()
    # The program words every item: the judge, once per item, is the only model call.
    judged = [c["kwargs"]["tool_choice"]["function"]["name"] for c in fake.calls]
    assert judged == ([] if resume else ["JudgeVerdict"] * SIZE)
    return out


def _short_answer(spec: BenchmarkSpec) -> BenchmarkSpec:
    """``spec`` with its lookup program asking for a free answer (the subtask's format)."""
    (grounding,) = spec.groundings
    program = grounding.program.model_copy(update={"answer_format": "short_answer"})
    return spec.model_copy(
        update={"groundings": [grounding.model_copy(update={"program": program})]}
    )


def _colors_spec(card, subtask: Subtask) -> BenchmarkSpec:
    """Each item shows one record's picture, blurred, and asks which color it shows."""
    program = ProgramSpec(
        kind="classify",
        table=card.id,
        media_field="image",
        answer_field="color",
        answer_format="multiple_choice",
    )
    plan = media_plan(subtask, "blurred pictures of colors", program)
    return program_spec(subtask, program, size=SIZE, available=card.size, plan=plan)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The three built folders, by kind."""
    root = tmp_path_factory.mktemp("hf-export")
    for kind in ("image", "audio", "text"):
        (root / kind).mkdir()
    rows = []
    for color in COLORS:
        path = root / "image" / f"{color}.png"
        Image.new("RGB", (48, 48), color).save(path)
        rows.append({"image": str(path), "color": color})
    card = jsonl_dataset(root / "image", "colors", rows)
    image_spec = _colors_spec(
        card,
        Subtask(
            id="colors",
            name="Colors",
            description="Look at the picture and pick its color.",
            input_modalities=["image"],
            answer_format="multiple_choice",
            languages=["en"],
        ),
    )
    capitals = [{"name": n, "capital": c} for n, c in COUNTRIES]
    audio_card = jsonl_dataset(root / "audio", "capitals", capitals)
    audio_spec = one_grounding_spec(
        Subtask(
            id="spoken",
            name="Spoken capitals",
            description="Name the capital of the country in a noisy spoken question.",
            input_modalities=["audio"],
            answer_format="short_answer",
            languages=["en"],
        ),
        audio_card,
        size=SIZE,
        answer_field="capital",
        question_field="name",
        tools=["audio_add_noise"],
    )
    audio_spec = _short_answer(audio_spec)
    text_card = jsonl_dataset(root / "text", "capitals", capitals)
    text_spec = one_grounding_spec(
        Subtask(
            id="capitals",
            name="Capitals",
            description="Name the capital city of a country.",
            answer_format="short_answer",
            languages=["en"],
        ),
        text_card,
        size=SIZE,
        answer_field="capital",
        question_field="name",
    )
    text_spec = _short_answer(text_spec)
    return {
        "image": _build(root / "image", image_spec),
        "audio": _build(root / "audio", audio_spec),
        "text": _build(root / "text", text_spec),
    }


@pytest.fixture(autouse=True)
def _hf_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def jsonl(bench: Path) -> list[dict]:
    return [json.loads(x) for x in (bench / "data" / "test.jsonl").read_text().splitlines()]


def card_meta(bench: Path) -> dict:
    match = re.match(r"---\n(.*?)\n---\n", (bench / "README.md").read_text(), flags=re.DOTALL)
    return yaml.safe_load(match.group(1))


def split_file(bench: Path, config: str = "default") -> Path:
    """The config's file, as the report names it."""
    report = json.loads((bench / "report.json").read_text())
    return bench / report["exports"]["hf_datasets"]["configs"][config]


def load(bench: Path, name: str | None = None):
    return datasets.load_dataset(str(bench), name, split="test")


def media_of(row: dict, kind: str) -> list[str]:
    (message,) = row["input"]
    return [p[kind] for p in message["content"] if p["type"] == kind]


def test_an_image_benchmark_loads_with_decoded_pil_images(built):
    bench = built["image"]
    ds = load(bench)
    items = jsonl(bench)
    assert ds.num_rows == SIZE and list(ds["id"]) == [i["id"] for i in items]
    for row, item in zip(ds, items, strict=True):
        assert isinstance(row["image"], Image.Image)
        (path,) = media_of(item, "image")
        with Image.open(bench / path) as original:
            assert row["image"].size == original.size
            assert np.array_equal(np.asarray(row["image"]), np.asarray(original))
        assert row["audio"] is None and row["modality"] == "text+image"
        assert row["choices"] == item["choices"] and len(row["choices"]) >= 2
        assert row["target"] == item["target"]
        assert row["answer"] == item["choices"]["ABCDEFGH".index(item["target"])]
        assert row["answer"] == item["metadata"]["answer"]
        assert row["question"] == item["input"][0]["content"][0]["text"]
        assert (row["subtask"], row["language"], row["difficulty"]) == ("colors", "en", "medium")
        assert json.loads(row["metadata"]) == item["metadata"]
    # The report names the files, one per config, each named after its bytes' digest.
    report = json.loads((bench / "report.json").read_text())
    configs = report["exports"]["hf_datasets"]["configs"]
    assert set(configs) == {"default", "inspect"}
    assert re.fullmatch(r"data/hf/test-[0-9a-f]{12}\.parquet", configs["default"])
    assert re.fullmatch(r"data/inspect/test-[0-9a-f]{12}\.parquet", configs["inspect"])
    assert report["exports"]["hf_datasets"]["images"] == SIZE
    assert sorted(p.relative_to(bench).as_posix() for p in bench.glob("data/*/*")) == sorted(
        configs.values()
    )


def test_an_audio_benchmark_decodes_through_the_documented_path(built):
    bench = built["audio"]
    ds = load(bench)
    items = jsonl(bench)
    assert ds.features["audio"] == datasets.Audio()
    assert all(row["choices"] == [] for row in ds.select_columns(["choices"]))
    # The card's path: no decoding by datasets, the embedded bytes decoded by soundfile.
    raw = ds.cast_column("audio", datasets.Audio(decode=False))
    for row, item in zip(raw, items, strict=True):
        (path,) = media_of(item, "audio")
        assert path.endswith(".wav") and row["audio"]["path"] == path
        assert row["audio"]["bytes"] == (bench / path).read_bytes()
        samples, rate = soundfile.read(io.BytesIO(row["audio"]["bytes"]))
        expected, expected_rate = soundfile.read(bench / path)
        assert rate == expected_rate and samples.size > rate // 2  # at least half a second
        assert np.array_equal(samples, expected)
        assert row["image"] is None and row["modality"] == "text+audio"
        assert row["answer"] == row["target"] == item["metadata"]["answer"]
        assert row["question"] == "Listen to the recording and answer the question it asks."
        assert json.loads(row["metadata"])["spoken_text"] == item["metadata"]["spoken_text"]
    if importlib.util.find_spec("torchcodec") is not None:  # the default path, when it can run
        decoded = ds[0]["audio"]
        expected, expected_rate = soundfile.read(bench / media_of(items[0], "audio")[0])
        assert decoded["sampling_rate"] == expected_rate
        assert np.allclose(decoded["array"], expected, atol=1e-3)
    else:  # what the card says happens without torchcodec
        with pytest.raises(ImportError, match="torchcodec"):
            ds[0]
    card = (bench / "README.md").read_text()
    assert 'ds.cast_column("audio", Audio(decode=False))' in card
    assert 'soundfile.read(io.BytesIO(row["audio"]["bytes"]))' in card
    assert "torchcodec" in card and "PyTorch" in card


def test_benchmarks_of_different_modalities_concatenate(built):
    loaded = [load(built[kind]) for kind in ("image", "audio", "text")]
    assert loaded[0].features == loaded[1].features == loaded[2].features
    joined = datasets.concatenate_datasets(loaded)
    assert joined.num_rows == 3 * SIZE
    assert joined.features == loaded[0].features
    joined = joined.cast_column("audio", datasets.Audio(decode=False))
    modality = list(joined["modality"])
    assert modality == ["text+image"] * SIZE + ["text+audio"] * SIZE + ["text"] * SIZE
    rows = list(joined)
    assert [isinstance(r["image"], Image.Image) for r in rows] == [True] * SIZE + [False] * 6
    assert [r["audio"] is not None for r in rows] == [False] * SIZE + [True] * SIZE + [False] * 3
    assert all(r["choices"] == [] for r in rows[SIZE:])  # never null, even for text items


@pytest.mark.parametrize("kind", ["image", "audio", "text"])
def test_the_card_features_are_the_loaded_features(built, kind):
    bench = built[kind]
    meta = card_meta(bench)
    (info,) = meta["dataset_info"]
    assert info["config_name"] == "default"
    declared = datasets.Features._from_yaml_list(info["features"])
    ds = load(bench)
    assert declared == ds.features
    # The Parquet file carries the same features (datasets reads them without the card).
    assert datasets.Features.from_arrow_schema(pq.read_schema(split_file(bench))) == declared
    assert ds.features.to_dict() == features()
    # The default config is first and is what load_dataset(DIR) loads; the other is named.
    assert [c["config_name"] for c in meta["configs"]] == ["default", "inspect"]
    assert [c["data_files"] for c in meta["configs"]] == [
        [{"split": "test", "path": split_file(bench, c).relative_to(bench).as_posix()}]
        for c in ("default", "inspect")
    ]
    assert datasets.get_dataset_config_names(str(bench)) == ["default", "inspect"]


@pytest.mark.parametrize("kind", ["image", "audio", "text"])
def test_the_inspect_config_is_the_jsonl_row_for_row(built, kind):
    bench = built[kind]
    inspect = load(bench, "inspect")
    assert inspect.features.to_dict() == features(INSPECT_COLUMNS)
    # Only the jsonl's rows: the two files are not mixed into one config.
    assert inspect.num_rows == load(bench).num_rows == SIZE
    columns = ("id", "input", "choices", "target", "metadata")
    expected = [{k: item.get(k) for k in columns} for item in jsonl(bench)]
    # The file holds each item's JSON values exactly (read without datasets' decoder).
    stored = pq.read_table(split_file(bench, "inspect")).to_pylist()
    json_columns = {"input", "metadata"}
    assert [
        {k: json.loads(v) if k in json_columns and v is not None else v for k, v in r.items()}
        for r in stored
    ] == expected
    # datasets decodes JSON with pandas' ujson, whose floats can differ from json.loads in
    # the last digit (9.806 -> 9.806000000000001): the same reader on both sides.
    lines = (bench / "data" / "test.jsonl").read_text().splitlines()
    decoded = [{k: item.get(k) for k in columns} for item in map(ujson_loads, lines)]
    assert list(inspect) == decoded
    # ... and what datasets' own json builder reads from the jsonl.
    direct = datasets.load_dataset(
        "json", data_files=str(bench / "data" / "test.jsonl"), split="train"
    )
    assert [{k: r.get(k) for k in columns} for r in direct] == decoded


def test_writing_again_gives_the_same_bytes(built, tmp_path):
    bench = tmp_path / "copy"
    shutil.copytree(built["audio"], bench)
    before = {p.relative_to(bench): p.read_bytes() for p in bench.glob("data/*/*.parquet")}
    assert len(before) == 2
    for path in (bench / "media").iterdir():  # new mtimes change nothing
        path.touch()
    done = write_hf_split(bench)
    assert (done.n_items, done.n_audio, done.n_images, done.extra_media) == (SIZE, SIZE, 0, 0)
    after = {p.relative_to(bench): p.read_bytes() for p in bench.glob("data/*/*.parquet")}
    assert after == before  # the same names (digests) and the same bytes
    assert {Path(f) for f in done.files.values()} == set(before)
    meta = pq.ParquetFile(split_file(bench)).metadata
    assert meta.created_by.startswith("parquet-cpp-arrow version")  # the only version stamp
    assert not [p for p in bench.rglob("*.tmp")]  # written atomically, nothing left over


def test_a_changed_item_is_loaded_again_not_served_from_the_cache(built, tmp_path):
    """datasets caches a local folder by its name and card: the new file name changes both."""
    from benchsmith.spec import BenchmarkSpec

    bench = tmp_path / "bench"  # the same name as the built folders
    shutil.copytree(built["text"], bench)
    assert list(load(bench)["target"]) == [i["target"] for i in jsonl(bench)]
    old = {split_file(bench, c) for c in ("default", "inspect")}
    rows = jsonl(bench)
    rows[0]["target"] = "Somewhere"
    (bench / "data" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = BenchmarkSpec.model_validate_json((bench / "spec.json").read_text())
    exports = write_exports(bench, spec, [], acceptance_rate=None, summary={})
    new = {bench / f for f in exports["hf_datasets"]["configs"].values()}
    assert new.isdisjoint(old) and all(p.is_file() for p in new)
    assert not any(p.exists() for p in old)  # the earlier files are gone
    assert sorted(bench.glob("data/*/*.parquet")) == sorted(new)
    assert load(bench)["target"][0] == "Somewhere"
    assert load(bench, "inspect")["target"][0] == "Somewhere"
    # Two folders of the same name with other items load their own items.
    assert load(built["text"])["target"][0] != "Somewhere"
    assert remove_stale(bench, exports["hf_datasets"]["configs"]) == 0


def test_the_exports_read_the_items_once_and_count_as_each_reader_alone(
    built, tmp_path, monkeypatch
):
    """write_exports feeds one read of data/test.jsonl to the split, lm-eval and the card."""
    import benchsmith.package.card as card_module
    import benchsmith.package.hf_export as hf_export
    import benchsmith.package.writer as writer_module
    from benchsmith.package.lmeval_export import count_items
    from benchsmith.spec import BenchmarkSpec

    bench = tmp_path / "bench"
    shutil.copytree(built["image"], bench)
    texts = [dict(r, id=f"{r['id']}-text") for r in jsonl(built["text"])]
    rows = jsonl(bench) + texts  # image items (not for lm-eval) and text-only ones
    (bench / "data" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    reads, cards = [], []
    real, real_stats = hf_export.data_lines, card_module.card_stats

    def counted(path):
        reads.append(Path(path).name)
        return real(path)

    def stats_of(items, **kwargs):
        cards.append(real_stats(items, **kwargs))
        return cards[-1]

    monkeypatch.setattr(hf_export, "data_lines", counted)
    monkeypatch.setattr(writer_module, "card_stats", stats_of)  # where writer looks it up
    spec = BenchmarkSpec.model_validate_json((bench / "spec.json").read_text())
    exports = write_exports(bench, spec, [], acceptance_rate=None, summary={})
    assert reads == ["test.jsonl"]
    n_text, reasons = count_items(bench / "data" / "test.jsonl")
    assert (n_text, sum(reasons.values())) == (len(texts), SIZE)
    assert exports["lm_eval"]["items"] == n_text
    assert exports["lm_eval"]["skipped"] == dict(reasons)
    assert exports["hf_datasets"]["items"] == len(rows) == exports["inspect"]["items"]
    assert exports["hf_datasets"]["images"] == SIZE
    alone = card_stats(rows)  # the card's counts, each item read again
    (made,) = cards
    assert (made.n_items, made.by_subtask, made.by_modality, made.by_language) == (
        alone.n_items,
        alone.by_subtask,
        alone.by_modality,
        alone.by_language,
    )
    assert made.by_modality == {"text+image": SIZE, "text": len(texts)}


def test_a_folder_without_its_split_gets_the_same_one_back_on_resume(built, tmp_path):
    """Resuming a finished build rewrites a missing split, byte for byte the same."""
    source = built["image"]
    bench = tmp_path / "bench"
    shutil.copytree(source, bench)
    before = {p.relative_to(bench): p.read_bytes() for p in bench.rglob("*") if p.is_file()}
    shutil.rmtree(bench / "data" / "hf")
    shutil.rmtree(bench / "data" / "inspect")
    _build(source.parent, None, out=bench, resume=True)
    after = {p.relative_to(bench): p.read_bytes() for p in bench.rglob("*") if p.is_file()}
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    # Only the report (its wall time) and the run's own records may differ.
    assert {p for p in changed if p.parts[0] != ".run"} <= {Path("report.json"), Path("report.md")}
    for config in ("default", "inspect"):
        assert split_file(bench, config).read_bytes() == split_file(source, config).read_bytes()


def _hand_item(item_id: str, parts: list[dict], **extra) -> dict:
    return {
        "id": item_id,
        "input": [{"role": "user", "content": parts}],
        "target": "x",
        "metadata": {"subtask": "s", "language": "en"},
        **extra,
    }


def test_audio_in_every_format_a_tool_writes_decodes_with_soundfile(built, tmp_path):
    """The tools write wav (default), flac, ogg or mp3; each decodes from its bytes."""
    source = built["audio"]
    bench = tmp_path / "formats"
    (bench / "data").mkdir(parents=True)
    shutil.copytree(source / "media", bench / "media")
    (wav,) = sorted((bench / "media").glob("*.wav"))[:1]
    rate = soundfile.info(wav).samplerate
    ctx = ToolContext(media_dir=bench / "media")
    items = [_hand_item("wav", [{"type": "audio", "audio": f"media/{wav.name}"}])]
    for fmt in ("flac", "ogg", "mp3"):
        params = {"format": fmt, "output_name": f"clip.{fmt}", "sample_rate": 16000}
        run_tool("convert_audio", params, [wav], ctx)
        fmt_field = "mp3" if fmt == "mp3" else "wav"
        part = {"type": "audio", "audio": f"media/clip.{fmt}", "format": fmt_field}
        items.append(_hand_item(fmt, [part]))
    (bench / "data" / "test.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    done = write_hf_split(bench)
    rows = pq.read_table(bench / done.files["default"]).to_pylist()
    expected_seconds = soundfile.info(wav).duration
    for row in rows:
        samples, got_rate = soundfile.read(io.BytesIO(row["audio"]["bytes"]))
        assert got_rate == (rate if row["id"] == "wav" else 16000), row["id"]
        assert abs(len(samples) / got_rate - expected_seconds) < 0.1, row["id"]


def test_an_item_with_two_images_keeps_the_first_and_the_card_says_so(tmp_path):
    bench = tmp_path / "hand"
    (bench / "data").mkdir(parents=True)
    (bench / "media").mkdir()
    for color in ("red", "blue"):
        Image.new("RGB", (8, 8), color).save(bench / "media" / f"{color}.png")
    items = [
        _hand_item(
            "two",
            [
                {"type": "image", "image": "media/red.png"},
                {"type": "image", "image": "media/blue.png"},
                {"type": "text", "text": "Which is first?"},
            ],
            choices=["red", "blue"],
            target="A",
        ),
        {"id": "none", "input": "Plain text?", "target": "yes", "metadata": {}},
    ]
    (bench / "data" / "test.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    done = write_hf_split(bench)
    assert (done.n_items, done.n_images, done.extra_media) == (2, 1, 1)
    two, none = pq.read_table(bench / done.files["default"]).to_pylist()
    assert two["image"] == {
        "bytes": (bench / "media/red.png").read_bytes(),
        "path": "media/red.png",
    }
    assert (two["answer"], two["question"], two["modality"]) == (
        "red",
        "Which is first?",
        "text+image",
    )
    assert none["image"] is None and none["audio"] is None and none["choices"] == []
    assert (none["subtask"], none["language"], none["difficulty"]) == (None, None, None)
    assert json.loads(none["metadata"]) == {}
    from benchsmith.item import Item

    card = render_card(_spec(), card_stats([Item.model_validate(i) for i in items]), [])
    assert "1 item(s) here have more than one image or audio clip" in card
    assert "keeps its first of each kind in these columns" in card


def _spec():
    from benchsmith.spec import BenchmarkSpec

    return BenchmarkSpec(
        intent="hand-made",
        size=2,
        subtasks=[{"id": "s", "name": "S", "description": "d", "answer_format": "short_answer"}],
        groundings=[
            {
                "id": "g",
                "subtask_id": "s",
                "dataset_id": "d",
                "question_field": "name",
                "answer_field": "a",
                "strategy": "question_program",
                "program": {
                    "kind": "lookup",
                    "table": "d",
                    "key_field": "name",
                    "answer_field": "a",
                    "answer_format": "short_answer",
                },
                "scores": {"intent_alignment": 1, "robustness": 1, "signal_preservation": 1},
                "available_records": 2,
            }
        ],
        allocations=[{"grounding_id": "g", "quota": 2}],
    )


def test_missing_or_escaping_media_is_refused(tmp_path):
    bench = tmp_path / "bad"
    (bench / "data").mkdir(parents=True)
    for path, message in (("media/gone.png", "is missing"), ("../outside.png", "leads outside")):
        (tmp_path / "outside.png").write_bytes(b"x")
        item = _hand_item("i", [{"type": "image", "image": path}])
        (bench / "data" / "test.jsonl").write_text(json.dumps(item) + "\n")
        with pytest.raises(ExportError, match=message):
            write_hf_split(bench)
        assert not list(bench.glob("data/*/*"))  # nothing half-written
    (bench / "data" / "test.jsonl").write_text('{"id": "i"}\n')
    with pytest.raises(ExportError, match=r"test.jsonl:1: not an item"):
        write_hf_split(bench)
    with pytest.raises(ExportError, match="does not exist"):
        write_hf_split(tmp_path / "nothing")


def test_an_empty_benchmark_still_has_the_schema(tmp_path):
    bench = tmp_path / "empty"
    (bench / "data").mkdir(parents=True)
    (bench / "data" / "test.jsonl").write_text("")
    done = write_hf_split(bench)
    assert done.n_items == 0
    written = pq.read_schema(bench / done.files["default"])
    assert written.names == arrow_schema().names
    assert written.metadata[b"huggingface"] == arrow_schema().metadata[b"huggingface"]
    assert datasets.Features.from_arrow_schema(written).to_dict() == features()

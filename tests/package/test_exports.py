"""Unit: the dataset card, the Inspect task file, the lm-eval task and the scoring rules."""

from __future__ import annotations

import ast
import importlib.util
import json
import py_compile
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from huggingface_hub import metadata_load

from benchsmith.catalog.cards import DatasetCard
from benchsmith.item import Item
from benchsmith.package.card import (
    CardStats,
    card_license,
    card_stats,
    md_cell,
    normalize_license,
    render_card,
    size_category,
)
from benchsmith.package.hf_export import features_yaml
from benchsmith.package.inspect_export import (
    choice_letter,
    first_number,
    includes_match,
    normalize_answer,
    numeric_match,
    score_answer,
    short_answer_match,
    task_name,
    write_inspect_task,
)
from benchsmith.package.lmeval_export import ExportError, skip_reason, write_lmeval_task
from benchsmith.spec import BenchmarkSpec

ROOT = Path(__file__).resolve().parents[2]
SCORES = {"intent_alignment": 0.9, "robustness": 0.8, "signal_preservation": 0.7}


def make_spec(
    intent: str = "Read bar charts and answer questions about them.", **sub
) -> BenchmarkSpec:
    subtasks = [
        {
            "id": "charts",
            "name": "Chart reading",
            "description": "Read a value off a bar chart.",
            "answer_format": "numeric",
            "input_modalities": ["text", "image"],
            "languages": ["en"],
            **sub,
        },
        {
            "id": "facts",
            "name": "Facts",
            "description": "Pick the right fact.",
            "answer_format": "multiple_choice",
            "languages": ["fr"],
        },
    ]
    return BenchmarkSpec(
        intent=intent,
        size=5,
        subtasks=subtasks,
        groundings=[
            {
                "id": f"g-{s['id']}",
                "subtask_id": s["id"],
                "dataset_id": f"ds-{s['id']}",
                "question_field": "name",
                "answer_field": "answer",
                "strategy": "question_program",
                "program": {
                    "kind": "lookup",
                    "table": f"ds-{s['id']}",
                    "key_field": "name",
                    "answer_field": "answer",
                    "answer_format": s["answer_format"],
                },
                "scores": SCORES,
                "available_records": 50,
            }
            for s in subtasks
        ],
        allocations=[
            {"grounding_id": "g-charts", "quota": 3},
            {"grounding_id": "g-facts", "quota": 2},
        ],
    )


def make_source(card_id: str, license: str, **extra) -> DatasetCard:
    return DatasetCard(
        id=card_id,
        name=extra.pop("name", card_id.title()),
        description=extra.pop("description", "Some records."),
        modalities=["text"],
        size=50,
        license=license,
        provenance=extra.pop("provenance", {"source": "https://example.org/data.csv"}),
        loader={"kind": "jsonl", "path": "data.jsonl"},
        **extra,
    )


def _meta(subtask: str, fmt: str, **extra) -> dict:
    return {"subtask": subtask, "answer_format": fmt, "language": "en", **extra}


ITEMS = [
    {"id": "t1", "input": "2+2?", "target": "4", "metadata": _meta("charts", "numeric")},
    {
        "id": "t2",
        "input": [{"role": "user", "content": [{"type": "text", "text": "Capital of France?"}]}],
        "target": "Paris",
        "metadata": _meta("facts", "short_answer", modalities=["text"]),
    },
    {
        "id": "m1",
        "input": "Largest planet?",
        "choices": ["Mars", "Jupiter"],
        "target": "B",
        "metadata": _meta("facts", "multiple_choice"),
    },
    {
        "id": "i1",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "media/a.png"},
                    {"type": "text", "text": "Bar height?"},
                ],
            }
        ],
        "target": "7",
        "metadata": _meta("charts", "numeric", tolerance=0.05, modalities=["text", "image"]),
    },
    {
        "id": "a1",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is said?"},
                    {"type": "audio", "audio": "media/a.wav", "format": "wav"},
                ],
            }
        ],
        "target": "hello",
        "metadata": _meta("facts", "short_answer", modalities=["text", "audio"]),
    },
    {
        "id": "b1",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "media/a.png"},
                    {"type": "audio", "audio": "media/a.wav", "format": "wav"},
                    {"type": "text", "text": "Which?"},
                ],
            }
        ],
        "target": "A",
        "choices": ["x", "y"],
        "metadata": _meta("facts", "multiple_choice"),
    },
]


def write_bench(root: Path, items: list[dict] = ITEMS, name: str = "chart-reading") -> Path:
    bench = root / name
    (bench / "data").mkdir(parents=True)
    (bench / "media").mkdir()
    (bench / "media" / "a.png").write_bytes(b"\x89PNG fake")
    (bench / "media" / "a.wav").write_bytes(b"RIFF fake")
    lines = [json.dumps(Item.model_validate(i).model_dump(mode="json")) for i in items]
    (bench / "data" / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bench


def split_card(text: str) -> tuple[dict, str]:
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, flags=re.DOTALL)
    assert match, text[:200]
    return yaml.safe_load(match.group(1)), match.group(2)


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table_rows(body: str, header_start: str) -> list[list[str]]:
    lines = body.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(re.split(r"(?<!\\)\|", line)[1:-1])
    return rows


# -- the card ---------------------------------------------------------------------------------
def test_card_front_matter_parses_and_holds_configs_and_license(tmp_path):
    files = {"default": "data/hf/test-0123.parquet", "inspect": "data/inspect/test-4567.parquet"}
    stats = card_stats(ITEMS, bench_name="chart-reading", acceptance_rate=0.8, hf_files=files)
    sources = [make_source("ds-charts", "CC BY 4.0"), make_source("ds-facts", "cc-by-4.0")]
    text = render_card(make_spec(), stats, sources)
    meta, body = split_card(text)
    # The Hugging Face split is the default config; the Inspect-style items a named one.
    assert meta["configs"] == [
        {"config_name": "default", "data_files": [{"split": "test", "path": files["default"]}]},
        {"config_name": "inspect", "data_files": [{"split": "test", "path": files["inspect"]}]},
    ]
    (info,) = meta["dataset_info"]
    assert info == {"config_name": "default", "features": features_yaml()}
    assert [f["name"] for f in info["features"]] == [
        "id", "question", "choices", "target", "answer", "subtask", "language", "difficulty",
        "modality", "image", "audio", "metadata",
    ]  # fmt: skip
    # Before the split is written, a card shows each config's file as a pattern.
    unwritten, _ = split_card(render_card(make_spec(), card_stats(ITEMS), []))
    assert [c["data_files"][0]["path"] for c in unwritten["configs"]] == [
        "data/hf/test-*.parquet",
        "data/inspect/test-*.parquet",
    ]
    assert meta["license"] == "cc-by-4.0"
    assert meta["language"] == ["en", "fr"]
    assert meta["size_categories"] == ["n<1K"]
    assert meta["pretty_name"] == "Read bar charts and answer questions about them"
    assert meta["tags"][0] == "benchsmith"
    assert {"multiple-choice", "question-answering", "visual-question-answering"} <= set(
        meta["task_categories"]
    )
    assert "audio-text-to-text" in meta["task_categories"]  # an item has audio
    # The Hub's own front-matter reader agrees.
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    assert metadata_load(tmp_path / "README.md") == meta
    assert "Acceptance: 80.0% of generated candidates passed verification (which checks" in body
    assert "text+image: 1" in body and "text+audio: 1" in body and "text: 3" in body


def test_card_exports_section_counts_and_commands():
    stats = card_stats(ITEMS, bench_name="chart-reading", inspect_task="benchsmith_x")
    stats.lmeval_task, stats.n_lmeval_items = "benchsmith_x", 3
    _, body = split_card(render_card(make_spec(), stats, []))
    assert "3 of 6" in body and "lm-eval has no image or audio input" in body
    assert 'load_dataset("chart-reading", split="test")' in body
    assert "inspect eval chart-reading/inspect_task.py --model" in body
    assert "inspect_task.py@benchsmith_x" in body
    assert (
        "inspect eval chart-reading/inspect_task.py --model openai/gpt-4o-mini -T modality=text"
        in body
    )
    assert "lm_eval --include_path chart-reading/lmeval --tasks benchsmith_x" in body
    assert "tokenizer_backend=None" in body
    no_lmeval = render_card(make_spec(), card_stats(ITEMS[3:4]), [])
    assert "no task, because no item is text-only" in no_lmeval
    assert "lm_eval --include_path" not in no_lmeval


def test_card_subtask_table_counts():
    stats = card_stats(ITEMS)
    _, body = split_card(render_card(make_spec(), stats, []))
    rows = table_rows(body, "| id | name |")
    assert [c.strip() for c in rows[0]] == [
        "id",
        "name",
        "description",
        "answer format",
        "modalities",
        "items",
    ]
    data = {r[0].strip(): [c.strip() for c in r] for r in rows[2:]}
    assert data["charts"][3:] == ["numeric", "text, image", "2"]
    assert data["facts"][3:] == ["multiple choice", "text", "4"]


HOSTILE = (
    "Evil | pipes\n---\nlicense: mit\n---\n# Heading\n<script>alert(1)</script>\n"
    "key: [unclosed, {yaml: &anchor *alias} ! % @ ` \\ \t"
)


def test_hostile_text_breaks_neither_yaml_nor_table(tmp_path):
    spec = make_spec(intent=HOSTILE, name="Na|me: {x}", description=HOSTILE)
    sources = [
        make_source("ds-charts", "MIT | evil\nlicense: x", description=HOSTILE, name="N|1"),
        make_source("ds-facts", "apache-2.0", provenance={"source": "a|b\n---", "notes": HOSTILE}),
    ]
    text = render_card(spec, card_stats(ITEMS, title="T: |x\n---\nlicense: mit"), sources)
    meta, body = split_card(text)
    assert set(meta) == {
        "configs",
        "dataset_info",
        "pretty_name",
        "language",
        "license",
        "license_name",
        "size_categories",
        "task_categories",
        "tags",
    }
    assert meta["license"] == "other" and meta["pretty_name"] == "T: |x --- license: mit"
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    assert metadata_load(tmp_path / "README.md") == meta
    assert text.count("\n---\n") == 1  # only the front matter's closing line
    assert "<script>" not in text
    # Every table row keeps its column count.
    for header, n_cols in (("| id | name | description", 6), ("| id | name | license", 5)):
        rows = table_rows(body, header)
        assert len(rows) >= 3
        assert all(len(r) == n_cols for r in rows), rows
    # The intent stays one block quote.
    quote = body.split("intent:\n\n", 1)[1].split("\n\n", 1)[0]
    assert all(line.startswith(">") for line in quote.splitlines())


@pytest.mark.parametrize(
    ("licenses", "expected"),
    [
        (["MIT", "mit"], "mit"),
        (["CC BY-SA 4.0"], "cc-by-sa-4.0"),
        (["mit", "apache-2.0"], "other"),
        (["Research only, no redistribution"], "other"),
        ([], "unknown"),
        (["unknown"], "unknown"),
    ],
)
def test_card_license(licenses, expected):
    sources = [make_source(f"d{i}", lic) for i, lic in enumerate(licenses)]
    value, explanation = card_license(sources)
    assert value == expected
    if len(set(map(normalize_license, licenses))) > 1:
        assert "different licenses" in explanation and "`apache-2.0`" in explanation


def test_card_helpers():
    assert md_cell("a|b\nc\\d") == "a\\|b c\\\\d"
    assert md_cell("<b>") == "&lt;b&gt;"
    assert [size_category(n) for n in (0, 999, 1000, 9999, 10_000, 5_000_000)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "1K<n<10K",
        "10K<n<100K",
        "1M<n<10M",
    ]
    stats = card_stats(iter(ITEMS))
    assert isinstance(stats, CardStats) and stats.n_items == 6
    assert stats.by_subtask == {"charts": 2, "facts": 4}
    assert stats.by_modality == {"text": 3, "text+image": 1, "text+audio": 1, "text+image+audio": 1}
    assert stats.lmeval_task is None and stats.n_lmeval_items == 0


# -- the lm-eval export ---------------------------------------------------------------------
class _FunctionLoader(yaml.SafeLoader):
    pass


_FunctionLoader.add_constructor("!function", lambda loader, node: f"!function {node.value}")


def test_lmeval_export_writes_the_task_and_counts_skips(tmp_path):
    bench = write_bench(tmp_path)
    export = write_lmeval_task(bench, make_spec())
    assert export.task_name == "benchsmith_chart_reading"
    assert export.written and export.yaml_path == bench / "lmeval" / "benchsmith_chart_reading.yaml"
    assert (export.n_items, export.n_skipped) == (3, 3)
    assert export.skip_reasons == {"has audio": 1, "has image": 1, "has image and audio": 1}
    assert "3 of 6" in export.message
    config = yaml.load(export.yaml_path.read_text(), Loader=_FunctionLoader)
    assert config["task"] == export.task_name
    assert config["custom_dataset"] == "!function utils.load"
    assert config["process_results"] == "!function utils.process_results"
    assert config["output_type"] == "generate_until"
    assert config["metric_list"][0]["metric"] == "acc"
    assert config["metadata"]["n_items"] == 3
    utils = bench / "lmeval" / "utils.py"
    py_compile.compile(str(utils), doraise=True)
    module = load_module(utils, "bench_lmeval_utils")
    docs = list(module.iter_docs(str(bench / "data" / "test.jsonl")))
    assert [d["id"] for d in docs] == ["t1", "t2", "m1"]
    assert docs[0]["prompt"] == "2+2?\n\nAnswer with only the number, no units and no explanation."
    assert docs[1]["prompt"].startswith("Capital of France?\n\n")
    assert docs[2]["prompt"] == (
        "Answer the following multiple choice question. The entire content of your response "
        "should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is "
        "one of A,B.\n\nLargest planet?\n\nA) Mars\nB) Jupiter"
    )
    assert (docs[2]["answer_format"], docs[2]["n_choices"], docs[2]["target"]) == (
        "multiple_choice",
        2,
        "B",
    )
    assert [d["id"] for d in module.iter_docs(str(bench / "data" / "test.jsonl"), "charts")] == [
        "t1"
    ]
    assert module.process_results(docs[2], ["B) Jupiter"]) == {"acc": 1.0}
    assert module.process_results(docs[2], ["A"]) == {"acc": 0.0}
    assert module.process_results(docs[0], ["ANSWER: 4.0"]) == {"acc": 1.0}
    assert module.process_results(docs[1], ["paris."]) == {"acc": 1.0}


def test_lmeval_load_builds_a_dataset_relative_to_its_file(tmp_path, monkeypatch):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    bench = write_bench(tmp_path / "a")
    write_lmeval_task(bench, make_spec())
    moved = tmp_path / "b" / "moved"
    shutil.move(str(bench), str(moved))
    module = load_module(moved / "lmeval" / "utils.py", "moved_lmeval_utils")
    test = module.load(version=1.0, n_items=3)["test"]
    assert list(test["id"]) == ["t1", "t2", "m1"]
    assert list(module.load(subtask="facts")["test"]["id"]) == ["t2", "m1"]
    # A changed file is read again (the cache key includes its size and mtime).
    with (moved / "data" / "test.jsonl").open("a") as fh:
        fh.write(json.dumps({"id": "t9", "input": "x", "target": "y", "metadata": {}}) + "\n")
    assert list(module.load()["test"]["id"])[-1] == "t9"


def test_lmeval_export_without_text_items_writes_nothing(tmp_path):
    bench = write_bench(tmp_path, items=ITEMS[3:])
    export = write_lmeval_task(bench, make_spec())
    assert not export.written and export.yaml_path is None
    assert (export.n_items, export.n_skipped) == (0, 3)
    assert "no lm-eval task" in export.message
    assert not (bench / "lmeval" / "utils.py").exists()
    assert not list(bench.rglob("*.yaml"))


def test_lmeval_export_refuses_missing_or_broken_data(tmp_path):
    with pytest.raises(ExportError, match="does not exist"):
        write_lmeval_task(tmp_path / "nothing", make_spec())
    bench = write_bench(tmp_path)
    with (bench / "data" / "test.jsonl").open("a") as fh:
        fh.write("{not json\n")
    with pytest.raises(ExportError, match=r"test.jsonl:7: not a JSON line"):
        write_lmeval_task(bench, make_spec())


def test_skip_reason():
    assert [skip_reason(i) for i in ITEMS] == [
        None,
        None,
        None,
        "has image",
        "has audio",
        "has image and audio",
    ]


@pytest.mark.parametrize(
    ("folder", "intent", "expected"),
    [
        ("chart-reading", "x", "benchsmith_chart_reading"),
        ("Ünïcode Bench v2", "x", "benchsmith_unicode_bench_v2"),
        ("bench", "Count the birds in photos!", "benchsmith_count_the_birds_in_photos"),
        ("out", "¿?", "benchsmith_out"),
        ("---", "!!!", "benchsmith_benchmark"),
    ],
)
def test_task_name(tmp_path, folder, intent, expected):
    name = task_name(tmp_path / folder, make_spec(intent=intent))
    assert name == expected and name.isidentifier()


# -- the Inspect export ----------------------------------------------------------------------
def _ruff() -> str | None:
    return shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def test_inspect_task_compiles_is_standalone_and_lint_clean(tmp_path):
    bench = write_bench(tmp_path, name="a-rather-long-benchmark-folder-name-" + "x" * 40)
    name = task_name(bench, make_spec())
    assert len(name) == len("benchsmith_") + 48
    path = write_inspect_task(bench, make_spec(intent='"""\x00\\N{oops} ' + HOSTILE))
    assert path == bench / "inspect_task.py"
    py_compile.compile(str(path), doraise=True)
    tree = ast.parse(path.read_text())
    imported = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported - sys.stdlib_module_names == {"inspect_ai"}
    assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    write_lmeval_task(bench, make_spec())
    if _ruff() is None:
        pytest.skip("ruff is not installed")
    files = [str(path), str(bench / "lmeval" / "utils.py")]
    config = str(ROOT / "pyproject.toml")
    for args in (["check"], ["format", "--check"]):
        result = subprocess.run(
            [_ruff(), *args, "--config", config, *files], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_inspect_task_reads_samples_with_absolute_media(tmp_path):
    bench = write_bench(tmp_path)
    module = load_module(write_inspect_task(bench, make_spec()), "bench_inspect_task")
    from inspect_ai.model import ContentAudio, ContentImage

    samples = {s.id: s for s in module.load_samples()}
    assert list(samples) == ["t1", "t2", "m1", "i1", "a1", "b1"]
    # The input is the item's prompt; text-only parts become a string.
    assert samples["t2"].input == (
        "Capital of France?\n\n"
        "Answer with only the answer: a word or a short phrase, no explanation."
    )
    assert samples["m1"].choices == ["Mars", "Jupiter"] and samples["m1"].target == "B"
    assert samples["i1"].metadata == ITEMS[3]["metadata"]
    (message,) = samples["b1"].input
    image, audio, text = message.content
    assert text.text.startswith("Answer the following multiple choice") and "Which?" in text.text
    assert isinstance(image, ContentImage) and image.image == str(bench / "media" / "a.png")
    assert isinstance(audio, ContentAudio) and audio.format == "wav"
    assert Path(audio.audio).is_absolute() and Path(audio.audio).is_file()
    assert [s.id for s in module.load_samples(subtask="charts")] == ["t1", "i1"]
    assert [s.id for s in module.load_samples(subtask=["charts"], answer_format="numeric")] == [
        "t1",
        "i1",
    ]
    with pytest.raises(ValueError, match="subtasks: charts, facts"):
        module.load_samples(subtask="nope")


def test_inspect_task_modality_filter(tmp_path):
    bench = write_bench(tmp_path)
    module = load_module(write_inspect_task(bench, make_spec()), "bench_inspect_modality")
    ids = {
        option: [s.id for s in module.load_samples(modality=option)]
        for option in ("text", "image", "audio", "text,image")
    }
    assert ids == {
        "text": ["t1", "t2", "m1"],
        "image": ["i1"],
        "audio": ["a1"],
        "text,image": ["t1", "t2", "m1", "i1"],
    }
    both = module.load_samples(modality=["image", "audio"])  # how -T modality=a,b arrives
    assert [s.id for s in both] == ["i1", "a1", "b1"]
    assert [s.id for s in module.load_samples(subtask="facts", modality="text")] == ["t2", "m1"]
    with pytest.raises(ValueError, match="unknown modality video; use text, image, audio"):
        module.load_samples(modality="video")
    text_only = write_bench(tmp_path / "t", items=ITEMS[:3])
    module = load_module(write_inspect_task(text_only, make_spec()), "bench_inspect_text_only")
    with pytest.raises(ValueError, match="modality='image'.*modalities: text$"):
        module.load_samples(modality="image")
    task = getattr(module, task_name(text_only, make_spec()))(modality="text")
    assert len(task.dataset) == 3
    assert task.config.max_retries == 3  # Inspect's own default retries an HTTP 500 forever


def test_inspect_task_refuses_media_outside_the_folder(tmp_path):
    item = dict(ITEMS[3], input=[{"role": "user", "content": [{"type": "image", "image": "../x"}]}])
    bench = write_bench(tmp_path, items=[item])
    module = load_module(write_inspect_task(bench, make_spec()), "bench_inspect_evil")
    with pytest.raises(ValueError, match="leads outside"):
        module.load_samples()


# -- the scoring rules ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('  "Paris."  ', "paris"),
        ("Ｐａｒｉｓ", "paris"),  # NFKC: full-width letters
        ("New\n  York", "new york"),
        ("Straße", "strasse"),  # case-folding
        ("C++", "c++"),
        ("(42%)", "42%"),
        ("«Oui»", "oui"),
        ("**bold**", "bold"),
        ("a, b", "a, b"),
        ("", ""),
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


@pytest.mark.parametrize(
    ("answer", "target", "expected"),
    [
        ("Paris", "paris", True),
        ("Paris.", "Paris", True),
        ("  new   YORK ", "New York", True),
        ("ANSWER: Paris", "Paris", True),
        ("I think so.\nanswer: paris!", "Paris", True),
        ("Paris\nbecause it is the capital.", "Paris", True),
        ("The capital is Paris.", "Paris", False),
        ("Parisian", "Paris", False),
        ("Paris, France", "Paris", False),
        ("anything", "", False),
        ("", "", False),
        ("", "Paris", False),
    ],
)
def test_short_answer_match(answer, target, expected):
    assert short_answer_match(answer, target) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("about 1,234.5 km", 1234.5),
        ("\u22123.5", -3.5),
        ("x = 2e3", 2000.0),
        ("１２", 12.0),
        (".5", 0.5),
        ("1/2", 1.0),
        ("no digits", None),
    ],
)
def test_first_number(text, expected):
    assert first_number(text) == expected


@pytest.mark.parametrize(
    ("answer", "target", "tolerance", "expected"),
    [
        ("144", "144", 0.0, True),
        ("145", "144", 0.01, True),  # |1| <= 1.44
        ("146", "144", 0.01, False),  # |2| > 1.44
        ("146", "144", None, False),  # default 0.01
        ("100.9", "100", None, True),
        ("101.5", "100", "bad", False),  # a tolerance that is no number: 0.01
        ("The answer is 144.", "144", 0.0, True),
        ("12 times 12 is 144", "144", 0.0, False),  # the first number is 12
        ("Working: 12*12\nANSWER: 144", "144", 0.0, True),
        ("1,000", "1000", 0.0, True),
        ("-144", "144", 0.01, False),
        ("0.005", "0", 0.01, True),  # absolute tolerance at 0
        ("0.02", "0", 0.01, False),
        ("no idea", "5", 0.01, False),
        ("blue", "Blue", 0.01, True),  # a target with no number: short-answer rule
    ],
)
def test_numeric_match(answer, target, tolerance, expected):
    assert numeric_match(answer, target, tolerance) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("B", "B"),
        ("ANSWER: b", "B"),
        ("answer: (C)", "C"),
        ("(C)", "C"),
        ("B) Jupiter", "B"),
        ("B. Jupiter", "B"),
        ("**B**", "B"),
        ("b", "B"),
        ("ANSWER: A\nANSWER: C", "C"),
        ("D", None),  # beyond the three choices
        ("A cat", None),
        ("The answer is C) Venus", None),
        ("ANSWER: AB", None),
        ("", None),
    ],
)
def test_choice_letter(answer, expected):
    assert choice_letter(answer, 3) == expected


@pytest.mark.parametrize(
    ("answer", "target", "expected"),
    [
        ("It is Paris, France.", "Paris", True),
        ("The cat sat.", "cat", True),
        ("concatenate", "cat", False),
        ("anything", "", False),
    ],
)
def test_includes_match(answer, target, expected):
    assert includes_match(answer, target) is expected


SCORE_CASES = [
    (("ANSWER: B", "B", "multiple_choice"), {"n_choices": 3}, True),
    (("B", "b", "multiple_choice"), {"n_choices": 3}, True),
    (("A", "B", "short_answer"), {"n_choices": 3}, False),  # choices win over the format
    (("145", "144", "numeric"), {"tolerance": 0.01}, True),
    (("150", "144", "numeric"), {}, False),
    (("Paris is the capital", "Paris", "open"), {}, True),
    (("Paris is the capital", "Paris", "short_answer"), {}, False),
    (("Paris", "Paris", None), {}, True),
]


@pytest.mark.parametrize(("args", "kwargs", "expected"), SCORE_CASES)
def test_score_answer(args, kwargs, expected):
    assert score_answer(*args, **kwargs) is expected


def test_generated_files_score_like_benchsmith(tmp_path):
    bench = write_bench(tmp_path)
    write_lmeval_task(bench, make_spec())
    inspect_module = load_module(write_inspect_task(bench, make_spec()), "same_rules_inspect")
    utils = load_module(bench / "lmeval" / "utils.py", "same_rules_utils")
    for args, kwargs, expected in SCORE_CASES:
        assert inspect_module.score_answer(*args, **kwargs) is expected
        assert utils.score_answer(*args, **kwargs) is expected


def test_wall_time_sums_every_part_of_a_resumed_build(tmp_path):
    import json as _json
    import time as _time

    from benchsmith.package.writer import wall_time

    now = _time.time()
    run = tmp_path / ".run"
    run.mkdir()
    # A first part started 1000 s ago and was killed 600 s later (its last ledger line);
    # the second part started 100 s ago and is the one packaging now.
    starts = [now - 1000, now - 100]
    (run / "parts.jsonl").write_text("".join(_json.dumps({"start": t}) + "\n" for t in starts))
    ledger_times = [now - 900, now - 400, now - 50]
    total = wall_time(run, started_at=now - 100, ledger_times=ledger_times)
    assert 699 <= total <= 705  # 600 s of the killed part + the 100 s of this one
    assert wall_time(tmp_path / "none", started_at=now - 10, ledger_times=[]) < 12


def test_wall_time_counts_a_part_that_ended_by_itself_in_full(tmp_path):
    import json as _json
    import time as _time

    from benchsmith.package.writer import wall_time

    now = _time.time()
    run = tmp_path / ".run"
    run.mkdir()
    # 40 minutes of planning stopped by Ctrl-C (an end line, no ledger line), then a resume.
    lines = [{"start": now - 3000}, {"end": now - 600}, {"start": now - 60}]
    (run / "parts.jsonl").write_text("".join(_json.dumps(x) + "\n" for x in lines))
    total = wall_time(run, started_at=now - 60, ledger_times=[now - 30])
    assert 2459 <= total <= 2465  # 2400 s of the stopped part + the 60 s of this one

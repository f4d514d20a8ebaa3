"""Integration: `benchsmith plan` on the embedded model over the offline starter catalog."""

import json
import os
from pathlib import Path

import pytest

from benchsmith.api import plan_benchmark
from benchsmith.catalog.starter import build_starter
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.local import server_available
from benchsmith.spec import BenchmarkSpec
from benchsmith.testing.inprocess import run_cli

pytestmark = [
    pytest.mark.integration,
    # The embedded model is slow on 2 shared cores; each plan takes ~30 s when idle.
    pytest.mark.timeout(900),
    pytest.mark.skipif(not server_available(), reason="benchsmith[local] is not installed"),
]


@pytest.fixture(scope="module")
def starter(tmp_path_factory):
    catalog = Catalog(tmp_path_factory.mktemp("catalog"))
    assert len(build_starter(catalog)) >= 8
    return catalog


def plan_cli(intent, size, catalog_dir, out, *extra, stdin=""):
    """Run `benchsmith plan` with one subtask (the CLI's main, in this process: the plans
    share one embedded-model server; test_exit_codes covers the installed command)."""
    return run_cli(
        ["plan", intent, "--size", str(size), "--catalog", str(catalog_dir), "--out", str(out),
         "--max-subtasks", "1", *extra],
        Path(out).parent,
        dict(os.environ),
        stdin=stdin,
    )  # fmt: skip


def config(catalog, **extra):
    return RunConfig(
        model="local",
        max_subtasks=1,
        **extra,
        paths=RunPaths(catalog_dir=str(catalog.root)),
    )


@pytest.mark.parametrize(
    "intent,modality,tool,dataset,answers,kind",
    [
        (
            "spoken questions about world capitals", "audio", "tts_speak", "world-countries",
            {"capital"}, ("lookup", "name", None),
        ),
        (
            "images of handwritten digits", "image", None, "digits", {"label"},
            ("classify", None, "image"),
        ),
        (
            "facts about countries: their region and subregion", "text", None,
            "world-countries", {"region", "subregion"}, ("lookup", "name", None),
        ),
    ],
)  # fmt: skip
def test_embedded_model_plans_a_valid_spec(
    starter, tmp_path, intent, modality, tool, dataset, answers, kind
):
    result = plan_benchmark(intent, size=12, out=tmp_path, config=config(starter))
    spec = BenchmarkSpec.model_validate_json((tmp_path / "spec.json").read_text())
    assert spec == result.spec
    assert spec.intent == intent and spec.size == 12
    assert spec.subtasks and sum(a.quota for a in spec.allocations) == 12
    known = set(starter.ids())
    for g in spec.groundings:
        assert g.dataset_id in known
        card = starter.get(g.dataset_id)
        assert g.answer_field in {f.path for f in card.fields}
    assert all(modality in s.input_modalities for s in spec.subtasks)
    used = {a.grounding_id for a in spec.allocations if a.quota}
    plans = [g.plan for g in spec.groundings if g.id in used]
    if tool:
        assert all(p and p[0].tool == tool for p in plans)
    if modality == "image":
        assert all(
            "image" in starter.get(g.dataset_id).modalities for g in spec.groundings if g.id in used
        )
    assert result.log and any(line.startswith("grounding:") for line in result.log)
    # Aligned with the intent, checked in code: the right data, the right answer. A table
    # is read into a question program: a lookup of the answer by the record's name, or, over
    # the digits' pictures, a classification whose feature is the record's image.
    for g in (g for g in spec.groundings if g.id in used):
        assert g.dataset_id == dataset and g.answer_field in answers
        assert g.scores.intent_alignment >= 0.5
        assert g.strategy == "question_program" and g.program is not None
        assert (g.program.kind, g.program.key_field, g.program.media_field) == kind
        assert g.program.answer_field in answers


def test_an_intent_no_dataset_covers_exits_non_zero_and_says_what_to_add(starter, tmp_path):
    done = plan_cli("protein folding free energies", 10, starter.root, tmp_path / "p")
    assert done.returncode != 0
    assert "no dataset or reference in the catalog covers" in done.stderr
    assert "--dataset" in done.stderr and "Traceback" not in done.stderr


def test_plan_command_prints_the_plan_and_writes_the_spec(starter, tmp_path):
    done = plan_cli("world capitals quiz", 8, starter.root, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Benchmark plan: 'world capitals quiz', 8 items" in done.stdout
    spec = json.loads((tmp_path / "spec.json").read_text())
    assert sum(a["quota"] for a in spec["allocations"]) == 8
    assert f"spec written to {tmp_path / 'spec.json'}" in done.stdout


def test_empty_catalog_is_a_clear_error(tmp_path):
    done = plan_cli("world capitals quiz", 5, tmp_path / "empty", tmp_path / "out")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    # Progress lines ("plan: ...") come first; the error is one line, and the last.
    assert all(x.startswith("plan: ") for x in lines[:-1]), lines
    assert lines[-1].startswith("benchsmith: error: ") and "empty catalog" in lines[-1]
    assert "--dataset" in lines[-1] and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "answer,code,text",
    [("approve\n", 0, "spec written to"), ("reject\ntoo easy\n", 1, "rejected in review")],
)
def test_plan_review_asks_a_person(starter, tmp_path, answer, code, text):
    done = plan_cli("world capitals quiz", 4, starter.root, tmp_path, "--review", stdin=answer)
    assert done.returncode == code, done.stderr
    assert "approve, edit or reject the plan?" in done.stdout
    assert text in done.stdout + done.stderr
    assert (tmp_path / "spec.json").exists() == (code == 0)

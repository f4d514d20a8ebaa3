"""Difficulty in builds: a textbook (solution-graph) build with a mix follows it, each item
carries its predicted difficulty, and the report gives the mix asked for and reached; a
question program's items carry the generator's label too, and a label its candidates
cannot reach is reported short."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from executor_fakes import Router, install, judge_yes, make_catalog, make_spec
from test_executor import items, run

from benchsmith.agents.references import reference_subtasks, solution_grounding
from benchsmith.api import build_benchmark
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths
from benchsmith.difficulty_mix import apportion, parse_mix
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import Allocation, BenchmarkSpec

CHAPTER = Path(__file__).resolve().parents[2] / "examples" / "references" / "time-value-of-money.md"


def computed_spec(tmp_path: Path, size: int) -> BenchmarkSpec:
    catalog = Catalog(tmp_path / "run-catalog")
    card = catalog.add_reference(str(CHAPTER))
    (subtask,) = reference_subtasks(
        RunConfig(paths=RunPaths(run_catalog_dir=str(tmp_path / "run-catalog"))), []
    )
    grounding = solution_grounding(subtask, card)
    return BenchmarkSpec(
        intent="time value of money problems",
        size=size,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=size)],
    )


def build(tmp_path: Path, name: str, spec: BenchmarkSpec, **config: object) -> Path:
    out = tmp_path / name
    run_config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out),
            run_dir=str(out / ".run"),
            run_catalog_dir=str(tmp_path / "run-catalog"),
            catalog_dir=str(tmp_path / "run-catalog"),
        ),
        **config,
    )
    install(run_config, Router(JudgeVerdict=judge_yes))
    try:
        result = build_benchmark(out=out, config=run_config, spec=spec)
    finally:
        register_runtime(run_config, None)
    assert result.status == "complete"
    return out


def rows(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("mix", ["easy=0.3,medium=0.4,hard=0.3", "easy=0.6,hard=0.4"])
def test_a_textbook_build_follows_the_mix(tmp_path, mix):
    spec = computed_spec(tmp_path, 10)
    out = build(tmp_path, "mixed", spec, difficulty_mix=parse_mix(mix))
    made = rows(out)
    assert len(made) == 10
    got = Counter(r["metadata"]["difficulty"] for r in made)
    wanted = apportion(10, parse_mix(mix))
    for label, n in wanted.items():
        assert abs(got[label] - n) <= 1, (label, got, wanted)
    for row in made:
        model = row["metadata"]["difficulty_model"]
        assert model["source"] == "generator" and model["label"] == row["metadata"]["difficulty"]
        assert model["params"]["steps"] == row["metadata"]["steps"]
        assert {"givens", "conversions", "options", "digits"} <= set(model["params"])
    report = json.loads((out / "report.json").read_text())
    section = report["difficulty_mix"]
    assert section["requested"] == parse_mix(mix)
    (subtask,) = section["subtasks"].values()
    assert subtask["wanted"] == wanted and subtask["got"] == {k: got[k] for k in wanted}
    assert sum(section["achieved_counts"].values()) == 10
    md = (out / "report.md").read_text()
    assert "## Difficulty mix" in md and "| label | wanted | got |" in md
    # The coverage table still counts the chain lengths delivered.
    (computed,) = report["computed"]
    produced = sum(c["value"] for c in computed["coverage"]["produced"])
    assert produced == 10


def test_a_textbook_build_without_a_mix_is_as_before(tmp_path):
    spec = computed_spec(tmp_path, 6)
    first = build(tmp_path, "first", spec)
    second = build(tmp_path, "second", spec)
    assert (first / "data" / "test.jsonl").read_bytes() == (
        second / "data" / "test.jsonl"
    ).read_bytes()
    report = json.loads((first / "report.json").read_text())
    assert "difficulty_mix" not in report
    assert "Difficulty mix" not in (first / "report.md").read_text()
    build_file = json.loads((first / ".run" / "build.json").read_text())
    assert "difficulty_mix" not in build_file


def test_program_items_carry_the_generators_label_and_an_unreachable_share_is_noted(tmp_path):
    # A closed-book lookup names one record and asks for one value: the generator rates
    # every candidate easy, and has no variant of the program that makes a harder one.
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 3, card.size, {})])
    router = Router(JudgeVerdict=judge_yes)
    result, _path, _runtime, out = run(
        tmp_path, spec, router, difficulty_mix=parse_mix("easy=0.5,hard=0.5")
    )
    assert result.status == "complete"
    made = items(out)
    assert len(made) == 3
    for row in made:
        model = row["metadata"]["difficulty_model"]
        assert model["source"] == "generator" and model["label"] == "easy"
        assert model["params"]["kind"] == "lookup" and model["params"]["options"] == 0
        assert row["metadata"]["difficulty"] == "easy"
    section = json.loads((out / "report.json").read_text())["difficulty_mix"]
    (subtask,) = section["subtasks"].values()
    assert subtask["wanted"] == {"easy": 2, "medium": 0, "hard": 1}
    assert subtask["got"] == {"easy": 3, "medium": 0, "hard": 0}
    assert section["notes"] == [
        "difficulty mix: capitals: hard 0 of 1 wanted (the generator produced no more)"
    ]


def test_a_resumed_build_keeps_its_mix_and_refuses_another(tmp_path):
    from benchsmith.api import BuildError

    spec = computed_spec(tmp_path, 6)
    out = build(tmp_path, "mixed", spec, difficulty_mix=parse_mix("easy=0.5,hard=0.5"))
    saved = json.loads((out / ".run" / "build.json").read_text())
    assert saved["difficulty_mix"] == parse_mix("easy=0.5,hard=0.5")
    paths = RunPaths(out_dir=str(out), run_dir=str(out / ".run"),
                     run_catalog_dir=str(tmp_path / "run-catalog"),
                     catalog_dir=str(tmp_path / "run-catalog"))  # fmt: skip
    again = RunConfig(judge="enforce", paths=paths)  # no mix given: the recorded one
    install(again, Router(JudgeVerdict=judge_yes))
    try:
        result = build_benchmark(out=out, config=again, resume=True)
        assert result.report["difficulty_mix"]["requested"] == parse_mix("easy=0.5,hard=0.5")
        other = RunConfig(judge="enforce", paths=paths, difficulty_mix=parse_mix("hard=1"))
        with pytest.raises(BuildError, match="difficulty_mix"):
            build_benchmark(out=out, config=other, resume=True)
    finally:
        register_runtime(again, None)

"""The solution-graph strategy inside the build: a --reference becomes a computed subtask,
grounded in its solution graph, realized and verified like any other, with its coverage and
rejected formulas in the report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import sympy
from executor_fakes import Router, install, judge_yes
from planner_fakes import COUNTRIES, FakeCatalog, SchemaScript, install_model

import benchsmith.agents.sources as sources
from benchsmith.agents.references import reference_subtasks, solution_grounding
from benchsmith.api import build_benchmark, plan_benchmark
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import Allocation, BenchmarkSpec

CHAPTER = Path(__file__).resolve().parents[2] / "examples" / "references" / "time-value-of-money.md"


@pytest.fixture
def reference_catalog(tmp_path):
    catalog = Catalog(tmp_path / "run-catalog")
    card = catalog.add_reference(str(CHAPTER))
    return catalog, card


def test_a_reference_gives_computed_subtasks_only_grounded_in_its_graph(
    tmp_path, reference_catalog, monkeypatch
):
    # A reference never takes the record path: no subtask invented around it ("capitals"),
    # though the intent names one and the catalog has countries; no model call but the
    # allocation's weights.
    monkeypatch.setattr(sources, "catalog_sources", lambda config: [FakeCatalog([COUNTRIES])])
    config = RunConfig(
        max_subtasks=2, paths=RunPaths(run_catalog_dir=str(tmp_path / "run-catalog"))
    )
    script = SchemaScript(ImportanceWeights=[{"weights": []}])
    install_model(config, script)
    try:
        result = plan_benchmark("capitals and time value of money", size=10, config=config)
    finally:
        register_runtime(config, None)
    spec = result.spec
    ids = [s.id for s in spec.subtasks]
    assert ids == ["computed-time-value-of-money"]
    assert dict(script.calls) == {"ImportanceWeights": 1}
    computed = next(g for g in spec.groundings if g.strategy == "solution_graph")
    assert computed.subtask_id == "computed-time-value-of-money"
    assert computed.dataset_id == "time-value-of-money" and computed.plan == []
    assert sum(a.quota for a in spec.allocations) == 10
    assert any("solution graph of time-value-of-money" in line for line in result.log)


def test_no_subtask_for_a_reference_without_formulas(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nCapitals are cities where governments sit.\n")
    catalog = Catalog(tmp_path / "run-catalog")
    catalog.add_reference(str(notes))
    config = RunConfig(paths=RunPaths(run_catalog_dir=str(tmp_path / "run-catalog")))
    assert reference_subtasks(config, []) == []


def test_computed_items_are_built_verified_and_recomputable(tmp_path, reference_catalog):
    _catalog, card = reference_catalog
    config_for_subtasks = RunConfig(paths=RunPaths(run_catalog_dir=str(tmp_path / "run-catalog")))
    (subtask,) = reference_subtasks(config_for_subtasks, [])
    grounding = solution_grounding(subtask, card)
    spec = BenchmarkSpec(
        intent="time value of money problems",
        size=6,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=6)],
    )
    out = tmp_path / "bench"
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out),
            run_dir=str(out / ".run"),
            run_catalog_dir=str(tmp_path / "run-catalog"),
            catalog_dir=str(tmp_path / "run-catalog"),
        ),
    )
    router = Router(JudgeVerdict=judge_yes)
    install(config, router)
    try:
        result = build_benchmark(out=out, config=config, spec=spec)
    finally:
        register_runtime(config, None)
    assert result.status == "complete" and result.items == 6
    assert len(router.prompts["JudgeVerdict"]) == 6  # every computed item was judged
    assert set(router.prompts) == {"JudgeVerdict"}  # no other structured call
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    for row in rows:
        meta = row["metadata"]
        assert meta["source"]["strategy"] == "solution_graph"
        assert meta["reference"]["section"].startswith("The Time Value of Money")
        graph = meta["solution_graph"]
        values = {k: sympy.Float(v) for k, v in graph["givens"].items()}
        for step in graph["steps"]:
            values[step["output"]] = sympy.sympify(step["expression"]).subs(values).evalf()
        answer = float(values[graph["target"]])
        expected = float(meta["answer_value"])
        if not row["choices"]:
            # rounded as the text asks: cents, a percentage, three significant figures
            scale = 100 if meta["unit"] == "percent" else 1
            assert math.isclose(
                float(row["target"]) / scale, expected, rel_tol=0.005, abs_tol=0.005
            )
        assert math.isclose(answer, expected, rel_tol=1e-6), (row["id"], answer, expected)
        assert meta["verification"]["judge"]["enforced"] is True
    # The quota spreads over the chapter's concepts and difficulties.
    assert len({row["metadata"]["concepts"][0] for row in rows}) == 6
    assert {row["metadata"]["steps"] for row in rows} >= {1, 2}
    report = json.loads((out / "report.json").read_text())
    (computed,) = report["computed"]
    assert computed["grounding_id"] == grounding.id
    # Every formula of the chapter is admitted: the profitability index, out of range on
    # independently drawn inputs, is plausible on inputs from one consistent world.
    assert computed["rejected_formulas"] == []
    text = (out / "report.md").read_text()
    assert "## Computed items" in text and "| concept |" in text
    assert "Formulas not admitted: 0" in text


def test_interleaving_keeps_every_item_and_spreads_prefixes():
    from types import SimpleNamespace

    from benchsmith.agents.candidates import interleave_cells

    for n_concepts, n_steps in ((6, 3), (2, 3), (1, 1), (4, 2)):
        items = [
            SimpleNamespace(metadata={"concepts": [f"c{c}"], "steps": k}, n=(c, k, i))
            for c in range(n_concepts)
            for k in range(1, n_steps + 1)
            for i in range(2)
        ]
        out = interleave_cells(items)
        assert sorted(x.n for x in out) == sorted(x.n for x in items)
        first = out[: n_concepts * n_steps]
        assert {x.n[:2] for x in first} == {
            (c, k) for c in range(n_concepts) for k in range(1, n_steps + 1)
        }
        prefix = out[:n_concepts]
        assert {x.n[0] for x in prefix} == set(range(n_concepts))

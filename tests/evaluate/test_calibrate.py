"""``benchsmith calibrate`` and ``perturb`` against a simulated panel behind the fake endpoint.

Six simulated models of known ability answer items of known difficulty and discrimination
(two-parameter logistic draws, :mod:`benchsmith.testing.panel`); the calibration must
recover both, and the contamination check must find the two models that memorized the
published items and only them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from eval_helpers import mc, write_bench
from scipy.stats import pearsonr, spearmanr

from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate.calibrate import calibrate_benchmark
from benchsmith.evaluate.folder import EvaluationError, load_items
from benchsmith.evaluate.perturb import holm, pair_items, perturb_benchmark
from benchsmith.item import Item
from benchsmith.llm.registry import register_runtime
from benchsmith.testing.fake_openai import FakeOpenAIServer
from benchsmith.testing.panel import SimulatedModel, SimulatedPanel
from benchsmith.testing.runtime import endpoint_runtime

ABILITIES = {"m1": -2.5, "m2": -1.5, "m3": -0.5, "m4": 0.5, "m5": 1.5, "m6": 2.5}


def items_with_truth(n: int, seed: int, prefix: str = "q") -> tuple[list[dict], dict]:
    """``n`` four-choice items and their true (discrimination, difficulty).

    Each item's generator "predicted" its difficulty roughly: the true one plus noise.
    """
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for i in range(n):
        target = "ABCD"[int(rng.integers(4))]
        a, b = float(rng.uniform(0.8, 2.5)), float(rng.uniform(-2.5, 2.5))
        guess = 1 / (1 + np.exp(-(b + rng.normal(0, 0.7))))
        rows.append(
            mc(
                f"s-{i:05d}",
                f"{prefix} {seed}-{i}: which option is the marked one?",
                [f"option {k}" for k in range(4)],
                target,
                subtask="s",
                difficulty_model={"score": round(float(guess), 4), "source": "generator"},
            )
        )
        truth[f"s-{i:05d}"] = (a, b)
    return rows, truth


def run_panel(bench: Path, tmp_path: Path, panel: SimulatedPanel, fn, *, times: int = 1, **kwargs):
    """``fn(bench, models, ...)`` with the panel behind one fake endpoint, ``times`` times.

    Returns every result and the model specs (a rerun names the same endpoint, so its
    calls are served from the run records).
    """
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    with FakeOpenAIServer(default=panel) as server:
        runtime = endpoint_runtime(server.base_url, run_dir=config.paths.run_dir, max_retries=0)
        register_runtime(config, runtime)
        try:
            models = [f"{name}@{server.base_url}" for name in panel.models]
            results = [fn(bench, models, config=config, concurrency=8, **kwargs)
                       for _ in range(times)]  # fmt: skip
            return results, models
        finally:
            register_runtime(config, None)


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A 400-item benchmark calibrated on the six simulated models, three answers each
    (benchmarks/calibration_sim.py measures one and five: r 0.86 and 0.96)."""
    root = tmp_path_factory.mktemp("calibrate")
    rows, truth = items_with_truth(400, seed=3)
    bench = write_bench(root, rows)
    panel = SimulatedPanel([SimulatedModel(n, a) for n, a in ABILITIES.items()], seed=1)
    panel.add_items(load_items(bench), truth)
    (result, again), _models = run_panel(
        bench, root, panel, calibrate_benchmark, times=2, epochs=3, subset_size=100
    )
    return bench, result, truth, again, root


def test_calibrate_recovers_difficulty_and_ability(calibrated):
    _bench, result, truth, _again, _root = calibrated
    rows = result.data["items"]
    fitted = [r["difficulty"] for r in rows]
    true_b = [truth[r["id"]][1] for r in rows]
    r_b = pearsonr(fitted, true_b)[0]
    assert r_b >= 0.9, r_b
    abilities = [m["ability"] for m in result.data["panel"]]
    rho = spearmanr(abilities, list(ABILITIES.values()))[0]
    assert rho >= 0.9, rho
    # the generators' guesses (true difficulty plus noise) agree with the fitted difficulty
    agreement = result.data["predicted_vs_fitted"]
    assert agreement["items"] == 400 and agreement["spearman"] > 0.8, agreement
    # discrimination is harder to recover from six models; it must at least go the right way
    assert pearsonr([r["discrimination"] for r in rows], [truth[r["id"]][0] for r in rows])[0] > 0


def test_the_subset_of_100_ranks_the_panel_as_the_full_set(calibrated):
    _bench, result, _truth, _again, _root = calibrated
    subset = result.data["subset"]
    assert subset["size"] == 100 and len(subset["ids"]) == 100
    full = [m["accuracy"] for m in result.data["panel"]]
    estimated = [m["subset_estimate"] for m in result.data["panel"]]
    assert np.argsort(full).tolist() == np.argsort(estimated).tolist()
    assert subset["ranking_kept"] is True
    assert subset["mean_abs_error"] < 0.05


def test_separability_and_flags_are_reported(calibrated):
    bench, result, _truth, _again, _root = calibrated
    sep = result.data["separability"]
    assert sep["pairs"] == 15
    # abilities one logit apart on 400 items: most pairs separate, not necessarily all
    assert 0.6 <= sep["share"] <= 1.0
    for m in result.data["panel"]:
        low, high = m["ci95"]
        assert low <= m["accuracy"] <= high
    flagged = {i for ids in result.data["flags"].values() for i in ids}
    for row in result.data["items"]:
        assert (row["id"] in flagged) == (row["flag"] is not None)
        if row["flag"] == "solved_by_all":
            assert row["p_correct"] == 1.0


def test_calibration_lands_in_metadata_card_and_report(calibrated):
    bench, result, _truth, _again, _root = calibrated
    saved = json.loads((bench / "calibration.json").read_text())
    assert saved["subset"] == result.data["subset"]
    items = load_items(bench)
    by_id = {r["id"]: r for r in result.data["items"]}
    for item in items:
        cal = item.metadata["calibration"]
        assert cal["difficulty"] == by_id[item.id]["difficulty"]
        assert cal["discrimination"] == by_id[item.id]["discrimination"]
        assert len(cal["panel"]) == 6 and cal["epochs"] == 3
    page = (bench / "report.html").read_text()
    section = page[page.index("<h2>Calibration (benchsmith calibrate)</h2>") :]
    assert 'alt="accuracy of each panel model with its bootstrap interval"' in section
    assert 'alt="fitted item parameters"' in section
    sep = result.data["separability"]
    assert f"{sep['separated']} of 15 pairs" in section


def test_a_rerun_is_served_from_the_records(calibrated):
    _bench, result, _truth, again, _root = calibrated
    assert result.new_calls == 6 * 400 * 3
    assert again.new_calls == 0
    assert again.data["items"] == result.data["items"]


def test_calibrate_needs_a_panel(tmp_path):
    rows, _truth = items_with_truth(5, seed=1)
    bench = write_bench(tmp_path, rows)
    with pytest.raises(EvaluationError, match="at least 3 models"):
        calibrate_benchmark(bench, ["baseline:random", "baseline:first"])
    with pytest.raises(EvaluationError, match="--epochs"):
        calibrate_benchmark(bench, ["baseline:random", "baseline:first"], epochs=0)


def test_holm_adjusts_step_down():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]


def test_perturb_finds_the_models_that_memorized_the_published_items(tmp_path):
    rows, truth = items_with_truth(200, seed=5, prefix="published")
    published = write_bench(tmp_path / "pub", rows)
    fresh_rows, fresh_truth = items_with_truth(200, seed=6, prefix="fresh")
    # a fresh instance keeps its slot's id and the published item's difficulty
    fresh_truth = {i: truth[i] for i in fresh_truth}
    fresh = write_bench(tmp_path / "fresh", fresh_rows)
    seen = frozenset(i.user_text().strip() for i in load_items(published))
    memorizers = {"m2", "m4"}
    panel = SimulatedPanel(
        [
            SimulatedModel(n, a, memorized=seen if n in memorizers else frozenset())
            for n, a in ABILITIES.items()
        ],
        seed=2,
    )
    panel.add_items(load_items(published), truth)
    panel.add_items(load_items(fresh), fresh_truth)
    (result,), _models = run_panel(
        published, tmp_path, panel, perturb_benchmark, seed=99, fresh_dir=fresh
    )
    rows_by_name = {m.split("@")[0]: row for m, row in result.data["models"].items()}
    for name, row in rows_by_name.items():
        assert row["n"] == 200
        if name in memorizers:
            assert row["p_value"] < 0.01 and row["significant"], (name, row)
            assert row["gap"] > 0.2
        else:
            assert not row["significant"], (name, row)
    saved = json.loads((published / "perturb.json").read_text())
    assert not Path(saved["fresh"]["folder"]).is_absolute()


def test_fresh_items_are_paired_by_generator_not_by_id():
    def item(item_id, grounding, kind=None, label="medium"):
        meta = {"source": {"grounding": grounding}, "difficulty_model": {"label": label}}
        if kind:
            meta["program"] = {"kind": kind}
        return Item(id=item_id, input="q", target="a", metadata=meta)

    published = [
        item("g1-00003", "g1", "count"),
        item("g1-00001", "g1", "superlative", "hard"),
        item("g2-00002", "g2"),
        item("g2-00009", "g2"),
    ]
    fresh = [
        item("g1-00007", "g1", "superlative", "hard"),
        item("g1-00005", "g1", "compare"),
        item("g2-00004", "g2"),
        item("g3-00001", "g3"),
    ]
    pairs = pair_items(published, fresh)
    # same program and label first; then within the grounding; g2's extra and g3 unpaired
    assert sorted(pairs) == [
        ("g1-00001", "g1-00007"),
        ("g1-00003", "g1-00005"),
        ("g2-00002", "g2-00004"),
    ]

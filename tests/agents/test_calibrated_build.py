"""A calibrated build against a simulated panel meets its difficulty mix (scripted fakes).

The build computes short-answer items with a lookup program (the scripted fake judges
them); six simulated models (:mod:`benchsmith.testing.panel`) answer them through the fake
endpoint, each item's true difficulty drawn from its question. Items beyond a label's
share, or that separate nothing, are revoked in the ledger and the build refills their
slots, round after round.
"""

from __future__ import annotations

import hashlib
import json

from executor_fakes import Router, install, judge_yes, make_catalog, make_spec

from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate.calibrated_build import calibrated_build, choose_drops, measured_label
from benchsmith.llm.registry import register_runtime
from benchsmith.testing.fake_openai import FakeOpenAIServer
from benchsmith.testing.panel import SimulatedModel, SimulatedPanel
from benchsmith.testing.runtime import endpoint_runtime

ABILITIES = {"m1": -2.5, "m2": -1.5, "m3": -0.5, "m4": 0.5, "m5": 1.5, "m6": 2.5}
ROWS = [(f"Country {i}", f"City {i}", "Nowhere") for i in range(120)]


def true_params(item):
    """Discrimination 2 and a difficulty in [-2, 2] from the question's hash."""
    digest = hashlib.sha256(item.user_text().encode()).digest()
    return 2.0, -2.0 + 4.0 * int.from_bytes(digest[:4], "big") / 2**32


def test_measured_labels_and_drops():
    assert [measured_label(p) for p in (1.0, 2 / 3, 0.5, 1 / 3, 0.0, None)] == [
        "easy", "easy", "medium", "hard", "hard", "medium"
    ]  # fmt: skip
    rows = [
        {"id": "a", "flag": "solved_by_all", "discrimination": 1.0, "p_correct": 1.0},
        {"id": "b", "flag": None, "discrimination": 0.1, "p_correct": 0.5},
        {"id": "c", "flag": None, "discrimination": 1.0, "p_correct": 0.9},
        {"id": "d", "flag": None, "discrimination": 2.0, "p_correct": 0.8},
        {"id": "e", "flag": None, "discrimination": 1.0, "p_correct": 0.5},
    ]
    mix = {"easy": 1 / 3, "medium": 1 / 3, "hard": 1 / 3}
    drops, wanted, kept = choose_drops(rows, mix, 3, 0.3)
    assert wanted == {"easy": 1, "medium": 1, "hard": 1}
    # a separates nothing, b too little; c is the easy item beyond the mix (less
    # discriminating than d)
    assert set(drops) == {"a", "b", "c"}
    assert "solved by all" in drops["a"] and "discrimination" in drops["b"]
    assert kept == {"easy": 1, "medium": 1, "hard": 0}


def test_a_calibrated_build_meets_its_difficulty_mix(tmp_path):
    _catalog, card = make_catalog(tmp_path, rows=ROWS)
    spec = make_spec([("capitals--capitals", "capitals", 9, card.size, {})])
    out = tmp_path / "bench"
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(tmp_path / "catalog")
        ),
    )
    install(config, Router(JudgeVerdict=judge_yes))
    # A panel seed whose first round misses the mix, so items are taken out and refilled.
    panel = SimulatedPanel([SimulatedModel(n, a) for n, a in ABILITIES.items()], seed=1)
    panel.watch(out, true_params)
    panel_config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "panel-runs")))
    mix = {"easy": 1 / 3, "medium": 1 / 3, "hard": 1 / 3}
    rounds = []
    try:
        with FakeOpenAIServer(default=panel) as server:
            runtime = endpoint_runtime(server.base_url, run_dir=tmp_path / "panel-runs")
            register_runtime(panel_config, runtime)
            result = calibrated_build(
                out=out,
                panel=[f"{n}@{server.base_url}" for n in ABILITIES],
                mix=mix,
                max_rounds=12,
                config=config,
                panel_config=panel_config,
                on_round=rounds.append,
                spec=spec,
            )
    finally:
        register_runtime(config, None)
        register_runtime(panel_config, None)
    assert result.wanted == {"easy": 3, "medium": 3, "hard": 3}
    for label, n in result.wanted.items():
        assert abs(result.kept[label] - n) <= 1, (result.kept, rounds)
    assert result.met and len(rounds) >= 2 and rounds[0]["taken_out"] > 0
    items = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text().splitlines()]
    assert len(items) == 9
    # the panel measured each kept item; their labels are the counts reported
    measured = [measured_label(i["metadata"]["calibration"]["p_correct"]) for i in items]
    assert {k: measured.count(k) for k in mix} == result.kept
    rejects = [json.loads(line) for line in (out / "rejects.jsonl").read_text().splitlines()]
    revoked = [r for r in rejects if str(r.get("reason", "")).startswith("calibration")]
    assert len(revoked) == sum(r["taken_out"] for r in rounds[:-1])
    report = json.loads((out / "report.json").read_text())
    assert report["calibrated_build"]["met"] is True
    assert "## Calibrated build" in (out / "report.md").read_text()

"""The benchmark scripts: shared helpers, the faulty fake builder, and the cheap scripts' runs.

The scripts that take minutes even in their quick mode (build_speed, solution_speed,
local_model) are not run here; ``make benchmarks BENCH_ARGS=--quick`` runs them all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith.prompts import render, untrusted
from benchsmith.testing.build_fakes import REJECTION_REASON, FaultyBuilder, item_digest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


@pytest.fixture()
def common():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _common

        yield _common
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_summary_and_interleaving(common):
    s = common.Summary.of([3.0, 1.0, 2.0])
    assert (s.median, s.low, s.high, s.n) == (2.0, 1.0, 3.0, 3)
    assert s.text(".1f", " s") == "2.0 s (1.0-3.0, n=3)"
    calls = []
    samples = common.interleaved(
        {"a": lambda r: calls.append(("a", r)) or 1.0, "b": lambda r: calls.append(("b", r))},
        repeats=2,
    )
    assert calls == [("a", -1), ("b", -1), ("a", 0), ("b", 0), ("b", 1), ("a", 1)]
    assert samples["a"] == [1.0, 1.0] and len(samples["b"]) == 2
    assert common.ratios([2.0, 3.0], [1.0, 2.0]) == [2.0, 1.5]


def _judge_body(item: str) -> dict:
    """A judge request as the build sends it: the prompt quotes the item as data."""
    schema = {
        "type": "object",
        "properties": {
            k: {"type": "string", "enum": ["yes", "no"]}
            for k in ("answerable", "single_answer", "relevant", "clear")
        }
        | {"reason": {"type": "string"}},
    }
    prompt = render(
        "judge",
        subtask_name="Capitals",
        subtask_description="Name the capital of a country.",
        answer_format="short_answer",
        media="",
        item=untrusted(item, "item"),
    )
    return {
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{"type": "function", "function": {"name": "JudgeVerdict", "parameters": schema}}],
    }


def _answerable(fake: FaultyBuilder, item: str) -> str:
    reply = fake(_judge_body(item))
    return json.loads(reply.arguments)["answerable"]


def test_faulty_builder_rejects_its_share_of_items_the_same_way_every_time():
    fake = FaultyBuilder(reject_share=0.2)
    digests = [f"{i * 2654435761 % 16**8:08x}" for i in range(2000)]
    kinds = [fake.kind(d) for d in digests]
    assert abs(kinds.count("reject") / 2000 - 0.2) < 0.04
    items = [f"question: What is the capital of Country {i}?\nanswer: City {i}" for i in range(200)]
    for item in items[:40]:
        digest = item_digest(_judge_body(item)["messages"][0]["content"])
        assert digest is not None
        expected = "no" if fake.kind(digest) == "reject" else "yes"
        assert _answerable(fake, item) == _answerable(fake, item) == expected
    rejected = [i for i in items if _answerable(fake, i) == "no"]
    assert 0.1 < len(rejected) / len(items) < 0.3
    assert REJECTION_REASON in fake(_judge_body(rejected[0])).arguments
    with pytest.raises(ValueError):
        FaultyBuilder(reject_share=1.5)


def _run_quick(name: str) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    prefix = "FIGURE "
    return [json.loads(line[len(prefix) :]) for line in out.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize("name", ["catalog_speed", "llm_overhead", "tools_overhead"])
def test_quick_script_prints_its_figures(name):
    if name == "tools_overhead" and not (shutil.which("ffmpeg") and shutil.which("espeak-ng")):
        pytest.skip("needs ffmpeg and espeak-ng")
    figures = _run_quick(name)
    assert figures
    for fig in figures:
        assert fig["key"] and fig["name"] and fig["goal"] and fig["value"]


def test_demo_speed_reads_each_build_s_report(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import demo_speed

    report = {
        "items": 8,
        "wall_time_s": 120.0,
        "wording": {"template": 6, "model": 2},
        "llm": {"by_role": {"orchestration": {"calls": 9}}},
    }
    (tmp_path / "report.json").write_text(json.dumps(report))
    fig = demo_speed.build_figures(tmp_path)
    assert fig == {
        "items": 8,
        "wall_s": 120.0,
        "s_per_item": 15.0,
        "calls": {"orchestration": 9},
        "template_worded": 6,
        "model_worded": 2,
    }


def test_build_overheads_split_the_time_beyond_the_ideal(common):
    import build_speed

    # c=4, 1 s a call: four calls at once from t=1 to t=3 (8 calls), then a chain of two
    # calls alone (t=3..5); the build started at 0.5 and ends at 5.5 (packaging).
    times = [1.0] * 4 + [2.0] * 4 + [3.0, 4.0]
    pairs = [(t, t + 1.0) for t in times]
    parts = build_speed.overheads(pairs, started=0.5, wall=5.0, latency=1.0, concurrency=4)
    assert parts["before"] == pytest.approx(0.5)
    assert parts["after"] == pytest.approx(0.5)
    # The chain took 2 s for 2 calls whose ideal is 0.5 s.
    assert parts["tail"] == pytest.approx(1.5)
    assert parts["middle"] == pytest.approx(0.0)  # full while building
    assert parts["server"] == pytest.approx(0.0)  # every answer on time
    ideal = len(times) * 1.0 / 4
    assert sum(parts.values()) == pytest.approx(5.0 - ideal)


def test_build_overheads_count_a_late_fake_apart(common):
    import build_speed

    # c=2, 1 s a call, four calls: the fake answers the second pair 0.5 s late each.
    pairs = [(0.0, 1.0), (0.0, 1.0), (1.0, 2.5), (1.0, 2.5)]
    parts = build_speed.overheads(pairs, started=0.0, wall=2.5, latency=1.0, concurrency=2)
    assert parts["server"] == pytest.approx(0.5)  # 2 x 0.5 s over 2 slots
    assert parts["middle"] == pytest.approx(0.0)
    assert parts["before"] == pytest.approx(0.0) and parts["after"] == pytest.approx(0.0)
    assert sum(parts.values()) == pytest.approx(2.5 - 4 * 1.0 / 2)

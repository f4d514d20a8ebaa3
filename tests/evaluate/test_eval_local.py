"""Evaluation on a real benchmark built by the embedded model, and agreement with Inspect AI.

A 3-item text multiple-choice benchmark is built with SmolLM2-135M (``benchsmith build``,
the CLI's own main in the test's process); ``baseline:random``, ``baseline:first`` and
``local`` are evaluated offline; the report is checked; then the folder's
``inspect_task.py`` runs with ``inspect eval`` against the same llama.cpp server at
temperature 0 with the same token cap (512, the embedded model's default) and its accuracy
is compared with ``benchsmith eval``'s.

Both harnesses send the same one user message per item (benchsmith.package.item_prompt) and
score a multiple-choice answer by the same rule (``choice_letter``: ``ANSWER: C`` or a bare
leading letter such as ``C) Santiago``), so equal completions give equal scores. What is
asserted is what is deterministic: the messages Inspect sent are benchsmith's, and
benchsmith's scorer gives each of Inspect's completions Inspect's score. The completions
themselves are not: llama.cpp's server reuses the cached prefix of the previous prompt, and
greedy decoding over a differently split batch can pick another token (CI saw SmolLM2 answer
"A) Nairobi" in one harness and "The answer is C) Rome." in the other). Where the completions
are equal the scores are equal, and the accuracies are compared when all are.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re

import pytest

from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.local import local_server, server_available
from benchsmith.testing.inprocess import run_cli_checked
from benchsmith.testing.local_build import (
    BIN,
    build_capitals_locally,
    offline_env,
    run_checked,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SIZE = 3
MODELS = ["baseline:random", "baseline:first", "local"]
env = offline_env
run = run_checked


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    from benchsmith.evaluate.api import evaluate_benchmark

    tmp = tmp_path_factory.mktemp("eval-local")
    out, _done = build_capitals_locally(tmp, SIZE, skills=["geography"])
    config = RunConfig(paths=RunPaths(run_dir=str(tmp / "eval-runs")))
    result = evaluate_benchmark(out, MODELS, config=config, concurrency=2)
    return tmp, out, result


def test_three_models_are_evaluated_offline(evaluated):
    _tmp, out, result = evaluated
    data = json.loads((out / "eval.json").read_text())
    assert set(data["models"]) == set(MODELS)
    for model in MODELS:
        m = data["models"][model]
        assert m["n"] == SIZE and m["skipped"] == 0 and m["errors"] == 0
        assert 0.0 <= m["accuracy"] <= 1.0 and m["ci95"][0] <= m["accuracy"] <= m["ci95"][1]
        assert m["by_subtask"]["capitals"]["n"] == SIZE
    assert result.new_calls == SIZE  # one call per item for `local`, none for the baselines
    assert len(data["pairs"]) == 3 and len(data["items"]["per_item"]) == SIZE
    assert any("only 3 items" in w for w in data["warnings"])


def test_the_report_renders_with_plots_and_numbers(evaluated):
    _tmp, out, _result = evaluated
    page = (out / "report.html").read_text()
    data = json.loads((out / "eval.json").read_text())
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) >= 1  # the difficulty histogram (three models)
    # One subtask and one skill: the subtask plot and the coverage heatmap would say nothing.
    assert "No score by subtask plot: only 1 subtask" in page
    assert "No coverage heatmap plot: one subtask and one skill only" in page
    for image in images:
        assert base64.b64decode(image).startswith(b"\x89PNG\r\n\x1a\n")
    for model, m in data["models"].items():
        assert model in page
        assert f"{100 * m['accuracy']:.1f}%" in page
        assert f"{m['correct']}/{m['n']}" in page
    for warning in data["warnings"]:
        assert html.escape(warning) in page


def test_scores_agree_with_inspect_on_the_same_server(evaluated):
    tmp, out, result = evaluated
    base_url = local_server().ensure_started()
    logs = tmp / "inspect-logs"
    cwd = tmp / "elsewhere"
    run(
        [
            str(BIN / "inspect"), "eval", os.path.relpath(out / "inspect_task.py", cwd),
            "--model", "openai-api/local/smollm2", "--max-tokens", "512", "--temperature", "0",
            "--log-format", "json", "--display", "none",
        ],
        cwd,
        env(tmp, LOCAL_API_KEY="x", LOCAL_BASE_URL=base_url, INSPECT_LOG_DIR=str(logs)),
    )  # fmt: skip
    from inspect_ai.log import read_eval_log

    from benchsmith.evaluate.folder import load_items
    from benchsmith.evaluate.scoring import score_item
    from benchsmith.package.item_prompt import prompt_messages

    (log_file,) = logs.glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and len(log.samples) == SIZE
    inspect_correct = {str(s.id): next(iter(s.scores.values())).value == "C" for s in log.samples}
    inspect_answers = {str(s.id): s.output.completion for s in log.samples}
    inspect_prompts = {str(s.id): s.input for s in log.samples}
    records = {
        json.loads(line)["id"]: json.loads(line)
        for line in (out / "data" / "test.jsonl").read_text().splitlines()
    }
    items = {item.id: item for item in load_items(out)}
    ours = {s["item_id"]: s for s in result.samples if s["model"] == "local"}
    assert set(ours) == set(inspect_answers) == set(items)
    report = {
        i: {"inspect": (inspect_answers[i], inspect_correct[i]),
            "benchsmith": (ours[i]["answer"], ours[i]["correct"])}
        for i in ours
    }  # fmt: skip
    print(json.dumps(report, indent=1))
    for i in ours:
        # The one user message both harnesses send.
        (message,) = prompt_messages(records[i])
        assert message["role"] == "user" and inspect_prompts[i] == message["content"], i
        # Inspect's completion, scored by benchsmith, gets Inspect's score.
        assert score_item(inspect_answers[i], items[i]).correct == inspect_correct[i], report
        if ours[i]["answer"] == inspect_answers[i]:
            assert ours[i]["correct"] == inspect_correct[i], report
    if all(ours[i]["answer"] == inspect_answers[i] for i in ours):
        assert result.accuracy("local") == sum(inspect_correct.values()) / SIZE, report


def test_calibrate_and_perturb_run_end_to_end_on_the_embedded_model(evaluated):
    """``benchsmith calibrate`` and ``perturb`` (the CLI's main, in process) with the baselines and
    the embedded model as the panel: the fresh build is a real build on SmolLM2-135M."""
    tmp, out, _result = evaluated
    environ = env(tmp)
    panel = [arg for model in MODELS for arg in ("--model", model)]
    done = run_cli_checked(["calibrate", str(out), *panel, "--quiet"], tmp, environ)
    assert "separability:" in done.stdout and "subset of" in done.stdout, done.stdout
    data = json.loads((out / "calibration.json").read_text())
    assert [m["model"] for m in data["panel"]] == MODELS
    assert data["separability"]["pairs"] == 3 and len(data["items"]) == SIZE
    for line in (out / "data" / "test.jsonl").read_text().splitlines():
        cal = json.loads(line)["metadata"]["calibration"]
        assert isinstance(cal["difficulty"], float) and cal["panel"] == MODELS
    for name in ("README.md", "report.md"):
        text = (out / name).read_text()
        assert "## Calibration" in text and "model pairs" in text, name
    done = run_cli_checked(
        ["perturb", str(out), *panel, "--catalog", str(tmp / "catalog"),
         "--build-model", "local", "--quiet"],
        tmp,
        environ,
    )  # fmt: skip
    assert "fresh instances:" in done.stdout, done.stdout
    data = json.loads((out / "perturb.json").read_text())
    fresh = (out / data["fresh"]["folder"]).resolve()
    assert (fresh / "data" / "test.jsonl").is_file()
    assert set(data["models"]) == set(MODELS)
    for row in data["models"].values():
        assert row["n"] >= 1 and 0.0 <= row["p_value"] <= 1.0
    assert "## Contamination check" in (out / "report.md").read_text()


def test_a_build_calibrated_on_the_embedded_model_runs_end_to_end(evaluated):
    """``build --panel`` (the CLI's main, in process) with the baselines and SmolLM2-135M as
    the panel: every round's items are measured, those that separate nothing are revoked and
    refilled, and the report says what the panel measured."""
    tmp, out, _result = evaluated
    spec = tmp / "spec.json"  # the plan build_capitals_locally realized
    calibrated = tmp / "calibrated"
    panel = [arg for model in MODELS for arg in ("--panel", model)]
    done = run_cli_checked(
        ["build", "--spec", str(spec), "--out", str(calibrated),
         "--catalog", str(tmp / "catalog"), "--model", "local", "--quiet", *panel,
         "--panel-rounds", "2", "--difficulty", "easy=0.34,medium=0.33,hard=0.33"],
        tmp,
        env(tmp),
    )  # fmt: skip
    assert "panel round 1:" in done.stderr and "separability:" in done.stdout, done.stdout
    report = json.loads((calibrated / "report.json").read_text())
    rounds = report["calibrated_build"]["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) <= 2
    assert sum(report["calibrated_build"]["measured"].values()) == report["items"]
    assert report["calibration"]["panel"][2]["model"] == "local"
    assert "## Calibrated build" in (calibrated / "report.md").read_text()
    assert "## Calibration" in (calibrated / "README.md").read_text()

"""A real build on the embedded model, then its folder through the real consumers.

``benchsmith build`` (the CLI's own main, in the test's process) realizes a small text
multiple-choice spec (a lookup program) with SmolLM2-135M through its llama.cpp server: its
judge (advisory) makes real model calls, the program, tools and checks are real. Then the
folder it wrote is read by Hugging Face ``datasets``, run by ``lm_eval --include_path`` and
by ``inspect eval`` against the same server, from another working directory, offline.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from benchsmith.llm.local import local_server, server_available
from benchsmith.testing.local_build import (
    BIN,
    COUNTRIES,
    build_capitals_locally,
    offline_env,
    run_checked,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SIZE = 3
env = offline_env
run = run_checked


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    tmp = tmp_path_factory.mktemp("build-local")
    out, done = build_capitals_locally(tmp, SIZE)
    return tmp, out, done


def test_the_build_wrote_a_verified_benchmark(built):
    _tmp, out, done = built
    assert "complete: 3 of 3 items" in done.stdout, done.stdout + done.stderr
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    assert len(rows) == SIZE and len({r["id"] for r in rows}) == SIZE
    capitals = {c for _, c in COUNTRIES}
    for row in rows:
        assert row["choices"]["ABCD".index(row["target"])] in capitals
        program = row["metadata"]["program"]
        assert (program["kind"], program["answer_field"]) == ("lookup", "capital")
        assert row["metadata"]["source"]["strategy"] == "question_program"
        # The 135M judge's verdicts are recorded (--judge advisory), never enforced.
        assert "judge" in row["metadata"]["verification"]
    report = json.loads((out / "report.json").read_text())
    assert set(report["llm"]["by_role"]) == {"verification"}  # no model words an item
    assert report["llm"]["by_role"]["verification"]["calls"] >= SIZE
    assert report["judge"]["runs"] == SIZE and not report["judge"]["enforced"]
    for name in ("README.md", "report.md", "spec.json", "rejects.jsonl", "inspect_task.py"):
        assert (out / name).is_file()


def test_datasets_reads_the_folder(built):
    tmp, out, _ = built
    code = (
        "import datasets, json, sys; ds = datasets.load_dataset(sys.argv[1], split='test'); "
        "print(json.dumps([ds.num_rows, list(ds['id']), list(ds['target'])]))"
    )
    done = run([sys.executable, "-c", code, str(out)], tmp / "elsewhere", env(tmp))
    n, ids, targets = json.loads(done.stdout.strip().splitlines()[-1])
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    assert n == SIZE and ids == [r["id"] for r in rows] and targets == [r["target"] for r in rows]


def test_lm_eval_and_inspect_run_the_exports_on_the_same_server(built):
    tmp, out, _ = built
    base_url = local_server().ensure_started()
    model = "smollm2"
    report = json.loads((out / "report.json").read_text())
    task = report["exports"]["lm_eval"]["task"]
    assert report["exports"]["lm_eval"]["items"] == SIZE
    lm_out = tmp / "lm-out"
    run(
        [
            str(BIN / "lm_eval"), "--include_path", str(out / "lmeval"), "--tasks", task,
            "--model", "local-chat-completions", "--model_args",
            f"model={model},base_url={base_url}/chat/completions,num_concurrent=1",
            "--apply_chat_template", "--gen_kwargs", "max_gen_toks=8",
            "--output_path", str(lm_out),
        ],
        tmp / "elsewhere",
        env(tmp, OPENAI_API_KEY="x"),
    )  # fmt: skip
    (results,) = lm_out.rglob("results_*.json")
    data = json.loads(results.read_text())
    assert data["n-samples"][task]["effective"] == SIZE
    assert 0.0 <= data["results"][task]["acc,none"] <= 1.0
    logs = tmp / "inspect-logs"
    cwd = tmp / "elsewhere"
    run(
        [
            str(BIN / "inspect"), "eval", os.path.relpath(out / "inspect_task.py", cwd),
            "--model", f"openai-api/local/{model}", "--max-tokens", "8", "--temperature", "0",
            "--log-format", "json", "--display", "none",
        ],
        cwd,
        env(tmp, LOCAL_API_KEY="x", LOCAL_BASE_URL=base_url, INSPECT_LOG_DIR=str(logs)),
    )  # fmt: skip
    from inspect_ai.log import read_eval_log

    (log_file,) = logs.glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.status == "success"
    assert len(log.samples) == SIZE
    assert all(s.error is None and s.scores for s in log.samples)

"""Honest evaluation errors, with real sockets.

A model that no item can get past (nothing listens at its port, its host does not resolve,
the endpoint answers 401, 403 or 404) ends ``benchsmith eval`` with one clear line and a
non-zero exit; only an explicit refusal of a media type skips the items that have it.
"""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from eval_helpers import CAPITALS, free, image_item, write_bench

import benchsmith
from benchsmith.config import RunConfig, RunPaths
from benchsmith.errors import ModelRequestError, ModelUnreachableError
from benchsmith.evaluate.api import evaluate_benchmark
from benchsmith.layout import EVAL_FILE
from benchsmith.llm.registry import register_runtime
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply
from benchsmith.testing.runtime import endpoint_runtime

ROOT = Path(benchsmith.__file__).resolve().parents[1]
ROWS = [CAPITALS[0], free("s1", "Capital of Peru?", "Lima", "short_answer"), image_item("img1")]


def closed_port() -> int:
    """A port nothing listens on: bound, read, closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def evaluate(bench: Path, tmp_path: Path, base_url: str, **settings):
    """``evaluate_benchmark`` of ``fake-model@base_url`` with no waits between retries."""
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    runtime = endpoint_runtime(base_url, run_dir=config.paths.run_dir, **settings)
    runtime.retry.sleep = lambda _seconds: None
    register_runtime(config, runtime)
    try:
        return evaluate_benchmark(bench, [f"fake-model@{base_url}"], config=config, concurrency=2)
    finally:
        register_runtime(config, None)


def test_a_closed_port_ends_the_run(tmp_path):
    bench = write_bench(tmp_path, ROWS)
    port = closed_port()
    with pytest.raises(ModelUnreachableError) as info:
        evaluate(bench, tmp_path, f"http://127.0.0.1:{port}/v1", max_retries=1)
    message = str(info.value)
    assert f"connection refused at 127.0.0.1:{port}" in message
    assert "2 attempt(s)" in message and "start the server" in message
    assert "\n" not in message
    assert not (bench / EVAL_FILE).exists()  # no results from a run that could not run


def test_an_unresolvable_host_ends_the_run(tmp_path):
    bench = write_bench(tmp_path, ROWS)
    with pytest.raises(ModelUnreachableError) as info:
        evaluate(bench, tmp_path, "http://nonexistent.invalid/v1", max_retries=0)
    assert "unknown host 'nonexistent.invalid' (DNS lookup failed)" in str(info.value)
    assert "fix the host in the model spec's URL" in str(info.value)


@pytest.mark.parametrize(
    ("status", "text"),
    [
        (401, "rejected the API key (401): set BENCHSMITH_API_KEY to a valid key"),
        (403, "denied access (403) to model 'fake-model'"),
        (404, "has no model 'fake-model' (404): check the name in the model spec"),
    ],
)
def test_a_rejecting_endpoint_ends_the_run(tmp_path, status, text):
    bench = write_bench(tmp_path, ROWS)
    with FakeOpenAIServer(default=Reply.status(status)) as server:
        with pytest.raises(ModelRequestError) as info:
            evaluate(bench, tmp_path, server.base_url)
        asked = len(server.chat_requests())
    assert info.value.status_code == status
    assert text in str(info.value) and server.base_url in str(info.value)
    assert 1 <= asked <= 2  # never retried; no item starts after the first failure ends
    assert not (bench / EVAL_FILE).exists()


def refuse_images(message: str, status: int = 400):
    def reply(body):
        if "image_url" in json.dumps(body.get("messages")):
            return Reply.status(status, message=message)
        return Reply.text("ANSWER: A")

    return reply


def test_an_explicit_refusal_of_images_skips_the_image_items(tmp_path):
    rows = [*ROWS, image_item("img2", target="B")]
    bench = write_bench(tmp_path, rows)
    script = refuse_images("image input is not supported - hint: provide the mmproj")
    with FakeOpenAIServer(default=script) as server:
        result = evaluate(bench, tmp_path, server.base_url, max_retries=0)
        image_requests = [r for r in server.chat_requests() if "image_url" in json.dumps(r.body)]
    model = next(iter(result.data["models"].values()))
    assert model["skipped"] == 2 and model["errors"] == 0 and model["n"] == 2
    skipped = {s["item_id"]: s["reason"] for s in result.samples if s["status"] == "skipped"}
    assert set(skipped) == {"img1", "img2"}
    assert all(r.startswith("model cannot take image") for r in skipped.values())
    assert all("HTTP 400: image input is not supported" in r for r in skipped.values())
    # Concurrency 2: both image items may be asked before the first refusal is known.
    assert 1 <= len(image_requests) <= 2


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "Invalid value for 'temperature'"),  # a 400 that names no media
        (500, 'can only concatenate str (not "list") to str'),  # llama.cpp's 500 to a list
    ],
)
def test_other_failures_of_media_items_are_errors_not_skips(tmp_path, status, message):
    bench = write_bench(tmp_path, ROWS)
    with FakeOpenAIServer(default=refuse_images(message, status)) as server:
        result = evaluate(bench, tmp_path, server.base_url, max_retries=0)
    by_id = {s["item_id"]: s for s in result.samples}
    assert by_id["img1"]["status"] == "error" and str(status) in by_id["img1"]["reason"]
    assert {by_id[i]["status"] for i in ("q1", "s1")} == {"answered"}


# -- the command line ----------------------------------------------------------------------------
def run_eval_cli(bench: Path, model: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``benchsmith eval`` in a child process, as a user runs it (one retry, to be quick)."""
    config = tmp_path / "benchsmith.toml"
    config.write_text("[llm]\nmax_retries = 1\nmax_retry_wait_s = 0.2\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHSMITH_", "OPENAI_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", "--config", str(config), "eval", str(bench),
         "--model", model],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip


def test_cli_dead_endpoint_is_one_line_and_a_non_zero_exit(tmp_path):
    bench = write_bench(tmp_path, ROWS)
    port = closed_port()
    spec = f"gpt@http://127.0.0.1:{port}/v1"
    result = run_eval_cli(bench, spec, tmp_path)
    print(result.returncode, result.stderr)
    assert result.returncode != 0
    (line,) = result.stderr.splitlines()
    assert line == (
        f"benchsmith: error: http://127.0.0.1:{port}/v1 (gpt): connection refused at "
        f"127.0.0.1:{port} (nothing listens there), 2 attempt(s); start the server, or fix "
        "the URL in the model spec (benchsmith doctor checks endpoints)"
    )
    assert "cannot take" not in result.stdout + result.stderr
    assert not (bench / EVAL_FILE).exists()


def test_cli_rejected_key_is_one_line_and_a_non_zero_exit(tmp_path):
    bench = write_bench(tmp_path, ROWS)
    with FakeOpenAIServer(default=Reply.status(401)) as server:
        result = run_eval_cli(bench, f"gpt@{server.base_url}", tmp_path)
    assert result.returncode != 0
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"benchsmith: error: {server.base_url} (gpt) rejected the API key")
    assert "set BENCHSMITH_API_KEY to a valid key" in line


@pytest.mark.parametrize(
    "detail,kinds,refused",
    [
        ("image input is not supported", {"image"}, {"image"}),
        ("this model takes text only", {"image", "audio"}, {"image", "audio"}),
        ("This model only accepts text.", {"audio"}, {"audio"}),
        ("model 'x' is not a multimodal model", {"image"}, {"image"}),
        ("can only concatenate str (not list) to str", {"image"}, set()),  # a crash, no refusal
        ("context length exceeded", {"audio"}, set()),
    ],
)
def test_only_an_explicit_refusal_counts_as_cannot_take(detail, kinds, refused):
    from benchsmith.errors import ModelRequestError
    from benchsmith.evaluate.runner import refused_kinds

    exc = ModelRequestError("refused", status_code=400, detail=detail)
    assert refused_kinds(exc, kinds) == refused

"""Integration: the embedded models through their llama.cpp servers and the same client path."""

import json
import os
import signal
import subprocess
import sys
import time
from typing import Literal

import httpx
import pytest
from pydantic import BaseModel, Field

from benchsmith.config import RunConfig, RunPaths
from benchsmith.doctor import ProbeAnswer, probe_messages
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.local import (
    local_model_path,
    local_server,
    server_available,
    stop_local_server,
)
from benchsmith.llm.reader_model import assembly_state
from benchsmith.llm.specs import LOCAL_MODEL_NAME, READER_MODEL_NAME

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not server_available(), reason="benchsmith[local] is not installed"),
]

CONTINENTS = {"Africa", "Asia", "Europe", "North America", "South America", "Oceania", "Antarctica"}


def test_embedded_model_answers_a_structured_request(tmp_path):
    runtime = LLMRuntime.from_config(
        RunConfig(model="local", paths=RunPaths(run_dir=str(tmp_path))), env={}
    )
    model = runtime.for_role("design")
    answer = model.structured(ProbeAnswer, probe_messages("Japan"))
    assert isinstance(answer, ProbeAnswer)
    assert answer.continent in CONTINENTS
    assert 0 < len(answer.capital) <= 40
    server = local_server()
    assert server.running() and server.base_url.startswith("http://127.0.0.1:")
    assert server.startup_seconds is not None and server.startup_seconds < 60
    # The request went through the records like any other endpoint's.
    (record,) = [json.loads(x) for x in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    assert record["model"] == "local"
    assert record["usage"]["input_tokens"] > 0 and not record["usage"]["estimated"]
    assert record["request"]["params"]["tool_choice"]["function"]["name"] == "ProbeAnswer"
    assert runtime.ledger.summary()["cost_usd"] == 0.0


def test_same_process_reuses_one_server():
    first = local_server().ensure_started()
    assert local_server().ensure_started() == first


def test_model_file_ships_in_the_package():
    path = local_model_path()
    assert path.stat().st_size > 50_000_000


class QuantityKind(BaseModel):
    """What kind of quantity a symbol of a text stands for."""

    kind: Literal["price", "rate", "time", "count"] = Field(
        description="The kind of quantity the symbol stands for, as the text defines it."
    )


def _reader_installed() -> bool:
    state = assembly_state()
    return state.ready or not state.missing


@pytest.mark.skipif(not _reader_installed(), reason="the reader model's parts are not installed")
def test_reader_model_answers_a_structured_request_on_its_own_server(tmp_path):
    stop_local_server(LOCAL_MODEL_NAME)  # one llama.cpp server at a time on two cores
    config = RunConfig(
        model="local:reader",
        structured_method="function_calling",
        paths=RunPaths(run_dir=str(tmp_path)),
    )
    runtime = LLMRuntime.from_config(config, env={})
    model = runtime.for_role("design")
    text = "The bond pays a coupon C each year; y is the yield, the annual interest rate."
    question = "In this text, what kind of quantity is y: a price, a rate, a time or a count?"
    messages = [("user", f"Text: {text}\n{question}")]
    server = local_server(model=READER_MODEL_NAME)
    try:
        started = time.monotonic()
        answer = model.structured(QuantityKind, messages)
        seconds = time.monotonic() - started
        assert answer.kind == "rate"
        assert server.running() and server.startup_seconds is not None
        assert not local_server().running()  # SmolLM2's server was not started for it
        print(f"reader: start-up {server.startup_seconds:.1f}s, first answer {seconds:.1f}s")
    finally:
        server.stop()
    (record,) = [json.loads(x) for x in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    assert record["model"] == "local:reader"
    assert record["request"]["params"]["tool_choice"]["function"]["name"] == "QuantityKind"
    assert record["usage"]["input_tokens"] > 0 and not record["usage"]["estimated"]
    assert runtime.ledger.summary()["cost_usd"] == 0.0


CHILD = r"""
import sys, time
from benchsmith.llm.local import local_server
server = local_server()
server.ensure_started()
print(server.process.pid, server.port, flush=True)
sys.stdin.readline()
if sys.argv[1] == "error":
    raise RuntimeError("boom")
if sys.argv[1] == "exit":
    sys.exit(0)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["exit", "error", "sigterm", "sigint", "sigkill"])
def test_server_stops_with_its_process(how):
    mode = how if how in ("exit", "error") else "wait"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    line = proc.stdout.readline().decode().split()
    assert line, proc.stderr.read().decode()
    server_pid, port = int(line[0]), int(line[1])
    assert httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=5).status_code == 200
    signals = {"sigterm": signal.SIGTERM, "sigint": signal.SIGINT, "sigkill": signal.SIGKILL}
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    if how in signals:
        time.sleep(0.2)
        proc.send_signal(signals[how])
    proc.wait(timeout=30)
    assert _wait_dead(server_pid), f"server {server_pid} outlived its parent ({how})"

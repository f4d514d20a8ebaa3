"""The embedded model's server killed in the middle of a real build: restarted once, build done.

``benchsmith build`` (the CLI's own main, in the test's process) realizes a small capitals
benchmark on SmolLM2 with its judge (advisory) asking the model about every item. Once the
first model call is recorded, the server's process is sent SIGKILL. The next call finds it
dead, the client starts it again (once per build) and sends the call again, and the build
finishes with all its items; the run records say the server was restarted and how it died.

A second death in the same run is not restarted: the error says how the server died both
times and how to resume. A request that crashes the server (a grammar llama.cpp refuses)
crashes it twice and stops the run with llama.cpp's own words, not "connection refused".
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time

import pytest
from pydantic import BaseModel, Field

from benchsmith.llm.local import local_server, server_available
from benchsmith.testing.local_build import build_capitals_locally

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not server_available(), reason="benchsmith[local] is not installed"),
]

SIZE = 4


def _calls(records) -> int:
    if not records.is_file():
        return 0
    return sum(
        bool(re.search(r'"kind": ?"call"', line)) for line in records.read_text().splitlines()
    )


def test_a_killed_embedded_server_is_restarted_and_the_build_finishes(tmp_path):
    records = tmp_path / "capitals-bench" / ".run" / "llm_calls.jsonl"
    killed: dict[str, float] = {}
    stop = threading.Event()

    def kill_after_the_first_call() -> None:
        while not stop.is_set():
            if _calls(records) >= 1:
                process = local_server().process
                if process is not None and process.poll() is None:
                    killed["pid"] = process.pid
                    killed["at"] = time.monotonic()
                    os.kill(process.pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=kill_after_the_first_call, daemon=True)
    started = time.monotonic()
    watcher.start()
    try:
        out, done = build_capitals_locally(tmp_path, SIZE)
    finally:
        stop.set()
        watcher.join(timeout=5)
    took = time.monotonic() - started
    assert "pid" in killed, "the build ended before the server could be killed"
    assert f"complete: {SIZE} of {SIZE} items" in done.stdout, done.stdout + done.stderr
    rows = (out / "data" / "test.jsonl").read_text().splitlines()
    assert len(rows) == SIZE
    # The server running now is another process: the one killed was started again.
    server = local_server()
    assert server.running() and server.process.pid != killed["pid"]
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    (restart,) = [r for r in lines if r["kind"] == "server_restart"]
    assert restart["model"] == "local" and restart["died"].startswith("killed by SIGKILL")
    assert restart["answered_before"] >= 1
    calls = [r for r in lines if r["kind"] == "call"]
    assert len(calls) >= SIZE  # every item judged, the call that met the dead server again
    assert not [r for r in lines if r["kind"] == "error"]
    report = json.loads((out / "report.json").read_text())
    assert report["judge"]["runs"] == SIZE
    print(
        f"build {took:.1f}s; server killed {killed['at'] - started:.1f}s in; "
        f"restarted in {restart['restart_s']:.1f}s"
    )


def test_a_second_death_in_the_same_run_stops_it_and_says_how_to_go_on(tmp_path):
    from benchsmith.config import RunConfig, RunPaths
    from benchsmith.doctor import ProbeAnswer, probe_messages
    from benchsmith.errors import ModelUnavailableError
    from benchsmith.llm.client import LLMRuntime

    out = tmp_path / "bench"
    paths = RunPaths(run_dir=str(tmp_path / "run"), out_dir=str(out))
    runtime = LLMRuntime.from_config(RunConfig(model="local", paths=paths), env={})
    model = runtime.for_role("design")
    assert isinstance(model.structured(ProbeAnswer, probe_messages("Japan")), ProbeAnswer)
    server = local_server()
    for country, dies_again in (("France", False), ("Peru", True)):
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=10)
        if not dies_again:  # the first death: started again, the call answered
            assert isinstance(model.structured(ProbeAnswer, probe_messages(country)), ProbeAnswer)
            assert server.running() and runtime.restarted == {
                server.model.name: "killed by SIGKILL"
            }
            continue
        with pytest.raises(ModelUnavailableError) as raised:
            model.structured(ProbeAnswer, probe_messages(country))
    message = str(raised.value)
    assert message.startswith("the embedded model's server (local) died again mid-build")
    assert "killed by SIGKILL" in message and "after its one restart in this run" in message
    assert message.endswith(
        f"continue the build with its options and --resume: "
        f"benchsmith build --resume --out {out} --model local"
    )
    assert not server.running()
    server.ensure_started()  # for the modules after this one


class OverlongWorking(BaseModel):
    """SolverAnswer before its fix: a 2000-character string, which llama.cpp refuses."""

    working: str = Field(default="", max_length=2000, description="Brief working.")
    answer: float = Field(description="The answer.")


def test_a_request_that_crashes_the_server_twice_stops_the_run_with_llama_cpps_words(tmp_path):
    from benchsmith.config import RunConfig, RunPaths
    from benchsmith.errors import ModelUnavailableError
    from benchsmith.llm.client import LLMRuntime

    paths = RunPaths(run_dir=str(tmp_path / "run"))
    runtime = LLMRuntime.from_config(RunConfig(model="local", paths=paths), env={})
    model = runtime.for_role("solver")
    with pytest.raises(ModelUnavailableError) as raised:
        model.structured(OverlongWorking, [("user", "What is 2 + 3?")])
    message = str(raised.value)
    # The server crashed on the grammar, was started again, crashed again on the same call.
    assert message.startswith("the embedded model's server (local) died again mid-run")
    assert "killed by SIGSEGV" in message and "error parsing grammar" in message
    assert message.endswith(
        "run the command again (answered calls are served from the run records)"
    )
    local_server().ensure_started()  # for the modules after this one

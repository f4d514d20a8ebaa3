"""Ctrl-C, SIGTERM and kill -9 of a real ``benchsmith build`` process.

The first Ctrl-C (or SIGTERM) stops new work, lets the requests in flight finish, writes
what is finished, prints how to resume and exits 130; a second one exits at once. The
embedded model's server dies with benchsmith on every path. The graceful-stop builds run
against the fake OpenAI-compatible server over HTTP (slow replies, so the signal lands
mid-build); the server tests run the real embedded llama.cpp server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchsmith.spec import Subtask
from benchsmith.testing.build_fakes import builder_reply, capitals_spec_file
from benchsmith.testing.fake_openai import FakeOpenAIServer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SIZE = 12


def make_spec(tmp_path: Path) -> tuple[Path, Path]:
    subtask = Subtask(
        id="capitals",
        name="Capitals",
        description="Pick the capital of the country named in the question.",
        input_modalities=["text"],
        answer_format="multiple_choice",
        languages=["en"],
    )
    return capitals_spec_file(tmp_path, subtask, size=SIZE, tools=[], intent="capitals")


def build_cmd(out: Path, spec: Path | None, catalog: Path, model: str) -> list[str]:
    cmd = [sys.executable, "-m", "benchsmith.cli", "build", "--out", str(out)]
    cmd += ["--model", model, "--catalog", str(catalog), "--concurrency", "2", "--quiet"]
    return cmd + (["--spec", str(spec)] if spec is not None else ["--resume"])


def ledger_lines(out: Path) -> int:
    path = out / ".run" / "slots.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def env_for(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BENCHSMITH_HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"}


def wait_for(predicate, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_first_signal_stops_the_build_writes_what_is_finished_and_resume_completes(
    tmp_path, signum
):
    spec, catalog = make_spec(tmp_path)
    out = tmp_path / "bench"
    env = env_for(tmp_path)

    def slow(body):  # about 1 s a call: the signal lands with requests in flight
        return builder_reply(body, latency=1.0)

    with FakeOpenAIServer(default=slow) as server:
        model = f"fake-model@{server.base_url}"
        proc = subprocess.Popen(
            build_cmd(out, spec, catalog, model),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert wait_for(lambda: ledger_lines(out) >= 2, 120, proc), proc.communicate()[1]
        sent_at = time.monotonic()
        proc.send_signal(signum)
        _stdout, stderr = proc.communicate(timeout=60)
        stopped_in = time.monotonic() - sent_at
        requests_at_stop = [r for r in server.chat_requests() if r.received_at > sent_at]
        # A few seconds: the requests in flight (at most --concurrency) finish, nothing new.
        assert proc.returncode == 130, stderr[-2000:]
        assert stopped_in < 10, f"took {stopped_in:.1f} s to stop"
        assert len(requests_at_stop) <= 2, f"{len(requests_at_stop)} requests after the signal"
        assert "stopping" in stderr and "Traceback" not in stderr
        last = stderr.strip().splitlines()[-1]
        assert f"benchsmith build --resume --out {out}" in last
        assert "finished item(s) written" in last
        # What was finished is packaged: a readable folder marked as interrupted.
        report = json.loads((out / "report.json").read_text())
        assert report["status"] == "interrupted"
        kept = (out / "data" / "test.jsonl").read_text().splitlines()
        assert len(kept) == report["items"] >= 1
        assert report["items"] < SIZE
        # The resume finishes the build without redoing the kept items.
        done = subprocess.run(
            build_cmd(out, None, catalog, model), env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    assert len(rows) == SIZE and {json.loads(k)["id"] for k in kept} <= {r["id"] for r in rows}
    assert json.loads((out / "report.json").read_text())["status"] == "complete"


def test_second_ctrl_c_exits_at_once(tmp_path):
    spec, catalog = make_spec(tmp_path)
    out = tmp_path / "bench"

    def very_slow(body):  # a request in flight for 30 s: the first Ctrl-C would wait on it
        return builder_reply(body, latency=30.0)

    with FakeOpenAIServer(default=very_slow) as server:
        proc = subprocess.Popen(
            build_cmd(out, spec, catalog, f"fake-model@{server.base_url}"),
            env=env_for(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert wait_for(lambda: server.request_count >= 1, 120, proc)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert proc.poll() is None  # still waiting on the request in flight
        second = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        assert proc.returncode == 130
        assert time.monotonic() - second < 2.0


# --- the embedded model's server dies with benchsmith ------------------------------------


def server_children(pid: int) -> list[int]:
    """Pids of llama.cpp servers whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("PPid:")), "")
        if ppid == str(pid) and b"llama_cpp.server" in cmdline:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaped yet counts as dead)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("State:")), "")
    return state not in ("Z", "X")


@pytest.fixture
def local_spec(tmp_path):
    from benchsmith.llm.local import server_available

    if not server_available():
        pytest.skip("benchsmith[local] is not installed")
    return make_spec(tmp_path)


@pytest.mark.parametrize("path", ["normal", "error", "sigint", "sigterm", "kill9"])
def test_embedded_server_dies_with_benchsmith_on_every_path(tmp_path, local_spec, path):
    spec, catalog = local_spec
    env = env_for(tmp_path)
    # --judge advisory: every item is computed and auto does not ask the 135M model to
    # judge, so without it the embedded model would get no call and its server never start.
    local = build_cmd(tmp_path / "bench", spec, catalog, "local") + ["--judge", "advisory"]
    if path == "normal":  # starts the server, asks one question, exits 0
        cmd = [sys.executable, "-m", "benchsmith.cli", "doctor", "--probe"]
    elif path == "error":  # the token budget runs out on the first call: exits 4
        cmd = local + ["--budget-tokens", "1"]
    else:
        cmd = local
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    servers: list[int] = []

    def started() -> bool:
        servers[:] = server_children(proc.pid)
        return bool(servers)

    assert wait_for(started, 120, proc) or path in ("normal", "error"), "no server started"
    if path in ("normal", "error"):
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == (0 if path == "normal" else 4), err.decode()[-2000:]  # 4: budget
        assert servers, "the command never started the embedded server"
    else:
        time.sleep(2.0)  # requests in flight
        proc.send_signal(
            {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "kill9": signal.SIGKILL}[path]
        )
        proc.communicate(timeout=120)
        assert proc.returncode == (-9 if path == "kill9" else 130)
    exited = time.monotonic()
    assert wait_for(lambda: not any(alive(p) for p in servers), 2.0), (
        f"server {servers} still running 2 s after benchsmith exited ({path})"
    )
    assert time.monotonic() - exited < 2.0

"""Kill -9 a real ``benchsmith build`` process at several points and resume it.

The build runs in a child process against the fake OpenAI-compatible server (over HTTP),
with real tools (espeak-ng speech, ffmpeg-free WAV noise) so kills land in model calls,
tool runs and ledger writes alike. After each kill ``--resume`` continues; at the end the
benchmark has every item once, and no request reached the server twice (finished slots are
not realized again, and a half-finished slot's recorded calls are served from the records).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchsmith.spec import Subtask
from benchsmith.testing.build_fakes import CAPITALS, builder_reply, capitals_spec_file
from benchsmith.testing.fake_openai import FakeOpenAIServer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SIZE = 12


def make_spec(tmp_path: Path) -> tuple[Path, Path]:
    subtask = Subtask(
        id="spoken",
        name="Spoken capitals",
        description="Pick the capital of the country named in a noisy spoken question.",
        input_modalities=["audio"],
        answer_format="multiple_choice",
        languages=["en"],
    )
    return capitals_spec_file(
        tmp_path, subtask, size=SIZE, tools=["audio_add_noise"], intent="spoken capitals"
    )


def build_cmd(out: Path, spec: Path, catalog: Path, url: str, resume: bool) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "benchsmith.cli",
        "build",
        "--out",
        str(out),
        "--model",
        f"fake-model@{url}",
        "--catalog",
        str(catalog),
        "--concurrency",
        "2",
        "--quiet",
    ]
    return cmd + (["--resume"] if resume else ["--spec", str(spec)])


def ledger_lines(out: Path) -> int:
    path = out / ".run" / "slots.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def finished_names(out: Path) -> set[str]:
    """Countries whose slot is in the ledger (finished: accepted; the fake judge rejects none).

    A SIGKILL during a write leaves a torn last line: that slot is not finished (the next
    run cuts the line off), so only newline-terminated lines count. An item's program names
    the record it asks about.
    """
    path = out / ".run" / "slots.jsonl"
    names = set()
    whole = path.read_text().split("\n")[:-1] if path.exists() else []
    for line in whole:
        entry = json.loads(line)
        names.update(entry["item"]["metadata"]["program"]["named"])
    return names


def run_and_kill(cmd: list[str], out: Path, after_lines: int, env: dict) -> float | None:
    """Start the build; SIGKILL it once the ledger holds ``after_lines`` lines.

    Returns:
        The monotonic time of the kill, or None when the build finished first.
    """
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while proc.poll() is None and time.monotonic() < deadline:
        if ledger_lines(out) >= after_lines:
            os.kill(proc.pid, signal.SIGKILL)
            killed_at = time.monotonic()
            proc.wait()
            return killed_at
        time.sleep(0.005)
    _out, err_text = proc.communicate(timeout=60)
    assert proc.returncode == 0, err_text.decode()[-2000:]
    return None


def test_kill_nine_at_several_points_then_resume(tmp_path):
    spec, catalog = make_spec(tmp_path)
    out = tmp_path / "bench"
    env = {**os.environ, "BENCHSMITH_HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"}

    def latency_reply(body):
        return builder_reply(body, latency=0.05)

    with FakeOpenAIServer(default=latency_reply) as server:
        url = server.base_url
        kills = []
        # Kill right after the first slot, in the middle, and near the end.
        for i, point in enumerate((1, 5, 10)):
            killed_at = run_and_kill(
                build_cmd(out, spec, catalog, url, resume=i > 0), out, point, env
            )
            assert killed_at is not None, f"the build finished before its kill at {point}"
            kills.append((killed_at, finished_names(out)))
        done = subprocess.run(
            build_cmd(out, spec, catalog, url, resume=True),
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        # A request cut off by a SIGKILL arrives without a body: it was never answered.
        requests = [r for r in server.chat_requests() if isinstance(r.body, dict)]
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in rows]
    assert len(rows) == SIZE and len(set(ids)) == SIZE
    # Every item's media is there, and media/ holds nothing else.
    media = {p.relative_to(out).as_posix() for p in (out / "media").iterdir()}
    assert media == {r["input"][0]["content"][1]["audio"] for r in rows}
    # The ledger has each slot once.
    slots = [
        json.loads(x)["slot"]["id"] for x in (out / ".run" / "slots.jsonl").read_text().splitlines()
    ]
    assert len(slots) == len(set(slots))

    # No finished slot called the model again after any kill: the judge's prompt quotes
    # the item, whose question names its country.
    def named(request) -> set[str]:
        text = json.dumps(request.body["messages"])
        return {n for n, _ in CAPITALS if re.search(rf"\b{n}\b", text)}

    for killed_at, finished in kills:
        for request in requests:
            if request.received_at > killed_at:
                assert not named(request) & finished, f"{named(request) & finished} called again"
    assert all(len(named(r)) == 1 for r in requests)  # each judged one item, of one country
    # A request repeats only when it was in flight at a kill (its reply never recorded):
    # at most --concurrency (2) per kill.
    keys = [json.dumps(r.body["messages"], sort_keys=True) for r in requests]
    repeated = len(keys) - len(set(keys))
    assert repeated <= 2 * len(kills)
    assert len(set(keys)) == len(slots)  # one judge call per slot (no model words an item)
    # Resuming a finished build changes nothing and calls no model.
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and ".run" not in p.parts}
    with FakeOpenAIServer(default=latency_reply) as witness:
        again = subprocess.run(
            build_cmd(out, spec, catalog, witness.base_url, resume=True),
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert witness.request_count == 0
    assert again.returncode == 0, again.stderr[-2000:]
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and ".run" not in p.parts}
    assert after == before

"""Run records, the cache, resume and replay."""

import json
import signal
import subprocess
import sys
import time
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from benchsmith.errors import ReplayMissError
from benchsmith.llm.records import RECORDS_FILE, RunRecords
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply
from benchsmith.testing.runtime import endpoint_runtime as make_runtime


class Subtask(BaseModel):
    name: str = Field(max_length=30)
    answer_format: Literal["multiple_choice", "short_answer", "numeric"]


def tiny_run(runtime, out_path, n=3):
    """A miniature build: a few structured decisions and a text call, written to a file."""
    items = []
    for i in range(n):
        sub = runtime.for_role("design").structured(Subtask, [("user", f"Propose subtask {i}.")])
        items.append(sub.model_dump())
    note = runtime.for_role("judge").invoke([("user", "Summarize.")]).content
    out_path.write_text(json.dumps({"items": items, "note": note}, sort_keys=True))


def scripted_server():
    counter = {"n": 0}

    def answer(body):
        counter["n"] += 1
        if body.get("tools"):
            return Reply.tool_call({"name": f"subtask-{counter['n']}", "answer_format": "numeric"})
        return Reply.text(f"summary {counter['n']}")

    return FakeOpenAIServer(default=answer)


def test_every_call_is_recorded_with_model_role_hash_tokens_latency(tmp_path):
    with scripted_server() as server:
        tiny_run(make_runtime(server.base_url, run_dir=tmp_path), tmp_path / "out.json")
    records = [json.loads(x) for x in (tmp_path / RECORDS_FILE).read_text().splitlines()]
    assert [r["role"] for r in records] == ["design", "design", "design", "judge"]
    for r in records:
        assert r["kind"] == "call"
        assert r["model"].startswith("fake-model@http://127.0.0.1:")
        assert len(r["prompt_hash"]) == 64 and len(r["key"]) == 64
        assert r["usage"]["input_tokens"] > 0 and r["usage"]["output_tokens"] > 0
        assert r["latency_s"] >= 0
        assert r["request"]["messages"][-1]["role"] == "user"


def test_replay_makes_zero_network_calls_and_identical_output(tmp_path):
    run_dir = tmp_path / "run"
    with scripted_server() as server:
        tiny_run(make_runtime(server.base_url, run_dir=run_dir), tmp_path / "first.json")
        recorded_requests = server.request_count
        url = server.base_url
    assert recorded_requests == 4
    # The server is gone: any network call would fail. Replay must not need one.
    with FakeOpenAIServer() as witness:
        replay = make_runtime(url, run_dir=run_dir, replay=True)
        tiny_run(replay, tmp_path / "second.json")
        assert witness.request_count == 0
    assert (tmp_path / "first.json").read_bytes() == (tmp_path / "second.json").read_bytes()
    assert replay.ledger.summary()["cached_calls"] == 4
    # Spending recorded by the first run is still counted (budgets hold across resumes).
    assert replay.ledger.summary()["calls"] == 4


def test_replay_miss_is_a_clear_error(tmp_path):
    with scripted_server() as server:
        tiny_run(make_runtime(server.base_url, run_dir=tmp_path), tmp_path / "out.json", n=1)
        replay = make_runtime(server.base_url, run_dir=tmp_path, replay=True)
        with pytest.raises(ReplayMissError, match="run it without --replay"):
            tiny_run(replay, tmp_path / "out2.json", n=2)
        assert server.request_count == 2


def test_resume_pays_only_for_calls_not_yet_made(tmp_path):
    with scripted_server() as server:
        # First attempt: killed after two design calls (and half a line written).
        first = make_runtime(server.base_url, run_dir=tmp_path)
        for i in range(2):
            first.for_role("design").structured(Subtask, [("user", f"Propose subtask {i}.")])
        with open(tmp_path / RECORDS_FILE, "a") as fh:
            fh.write('{"kind": "call", "key": "half-writ')
        assert server.request_count == 2
        spent_before = first.ledger.tokens

        resumed = make_runtime(server.base_url, run_dir=tmp_path)
        # The resumed run is charged with what the first attempt spent.
        assert resumed.ledger.tokens == spent_before
        tiny_run(resumed, tmp_path / "out.json")
        assert server.request_count == 4  # only design #3 and the judge call are new
        assert resumed.ledger.summary()["cached_calls"] == 2
    lines = (tmp_path / RECORDS_FILE).read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # the half line was dropped
    assert len(lines) == 4


def test_cache_key_covers_model_messages_and_parameters(tmp_path):
    with scripted_server() as server:
        runtime = make_runtime(server.base_url, run_dir=tmp_path)
        model = runtime.for_role("judge")
        model.invoke([("user", "a")])
        model.invoke([("user", "a")])  # identical: served from the cache
        assert server.request_count == 1
        model.invoke([("user", "b")])
        model.invoke([("user", "a")], temperature=0.5)
        assert server.request_count == 3


WRITER = r"""
import sys
from benchsmith.llm.records import RunRecords
records = RunRecords(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    records.append({"kind": "call", "key": f"k{i}", "response": "x" * 50000, "i": i})
    i += 1
"""


def test_kill_9_never_leaves_a_half_line(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    records = RunRecords(tmp_path)
    assert len(records) > 0
    data = (tmp_path / RECORDS_FILE).read_bytes()
    assert data.endswith(b"\n")
    assert all(json.loads(line)["response"] == "x" * 50000 for line in data.splitlines())


def test_the_index_finds_every_key_in_its_compact_form(tmp_path):
    # The index holds a SHA-256 hex key as its bytes and a line's place as one int; any
    # other key is held as it is. Lookups find each record, in the file and reopened.
    from benchsmith.llm.records import RunRecords, _compact

    hex_key = "ab" * 32
    keys = [hex_key, "AB" * 32, "short-key", "zz" * 32, hex_key[:-1] + " "]
    assert isinstance(_compact(hex_key), bytes) and len(_compact(hex_key)) == 32
    assert [type(_compact(k)) for k in keys[1:]] == [str] * 4
    for folder in (tmp_path, None):
        records = RunRecords(folder)
        for n, key in enumerate(keys):
            records.append({"kind": "call", "key": key, "n": n, "text": "é" * n})
        for opened in (records, RunRecords(folder)) if folder else (records,):
            assert len(opened) == len(keys)
            for n, key in enumerate(keys):
                assert opened.lookup(key)["n"] == n
            assert opened.lookup("cd" * 32) is None


@pytest.mark.parametrize("estimated,cost", [(False, 0.0012), (True, None)])
def test_a_call_record_reads_back_as_the_facts_it_was_written_from(estimated, cost):
    """CallFacts.record_fields and CallFacts.from_record are each other's inverse."""
    from dataclasses import replace

    from benchsmith.llm.client import CallFacts

    made = CallFacts(
        input_tokens=120,
        output_tokens=7,
        tokens_estimated=estimated,
        cost_usd=cost,
        latency_s=0.25,
        cached=False,
        params={"temperature": 0.0},
    )
    record = json.loads(json.dumps({"kind": "call"} | made.record_fields()))
    assert CallFacts.from_record(record, made.params) == replace(made, cached=True)

"""A remote endpoint that stops answering in the middle of a build: the error says so.

The build (``benchsmith build``, the CLI's own main in this process) runs against the fake
OpenAI-compatible server, which is stopped after it has answered two calls: every later
connection is refused. The one line the build ends with names the endpoint, says it stopped
answering mid-build (not that nothing ever listened there), and gives the command that
continues the build; the folder keeps what was done, for that ``--resume``.
"""

from __future__ import annotations

import pytest

from benchsmith.spec import Subtask
from benchsmith.testing.build_fakes import builder_reply, capitals_spec_file
from benchsmith.testing.fake_openai import FakeOpenAIServer, closed_port
from benchsmith.testing.inprocess import run_cli
from benchsmith.testing.local_build import offline_env

pytestmark = pytest.mark.integration


def _spec(tmp_path):
    subtask = Subtask(
        id="capitals",
        name="Capitals",
        description="Pick the capital of the country named in the question.",
        input_modalities=["text"],
        answer_format="multiple_choice",
        languages=["en"],
    )
    return capitals_spec_file(tmp_path, subtask, size=6, tools=[], intent="capitals")


def _build(tmp_path, spec, catalog, url):
    out = tmp_path / "bench"
    args = ["build", "--spec", str(spec), "--out", str(out), "--model", f"fake-model@{url}"]
    args += ["--catalog", str(catalog), "--concurrency", "1", "--quiet"]
    return out, run_cli(args, tmp_path, offline_env(tmp_path))


def _error_line(stderr: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith("benchsmith: error: ")]
    return line


def test_a_server_that_stops_mid_build_is_said_to_have_stopped_with_how_to_resume(tmp_path):
    spec, catalog = _spec(tmp_path)
    answered = []

    def stop_after_two(request) -> None:
        answered.append(request)
        if len(answered) == 2:
            # On the thread that answered, before it reads the next request on its kept-alive
            # connection: no call is answered after the second (stop() closes every one).
            server.stop()

    server = FakeOpenAIServer(default=lambda body: builder_reply(body), on_answer=stop_after_two)
    with server:
        url = server.base_url
        out, done = _build(tmp_path, spec, catalog, url)
    assert done.returncode == 1, done.stdout + done.stderr
    line = _error_line(done.stderr)
    port = url.split(":")[2].split("/")[0]
    assert line.startswith(f"benchsmith: error: {url} (fake-model) stopped answering mid-build: ")
    assert f"connection refused at 127.0.0.1:{port} after it answered " in line
    resume = f"benchsmith build --resume --out {out} --model fake-model@{url} --catalog {catalog}"
    assert f"continue the build with its options and --resume: {resume} (" in line
    assert "Traceback" not in done.stderr
    assert (out / ".run" / "llm_calls.jsonl").is_file()  # what was done is kept to resume


def test_an_endpoint_that_never_answered_is_not_said_to_have_stopped(tmp_path):
    spec, catalog = _spec(tmp_path)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    _out, done = _build(tmp_path, spec, catalog, url)
    assert done.returncode == 1
    line = _error_line(done.stderr)
    assert "connection refused" in line and "nothing listens there" in line
    assert "mid-build" not in line and "--resume" not in line

"""Integration: `langgraph dev` serves the graph of langgraph.json; run it through the SDK."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from benchsmith.llm.local import free_port

ROOT = Path(__file__).resolve().parent.parent
LANGGRAPH = shutil.which("langgraph", path=os.path.dirname(sys.executable)) or shutil.which(
    "langgraph"
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(LANGGRAPH is None, reason="langgraph-cli[inmem] is not installed"),
]


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory):
    log_path = tmp_path_factory.mktemp("langgraph") / "dev.log"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHSMITH_", "OPENAI_"))}
    env.update({"LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"})
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                LANGGRAPH,
                "dev",
                "--no-browser",
                "--no-reload",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        url = None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            text = log_path.read_text(errors="replace")
            moved = re.search(r"using port (\d+) instead", text)
            candidate = f"http://127.0.0.1:{moved.group(1) if moved else port}"
            try:
                if httpx.get(f"{candidate}/ok", timeout=1).status_code == 200:
                    url = candidate
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        assert url, f"langgraph dev did not start:\n{log_path.read_text(errors='replace')[-3000:]}"
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def test_studio_serves_the_graph_and_runs_it(dev_server):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    assert [a["graph_id"] for a in client.assistants.search()] == ["benchsmith"]
    result = client.runs.wait(
        None,
        "benchsmith",
        input={"intent": "  spoken capitals quiz ", "size": 12},
        context={"model": "openai:gpt-4o-mini", "role_models": {"judge": "local"}},
    )
    assert result["intent"] == "spoken capitals quiz"
    assert result["size"] == 12
    assert result["models"]["design"] == "openai:gpt-4o-mini"
    assert result["models"]["judge"] == "local"


def test_studio_reports_a_bad_input_as_the_typed_error(dev_server):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    with pytest.raises(Exception, match="ConfigError"):
        client.runs.wait(None, "benchsmith", input={"intent": " ", "size": 3})

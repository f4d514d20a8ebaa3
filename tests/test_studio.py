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


def test_studio_serves_the_graph_and_runs_the_planner(dev_server, tmp_path):
    from langgraph_sdk import get_sync_client

    from benchsmith.catalog.starter import build_starter
    from benchsmith.catalog.store import Catalog

    catalog = Catalog(tmp_path / "catalog")
    build_starter(catalog)
    client = get_sync_client(url=dev_server)
    assert [a["graph_id"] for a in client.assistants.search()] == ["benchsmith"]
    result = client.runs.wait(
        None,
        "benchsmith",
        input={"intent": "  spoken questions about world capitals ", "size": 6},
        context={
            "model": "local",
            "catalog_dir": str(catalog.root),
            "max_subtasks": 1,
        },
    )
    assert result["intent"] == "spoken questions about world capitals"
    assert result["models"]["design"] == "local"
    assert result["plan_status"] == "ok", result.get("error")
    assert result["build_status"] == "planned"  # a plan-only run, finished
    spec = result["spec"]
    assert sum(a["quota"] for a in spec["allocations"]) == 6
    assert spec["groundings"] and spec["groundings"][0]["plan"][0]["tool"] == "tts_speak"
    assert len(result["warnings"]) == 1  # the small-model warning, once


def test_studio_reports_a_bad_input_as_the_typed_error(dev_server):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    with pytest.raises(Exception, match="ConfigError"):
        client.runs.wait(None, "benchsmith", input={"intent": " ", "size": 3})

"""A build against an endpoint nothing answers at: one quick line, and nothing left behind."""

from __future__ import annotations

import subprocess
import time

import pytest
from test_signals import build_cmd, env_for, make_spec

from benchsmith.testing.fake_openai import closed_port

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "url,why",
    [
        (f"http://127.0.0.1:{closed_port()}/v1", "connection refused"),
        ("http://no-such-host.invalid/v1", "unknown host"),
    ],
    ids=["refused", "dns"],
)
def test_build_against_a_dead_endpoint_fails_fast_and_can_be_rerun(tmp_path, url, why):
    spec, catalog = make_spec(tmp_path)
    out = tmp_path / "bench"
    cmd = build_cmd(out, spec, catalog, f"foo@{url}")
    for attempt in range(2):  # the same command again: no "folder is not empty"
        started = time.monotonic()
        done = subprocess.run(cmd, env=env_for(tmp_path), capture_output=True, text=True)
        took = time.monotonic() - started
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1, done.stderr
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"benchsmith: error: {url} (foo): ")
        assert why in lines[0] and "Traceback" not in done.stderr
        # A guard, not a benchmark: was 39-79 s (25 connections; 73 s at load 6.7 here).
        assert took < 30, f"attempt {attempt}: {took:.1f} s"
        assert not out.exists()  # nothing was done, so nothing is left (not even .run/)


def test_an_existing_empty_folder_is_kept_but_left_empty(tmp_path):
    spec, catalog = make_spec(tmp_path)
    out = tmp_path / "bench"
    out.mkdir()
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = subprocess.run(
        build_cmd(out, spec, catalog, f"foo@{url}"), env=env_for(tmp_path), capture_output=True
    )
    assert done.returncode == 1
    assert out.is_dir() and list(out.iterdir()) == []

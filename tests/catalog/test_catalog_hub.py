"""The optional Hugging Face Hub source reports "unavailable" quickly when it cannot work."""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
import types

import pytest

from benchsmith.catalog import hub
from benchsmith.catalog.errors import CatalogError, HubUnavailableError
from benchsmith.catalog.hub import HubSource


def test_not_installed_is_unavailable(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "huggingface_hub" else real(name, *a),
    )
    status = HubSource().status()
    assert not status.available and "not installed" in status.reason
    with pytest.raises(HubUnavailableError, match="not installed"):
        HubSource().search("squad")


def _pretend_installed(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "huggingface_hub" else real(name, *a),
    )


def test_unreachable_hub_is_unavailable_within_three_seconds(monkeypatch):
    _pretend_installed(monkeypatch)
    with socket.socket() as probe:  # a local port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    status = HubSource(endpoint=f"http://127.0.0.1:{port}").status()
    assert time.monotonic() - start < 3
    assert not status.available and "cannot be reached" in status.reason


def test_hanging_name_lookup_is_cut_short(monkeypatch):
    _pretend_installed(monkeypatch)

    release = threading.Event()

    def slow_connect(*args, **kwargs):
        release.wait(10)
        raise OSError("name lookup gave up")

    monkeypatch.setattr(hub.socket, "create_connection", slow_connect)
    start = time.monotonic()
    try:
        status = HubSource(timeout=0.5).status()
    finally:
        release.set()  # let the abandoned probe thread finish
    assert time.monotonic() - start < 3
    assert not status.available and "no answer within" in status.reason


def test_offline_flag(monkeypatch):
    _pretend_installed(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert "HF_HUB_OFFLINE" in HubSource().status().reason


def test_default_hub_here_answers_fast(monkeypatch):
    """Offline (as here and in CI) the real probe says unavailable in under 3 s."""
    start = time.monotonic()
    status = HubSource().status()
    assert time.monotonic() - start < 3
    if not status.available:
        with pytest.raises(CatalogError):
            HubSource().search("capitals")


def test_search_results_are_cleaned(monkeypatch):
    _pretend_installed(monkeypatch)
    monkeypatch.setattr(hub, "_probe", lambda host, port, timeout: None)

    class FakeApi:
        def __init__(self, endpoint):
            self.endpoint = endpoint

        def list_datasets(self, search, limit):
            item = types.SimpleNamespace(
                id="org/capitals\x07", downloads=5, likes=1, tags=["task:qa"], description=None
            )
            return [item]

    fake = types.ModuleType("huggingface_hub")
    fake.HfApi = FakeApi
    monkeypatch.setitem(__import__("sys").modules, "huggingface_hub", fake)
    hits = HubSource().search("capitals", limit=3)
    assert hits[0].id == "org/capitals" and hits[0].downloads == 5

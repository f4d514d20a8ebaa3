"""Shared fixtures: the fake OpenAI-compatible server and runtimes pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchsmith.testing.fake_openai import FakeOpenAIServer
from benchsmith.testing.runtime import endpoint_runtime as make_runtime

__all__ = ["make_runtime"]


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server

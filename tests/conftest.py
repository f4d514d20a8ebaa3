"""Shared fixture: the fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchsmith.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server

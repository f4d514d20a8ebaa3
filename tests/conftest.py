"""Shared fixture: the fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchsmith.testing.fake_openai import FakeOpenAIServer


@pytest.fixture(autouse=True, scope="session")
def _solution_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Solved formulas and plans are cached in a session folder, never the user's home."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHSMITH_SOLUTION_CACHE_DIR", str(tmp_path_factory.mktemp("solution")))
        yield


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server

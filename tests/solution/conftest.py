"""The solution tests read their cache of solved formulas and plans where a user's is."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _solution_cache_home(_solution_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``BENCHSMITH_HOME`` is the run's shared home, whose ``cache/solution`` is the run's cache.

    The cache is then found under the home, not through the override the root conftest gives
    every other test; it is the same folder, so the run keeps one cache. Function-scoped: the
    setting ends with each test, and no test outside this folder depends on the order.
    """
    monkeypatch.setenv("BENCHSMITH_HOME", str(_solution_cache_dir))
    monkeypatch.delenv("BENCHSMITH_SOLUTION_CACHE_DIR", raising=False)
    return _solution_cache_dir

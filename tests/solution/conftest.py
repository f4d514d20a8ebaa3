"""The solution tests keep their cache of solved formulas and plans in a temporary home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _solution_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``BENCHSMITH_HOME`` in a temporary folder (shared by the session's solution tests)."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHSMITH_HOME", str(home))
        # These tests read the cache where a user's is: under the home, not the override
        # the root conftest gives every other test.
        patch.delenv("BENCHSMITH_SOLUTION_CACHE_DIR", raising=False)
        yield home

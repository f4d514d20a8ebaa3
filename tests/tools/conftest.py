"""Fixtures for tool tests: a tool context in a temporary folder."""

from __future__ import annotations

import pytest

from benchsmith.tools.context import ToolContext


@pytest.fixture
def tool_ctx(tmp_path) -> ToolContext:
    """A context with media in ``tmp_path/media``, records in ``tmp_path/run``, seed 0."""
    return ToolContext(media_dir=tmp_path / "media", seed=0, run_dir=tmp_path / "run")

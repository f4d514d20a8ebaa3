"""Shared fixtures: the fake OpenAI-compatible server and runtimes pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchsmith.config import LLMSettings
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.llm.usage import UsageLedger
from benchsmith.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def make_runtime(
    base_url: str,
    *,
    run_dir=None,
    replay: bool = False,
    ledger: UsageLedger | None = None,
    prices=None,
    **settings,
) -> LLMRuntime:
    """A runtime whose every role uses the fake model behind ``base_url`` (real ChatOpenAI)."""
    spec = parse_model_spec(f"fake-model@{base_url}")
    models = {role: ResolvedModel(role=role, spec=spec, source="test") for role in ROLES}
    settings.setdefault("max_retry_wait_s", 5.0)
    return LLMRuntime(
        models=models,
        settings=LLMSettings(**settings),
        records=RunRecords(run_dir),
        ledger=ledger,
        prices=prices,
        replay=replay,
        env={},
    )

"""A model runtime whose every role uses one OpenAI-compatible endpoint (tests, benchmarks)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from benchsmith.config import LLMSettings, Price
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.llm.usage import UsageLedger


def endpoint_runtime(
    base_url: str,
    *,
    model: str = "fake-model",
    run_dir: str | os.PathLike[str] | None = None,
    replay: bool = False,
    ledger: UsageLedger | None = None,
    prices: Mapping[str, Price] | None = None,
    **settings: Any,
) -> LLMRuntime:
    """A runtime with every role on ``model@base_url``, through the real ``ChatOpenAI``.

    Args:
        base_url: The endpoint's ``/v1`` URL (e.g. a ``FakeOpenAIServer``).
        model: The model name sent.
        run_dir: Folder for the run records; in memory when None.
        replay: Serve calls from the records only.
        ledger: Usage and budget; unlimited when None.
        prices: Prices by model name.
        **settings: ``LLMSettings`` fields (``max_retry_wait_s`` defaults to 5 s here).
    """
    spec = parse_model_spec(f"{model}@{base_url}")
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

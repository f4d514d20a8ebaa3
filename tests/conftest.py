"""Shared fixtures (the fake OpenAI-compatible server, one solution cache) and test grouping.

The suite runs on two cores with pytest-xdist (``make test``: ``-n 2 --dist loadscope``).
Each worker runs whole scopes: a scope is one module (its module fixtures then run once),
except that every module of :data:`EMBEDDED_MODEL_MODULES` is in one scope, so two builds
on the embedded model never share the two cores. That scope is queued first (it is the
longest). The scheduler is xdist's ``LoadScopeScheduling`` with that one change
(:func:`pytest_xdist_make_scheduler`): xdist's own ``loadgroup`` marks a group by rewriting
``item._nodeid``, which pytest 9.2's nodes no longer read. Run serially (``pytest`` with
no ``-n``), nothing changes but the speed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchsmith.testing.fake_openai import FakeOpenAIServer

# The reader role defaults to the embedded reader (local:reader); the suite's builds read
# intents by the rules alone unless a test asks for a reader (its own role model or env),
# so a scripted fake is not asked reader questions it was not written for.
os.environ.setdefault("BENCHSMITH_MODEL_READER", "local")

MODEL_GROUP = "embedded-model"
EMBEDDED_MODEL_MODULES = frozenset(
    {
        "tests/evaluate/test_eval_local.py",
        "tests/package/test_consumers.py",
        "tests/programs/test_corpus_builds.py",
        "tests/test_build_local.py",
        "tests/test_demo_review.py",
        "tests/test_local_model.py",
        "tests/test_plan_local.py",
        "tests/test_schema_grammar.py",
        "tests/test_server_restart.py",
        "tests/test_signals.py",
        "tests/test_studio.py",
    }
)
"""Modules with tests that start or use the embedded model's server (marked ``embedded_model``).

``BENCHSMITH_SUITE_MODEL_SCOPE`` (comma-separated paths) replaces the set, for the test of
the scheduler itself (``tests/test_suite_scopes.py``)."""
if os.environ.get("BENCHSMITH_SUITE_MODEL_SCOPE"):
    EMBEDDED_MODEL_MODULES = frozenset(os.environ["BENCHSMITH_SUITE_MODEL_SCOPE"].split(","))


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def scope_of(nodeid: str) -> str:
    """The xdist scope of a test: its module, or :data:`MODEL_GROUP` for the model's modules."""
    module = _module(nodeid)
    return MODEL_GROUP if module in EMBEDDED_MODEL_MODULES else module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the embedded-model modules' tests and queue them first (stable otherwise)."""
    for item in items:
        if _module(item.nodeid) in EMBEDDED_MODEL_MODULES:
            item.add_marker(pytest.mark.embedded_model)
    items.sort(key=lambda item: _module(item.nodeid) not in EMBEDDED_MODEL_MODULES)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` with one scope for every embedded-model module, queued in order."""
    if config.getvalue("dist") != "loadscope":
        return None  # xdist's own scheduler for the other modes
    from xdist.scheduler import LoadScopeScheduling

    class GroupedScopes(LoadScopeScheduling):
        """A module a scope; the embedded-model modules share one."""

        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    config.option.loadscopereorder = False  # keep the collection's order: that scope first
    return GroupedScopes(config, log)


def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run sees (the run's base temp, serially)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's base temp is a child of the run's
    return base / "shared"


@pytest.fixture(autouse=True, scope="session")
def _solution_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of solved formulas and plans for the whole run, never the user's home.

    Built once per run and shared by the workers (the cache is content-addressed and keyed
    by the solution code's digest, and its writers are atomic; benchsmith.solution.cache).
    The tests of the cache itself use homes of their own.
    """
    home = shared_dir(tmp_path_factory) / "home"
    cache = home / "cache" / "solution"
    cache.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHSMITH_SOLUTION_CACHE_DIR", str(cache))
        yield home


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server

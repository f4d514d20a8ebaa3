"""One process-wide registry of model runtimes, keyed by run configuration.

Agents get their model through one helper, :func:`get_model`, so tests can swap every
model of a run with :func:`register_runtime`.
"""

from __future__ import annotations

import threading

from benchsmith.config import RunConfig
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.specs import Role

_RUNTIMES: dict[str, LLMRuntime] = {}
_LOCK = threading.Lock()


def _key(config: RunConfig) -> str:
    return config.key()


def runtime_for(config: RunConfig) -> LLMRuntime:
    """The model runtime of a run (one per distinct configuration in this process)."""
    key = _key(config)
    with _LOCK:
        runtime = _RUNTIMES.get(key)
        if runtime is None:
            runtime = _RUNTIMES[key] = LLMRuntime.from_config(config)
        return runtime


def register_runtime(config: RunConfig, runtime: LLMRuntime | None) -> None:
    """Use ``runtime`` for runs with this configuration (None forgets it); for tests."""
    with _LOCK:
        if runtime is None:
            _RUNTIMES.pop(_key(config), None)
        else:
            _RUNTIMES[_key(config)] = runtime


def get_model(config: RunConfig, role: Role) -> RoleModel:
    """The model an agent of ``role`` uses in the run configured by ``config``."""
    return runtime_for(config).for_role(role)

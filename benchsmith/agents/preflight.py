"""Preflight: check a build's input and settle which model serves each role.

It runs first so that a bad intent, a bad size or a bad model spec fails before any model
is called, and so that the resolved models are part of the run's state (and later of its
spec and report).
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from pydantic import ValidationError

from benchsmith.agents.plans import validate_step
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, describe_validation_error
from benchsmith.llm.registry import runtime_for
from benchsmith.spec import BenchmarkSpec
from benchsmith.state import BuildState
from benchsmith.verify.reviewer import prewarm_language_id

MAX_SIZE = 100_000


def preflight(state: BuildState, runtime: Runtime[RunConfig]) -> dict:
    """Validate the request and resolve the model of every role.

    Args:
        state: The build state (``intent`` and ``size``).
        runtime: The LangGraph runtime carrying the run configuration.

    Returns:
        The normalized intent, the size, the model spec per role, and warnings.

    Raises:
        ConfigError: The intent is empty or the size is out of range.
    """
    intent = " ".join(str(state.get("intent", "")).split())
    if not intent:
        raise ConfigError("the intent is empty; describe what the benchmark should measure")
    size = state.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_SIZE:
        raise ConfigError(f"size must be a whole number from 1 to {MAX_SIZE}, got {size!r}")
    config = runtime.context if runtime.context is not None else RunConfig()
    llm = runtime_for(config)
    models = {role: resolved.spec.text for role, resolved in llm.models.items()}
    warnings = []
    if all(spec == "local" for spec in models.values()):
        warnings.append(
            "every role uses the embedded 135M model: the intent is read by rules alone and "
            "the model is not asked to judge (--judge advisory records its verdicts); for a "
            "reading of intents the rules miss pass --model openai:MODEL (or any "
            "OpenAI-compatible server)"
        )
    spec = state.get("spec")
    if spec is not None:
        try:
            spec = BenchmarkSpec.model_validate(spec)
        except ValidationError as exc:
            raise ConfigError(
                f"the given spec is invalid: {describe_validation_error(exc)}"
            ) from exc
        # A plan edited by hand: every step's tool and ranges as its tool would take them.
        problems = [
            f"grounding {g.id}: {problem}"
            for g in spec.groundings
            for step in g.plan
            for problem in validate_step(step)
        ]
        if problems:
            raise ConfigError(
                f"the given spec's tool plan is invalid: {'; '.join(problems[:4])}; fix the "
                "steps (benchsmith tools lists the tools and their parameters)"
            )
    # lingua's models load in a worker process while the build goes on (~2.5 s of CPU).
    languages = list(config.languages)
    for subtask in spec.subtasks if spec is not None else []:
        languages += list(subtask.languages)
    prewarm_language_id(languages or ["en"])
    return {
        "intent": intent,
        "size": size,
        "models": models,
        "warnings": warnings,
        "plan_status": "ok" if spec is not None else "planning",
        "spec": spec,
        "error": None,
        "build": bool(state.get("build")),
        "started_at": time.time(),
        "targets": {},
        "exec_round": 0,
        "pending_slots": [],
        "shortfalls": [],
        "build_status": "planning" if spec is None else "building",
        "report": None,
        "subtasks": [],
        "groundings": [],
        "allocations": [],
        "dropped": [],
        "allocation_trace": [],
    }

"""The Python API: plan a benchmark (and, as the executor lands, build it).

``plan_benchmark`` runs the graph's planner on an intent and writes ``spec.json``. With a
``reviewer`` callback the plan pauses at ``review_plan`` and the callback's decision
(approve, edit or reject) resumes it: the CLI's ``--review`` asks a person.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchsmith.config import RunConfig
from benchsmith.errors import BenchsmithError
from benchsmith.spec import BenchmarkSpec

Reviewer = Callable[[dict[str, Any]], dict[str, Any]]


class PlanError(BenchsmithError):
    """No feasible plan: the message names the bottleneck."""


@dataclass
class PlanResult:
    """What planning produced."""

    spec: BenchmarkSpec
    spec_path: Path | None
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def add_run_sources(
    config: RunConfig, out: Path, datasets: Sequence[str], references: Sequence[str]
) -> RunConfig:
    """Catalogue the run's own ``--dataset`` and ``--reference`` sources in the run folder."""
    if not datasets and not references:
        return config
    from benchsmith.catalog.store import Catalog

    catalog = Catalog(out / "catalog")
    for path in datasets:
        catalog.add(path, replace=True)
    for path in references:
        catalog.add_reference(path, replace=True)
    return replace(config, run_catalog_dir=str(out / "catalog"))


def plan_benchmark(
    intent: str,
    *,
    size: int = 100,
    out: str | os.PathLike[str] | None = None,
    config: RunConfig | None = None,
    datasets: Sequence[str] = (),
    references: Sequence[str] = (),
    reviewer: Reviewer | None = None,
) -> PlanResult:
    """Plan a benchmark: subtasks, groundings and quotas.

    Args:
        intent: What the benchmark should measure, in plain language.
        size: Number of items.
        out: Folder for ``spec.json`` (and the run's records); nothing is written when None.
        config: Run configuration (models, budget, loop caps, constraints).
        datasets: Extra data files/folders to ground in.
        references: Reference documents to ground in.
        reviewer: Called with ``{"spec", "summary"}`` when the plan pauses for review;
            returns ``{"action": "approve" | "edit" | "reject", ...}``.

    Returns:
        The spec, where it was written, and the planner's log.

    Raises:
        PlanError: No feasible plan (the message names the bottleneck), or it was rejected.
    """
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from benchsmith.graph import make_builder

    config = config or RunConfig()
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        if config.run_dir is None:
            config = replace(config, run_dir=str(out_dir / ".run"))
        config = add_run_sources(config, out_dir, datasets, references)
    config = replace(config, review=reviewer is not None)
    graph = make_builder().compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": uuid.uuid4().hex}}
    payload: Any = {"intent": intent, "size": size}
    while True:
        graph.invoke(payload, thread, context=config)
        snapshot = graph.get_state(thread, subgraphs=True)
        pending = _interrupts(snapshot)
        if not pending:
            break
        assert reviewer is not None
        payload = Command(resume=reviewer(pending[0]))
    values = graph.get_state(thread).values
    if values.get("plan_status") != "ok" or not values.get("spec"):
        raise PlanError(values.get("error") or f"planning ended as {values.get('plan_status')}")
    spec = BenchmarkSpec.model_validate(values["spec"])
    spec_path = None
    if out_dir is not None:
        spec_path = out_dir / "spec.json"
        tmp = spec_path.with_suffix(".json.tmp")
        tmp.write_text(
            json.dumps(spec.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
        )
        os.replace(tmp, spec_path)
    return PlanResult(
        spec=spec,
        spec_path=spec_path,
        log=list(values.get("planner_log") or []),
        warnings=list(values.get("warnings") or []),
    )


def _interrupts(snapshot: Any) -> list[Any]:
    found = []
    for task in snapshot.tasks:
        found.extend(i.value for i in task.interrupts)
        if task.state is not None:
            found.extend(_interrupts(task.state))
    return found

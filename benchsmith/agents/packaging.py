"""Packaging node: write the benchmark folder once the quota monitor sends no more slots.

Packaging reads the plan from ``spec.json`` and the build's ledger, nothing of the slots'
workspace but what this run's slots counted (tail backups) or generated (the candidates of
a difficulty mix) when they ran in this process.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents.backups import TailBackups
from benchsmith.agents.candidates import Candidates
from benchsmith.agents.plan_data import PlanData
from benchsmith.agents.sources import find_card, run_config
from benchsmith.agents.workspace import close_workspace, current_workspace
from benchsmith.config import RunConfig
from benchsmith.difficulty_mix import mix_report
from benchsmith.errors import ConfigError
from benchsmith.layout import read_spec
from benchsmith.ledger import Ledger
from benchsmith.llm.registry import runtime_for
from benchsmith.spec import COMPUTED, BenchmarkSpec
from benchsmith.state import BuildState


def source_cards(config: RunConfig, dataset_ids: list[str]) -> list[Any]:
    """The catalog cards of the datasets a benchmark was built from (for the card)."""
    cards = (find_card(config, dataset_id) for dataset_id in dict.fromkeys(dataset_ids))
    return [card for card in cards if card is not None]


def judge_note(config: RunConfig) -> str:
    """How the LLM judge ran in this build, in words for the report."""
    mode = config.judge
    if mode == "off":
        return "off (--judge off)"
    try:
        spec = runtime_for(config).models["verification"].spec
    except Exception:  # noqa: BLE001 - the note must not fail a packaging
        return mode
    local = spec.provider == "local"
    who = "embedded model" if local else spec.text
    if mode == "auto" and local:
        return (
            "skipped: the verification role is the embedded 135M model, whose verdicts cannot "
            "be trusted; opt in with --judge advisory"
        )
    if mode == "advisory":
        return f"advisory, {who}"
    return f"enforced, {who}"


def difficulty_mix_report(
    config: RunConfig,
    spec: BenchmarkSpec,
    ledger: Ledger,
    labels: dict[str, list[str | None]],
    targets: dict[str, int],
) -> dict[str, Any]:
    """The requested and achieved difficulty mix per subtask (report.json ``difficulty_mix``).

    Args:
        config: The run configuration (the mix asked for).
        spec: The plan.
        ledger: The build's ledger (the accepted items' labels).
        labels: Per computed grounding, the predicted label of each candidate
            (:meth:`~benchsmith.agents.candidates.Candidates.labels`).
        targets: Items per grounding after reallocations (empty: the plan's quotas).
    """
    subtask_of = {g.id: g.subtask_id for g in spec.groundings}
    quotas = targets or {a.grounding_id: a.quota for a in spec.allocations}
    per_subtask: Counter[str] = Counter()
    for gid, target in quotas.items():
        per_subtask[subtask_of[gid]] += target
    accepted: dict[str, Counter[str]] = {}
    for item in ledger.accepted_items():
        subtask = str(item.metadata.get("subtask"))
        accepted.setdefault(subtask, Counter())[str(item.metadata.get("difficulty"))] += 1
    pool: dict[str, Counter[str]] = {}
    for gid, found in labels.items():
        pool.setdefault(subtask_of[gid], Counter()).update(str(x) for x in found)
    steerable = {
        s.id: any(g.strategy in COMPUTED for g in spec.groundings if g.subtask_id == s.id)
        for s in spec.subtasks
    }
    return mix_report(
        dict(config.difficulty_mix or {}), dict(per_subtask), accepted, pool, steerable
    )


def package_build(
    config: RunConfig,
    spec: BenchmarkSpec,
    *,
    targets: dict[str, int],
    shortfalls: list[dict[str, Any]],
    models: dict[str, str],
    started_at: float,
    status: str | None = None,
) -> dict[str, Any]:
    """Write the folder of the build ``config`` describes from its ledger; return the report.

    The plan is the one in ``spec.json`` (``spec`` when the build wrote none, the budget
    having run out before any slot).
    """
    # About 0.3 s to import, which a plan-only run of the same graph does not need (a
    # build loads what it imports meanwhile: Workspace.warm_packaging).
    from benchsmith.package.writer import write_package

    if not config.paths.out_dir or not config.paths.run_dir:
        raise ConfigError("a build needs an output folder (--out)")
    bench_dir = Path(config.paths.out_dir)
    plan = read_spec(bench_dir) or spec
    # The run's own ledger, counts and candidates when its slots ran in this process.
    ws = current_workspace(config)
    ledger = ws.ledger if ws is not None else Ledger(config.paths.run_dir)
    mix = None
    if config.difficulty_mix:
        candidates = ws.candidates if ws is not None else Candidates(PlanData(config, plan))
        mix = difficulty_mix_report(config, plan, ledger, candidates.labels(), targets)
    backups = ws.backups if ws is not None else TailBackups(enabled=False)
    report = write_package(
        bench_dir,
        plan,
        ledger,
        targets=targets,
        shortfalls=shortfalls,
        llm_usage=runtime_for(config).ledger.summary(),
        models=models,
        started_at=started_at,
        seed=config.seed,
        sources=source_cards(config, [g.dataset_id for g in plan.groundings]),
        status=status,
        judge_note=judge_note(config),
        notes=list(plan.notes),
        tail_backups=backups.summary(),
        difficulty_mix=mix,
    )
    close_workspace(config)
    return report


def package_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: write data/, rejects, spec, report, card and the harness tasks."""
    config = run_config(runtime)
    report = package_build(
        config,
        BenchmarkSpec.model_validate(state["spec"]),
        targets=dict(state.get("targets") or {}),
        shortfalls=list(state.get("shortfalls") or []),
        models=dict(state.get("models") or {}),
        started_at=float(state.get("started_at") or 0.0),
    )
    return {
        "build_status": report["status"],
        "report": report,
        "build_log": [f"package: {report['items']} item(s) written to {config.paths.out_dir}"],
    }

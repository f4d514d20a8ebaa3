"""Packaging node: write the benchmark folder once the quota monitor sends no more slots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents.realize import close_workspace, open_workspace
from benchsmith.agents.sources import catalog_sources, run_config
from benchsmith.config import RunConfig
from benchsmith.graph.state import BuildState
from benchsmith.llm.registry import runtime_for
from benchsmith.spec import BenchmarkSpec


def source_cards(config: Any, dataset_ids: list[str]) -> list[Any]:
    """The catalog cards of the datasets a benchmark was built from (for the card)."""
    cards = []
    for dataset_id in dict.fromkeys(dataset_ids):
        for source in catalog_sources(config):
            if dataset_id in source:
                cards.append(source.get(dataset_id))
                break
    return cards


def judge_note(config: Any) -> str:
    """How the LLM judge ran in this build, in words for the report."""
    from benchsmith.llm.registry import runtime_for

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


def difficulty_mix_report(config: RunConfig, ws: Any, targets: dict[str, int]) -> dict[str, Any]:
    """The requested and achieved difficulty mix per subtask (report.json ``difficulty_mix``)."""
    from collections import Counter

    from benchsmith.difficulty_mix import mix_report
    from benchsmith.spec import COMPUTED

    subtask_of = {g.id: g.subtask_id for g in ws.spec.groundings}
    quotas = targets or {a.grounding_id: a.quota for a in ws.spec.allocations}
    per_subtask: Counter[str] = Counter()
    for gid, target in quotas.items():
        per_subtask[subtask_of[gid]] += target
    accepted: dict[str, Counter[str]] = {}
    for item in ws.ledger.accepted_items():
        subtask = str(item.metadata.get("subtask"))
        accepted.setdefault(subtask, Counter())[str(item.metadata.get("difficulty"))] += 1
    pool: dict[str, Counter[str]] = {}
    for gid, labels in ws.candidate_labels().items():
        pool.setdefault(subtask_of[gid], Counter()).update(str(x) for x in labels)
    steerable = {
        s.id: any(g.strategy in COMPUTED for g in ws.spec.groundings if g.subtask_id == s.id)
        for s in ws.spec.subtasks
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
    """Write the folder of the build ``config`` describes from its ledger; return the report."""
    from benchsmith.package.writer import write_package

    spec_path = Path(config.paths.out_dir or ".") / "spec.json"
    if not spec_path.is_file():  # the budget ran out before any slot: the plan is all there is
        from benchsmith.files import atomic_write

        atomic_write(spec_path, spec.model_dump_json(indent=2) + "\n")
    ws = open_workspace(config)
    mix = difficulty_mix_report(config, ws, targets) if config.difficulty_mix else None
    report = write_package(
        ws.bench_dir,
        ws.spec,
        ws.ledger,
        targets=targets,
        shortfalls=shortfalls,
        llm_usage=runtime_for(config).ledger.summary(),
        models=models,
        started_at=started_at,
        seed=config.seed,
        sources=source_cards(config, [g.dataset_id for g in ws.spec.groundings]),
        status=status,
        judge_note=judge_note(config),
        notes=list(ws.template_notes) + list(ws.spec.notes or []),
        tail_backups=ws.backups.summary(),
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

"""Packaging node: write the benchmark folder once the quota monitor sends no more slots."""

from __future__ import annotations

from typing import Any

from benchsmith.agents.realize import workspace_for
from benchsmith.agents.sources import catalog_sources, run_config
from benchsmith.llm.registry import runtime_for


def source_cards(config: Any, dataset_ids: list[str]) -> list[Any]:
    """The catalog cards of the datasets a benchmark was built from (for the card)."""
    cards = []
    for dataset_id in dict.fromkeys(dataset_ids):
        for source in catalog_sources(config):
            if dataset_id in source:
                cards.append(source.get(dataset_id))
                break
    return cards


def package_node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Graph node: write data/, rejects, spec, report, card and the harness tasks."""
    from benchsmith.package.writer import write_package

    config = run_config(runtime)
    ws = workspace_for(config, state["spec"])
    report = write_package(
        ws.bench_dir,
        ws.spec,
        ws.ledger,
        targets=dict(state.get("targets") or {}),
        shortfalls=list(state.get("shortfalls") or []),
        llm_usage=runtime_for(config).ledger.summary(),
        models=dict(state.get("models") or {}),
        started_at=float(state.get("started_at") or 0.0),
        seed=config.seed,
        sources=source_cards(config, [g.dataset_id for g in ws.spec.groundings]),
    )
    return {
        "build_status": report["status"],
        "report": report,
        "build_log": [f"package: {report['items']} item(s) written to {ws.bench_dir}"],
    }

"""Where the planner's agents find their run configuration and their data sources."""

from __future__ import annotations

from typing import Any

from benchsmith.catalog.store import Catalog, first_holding
from benchsmith.config import RunConfig


def run_config(runtime: Any) -> RunConfig:
    """The run configuration from a LangGraph runtime (defaults when there is none)."""
    context = getattr(runtime, "context", None)
    if isinstance(context, RunConfig):
        return context
    if isinstance(context, dict):
        return RunConfig.model_validate(context)
    return RunConfig()


def catalog_sources(config: RunConfig) -> list[Any]:
    """The catalogs to ground in: the run's own sources first, then the main catalog."""
    sources = []
    if config.paths.run_catalog_dir:
        sources.append(Catalog(config.paths.run_catalog_dir))
    sources.append(
        Catalog(config.paths.catalog_dir) if config.paths.catalog_dir else Catalog.default()
    )
    return sources


def find_card(config: RunConfig, dataset_id: str) -> Any | None:
    """The card of ``dataset_id`` from the first of the run's catalogs that holds it, or None."""
    catalog = first_holding(catalog_sources(config), dataset_id)
    return catalog.get(dataset_id) if catalog is not None else None

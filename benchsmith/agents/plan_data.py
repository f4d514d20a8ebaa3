"""The data a build draws its items from: the plan's datasets, read once per build.

:class:`PlanData` loads each dataset's records and card once (the candidates are computed
from them) and rebuilds a reference document the catalog kept only as passages. It holds
no ledger and no duplicate index: packaging reads the candidates of a difficulty mix
through it without them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from benchsmith.agents import sources  # through the module: tests swap catalog_sources
from benchsmith.catalog.store import first_holding
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError
from benchsmith.spec import BenchmarkSpec, Grounding, Subtask


class PlanData:
    """The datasets of one plan, as a build reads them (thread-safe).

    Args:
        config: The run configuration (its catalogs; ``out_dir`` and ``run_dir`` set).
        spec: The plan being realized.
    """

    def __init__(self, config: RunConfig, spec: BenchmarkSpec) -> None:
        """Hold the plan; nothing is read until a slot asks."""
        if not config.paths.out_dir or not config.paths.run_dir:
            raise ConfigError("a build needs an output folder (--out)")
        self.config = config
        self.spec = spec
        self.bench_dir = Path(config.paths.out_dir)
        self.run_dir = Path(config.paths.run_dir)
        self.subtasks: dict[str, Subtask] = {s.id: s for s in spec.subtasks}
        self.groundings: dict[str, Grounding] = {g.id: g for g in spec.groundings}
        self.sources = sources.catalog_sources(config)
        """The run's catalogs, its own sources first."""
        self._lock = threading.Lock()
        self._records: dict[str, list[dict[str, Any]]] = {}
        self._cards: dict[str, Any] = {}

    def quota(self, grounding: Grounding) -> int:
        """The items the plan allocates to ``grounding``."""
        return sum(a.quota for a in self.spec.allocations if a.grounding_id == grounding.id)

    def card(self, dataset_id: str) -> Any:
        """A dataset's card (None when no catalog holds it), read once per build."""
        if dataset_id not in self._cards:
            self._cards[dataset_id] = sources.find_card(self.config, dataset_id)
        return self._cards[dataset_id]

    def dataset_folders(self) -> list[Path]:
        """Each grounding's dataset folder (its media files may sit beside its data file)."""
        folders = []
        for grounding in self.spec.groundings:
            catalog = first_holding(self.sources, grounding.dataset_id)
            if catalog is not None:
                data = Path(catalog.data_path(grounding.dataset_id))
                folders.append(data if data.is_dir() else data.parent)
        return folders

    def records(self, dataset_id: str) -> list[dict[str, Any]]:
        """Every record of a dataset (loaded once per build, from the first catalog having it)."""
        with self._lock:
            cached = self._records.get(dataset_id)
            if cached is not None:
                return cached
            catalog = first_holding(self.sources, dataset_id)
            if catalog is not None:
                loaded = list(catalog.records(dataset_id))
                self._records[dataset_id] = loaded
                return loaded
        raise ConfigError(
            f"dataset {dataset_id!r} of the plan is in no catalog; add it with "
            "`benchsmith catalog add` or pass it with --dataset"
        )

    def reference_path(self, dataset_id: str) -> Path:
        """The document behind a reference card.

        Its original file when it is still there, else one rebuilt (as Markdown sections)
        from the passages the catalog kept.
        """
        card = self.card(dataset_id)
        if card is None:
            raise ConfigError(f"reference {dataset_id!r} of the plan is in no catalog")
        original = Path(card.provenance.source) if card.provenance.source else None
        if original is not None and original.is_file():
            return original
        rebuilt = self.run_dir / "references" / f"{dataset_id}.md"
        if not rebuilt.is_file():
            rebuilt.parent.mkdir(parents=True, exist_ok=True)
            text, section = [], None
            for record in self.records(dataset_id):
                if record.get("section") != section:
                    section = record.get("section")
                    text.append(f"\n## {section}\n")
                text.append(str(record.get("text", "")))
            rebuilt.write_text("\n".join(text), encoding="utf-8")
        return rebuilt

"""Dataset catalog: cards, profiling of local data, search, loaders and the starter set.

Public API:

* :class:`Catalog` - a folder of dataset cards with BM25 search and record streaming
  (``Catalog.default()`` is ``$BENCHSMITH_HOME/catalog``);
* :class:`DatasetCard`, :class:`FieldInfo`, :class:`LoaderSpec`, :class:`Provenance` - the card;
* :func:`profile_path` - deterministic profiling of a file or folder into a card, and
  :func:`enrich_description` - the one edit a model may make to a card;
* :func:`build_starter` - the offline starter catalog (in :mod:`benchsmith.catalog.starter`);
* :class:`HubSource` - optional Hugging Face Hub search (in :mod:`benchsmith.catalog.hub`);
* :class:`CatalogLimits` - the caps on what profiling and reading take in (file size,
  columns, line length, JSON depth), and :class:`CatalogLimitError` - data over one;
* :class:`CatalogError` - every failure, with the file and line named.

Heavy modules (pyarrow, the starter's scientific packages) load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Loaded on first use (PEP 562): importing the package for its error classes (the CLI does,
# for every command) must not load the store, the profiler and the search index.
_LAZY = {
    "Catalog": "benchsmith.catalog.store",
    "CatalogHit": "benchsmith.catalog.store",
    "CatalogError": "benchsmith.catalog.errors",
    "CatalogLimitError": "benchsmith.catalog.errors",
    "HubUnavailableError": "benchsmith.catalog.errors",
    "CatalogLimits": "benchsmith.catalog.limits",
    "DatasetCard": "benchsmith.catalog.cards",
    "FieldInfo": "benchsmith.catalog.cards",
    "LoaderSpec": "benchsmith.catalog.cards",
    "Provenance": "benchsmith.catalog.cards",
    "slugify": "benchsmith.catalog.cards",
    "enrich_description": "benchsmith.catalog.profile",
    "profile_path": "benchsmith.catalog.profile",
}

if TYPE_CHECKING:
    from benchsmith.catalog.cards import DatasetCard, FieldInfo, LoaderSpec, Provenance, slugify
    from benchsmith.catalog.errors import CatalogError, CatalogLimitError, HubUnavailableError
    from benchsmith.catalog.limits import CatalogLimits
    from benchsmith.catalog.profile import enrich_description, profile_path
    from benchsmith.catalog.store import Catalog, CatalogHit


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'benchsmith.catalog' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "Catalog",
    "CatalogError",
    "CatalogHit",
    "CatalogLimitError",
    "CatalogLimits",
    "DatasetCard",
    "FieldInfo",
    "HubUnavailableError",
    "LoaderSpec",
    "Provenance",
    "enrich_description",
    "profile_path",
    "slugify",
]

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

from benchsmith.catalog.cards import DatasetCard, FieldInfo, LoaderSpec, Provenance, slugify
from benchsmith.catalog.errors import CatalogError, CatalogLimitError, HubUnavailableError
from benchsmith.catalog.limits import CatalogLimits
from benchsmith.catalog.profile import enrich_description, profile_path
from benchsmith.catalog.store import Catalog, CatalogHit

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

"""Errors of the dataset catalog.

They live here, not in :mod:`benchsmith.errors`, so the catalog stays one self-contained
concern; both derive from :class:`~benchsmith.errors.BenchsmithError`, so the CLI prints them
as one line and exits with their ``exit_code``.
"""

from __future__ import annotations

from benchsmith.errors import BenchsmithError


class CatalogError(BenchsmithError):
    """A dataset cannot be profiled, added, found or read (the message names the input)."""

    exit_code = 2


class HubUnavailableError(CatalogError):
    """The Hugging Face Hub cannot be used: ``huggingface_hub`` is missing, or it is offline."""

    exit_code = 1


class CatalogLimitError(CatalogError):
    """Data is over one of the catalog's caps (:class:`~benchsmith.catalog.limits.CatalogLimits`).

    Attributes:
        limit: The name of the cap (a field of ``CatalogLimits``), so a caller can raise it.
    """

    def __init__(self, message: str, *, limit: str) -> None:
        """Keep the message and the name of the cap."""
        super().__init__(message)
        self.limit = limit

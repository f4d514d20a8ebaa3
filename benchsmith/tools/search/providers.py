"""Search providers: the result type, the provider protocol, and the web and replay providers.

A :class:`SearchProvider` answers a text query with ranked :class:`SearchResult` hits:

* :class:`DDGSProvider` - the web, through the ``ddgs`` package (needs internet; imported
  only when a search runs);
* :class:`RecordedProvider` - replays the searches of a recorded run, for tests and replay.

The offline full-text provider lives in :mod:`benchsmith.tools.search.index`.

Results are untrusted text: titles, URLs and snippets are stripped of control and format
characters and truncated on creation (:func:`clean_text`); nothing in them is ever
interpreted.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from benchsmith.errors import ToolUnavailableError

ProviderName = Literal["ddgs", "offline", "recorded"]

MAX_TITLE_CHARS = 300
MAX_URL_CHARS = 2000
MAX_SNIPPET_CHARS = 500
DDGS_TIMEOUT_S = 5


# -- untrusted text -------------------------------------------------------------------------
def clean_text(text: object, max_chars: int, *, keep_newlines: bool = False) -> str:
    """Untrusted text made inert: control/format characters dropped, whitespace folded, cut.

    Args:
        text: Any value (``None`` gives ``""``).
        max_chars: Longest result; a longer text is cut and ends with ``…``.
        keep_newlines: Keep line breaks (folding blank-line runs) instead of folding them.

    Returns:
        The cleaned text.
    """
    if text is None:
        return ""
    raw = str(text)
    kept = "".join(
        ch
        for ch in raw
        if ch in "\n\t " or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    )
    if keep_newlines:
        lines = [" ".join(line.split()) for line in kept.split("\n")]
        out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    else:
        out = " ".join(kept.split())
    if len(out) > max_chars:
        out = out[: max(max_chars - 1, 0)].rstrip() + "…"
    return out


class SearchResult(BaseModel):
    """One search hit. Every text field is untrusted, cleaned and truncated on creation."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    title: str = Field(default="", description="Title of the page or document.")
    url: str = Field(default="", description="Where it is (``file://...#chunk-N`` if local).")
    snippet: str = Field(default="", description="A short excerpt around the match.")
    provider: str = Field(default="", description="The provider that found it.")
    rank: int = Field(default=1, ge=1, description="Position in the result list, from 1.")

    @field_validator("title", "url", "snippet", "provider", mode="before")
    @classmethod
    def _clean(cls, value: object, info: ValidationInfo) -> str:
        limits = {"title": MAX_TITLE_CHARS, "url": MAX_URL_CHARS, "provider": 50}
        return clean_text(value, limits.get(info.field_name or "", MAX_SNIPPET_CHARS))


@runtime_checkable
class SearchProvider(Protocol):
    """Anything that answers a text query with ranked results."""

    name: str

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Up to ``max_results`` results for ``query``, best first."""
        ...


# -- ddgs -----------------------------------------------------------------------------------
class DDGSProvider:
    """Web search through the ``ddgs`` package, one backend, with a short timeout."""

    name = "ddgs"

    def __init__(self, backend: str = "duckduckgo", timeout: int = DDGS_TIMEOUT_S) -> None:
        """Create the provider.

        Args:
            backend: One ``ddgs`` text backend (``duckduckgo``, ``brave``, ``mojeek``, ...).
            timeout: Seconds before the search gives up.
        """
        self.backend = backend
        self.timeout = timeout

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Search the web.

        Raises:
            ToolUnavailableError: ``ddgs`` is missing, or the search failed or timed out
                (no internet, rate limit, ...).
        """
        hint = "use the offline provider (provider='offline' with a local corpus) instead"
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException
        except ImportError as exc:  # pragma: no cover - ddgs is a dependency
            raise ToolUnavailableError(
                f"web search needs the ddgs package ({exc}); {hint}"
            ) from exc
        try:
            raw = DDGS(timeout=self.timeout).text(
                query, max_results=max_results, backend=self.backend
            )
        except (DDGSException, OSError, TimeoutError) as exc:
            raise ToolUnavailableError(
                f"web search is unavailable (offline?): {type(exc).__name__}: "
                f"{clean_text(exc, 300)}; {hint}"
            ) from exc
        return [
            SearchResult(
                title=item.get("title"),
                url=item.get("href") or item.get("url"),
                snippet=item.get("body") or item.get("snippet"),
                provider=self.name,
                rank=i,
            )
            for i, item in enumerate(raw[:max_results], start=1)
        ]


# -- recorded -------------------------------------------------------------------------------
def _normal_query(query: str) -> str:
    return " ".join(query.split())


class RecordedProvider:
    """Replays searches from a JSONL recording (e.g. a run's ``tool_records.jsonl``).

    Each line is ``{"query": ..., "provider": ..., "results": [...]}`` (lines of another
    ``kind`` than ``search`` are ignored); the last record of a query wins. Queries match
    after folding whitespace. Results keep the provider that first found them.
    """

    name = "recorded"

    def __init__(self, path: str | os.PathLike[str], provider: str | None = None) -> None:
        """Create the provider.

        Args:
            path: The JSONL recording.
            provider: Only replay records made by this provider, if given.
        """
        self.path = Path(path)
        self.provider = provider

    def recorded(self) -> dict[str, list[dict[str, Any]]]:
        """Recorded results by (whitespace-folded) query."""
        if not self.path.is_file():
            raise ToolUnavailableError(
                f"search recording {str(self.path)!r} does not exist; record a run first "
                "or choose provider 'offline' or 'ddgs'"
            )
        table: dict[str, list[dict[str, Any]]] = {}
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a killed process
            if not isinstance(rec, dict) or rec.get("kind", "search") != "search":
                continue
            if not isinstance(rec.get("query"), str) or not isinstance(rec.get("results"), list):
                continue
            if self.provider is not None and rec.get("provider") != self.provider:
                continue
            table[_normal_query(rec["query"])] = rec["results"]
        return table

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """The recorded results of ``query`` (at most ``max_results``).

        Raises:
            ToolUnavailableError: The query is not in the recording (a replay miss).
        """
        table = self.recorded()
        key = _normal_query(query)
        if key not in table:
            close = difflib.get_close_matches(key, list(table), n=1)
            hint = f"; closest recorded query: {close[0]!r}" if close else ""
            raise ToolUnavailableError(
                f"replay miss: no recorded search for {clean_text(key, 200)!r} in "
                f"{str(self.path)!r} ({len(table)} recorded queries{hint}); replay serves only "
                "the searches of the recorded run: search anew with provider 'offline' or 'ddgs'"
            )
        results = []
        for i, item in enumerate(table[key][:max_results], start=1):
            data = item if isinstance(item, dict) else {}
            results.append(SearchResult.model_validate({**data, "rank": i}))
        return results

"""Search tools: web search through swappable providers, and a guarded page fetch.

``web_search`` asks a :class:`SearchProvider` and keeps every search in the run's tool
records (``{"kind": "search", "query", "provider", "results"}``):

* :class:`DDGSProvider` - the web, through the ``ddgs`` package (needs internet);
* :class:`OfflineProvider` - full-text search (SQLite FTS5, BM25) over local .txt, .md and
  .jsonl files;
* :class:`RecordedProvider` - replays the searches of a recorded run, for tests and replay.

Results are untrusted text: titles, URLs and snippets are stripped of control and format
characters and truncated; nothing in them is ever interpreted.

``web_fetch`` downloads one http(s) page and writes its text into the media folder. It only
talks to public addresses: every address a host resolves to must pass the address policy,
redirects are followed by hand and re-checked at every hop, and the connection goes to the
very address that was checked (see :func:`fetch_url`), so DNS rebinding cannot slip a private
address in between the check and the connection.

One concern per module:

* :mod:`~benchsmith.tools.search.providers` - :class:`SearchResult`, the
  :class:`SearchProvider` protocol, the ddgs and recorded providers, :func:`clean_text`;
* :mod:`~benchsmith.tools.search.index` - the offline full-text index
  (:class:`OfflineProvider`, :func:`split_chunks`, :func:`fts_query`);
* :mod:`~benchsmith.tools.search.guard` - the fetch guard (address policy, URL checks, DNS
  pinning, :func:`fetch_url`);
* :mod:`~benchsmith.tools.search.html` - :func:`html_to_text`;
* :mod:`~benchsmith.tools.search.tools` - the registered tools ``web_search`` and
  ``web_fetch`` (importing this package registers them) and :func:`make_provider`.

The policy :func:`fetch_url` applies by default is the module attribute
``benchsmith.tools.search.guard.address_policy``; it is deliberately not re-exported here,
since replacing a copy of it in this package would not change what :func:`fetch_url` uses.
"""

from benchsmith.tools.search.guard import (
    FETCH_TIMEOUT_S,
    MAX_REDIRECTS,
    AddressPolicy,
    FetchedPage,
    IPAddress,
    address_problem,
    fetch_url,
    is_public_address,
)
from benchsmith.tools.search.html import html_to_text
from benchsmith.tools.search.index import (
    CORPUS_SUFFIXES,
    OfflineProvider,
    fts_query,
    split_chunks,
)
from benchsmith.tools.search.providers import (
    DDGS_TIMEOUT_S,
    MAX_SNIPPET_CHARS,
    MAX_TITLE_CHARS,
    MAX_URL_CHARS,
    DDGSProvider,
    ProviderName,
    RecordedProvider,
    SearchProvider,
    SearchResult,
    clean_text,
)
from benchsmith.tools.search.tools import (
    FetchParams,
    SearchParams,
    make_provider,
    web_fetch,
    web_search,
)

__all__ = [
    "CORPUS_SUFFIXES",
    "DDGS_TIMEOUT_S",
    "FETCH_TIMEOUT_S",
    "MAX_REDIRECTS",
    "MAX_SNIPPET_CHARS",
    "MAX_TITLE_CHARS",
    "MAX_URL_CHARS",
    "AddressPolicy",
    "DDGSProvider",
    "FetchParams",
    "FetchedPage",
    "IPAddress",
    "OfflineProvider",
    "ProviderName",
    "RecordedProvider",
    "SearchParams",
    "SearchProvider",
    "SearchResult",
    "address_problem",
    "clean_text",
    "fetch_url",
    "fts_query",
    "html_to_text",
    "is_public_address",
    "make_provider",
    "split_chunks",
    "web_fetch",
    "web_search",
]

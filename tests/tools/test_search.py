"""Search tools: offline FTS5 provider, recording/replay, ddgs offline, guarded web_fetch."""

from __future__ import annotations

import gzip
import ipaddress
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchsmith.errors import (
    InputRejectedError,
    ToolParamError,
    ToolUnavailableError,
)
from benchsmith.tools import search
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.registry import run_tool
from benchsmith.tools.search import (
    DDGSProvider,
    OfflineProvider,
    RecordedProvider,
    SearchProvider,
    SearchResult,
    address_problem,
    fts_query,
    guard,
    is_public_address,
    make_provider,
    split_chunks,
)

# -- corpus ---------------------------------------------------------------------------------


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "volcanoes.md").write_text(
        "# Volcanoes\n\nA volcano is a rupture in the crust where lava, ash and gases escape.\n\n"
        "Stratovolcanoes are tall conical volcanoes built by many layers of hardened lava.\n"
    )
    (root / "bees.txt").write_text(
        "Honey bees live in colonies with a single queen.\n\n"
        "Worker bees forage for nectar and pollen and make honey in the hive.\n"
    )
    (root / "chess.md").write_text(
        "# Chess openings\n\nThe Sicilian Defence answers 1.e4 with 1...c5.\n\n"
        "The Queen's Gambit begins 1.d4 d5 2.c4 and offers a pawn.\n"
    )
    long_para = " ".join(["Tides are caused by the gravity of the moon and the sun."] * 60)
    (root / "tides.txt").write_text(long_para)
    records = [
        {
            "text": "Photosynthesis turns light, water and carbon dioxide into sugar.",
            "title": "Photosynthesis",
            "url": "https://example.org/photosynthesis",
        },
        {"text": "Mitochondria are the powerhouse of the cell; they make ATP."},
        {"no_text": "ignored"},
    ]
    (root / "biology.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n{not json\n")
    (root / "notes.csv").write_text("volcano,bees\n")  # not indexed
    hidden = root / ".git"
    hidden.mkdir()
    (hidden / "volcano.md").write_text("volcano volcano volcano volcano")
    return root


def test_offline_ranks_the_right_document_first(corpus):
    provider = OfflineProvider(corpus)
    assert isinstance(provider, SearchProvider)
    top = provider.search("how do volcanoes erupt lava", 5)
    assert top[0].url.startswith((corpus / "volcanoes.md").resolve().as_uri() + "#chunk-")
    assert top[0].title == "Volcanoes" and top[0].provider == "offline" and top[0].rank == 1
    assert "lava" in top[0].snippet.lower()
    assert [r.rank for r in top] == list(range(1, len(top) + 1))
    assert not any(".git" in r.url for r in top)

    assert provider.search("honey bee queen", 3)[0].url.endswith("bees.txt#chunk-0")
    assert "chess.md" in provider.search("Sicilian defence opening", 3)[0].url
    bio = provider.search("photosynthesis sugar", 3)[0]
    assert bio.url == "https://example.org/photosynthesis" and bio.title == "Photosynthesis"
    cell = provider.search("mitochondria ATP", 3)[0]
    assert cell.url.endswith("biology.jsonl#line-2-chunk-0")
    assert cell.title == "biology line 2"
    assert provider.search("zeppelin", 3) == []


def test_offline_query_syntax_never_raises(corpus):
    provider = OfflineProvider(corpus)
    for query in [
        'AND OR "(',
        '"',
        "(",
        ")",
        "*",
        "NEAR(a b)",
        'bees" OR "x',
        "title:bees",
        "-",
        "^bees",
        "bees AND",
        "'; DROP TABLE chunks; --",
        "ünïcödé ⊕",
    ]:
        results = provider.search(query, 5)
        assert isinstance(results, list)
    assert provider.search('"(', 5) == []
    assert provider.search("bees AND", 5)[0].url.endswith("bees.txt#chunk-0")
    assert fts_query('AND OR "(') == '"and" OR "or"'


def test_offline_results_capped_and_snippets_truncated(corpus, tmp_path):
    provider = OfflineProvider([corpus / "tides.txt", corpus / "bees.txt"])
    tides = provider.search("tides moon gravity", 50)
    assert len(tides) >= 2  # the long document was split into chunks
    assert len(provider.search("tides moon gravity", 1)) == 1
    assert all(len(r.snippet) <= search.MAX_SNIPPET_CHARS for r in tides)

    blob = tmp_path / "blob.txt"
    long_words = " ".join(f"w{i:02d}" + "q" * 24 for i in range(40))  # ~1100 characters
    blob.write_text(f"needle {long_words}")
    hit = OfflineProvider(blob).search("needle", 1)
    assert hit and len(hit[0].snippet) == search.MAX_SNIPPET_CHARS
    assert hit[0].snippet.endswith("…")


def test_offline_corpus_errors(tmp_path):
    with pytest.raises(InputRejectedError, match="does not exist"):
        OfflineProvider(tmp_path / "missing").search("x", 1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputRejectedError, match="no .txt, .md or .jsonl"):
        OfflineProvider(tmp_path / "empty").search("x", 1)
    with pytest.raises(ToolParamError, match="needs a corpus"):
        make_provider("offline")


def test_offline_index_cache_is_reused(corpus, tmp_path):
    cache = tmp_path / "cache"
    first = OfflineProvider(corpus, cache_dir=cache).search("honey bees", 3)
    files = list(cache.glob("fts-*.sqlite"))
    assert len(files) == 1
    assert OfflineProvider(corpus, cache_dir=cache).search("honey bees", 3) == first
    assert list(cache.glob("fts-*.sqlite")) == files
    (corpus / "bees.txt").write_text("Bumblebees are fuzzy.\n")
    OfflineProvider(corpus, cache_dir=cache).search("honey bees", 3)
    assert len(list(cache.glob("fts-*.sqlite"))) == 2  # changed corpus, new index


def test_split_chunks_packs_paragraphs():
    assert split_chunks("a\n\nb\n\n\nc", max_chars=100) == ["a\n\nb\n\nc"]
    chunks = split_chunks(" ".join(["word"] * 1000), max_chars=200)
    assert all(len(c) <= 200 for c in chunks) and len(chunks) > 20


def test_search_result_cleans_untrusted_text():
    r = SearchResult(
        title="T\x00i\x1btle\u202e", url="https://x\n.org", snippet="s" * 2000 + "\x07", rank=1
    )
    assert r.title == "Title" and r.url == "https://x .org"
    assert len(r.snippet) == 500 and r.snippet.endswith("…")


# -- web_search tool and replay -----------------------------------------------------------


def _records(ctx: ToolContext) -> list[dict]:
    path = ctx.run_dir / "tool_records.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_web_search_records_and_replays(tool_ctx, corpus):
    result = run_tool(
        "web_search",
        {"query": "volcano lava", "provider": "offline", "corpus": [str(corpus)]},
        [],
        tool_ctx,
    )
    hits = result.values["results"]
    assert hits and "volcanoes.md" in hits[0]["url"]
    assert set(hits[0]) == {"title", "url", "snippet", "provider", "rank"}
    assert result.outputs == []
    assert result.provenance.measured == {"provider": "offline", "n_results": len(hits)}

    (record,) = _records(tool_ctx)
    assert record["kind"] == "search" and record["query"] == "volcano lava"
    assert record["provider"] == "offline" and record["results"] == hits

    replay = run_tool(
        "web_search", {"query": "volcano   lava", "provider": "recorded"}, [], tool_ctx
    )
    assert replay.values["results"] == hits
    assert replay.values["provider"] == "recorded"
    replayed = RecordedProvider(tool_ctx.run_dir / "tool_records.jsonl").search("volcano lava", 2)
    assert [r.model_dump() for r in replayed] == hits[:2]

    with pytest.raises(ToolUnavailableError, match="replay miss.*'volcano lavas'"):
        run_tool("web_search", {"query": "volcano lavas", "provider": "recorded"}, [], tool_ctx)


def test_recorded_provider_reads_plain_records_and_cleans(tmp_path):
    path = tmp_path / "rec.jsonl"
    path.write_text(
        json.dumps(
            {
                "query": "q",
                "provider": "ddgs",
                "results": [
                    {
                        "title": "A",
                        "url": "https://a.example",
                        "snippet": "z" * 900 + "\x1b[31m",
                        "provider": "ddgs",
                        "rank": 7,
                    },
                    {"title": "B", "url": "https://b.example", "snippet": "b", "provider": "ddgs"},
                ],
            }
        )
        + "\n"
        + '{"query": "cut sh'
    )
    provider = make_provider("recorded", recording=path)
    results = provider.search("q", 5)
    assert [r.rank for r in results] == [1, 2] and results[0].provider == "ddgs"
    assert len(results[0].snippet) == 500 and "\x1b" not in results[0].snippet
    with pytest.raises(ToolUnavailableError, match="does not exist"):
        RecordedProvider(tmp_path / "nope.jsonl").search("q", 1)


def test_web_search_caps_results_at_the_limit(tmp_path, corpus):
    ctx = ToolContext(
        media_dir=tmp_path / "m", run_dir=tmp_path / "r", limits=Limits(max_search_results=2)
    )
    result = run_tool(
        "web_search", {"query": "the", "corpus": [str(corpus)], "max_results": 50}, [], ctx
    )
    assert len(result.values["results"]) == 2
    assert result.values["provider"] == "offline"  # a corpus given: offline by default
    assert _records(ctx)[0]["max_results"] == 2


def test_web_search_param_errors(tool_ctx):
    for bad in (
        {"query": ""},
        {"query": "   "},
        {"query": "x" * 301},
        {"query": "x", "provider": "bing"},
        {"query": "x", "max_results": 0},
    ):
        with pytest.raises(ToolParamError):
            run_tool("web_search", bad, [], tool_ctx)
    with pytest.raises(ToolParamError, match="needs a corpus"):
        run_tool("web_search", {"query": "x", "provider": "offline"}, [], tool_ctx)


def test_offline_run_refuses_ddgs(tmp_path):
    ctx = ToolContext(media_dir=tmp_path / "m", offline=True)
    with pytest.raises(ToolUnavailableError, match="offline"):
        run_tool("web_search", {"query": "x", "provider": "ddgs"}, [], ctx)
    with pytest.raises(ToolUnavailableError, match="offline"):
        run_tool("web_fetch", {"url": "https://example.org/"}, [], ctx)


def test_ddgs_offline_fails_fast_with_advice(tool_ctx):
    started = time.monotonic()
    try:
        results = DDGSProvider().search("benchsmith python", 3)
    except ToolUnavailableError as exc:
        assert time.monotonic() - started < 3
        assert "unavailable (offline?)" in str(exc) and "offline provider" in str(exc)
    else:
        pytest.skip(f"the internet is reachable here ({len(results)} results)")
    with pytest.raises(ToolUnavailableError, match="offline provider"):
        run_tool("web_search", {"query": "benchsmith python"}, [], tool_ctx)


# -- address policy -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("172.16.5.4", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("240.0.0.1", False),
        ("255.255.255.255", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:8.8.8.8", False),
        ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
        ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1
    ],
)
def test_default_address_policy(address, public):
    ip = ipaddress.ip_address(address)
    assert is_public_address(ip) is public
    assert (address_problem(ip) is None) is public


# -- web_fetch ------------------------------------------------------------------------------

PAGE = (
    "<!doctype html><html><head><title>Test &amp; page</title>"
    "<style>body{color:red}</style><script>alert('no')</script></head>"
    "<body><h1>Hello</h1><p>First   paragraph\nwith &lt;text&gt;.</p>"
    "<ul><li>one</li><li>two</li></ul><noscript>hidden</noscript></body></html>"
)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self._send(302, b"", "text/plain", {"Location": location})

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        path = self.path
        if path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/host":
            self._send(200, f"host={self.headers['Host']}".encode(), "text/plain")
        elif path == "/json":
            self._send(200, b'{"a": [1, 2]}', "application/json")
        elif path == "/gzip":
            self._send(
                200, gzip.compress(b"zipped text"), "text/plain", {"Content-Encoding": "gzip"}
            )
        elif path == "/bomb":
            self._send(
                200, gzip.compress(b"a" * 5_000_000), "text/plain", {"Content-Encoding": "gzip"}
            )
        elif path == "/png":
            self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
        elif path == "/empty-html":
            self._send(200, b"<script>x()</script>", "text/html")
        elif path == "/missing":
            self._send(404, b"nope", "text/plain")
        elif path == "/to-page":
            self._redirect("/page")
        elif path == "/to-127-0-0-2":
            self._redirect(f"http://127.0.0.2:{port}/page")
        elif path == "/to-file":
            self._redirect("file:///etc/passwd")
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            self._redirect(f"/chain/{n - 1}") if n > 0 else self._send(200, b"end", "text/plain")
        elif path.startswith("/loop/"):
            self._redirect(f"/loop/{int(path.rsplit('/', 1)[1]) + 1}")
        elif path == "/big-declared":
            self._send(200, b"x" * 50_000, "text/plain")
        elif path == "/big-stream":
            self.server.stream_sent = 0
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()  # no Content-Length: the body runs until the connection closes
            try:
                for _ in range(20_000):  # up to 80 MB unless the client stops reading
                    self.wfile.write(b"y" * 4096)
                    self.server.stream_sent += 4096
            except OSError:
                pass
        else:
            self._send(404, b"unknown", "text/plain")


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def allow_test_server(monkeypatch):
    """The injected policy: exactly 127.0.0.1 (the test server) is allowed."""
    only = ipaddress.ip_address("127.0.0.1")
    monkeypatch.setattr(guard, "address_policy", lambda ip: ip == only)


def _base(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _no_files(ctx: ToolContext) -> bool:
    return not ctx.media_dir.exists() or not any(p.is_file() for p in ctx.media_dir.rglob("*"))


def _fake_dns(monkeypatch, table: dict[str, list[str]], calls: list[str] | None = None):
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        if host in table:
            if calls is not None:
                calls.append(host)
            return [
                (
                    socket.AF_INET6 if ":" in a else socket.AF_INET,
                    socket.SOCK_STREAM,
                    6,
                    "",
                    (a, port, 0, 0) if ":" in a else (a, port),
                )
                for a in table[host]
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "scheme 'file' is not allowed"),
        ("ftp://example.org/x", "scheme 'ftp' is not allowed"),
        ("gopher://example.org/", "scheme 'gopher'"),
        ("http://127.0.0.1/", "loopback"),
        ("http://localhost:8080/admin", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
        ("https://user:pw@example.org/", "credentials"),
        ("http:///nohost", "no host"),
        ("http://example.org:99999/", "not a valid URL"),
    ],
)
def test_fetch_refuses_unsafe_urls(tool_ctx, url, reason):
    with pytest.raises(InputRejectedError) as info:
        run_tool("web_fetch", {"url": url}, [], tool_ctx)
    message = str(info.value)
    assert repr(url) in message and reason in message
    assert _no_files(tool_ctx)


def test_fetch_refuses_a_host_resolving_to_a_private_address(tool_ctx, monkeypatch):
    _fake_dns(
        monkeypatch,
        {"intranet.example": ["10.1.2.3"], "mixed.example": ["93.184.215.14", "192.168.0.7"]},
    )
    with pytest.raises(
        InputRejectedError, match=r"'intranet.example' resolves to 10.1.2.3.*private"
    ):
        run_tool("web_fetch", {"url": "http://intranet.example/"}, [], tool_ctx)
    with pytest.raises(InputRejectedError, match=r"resolves to 192.168.0.7"):
        run_tool("web_fetch", {"url": "https://mixed.example/"}, [], tool_ctx)
    assert _no_files(tool_ctx)


def test_fetch_writes_page_text(tool_ctx, server, allow_test_server):
    result = run_tool("web_fetch", {"url": f"{_base(server)}/page"}, [], tool_ctx)
    (out,) = result.outputs
    text = (tool_ctx.media_dir / out).read_text()
    assert "Hello" in text and "First paragraph with <text>." in text and "one\n" in text
    assert "alert" not in text and "color" not in text and "hidden" not in text
    assert result.values["title"] == "Test & page"
    assert result.values["path"] == out and out.endswith(".txt")
    assert result.provenance.measured["content_type"] == "text/html"
    fetch = _records(tool_ctx)[-1]
    assert fetch["kind"] == "fetch" and fetch["path"] == out

    redirected = run_tool(
        "web_fetch", {"url": f"{_base(server)}/to-page", "output_name": "pages/p.txt"}, [], tool_ctx
    )
    assert redirected.outputs == ["pages/p.txt"]
    assert redirected.values["final_url"] == f"{_base(server)}/page"
    assert redirected.values["redirects"] == [f"{_base(server)}/page"]

    data = run_tool("web_fetch", {"url": f"{_base(server)}/json"}, [], tool_ctx)
    assert (tool_ctx.media_dir / data.outputs[0]).read_text().strip() == '{"a": [1, 2]}'
    zipped = run_tool("web_fetch", {"url": f"{_base(server)}/gzip"}, [], tool_ctx)
    assert (tool_ctx.media_dir / zipped.outputs[0]).read_text().strip() == "zipped text"
    five = run_tool("web_fetch", {"url": f"{_base(server)}/chain/5"}, [], tool_ctx)
    assert len(five.values["redirects"]) == 5


def test_fetch_pins_the_checked_address(tool_ctx, server, allow_test_server, monkeypatch):
    calls: list[str] = []
    _fake_dns(monkeypatch, {"pinned.test": ["127.0.0.1"]}, calls)
    port = server.server_address[1]
    result = run_tool("web_fetch", {"url": f"http://pinned.test:{port}/host"}, [], tool_ctx)
    assert (
        tool_ctx.media_dir / result.outputs[0]
    ).read_text().strip() == f"host=pinned.test:{port}"
    assert calls == ["pinned.test"]  # resolved once; the connection went to the checked IP


def test_https_fetch_is_pinned_with_host_header_and_sni(tool_ctx, monkeypatch):
    import httpx

    _fake_dns(monkeypatch, {"secure.example": ["93.184.215.14", "2606:2800:21f:cb07::1"]})
    sent: list[httpx.Request] = []

    def refuse_connect(self, request, **kwargs):
        sent.append(request)
        raise httpx.ConnectError("no route", request=request)

    monkeypatch.setattr(httpx.Client, "send", refuse_connect)
    with pytest.raises(ToolUnavailableError, match="cannot connect"):
        run_tool("web_fetch", {"url": "https://secure.example/a/b?q=1#frag"}, [], tool_ctx)
    assert [str(r.url) for r in sent] == [
        "https://93.184.215.14/a/b?q=1",
        "https://[2606:2800:21f:cb07::1]/a/b?q=1",
    ]  # each checked address in turn, never the name (no second DNS lookup)
    assert all(r.headers["Host"] == "secure.example" for r in sent)
    assert all(r.extensions["sni_hostname"] == "secure.example" for r in sent)


def test_fetch_refuses_redirects_to_disallowed_targets(tool_ctx, server, allow_test_server):
    base = _base(server)
    port = server.server_address[1]
    with pytest.raises(InputRejectedError) as info:
        run_tool("web_fetch", {"url": f"{base}/to-127-0-0-2"}, [], tool_ctx)
    message = str(info.value)
    assert f"redirect 1 to 'http://127.0.0.2:{port}/page'" in message
    assert "127.0.0.2" in message and "loopback" in message
    with pytest.raises(InputRejectedError, match=r"redirect 1 to 'file:///etc/passwd'.*scheme"):
        run_tool("web_fetch", {"url": f"{base}/to-file"}, [], tool_ctx)
    with pytest.raises(InputRejectedError, match="more than 5 redirects"):
        run_tool("web_fetch", {"url": f"{base}/loop/0"}, [], tool_ctx)
    with pytest.raises(InputRejectedError, match="more than 5 redirects"):
        run_tool("web_fetch", {"url": f"{base}/chain/6"}, [], tool_ctx)
    assert _no_files(tool_ctx)


def test_fetch_size_cap(tmp_path, server, allow_test_server):
    ctx = ToolContext(media_dir=tmp_path / "m", limits=Limits(max_fetch_bytes=10_000))
    base = _base(server)
    with pytest.raises(InputRejectedError, match="50000 bytes, over the 10000-byte limit"):
        run_tool("web_fetch", {"url": f"{base}/big-declared"}, [], ctx)
    started = time.monotonic()
    with pytest.raises(InputRejectedError, match="passed the 10000-byte limit"):
        run_tool("web_fetch", {"url": f"{base}/big-stream"}, [], ctx)
    assert time.monotonic() - started < 5
    with pytest.raises(InputRejectedError, match="passed the 10000-byte limit"):
        run_tool("web_fetch", {"url": f"{base}/bomb"}, [], ctx)
    time.sleep(0.2)
    assert server.stream_sent < 20_000 * 4096  # the client stopped reading early
    assert _no_files(ctx)


def test_fetch_refuses_non_text_and_errors(tool_ctx, server, allow_test_server):
    base = _base(server)
    with pytest.raises(InputRejectedError, match="content type 'image/png'"):
        run_tool("web_fetch", {"url": f"{base}/png"}, [], tool_ctx)
    with pytest.raises(InputRejectedError, match="HTTP 404"):
        run_tool("web_fetch", {"url": f"{base}/missing"}, [], tool_ctx)
    with pytest.raises(InputRejectedError, match="has no text"):
        run_tool("web_fetch", {"url": f"{base}/empty-html"}, [], tool_ctx)
    assert _no_files(tool_ctx)

"""Offline full-text search: local .txt, .md and .jsonl files in a SQLite FTS5 index.

Documents are split into chunks of whole paragraphs (:func:`split_chunks`) and indexed with
BM25 ranking; :class:`OfflineProvider` builds the index on its first search, in memory or
in a cache folder keyed by the corpus files. :func:`fts_query` turns free text into a safe
FTS5 ``MATCH`` expression (the catalog's own search uses it too).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchsmith.errors import InputRejectedError
from benchsmith.files import atomic_path
from benchsmith.tools.search.providers import SearchResult

CORPUS_SUFFIXES = (".txt", ".md", ".jsonl")

# -- offline full-text search ----------------------------------------------------------------
_INDEX_VERSION = "1"
_CHUNK_CHARS = 1200
_MAX_QUERY_TERMS = 32


def split_chunks(text: str, max_chars: int = _CHUNK_CHARS) -> list[str]:
    """Split a document into chunks of whole paragraphs of at most ``max_chars`` characters.

    Paragraphs (separated by blank lines) are packed together while they fit; a paragraph
    longer than ``max_chars`` is cut at whitespace (or hard, if it has none).

    Args:
        text: The document.
        max_chars: Longest chunk.

    Returns:
        The chunks, in document order.
    """
    pieces: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        while len(para) > max_chars:
            cut = para.rfind(" ", max_chars // 2, max_chars)
            cut = cut if cut > 0 else max_chars
            pieces.append(para[:cut].strip())
            para = para[cut:].strip()
        if para:
            pieces.append(para)
    chunks: list[str] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) + 2 + len(piece) <= max_chars:
            chunks[-1] = f"{chunks[-1]}\n\n{piece}"
        else:
            chunks.append(piece)
    return chunks


def fts_query(query: str) -> str:
    """An FTS5 MATCH expression for a free-text query: its words, each quoted, OR-ed.

    Quoting makes every word a plain string, so FTS5 syntax in the query (``AND``, ``OR``,
    ``NEAR``, ``"``, ``(``, ``*``, ``col:``) is searched for as text, never parsed.

    Args:
        query: Free text.

    Returns:
        The MATCH expression (at most 32 distinct words, lower-cased), or ``""`` when the
        query has no words.
    """
    terms: list[str] = []
    for word in re.findall(r"\w+", query.lower()):
        if word not in terms:
            terms.append(word)
    return " OR ".join(f'"{t}"' for t in terms[:_MAX_QUERY_TERMS])


@dataclass(frozen=True)
class _Chunk:
    title: str
    body: str
    url: str


def _corpus_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = [
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix.lower() in CORPUS_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ]
            files.extend(sorted(found))
        elif path.is_file():
            if path.suffix.lower() not in CORPUS_SUFFIXES:
                raise InputRejectedError(
                    f"corpus file {str(path)!r} is not .txt, .md or .jsonl; "
                    "convert it to text first"
                )
            files.append(path)
        else:
            raise InputRejectedError(f"corpus path {str(path)!r} does not exist")
    unique = list(dict.fromkeys(p.resolve() for p in files))
    if not unique:
        shown = ", ".join(repr(str(p)) for p in paths) or "(none)"
        raise InputRejectedError(f"no .txt, .md or .jsonl files in the corpus {shown}")
    return unique


def _document_chunks(path: Path, max_file_bytes: int) -> Iterator[_Chunk]:
    if path.stat().st_size > max_file_bytes:
        return  # too large to index; skipped rather than failing the whole corpus
    text = path.read_text(encoding="utf-8", errors="replace")
    uri = path.as_uri()
    if path.suffix.lower() == ".jsonl":
        for line_no, line in enumerate(text.splitlines(), start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                continue
            title = str(record.get("title") or f"{path.stem} line {line_no}")
            url = record.get("url")
            for i, body in enumerate(split_chunks(record["text"])):
                where = str(url) if url else f"{uri}#line-{line_no}-chunk-{i}"
                yield _Chunk(title, body, where)
        return
    title = path.stem
    if path.suffix.lower() == ".md":
        heading = re.search(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.MULTILINE)
        title = heading.group(1) if heading else title
    for i, body in enumerate(split_chunks(text)):
        yield _Chunk(title, body, f"{uri}#chunk-{i}")


class OfflineProvider:
    """Full-text search over local .txt, .md and .jsonl files (SQLite FTS5, BM25 ranking).

    Documents are split into chunks of whole paragraphs; each chunk is a hit whose URL is
    its file's ``file://`` URI plus ``#chunk-N`` (``#line-L-chunk-N`` for a .jsonl record
    without a ``url`` field). JSONL lines hold ``{"text": ..., "title"?: ..., "url"?: ...}``.
    The index is built on first search, in memory, or in ``cache_dir`` keyed by the files'
    paths, sizes and modification times (a changed corpus gets a new index).
    """

    name = "offline"

    def __init__(
        self,
        corpus: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        max_file_bytes: int = 100_000_000,
    ) -> None:
        """Create the provider (nothing is read until the first search).

        Args:
            corpus: A folder (searched recursively, hidden entries skipped), a file, or a
                list of them.
            cache_dir: Folder for a reusable index file; None keeps the index in memory.
            max_file_bytes: Larger files are skipped.
        """
        self.corpus: list[str | os.PathLike[str]] = (
            [corpus] if isinstance(corpus, str | os.PathLike) else list(corpus)
        )
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_file_bytes = max_file_bytes
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _index_key(self, files: list[Path]) -> str:
        stats = [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files]
        blob = json.dumps([_INDEX_VERSION, _CHUNK_CHARS, self.max_file_bytes, stats])
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    def _build(self, files: list[Path]) -> sqlite3.Connection:
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.executescript(
            "CREATE TABLE chunk_meta(id INTEGER PRIMARY KEY, url TEXT NOT NULL);"
            "CREATE VIRTUAL TABLE chunks USING fts5("
            "title, body, tokenize='porter unicode61 remove_diacritics 2');"
        )
        rowid = 0
        for path in files:
            for chunk in _document_chunks(path, self.max_file_bytes):
                rowid += 1
                db.execute("INSERT INTO chunk_meta(id, url) VALUES (?, ?)", (rowid, chunk.url))
                db.execute(
                    "INSERT INTO chunks(rowid, title, body) VALUES (?, ?, ?)",
                    (rowid, chunk.title, chunk.body),
                )
        db.commit()
        return db

    def _open(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        files = _corpus_files(self.corpus)
        if self.cache_dir is None:
            self._db = self._build(files)
            return self._db
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        cached = self.cache_dir / f"fts-{self._index_key(files)}.sqlite"
        if not cached.is_file():
            built = self._build(files)
            with atomic_path(cached) as tmp:  # whole index or none: a reader never sees half
                target = sqlite3.connect(tmp)
                try:
                    built.backup(target)
                finally:
                    target.close()
            built.close()
        self._db = sqlite3.connect(f"{cached.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        return self._db

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Search the corpus; an empty list when nothing matches.

        Raises:
            InputRejectedError: A corpus path is missing or holds no indexable file.
        """
        match = fts_query(query)
        if not match or max_results < 1:
            return []
        with self._lock:
            rows = (
                self._open()
                .execute(
                    "SELECT chunk_meta.url, chunks.title,"
                    " snippet(chunks, 1, '', '', '…', 40), bm25(chunks, 2.0, 1.0) AS score"
                    " FROM chunks JOIN chunk_meta ON chunk_meta.id = chunks.rowid"
                    " WHERE chunks MATCH ? ORDER BY score, chunks.rowid LIMIT ?",
                    (match, max_results),
                )
                .fetchall()
            )
        return [
            SearchResult(title=title, url=url, snippet=snip, provider=self.name, rank=i)
            for i, (url, title, snip, _score) in enumerate(rows, start=1)
        ]

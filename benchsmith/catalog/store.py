"""The catalog on disk: card files, a full-text index, and record streaming.

Layout of a catalog folder::

    <root>/cards/<id>.json   one card a file, written atomically (temp file + rename)
    <root>/index.sqlite      SQLite FTS5 index of the cards (BM25), rebuilt from the cards
                             whenever it is missing or stale
    <root>/data/<id>/        data the catalog materialized itself (starter sets, references)
    <root>/cache/<id>/       media extracted from embedded bytes, on first read

The cards are the truth; the index is derived. It records a fingerprint of the card files
(names, sizes, modification times), so a card written, edited or deleted by hand is seen
and the index rebuilt. An ``add`` either fully lands (card and index row) or leaves the
catalog as it was. Writers take an exclusive lock on ``<root>/.lock``.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchsmith.catalog.cards import MODALITIES, DatasetCard, LoaderSpec, Provenance, is_valid_id
from benchsmith.catalog.cards import slugify as _slugify
from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.limits import CatalogLimits
from benchsmith.catalog.loaders import data_path, iter_records
from benchsmith.catalog.profile import REFERENCE_SUFFIXES, profile_path
from benchsmith.catalog.readers import data_suffix, strip_suffixes
from benchsmith.catalog.references import (
    REFERENCE_TASKS,
    open_reference,
    reference_records,
    reference_title,
)
from benchsmith.files import atomic_path, atomic_write, home_dir
from benchsmith.tools.search.index import fts_query

try:  # POSIX advisory locks; elsewhere the in-process lock is all there is
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

INDEX_VERSION = "1"
BM25_WEIGHTS = (3.0, 4.0, 1.5, 1.0, 2.0, 2.0)  # id, name, description, fields, tasks, domain
_FTS_COLUMNS = ("id", "name", "description", "fields", "tasks", "domain")
_SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards(
    rid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, name TEXT NOT NULL,
    description TEXT NOT NULL, size INTEGER NOT NULL, modalities TEXT NOT NULL,
    tasks TEXT NOT NULL, languages TEXT NOT NULL
);
CREATE TABLE facets(rid INTEGER NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX facets_kind_value ON facets(kind, value, rid);
CREATE VIRTUAL TABLE card_fts USING fts5(
    {", ".join(_FTS_COLUMNS)}, tokenize='porter unicode61 remove_diacritics 2'
);
"""


class CatalogHit(BaseModel):
    """One search result."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The dataset id.")
    name: str = Field(description="The dataset name.")
    description: str = Field(description="The start of its description.")
    modalities: list[str] = Field(description="Its modalities.")
    tasks: list[str] = Field(description="Its tasks.")
    languages: list[str] = Field(description="Its languages.")
    size: int = Field(description="Its number of records.")
    score: float = Field(description="Relevance (BM25, higher is better; 0 without a query).")
    rank: int = Field(ge=1, description="Position in the results, from 1.")
    card: DatasetCard | None = Field(
        default=None, description="The dataset's full card (None if its file vanished meanwhile)."
    )


# Words too common to rank by: dropped from a query unless nothing else is left.
STOPWORDS = frozenset(
    "a about an and any are as at be by can do does for from has have how i in into is it "
    "its me my of on or some that the their there these this to was what when where which "
    "who whose why with".split()
)


def search_terms(query: str) -> str:
    """The query without stop words (kept whole when it is nothing but stop words)."""
    words = query.split()
    kept = [w for w in words if w.lower().strip(".,;:!?\"'()") not in STOPWORDS]
    return " ".join(kept) if kept else query


def default_root() -> Path:
    """``$BENCHSMITH_HOME/catalog``, with ``~/.benchsmith`` as the default home."""
    return home_dir() / "catalog"


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write ``records`` to ``path`` as JSON Lines (UTF-8, non-ASCII kept); how many there were."""
    n = 0
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    return n


class Catalog:
    """A folder of dataset cards with full-text search and record streaming."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        """Open (or start) a catalog; nothing is created until the first write or search.

        Args:
            root: The catalog folder.
        """
        self.root = Path(root).expanduser().absolute()
        self.cards_dir = self.root / "cards"
        self.data_dir = self.root / "data"
        self.cache_dir = self.root / "cache"
        self.index_path = self.root / "index.sqlite"
        self._thread_lock = threading.RLock()
        self._lock_depth = 0

    @classmethod
    def default(cls) -> Catalog:
        """The user's catalog at ``$BENCHSMITH_HOME/catalog`` (``~/.benchsmith/catalog``)."""
        return cls(default_root())

    def __repr__(self) -> str:
        """The catalog's folder."""
        return f"Catalog({str(self.root)!r})"

    # -- card files -----------------------------------------------------------------------------
    def _card_path(self, id: str) -> Path:  # noqa: A002
        if not isinstance(id, str) or not is_valid_id(id):
            raise CatalogError(
                f"{id!r} is not a valid dataset id: use 1-64 lower-case letters, digits, "
                "'-', '_' or '.', starting with a letter or digit"
            )
        return self.cards_dir / f"{id}.json"

    def _read_card(self, path: Path) -> DatasetCard:
        try:
            return DatasetCard.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "card"
            raise CatalogError(
                f"{path}: not a valid dataset card ({where}: {first.get('msg')}); fix or "
                "delete the file"
            ) from exc
        except OSError as exc:
            raise CatalogError(f"{path}: cannot be read ({exc.strerror or exc})") from exc

    def ids(self) -> list[str]:
        """The ids of every card, sorted."""
        if not self.cards_dir.is_dir():
            return []
        return sorted(p.stem for p in self.cards_dir.glob("*.json") if is_valid_id(p.stem))

    def __contains__(self, id: object) -> bool:
        """Whether a card with this id exists."""
        return isinstance(id, str) and is_valid_id(id) and (self.cards_dir / f"{id}.json").is_file()

    def __len__(self) -> int:
        """The number of cards."""
        return len(self.ids())

    def _card_or_none(self, card_id: str) -> DatasetCard | None:
        try:
            return self._read_card(self.cards_dir / f"{card_id}.json")
        except CatalogError:
            return None

    def list(self) -> list[DatasetCard]:
        """Every card, sorted by id (an invalid card file is skipped with a warning)."""
        cards: list[DatasetCard] = []
        for card_id in self.ids():
            try:
                cards.append(self._read_card(self.cards_dir / f"{card_id}.json"))
            except CatalogError as exc:
                log.warning("skipping a card: %s", exc)
        return cards

    def get(self, id: str) -> DatasetCard:  # noqa: A002 - the card's own word
        """The card with this id.

        Raises:
            CatalogError: No such id (naming the closest ids), or the card file is invalid.
        """
        path = self._card_path(id)
        if not path.is_file():
            ids = self.ids()
            close = difflib.get_close_matches(id, ids, n=5, cutoff=0.5)
            close += [i for i in ids if id in i and i not in close][: 5 - len(close)]
            hint = f"; close ids: {', '.join(close)}" if close else ""
            raise CatalogError(
                f"no dataset {id!r} in the catalog {str(self.root)!r}{hint} "
                "(see 'benchsmith catalog list')"
            )
        return self._read_card(path)

    # -- locking --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Exclusive write access: a thread lock, plus a file lock for other processes.

        Re-entrant within a thread (the file lock is taken by the outermost call only).
        """
        with self._thread_lock:
            self._lock_depth += 1
            try:
                if self._lock_depth > 1 or fcntl is None:
                    yield
                    return
                self.root.mkdir(parents=True, exist_ok=True)
                with open(self.root / ".lock", "a+b") as handle:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                    try:
                        yield
                    finally:
                        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            finally:
                self._lock_depth -= 1

    # -- adding and removing --------------------------------------------------------------------
    def add(
        self,
        path: str | os.PathLike[str],
        *,
        id: str | None = None,  # noqa: A002
        name: str | None = None,
        description: str | None = None,
        license: str | None = None,  # noqa: A002
        replace: bool = False,
        limits: CatalogLimits | None = None,
    ) -> DatasetCard:
        """Profile local data and add its card.

        A ``.md``, ``.txt`` or ``.pdf`` file is added as a reference document
        (:meth:`add_reference`).

        Args:
            path: A data file or folder (see :func:`~benchsmith.catalog.profile.profile_path`).
            id: The card id; default: a slug of the file or folder name.
            name: Human-readable name.
            description: Description (default: from the data's own card, else a summary).
            license: License (default: from the data's own card, else ``unknown``).
            replace: Overwrite a card with the same id.
            limits: Caps on what is read (file size, columns, line length, JSON depth);
                default: :class:`~benchsmith.catalog.limits.CatalogLimits` defaults.

        Returns:
            The card added.

        Raises:
            CatalogError: The id exists (without ``replace``), the data is malformed or
                missing; the catalog is then left as it was.
            CatalogLimitError: The data is over one of ``limits`` (nothing is written: the
                data is profiled before the catalog is touched).
        """
        source = Path(path).expanduser()
        if source.is_file() and data_suffix(source) in REFERENCE_SUFFIXES:
            return self.add_reference(
                source, id=id, name=name, description=description, license=license,
                replace=replace, limits=limits,
            )  # fmt: skip
        card_id = self._new_id(source.absolute(), id, replace)
        card = profile_path(
            source, id=card_id, name=name, description=description, license=license,
            limits=limits,
        )  # fmt: skip
        return self.add_card(card, replace=replace)

    def _new_id(self, source: Path, card_id: str | None, replace: bool) -> str:
        """The id of a card for ``source`` (``card_id``, else a slug of its file name), if new."""
        card_id = card_id if card_id is not None else _slugify(strip_suffixes(source.name))
        self._check_new(card_id, replace)
        return card_id

    def _check_new(self, card_id: str, replace: bool) -> None:
        path = self._card_path(card_id)
        if path.is_file() and not replace:
            raise CatalogError(
                f"dataset {card_id!r} already exists in the catalog {str(self.root)!r}; pass "
                "replace=True (--replace) to overwrite it, or choose another id (--id)"
            )

    def add_card(self, card: DatasetCard, *, replace: bool = False) -> DatasetCard:
        """Add a ready card (validated again; its data must exist).

        Raises:
            CatalogError: The id exists (without ``replace``), the card is invalid, or its
                data is missing; the catalog is then left as it was.
        """
        try:
            card = DatasetCard.model_validate(card.model_dump())
        except ValidationError as exc:
            raise CatalogError(f"dataset {card.id!r}: invalid card: {exc}") from exc
        if card.loader.kind != "builtin" and not data_path(card, self.root).exists():
            raise CatalogError(
                f"dataset {card.id!r}: its data {str(data_path(card, self.root))!r} does not exist"
            )
        with self._locked():
            self._check_new(card.id, replace)
            self._commit(card)
        return card

    def _commit(self, card: DatasetCard) -> None:
        """Write the card and its index row together, or neither (call under the lock)."""
        path = self._card_path(card.id)
        before = path.read_bytes() if path.is_file() else None
        stale = self._index_stale()
        atomic_write(path, card.model_dump_json(indent=2) + "\n")
        try:
            if stale:
                self._rebuild_index()
            else:
                with self._transaction() as db:
                    self._delete_rows(db, card.id)
                    self._insert_card(db, card)
                    self._set_fingerprint(db)
        except BaseException:
            if before is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, before.decode("utf-8"))
            with contextlib.suppress(Exception):
                self._rebuild_index()
            raise

    def remove(self, id: str) -> None:  # noqa: A002
        """Remove a card, its index row, and any data the catalog materialized for it.

        Raises:
            CatalogError: No such id.
        """
        with self._locked():
            self.get(id)
            stale = self._index_stale()
            self._card_path(id).unlink()
            if stale:
                self._rebuild_index()
            else:
                with self._transaction() as db:
                    self._delete_rows(db, id)
                    self._set_fingerprint(db)
            for folder in (self.data_dir / id, self.cache_dir / id):
                if folder.is_dir():
                    shutil.rmtree(folder, ignore_errors=True)

    def add_reference(
        self,
        path: str | os.PathLike[str],
        *,
        id: str | None = None,  # noqa: A002
        name: str | None = None,
        description: str | None = None,
        license: str | None = None,  # noqa: A002
        replace: bool = False,
        limits: CatalogLimits | None = None,
    ) -> DatasetCard:
        """Add a reference document (``.md``, ``.txt``, ``.pdf``): its passages are records.

        The passages are written as JSON Lines under ``<root>/data/<id>/`` (so the document
        can move later) and read like any other dataset.

        Raises:
            CatalogError: Unreadable document, no text in it, or the id exists (without
                ``replace``); the catalog is then left as it was.
            CatalogLimitError: The document is over ``limits.max_file_bytes`` (checked
                before anything is read or written).
        """
        source = Path(path).expanduser().absolute()
        card_id = self._new_id(source, id, replace)
        limits = limits or CatalogLimits()
        limits.check_file(source)  # the document is read whole
        reference = open_reference(source)
        with self.staged_data(card_id) as staging:
            target = staging / "passages.jsonl"
            n = write_jsonl(target, reference_records(reference))
            if n == 0:
                raise CatalogError(f"{source}: no text found in the document")
            card = profile_path(target, id=card_id, limits=limits)
            first = next((f for f in card.fields if f.path == "text"), None)
            text_field = [first] if first else []
            title = name or reference_title(reference)
            card = card.model_copy(
                update={
                    "name": title,
                    "description": description
                    or f"Reference document {source.name}: {n} passages"
                    + (f" - {first.examples[0]}" if first and first.examples else ""),
                    "modalities": ["text"],
                    "tasks": list(REFERENCE_TASKS),
                    "input_fields": [f.path for f in text_field],
                    "output_fields": [],
                    "domain": "reference",
                    "license": license or "unknown",
                    "provenance": Provenance(source=str(source), notes="reference document"),
                    "loader": LoaderSpec(
                        kind="jsonl", path=f"data/{card_id}/passages.jsonl", options={}
                    ),
                }
            )
            self.swap_in(card, staging, replace)
        return self.get(card_id)

    @contextlib.contextmanager
    def staged_data(self, card_id: str) -> Iterator[Path]:
        """A fresh folder to write a dataset's files into; removed unless swapped in."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=self.data_dir, prefix=f".{card_id}."))
        try:
            yield staging
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def swap_in(self, card: DatasetCard, staging: Path, replace: bool) -> None:
        """Move staged data to ``data/<id>/`` and commit the card, all or nothing."""
        final = self.data_dir / card.id
        with self._locked():
            self._check_new(card.id, replace)
            old = None
            if final.exists():
                old = final.with_name(f".{card.id}.old.{os.getpid()}")
                if old.exists():
                    shutil.rmtree(old)
                os.replace(final, old)
            os.replace(staging, final)
            try:
                self._commit(card)
            except BaseException:
                shutil.rmtree(final, ignore_errors=True)
                if old is not None:
                    os.replace(old, final)
                raise
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)

    # -- records --------------------------------------------------------------------------------
    def records(
        self,
        id: str,  # noqa: A002
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[dict[str, Any]]:
        """Stream a dataset's records (media fields as absolute paths).

        Raises:
            CatalogError: No such id, missing data, or malformed data (naming the line).
        """
        card = self.get(id)
        return iter_records(
            card, root=self.root, cache_dir=self.cache_dir / card.id, limit=limit, offset=offset
        )

    def count(self, id: str) -> int:  # noqa: A002
        """A dataset's number of records (exact, from its card)."""
        return self.get(id).size

    def data_path(self, id: str) -> Path:  # noqa: A002
        """The absolute path of a dataset's data file or folder."""
        return data_path(self.get(id), self.root)

    # -- the index ------------------------------------------------------------------------------
    def _fingerprint(self) -> str:
        entries = []
        if self.cards_dir.is_dir():
            for entry in sorted(os.scandir(self.cards_dir), key=lambda e: e.name):
                if entry.name.endswith(".json") and entry.is_file():
                    st = entry.stat()
                    entries.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        blob = "\n".join([INDEX_VERSION, *entries])
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the index: committed on success, rolled back on error."""
        db = sqlite3.connect(self.index_path, timeout=30)
        try:
            with db:
                yield db
        finally:
            db.close()

    def _stored_fingerprint(self) -> str | None:
        if not self.index_path.is_file():
            return None
        try:
            with contextlib.closing(
                sqlite3.connect(f"{self.index_path.as_uri()}?mode=ro", uri=True, timeout=30)
            ) as db:
                rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            return None
        if rows.get("version") != INDEX_VERSION:
            return None
        return rows.get("fingerprint")

    def _index_stale(self) -> bool:
        return self._stored_fingerprint() != self._fingerprint()

    def _set_fingerprint(self, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('fingerprint', ?)",
            (self._fingerprint(),),
        )

    @staticmethod
    def _delete_rows(db: sqlite3.Connection, card_id: str) -> None:
        row = db.execute("SELECT rid FROM cards WHERE id = ?", (card_id,)).fetchone()
        if row is None:
            return
        db.execute("DELETE FROM card_fts WHERE rowid = ?", row)
        db.execute("DELETE FROM facets WHERE rid = ?", row)
        db.execute("DELETE FROM cards WHERE rid = ?", row)

    @staticmethod
    def _insert_card(db: sqlite3.Connection, card: DatasetCard) -> None:
        cur = db.execute(
            "INSERT INTO cards(id, name, description, size, modalities, tasks, languages)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                card.id,
                card.name,
                card.description,
                card.size,
                json.dumps(card.modalities),
                json.dumps(card.tasks),
                json.dumps(card.languages),
            ),
        )
        rid = cur.lastrowid
        facets = [("modality", m) for m in card.modalities]
        facets += [("task", t) for t in card.tasks]
        facets += [("language", lang) for lang in card.languages]
        db.executemany(
            "INSERT INTO facets(rid, kind, value) VALUES (?, ?, ?)",
            [(rid, kind, value) for kind, value in facets],
        )
        text = card.search_text()
        db.execute(
            f"INSERT INTO card_fts(rowid, {', '.join(_FTS_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rid, *(text[c] for c in _FTS_COLUMNS)),
        )

    def _rebuild_index(self) -> None:
        """Build the index from the card files into a temp file, then rename it into place."""
        self.root.mkdir(parents=True, exist_ok=True)
        fingerprint = self._fingerprint()
        with atomic_path(self.index_path) as tmp:
            with contextlib.closing(sqlite3.connect(tmp)) as db:
                db.executescript(_SCHEMA)
                for card in self.list():
                    self._insert_card(db, card)
                db.execute("INSERT INTO meta(key, value) VALUES ('version', ?)", (INDEX_VERSION,))
                db.execute("INSERT INTO meta(key, value) VALUES ('fingerprint', ?)", (fingerprint,))
                db.commit()

    def reindex(self) -> None:
        """Rebuild the index from the card files now."""
        with self._locked():
            self._rebuild_index()

    def _ensure_index(self) -> None:
        if self._index_stale():
            with self._locked():
                if self._index_stale():
                    self._rebuild_index()

    def search(
        self,
        query: str = "",
        *,
        modality: str | None = None,
        task: str | None = None,
        language: str | None = None,
        limit: int = 10,
    ) -> list[CatalogHit]:
        """Datasets matching a free-text query, best first (BM25 over the cards).

        Name, id, tasks and domain weigh more than the description and the fields. Filters
        are applied in SQL; an empty query lists every dataset that passes them, by id.

        Args:
            query: Free text (FTS5 syntax in it is searched for as text, never parsed).
            modality: Only datasets with this modality (text, image, audio, table).
            task: Only datasets with a task containing this text (``classification``
                matches ``image classification``).
            language: Only datasets in this language (``pt`` also matches ``pt-br``).
            limit: Most results.

        Raises:
            CatalogError: An unknown modality or a limit below 1.
        """
        if limit < 1:
            raise CatalogError(f"search limit must be at least 1, got {limit}")
        if modality is not None and modality not in MODALITIES:
            raise CatalogError(f"unknown modality {modality!r}; use one of {', '.join(MODALITIES)}")
        self._ensure_index()
        where: list[str] = []
        params: list[Any] = []
        facet = "EXISTS (SELECT 1 FROM facets f WHERE f.rid = c.rid AND f.kind = '{}' AND ({}))"
        if modality:
            where.append(facet.format("modality", "f.value = ?"))
            params.append(modality)
        if task:
            norm = " ".join(task.lower().split())
            where.append(facet.format("task", "f.value = ? OR instr(f.value, ?) > 0"))
            params += [norm, norm]
        if language:
            lang = language.strip().replace("_", "-").lower()
            where.append(facet.format("language", "f.value = ? OR f.value LIKE ?"))
            params += [lang, f"{lang}-%"]
        columns = "c.id, c.name, c.description, c.modalities, c.tasks, c.languages, c.size"
        match = fts_query(search_terms(query))
        if match:
            weights = ", ".join(str(w) for w in BM25_WEIGHTS)
            sql = (
                f"SELECT {columns}, -bm25(card_fts, {weights}) AS score FROM card_fts"
                " JOIN cards c ON c.rid = card_fts.rowid WHERE card_fts MATCH ?"
                + "".join(f" AND {w}" for w in where)
                + " ORDER BY score DESC, c.id LIMIT ?"
            )
            args: list[Any] = [match, *params, limit]
        else:
            sql = (
                f"SELECT {columns}, 0.0 AS score FROM cards c"
                + (" WHERE " + " AND ".join(where) if where else "")
                + " ORDER BY c.id LIMIT ?"
            )
            args = [*params, limit]
        if not self.index_path.is_file():
            return []
        with contextlib.closing(
            sqlite3.connect(f"{self.index_path.as_uri()}?mode=ro", uri=True, timeout=30)
        ) as db:
            rows = db.execute(sql, args).fetchall()
        return [
            CatalogHit(
                card=self._card_or_none(r[0]),
                id=r[0],
                name=r[1],
                description=r[2][:300],
                modalities=json.loads(r[3]),
                tasks=json.loads(r[4]),
                languages=json.loads(r[5]),
                size=r[6],
                score=round(float(r[7]), 6),
                rank=i,
            )
            for i, r in enumerate(rows, start=1)
        ]


def first_holding(catalogs: Iterable[Catalog], dataset_id: str) -> Catalog | None:
    """The first of ``catalogs`` that holds ``dataset_id`` (a run's own sources come first).

    The one answer to "where is this dataset": the build's workspace, packaging's source
    cards and the review page's record look-up all ask it.
    """
    for catalog in catalogs:
        if dataset_id in catalog:
            return catalog
    return None

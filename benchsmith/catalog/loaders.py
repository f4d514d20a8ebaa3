"""Streaming a dataset's records through its card's loader.

:func:`iter_records` reads records lazily (a slice of a huge file costs only what it
reads), and resolves media fields to absolute file paths: a relative path is taken relative
to the data file (or the dataset folder), and an image or audio embedded as bytes (a
Hugging Face ``Image``/``Audio`` cell) is written once into a cache folder, named by its
content hash, so every consumer gets a plain file path.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchsmith.catalog.cards import DatasetCard, get_path, set_path
from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.profile import is_media_struct, iter_raw
from benchsmith.files import atomic_write

BUILTIN_PREFIX = "benchsmith."
_MAGIC = (
    (b"\x89PNG", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"GIF8", ".gif"),
    (b"RIFF", ".wav"),
    (b"fLaC", ".flac"),
    (b"OggS", ".ogg"),
    (b"ID3", ".mp3"),
)


def data_path(card: DatasetCard, root: str | os.PathLike[str] | None = None) -> Path:
    """The absolute path of a card's data (a relative loader path is under ``root``)."""
    path = Path(card.loader.path)
    if not path.is_absolute():
        if root is None:
            raise CatalogError(
                f"dataset {card.id!r}: its loader path {card.loader.path!r} is relative; read it "
                "through the catalog that holds it"
            )
        path = Path(root) / path
    return path


def iter_records(
    card: DatasetCard,
    *,
    root: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> Iterator[dict[str, Any]]:
    """Stream a dataset's records, media fields resolved to absolute paths.

    Args:
        card: The dataset's card.
        root: The catalog folder (for relative loader paths).
        cache_dir: Where embedded media bytes are written (needed only for such data).
        limit: At most this many records (None: all).
        offset: Records to skip first.

    Raises:
        CatalogError: The data is gone, malformed (naming the line or row), or ``limit`` /
            ``offset`` are negative.
    """
    if offset < 0 or (limit is not None and limit < 0):
        raise CatalogError(f"dataset {card.id!r}: offset and limit must not be negative")
    loader = card.loader
    if loader.kind == "builtin":
        yield from itertools.islice(
            _builtin(card), offset, None if limit is None else offset + limit
        )
        return
    path = data_path(card, root)
    if not path.exists():
        raise CatalogError(
            f"dataset {card.id!r}: its data {str(path)!r} is missing; restore it or re-add the "
            "dataset (benchsmith catalog add PATH --id ID --replace)"
        )
    base = path if path.is_dir() else path.parent
    media = [f.path for f in card.media_fields()]
    raw = iter_raw(loader.kind, path, loader.options, skip=offset)
    for record in itertools.islice(raw, limit):
        for field_path in media:
            value = get_path(record, field_path)
            if value is not None:
                set_path(record, field_path, resolve_media(value, base, cache_dir, card.id))
        yield record


def resolve_media(
    value: Any, base: Path, cache_dir: str | os.PathLike[str] | None, dataset_id: str = "?"
) -> Any:
    """A media value as an absolute file path (see the module docstring); others unchanged."""
    if isinstance(value, str):
        return value if os.path.isabs(value) else os.path.normpath(os.path.join(base, value))
    if is_media_struct(value):
        blob = value.get("bytes")
        name = value.get("path")
        if isinstance(blob, bytes | bytearray) and blob:
            if cache_dir is None:
                raise CatalogError(
                    f"dataset {dataset_id!r}: embedded media needs a cache folder; read it "
                    "through the catalog"
                )
            return str(_write_blob(bytes(blob), name, Path(cache_dir)))
        if isinstance(name, str) and name:
            return resolve_media(name, base, cache_dir, dataset_id)
    return value


def _write_blob(blob: bytes, name: Any, cache_dir: Path) -> Path:
    digest = hashlib.sha256(blob).hexdigest()[:32]
    ext = os.path.splitext(name)[1].lower() if isinstance(name, str) else ""
    if not ext:
        ext = next((e for magic, e in _MAGIC if blob.startswith(magic)), ".bin")
    target = cache_dir / f"{digest}{ext}"
    if not target.is_file():
        atomic_write(target, blob)
    return target


def _builtin(card: DatasetCard) -> Iterator[dict[str, Any]]:
    """Records from a function inside benchsmith (``module:function``), for generated data."""
    spec = card.loader.path
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name.startswith(BUILTIN_PREFIX):
        raise CatalogError(
            f"dataset {card.id!r}: builtin loader {spec!r} must name a function inside "
            f"benchsmith as 'module:function' (e.g. benchsmith.catalog.starter:records)"
        )
    try:
        func = getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError) as exc:
        raise CatalogError(
            f"dataset {card.id!r}: builtin loader {spec!r} not found ({exc})"
        ) from exc
    for record in func(**card.loader.options):
        if not isinstance(record, dict):
            raise CatalogError(f"dataset {card.id!r}: builtin loader {spec!r} yielded a non-record")
        yield record

"""Streaming readers of the data formats the catalog understands.

Every reader yields one record (a ``dict``) at a time and never holds a whole large file in
memory (a plain ``.json`` file is the one exception: JSON has no streaming form, so it is
capped at :data:`MAX_JSON_BYTES`). Malformed input raises
:class:`~benchsmith.catalog.errors.CatalogError` naming the file, the line or row, and what
is wrong. Profiling (:mod:`~benchsmith.catalog.profile`) and loading
(:mod:`~benchsmith.catalog.loaders`) share these readers, so a file that profiled cleanly
reads the same way later.

CSV is read by :mod:`benchsmith.tables`, the one CSV reader and cell grammar the tools use
too (so ``+5`` is 5, ``nan`` is missing and ``007`` stays text in the catalog and in every
tool alike); its errors are re-raised here as :class:`CatalogError`.

pyarrow is imported lazily, only for Parquet and Arrow files.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import decimal
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from benchsmith import tables
from benchsmith.catalog.errors import CatalogError
from benchsmith.tables import data_suffix, parse_csv_value

MAX_JSON_BYTES = 512 * 1024 * 1024
IMAGE_EXTS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"})
AUDIO_EXTS = frozenset({".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".aac", ".aif", ".aiff"})
MANIFEST_NAMES = ("metadata.jsonl", "metadata.csv", "manifest.jsonl", "manifest.csv")
FILE_COLUMNS = ("file_name", "file", "filename", "path", "image", "audio")


def display(path: str | os.PathLike[str]) -> str:
    """How a path is named in messages."""
    return str(path)


@contextlib.contextmanager
def _as_catalog_error() -> Iterator[None]:
    """Re-raise a :class:`~benchsmith.tables.TableError` as a :class:`CatalogError`."""
    try:
        yield
    except tables.TableError as exc:
        raise CatalogError(str(exc)) from exc


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def strip_suffixes(name: str) -> str:
    """A file name without its data suffixes (``train.jsonl.gz`` -> ``train``)."""
    lower = name.lower()
    for suffix in (".gz",):
        if lower.endswith(suffix):
            name, lower = name[: -len(suffix)], lower[: -len(suffix)]
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a (possibly gzipped) file for reading bytes.

    Raises:
        CatalogError: The file does not exist or cannot be opened.
    """
    with _as_catalog_error():
        return tables.open_binary(path, name=display(path))


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """(line number, line) pairs of a UTF-8 text file, line endings kept, a BOM dropped.

    Lines are decoded one by one, so a byte that is not UTF-8 is reported on its own line
    (the one line reader of :mod:`benchsmith.tables`).

    Raises:
        CatalogError: A line is not valid UTF-8, or a ``.gz`` file is truncated.
    """
    lines = tables.read_lines(path, name=display(path))
    with _as_catalog_error(), contextlib.closing(lines):
        yield from lines


def read_text(path: str | os.PathLike[str]) -> str:
    """A whole UTF-8 text file (a BOM dropped); a bad byte is reported with its line."""
    with open_binary(path) as handle:
        try:
            raw = handle.read()
        except (OSError, EOFError) as exc:
            raise CatalogError(f"{display(path)}: cannot be read ({exc})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise CatalogError(
            f"{display(path)}: line {line}: not valid UTF-8 ({exc.reason}); re-save it as UTF-8"
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


# -- JSON Lines ---------------------------------------------------------------------------------
def iter_jsonl(path: str | os.PathLike[str], *, skip: int = 0) -> Iterator[tuple[int, dict]]:
    """(line number, record) for every non-blank line of a JSON Lines file.

    Args:
        path: The ``.jsonl`` (or ``.jsonl.gz``) file.
        skip: Records to pass over first; they are counted, not parsed.

    Raises:
        CatalogError: A line is not valid JSON, or is JSON but not an object.
    """
    seen = 0
    for line_no, line in read_lines(path):
        if not line.strip():
            continue
        seen += 1
        if seen <= skip:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CatalogError(
                f"{display(path)}: line {line_no}: bad JSON ({exc.msg} at column {exc.colno}); "
                "each line must hold one JSON object"
            ) from exc
        if not isinstance(record, dict):
            raise CatalogError(
                f"{display(path)}: line {line_no}: {_kind(record)}, not a JSON object; each line "
                'must hold one JSON object such as {"text": ..., "label": ...}'
            )
        yield line_no, record


def count_jsonl(path: str | os.PathLike[str]) -> int:
    """The number of non-blank lines of a JSON Lines file (read in binary, fast)."""
    total = 0
    with open_binary(path) as handle:
        for line in handle:
            if line.strip():
                total += 1
    return total


# -- JSON ---------------------------------------------------------------------------------------
_LIST_KEYS = ("data", "records", "rows", "items", "examples", "instances", "results")


def load_json_records(
    path: str | os.PathLike[str], key: str | None = None
) -> tuple[list[Any], str | None]:
    """The list of records in a JSON file, and the key that holds it (None: the top level).

    The file holds a list of objects, or an object with one such list (``key`` picks it when
    there are several; else ``data``, ``records``, ``rows``, ... are preferred).

    Raises:
        CatalogError: Bad JSON (with its line), no list found, or the file is too large.
    """
    size = os.path.getsize(path) if os.path.exists(path) else 0
    if size > MAX_JSON_BYTES:
        raise CatalogError(
            f"{display(path)}: {size // 2**20} MiB is too large for a plain JSON file; "
            "convert it to JSON Lines (one object a line), which the catalog streams"
        )
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"{display(path)}: line {exc.lineno}: bad JSON ({exc.msg} at column {exc.colno})"
        ) from exc
    if isinstance(data, list):
        _check_objects(path, text, data, None)
        return data, None
    if not isinstance(data, dict):
        raise CatalogError(
            f"{display(path)}: the top level is {_kind(data)}; it must be a list of objects or "
            "an object holding one"
        )
    if key is not None:
        if not isinstance(data.get(key), list):
            raise CatalogError(f"{display(path)}: no list of records under the key {key!r}")
        _check_objects(path, text, data[key], key)
        return data[key], key
    lists = [k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if not lists:
        raise CatalogError(
            f"{display(path)}: the object holds no list of records; expected e.g. "
            '{"data": [{...}, ...]}'
        )
    chosen = next((k for k in _LIST_KEYS if k in lists), lists[0])
    _check_objects(path, text, data[chosen], chosen)
    return data[chosen], chosen


def _check_objects(
    path: str | os.PathLike[str], text: str, items: list[Any], key: str | None
) -> None:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            where = f"the list under {key!r}" if key else "the list"
            line = _element_line(text, key, index)
            at = f"line {line}: " if line else ""
            raise CatalogError(
                f"{display(path)}: {at}element {index + 1} of {where} is {_kind(item)}, "
                "not an object"
            )


def _element_line(text: str, key: str | None, index: int) -> int | None:
    """The line on which element ``index`` of the record list starts (slow path, errors only)."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")

    def skip(pos: int) -> int:
        return ws.match(text, pos).end()  # type: ignore[union-attr]

    try:
        pos = skip(0)
        if key is not None:
            if text[pos] != "{":
                return None
            pos = skip(pos + 1)
            while text[pos] != "}":
                name, pos = decoder.raw_decode(text, pos)
                pos = skip(skip(pos) + 1)  # past ':'
                if name == key:
                    break
                _, pos = decoder.raw_decode(text, pos)
                pos = skip(pos)
                if text[pos] == ",":
                    pos = skip(pos + 1)
            else:
                return None
        if text[pos] != "[":
            return None
        pos = skip(pos + 1)
        for _ in range(index):
            _, pos = decoder.raw_decode(text, pos)
            pos = skip(skip(pos) + 1)  # past ','
        return text.count("\n", 0, pos) + 1
    except (ValueError, IndexError):
        return None


# -- CSV ----------------------------------------------------------------------------------------
# One reader and one cell grammar with the tools: see :mod:`benchsmith.tables`.
def sniff_delimiter(path: str | os.PathLike[str]) -> str:
    """The delimiter of a CSV/TSV file (:func:`benchsmith.tables.sniff_delimiter`).

    Raises:
        CatalogError: The file cannot be opened or read.
    """
    with _as_catalog_error():
        return tables.sniff_delimiter(path, name=display(path))


def iter_csv(
    path: str | os.PathLike[str], *, delimiter: str = ",", skip: int = 0
) -> Iterator[tuple[int, dict[str, str]]]:
    """(row number, {column: text}) for every data row of a CSV file (row 1 = first data row).

    Blank lines are skipped. Cells stay text; see :func:`benchsmith.tables.parse_csv_value`.

    Raises:
        CatalogError: No header, an empty or repeated column name, a row with more or fewer
            fields than the header, or a CSV syntax error - each naming the row and line.
    """
    rows = tables.iter_csv(path, delimiter=delimiter, skip=skip, name=display(path))
    with _as_catalog_error(), contextlib.closing(rows):
        _, _, header = next(rows)
        for row_no, _, cells in rows:
            yield row_no, dict(zip(header, cells, strict=True))


def csv_header(path: str | os.PathLike[str], delimiter: str = ",") -> list[str]:
    """The header of a CSV file.

    Raises:
        CatalogError: The file cannot be read or has no valid header.
    """
    with _as_catalog_error():
        return tables.csv_header(path, delimiter, name=display(path))


# -- Arrow and Parquet --------------------------------------------------------------------------
def jsonable(value: Any) -> Any:
    """A value from Arrow made JSON-friendly: dates as ISO text, decimals as floats."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401 - loads the submodule
        import pyarrow.parquet  # noqa: F401 - loads the submodule
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise CatalogError(f"reading Parquet/Arrow needs pyarrow ({exc})") from exc
    return pyarrow


def parquet_rows(path: str | os.PathLike[str]) -> int:
    """The exact number of rows of a Parquet file, from its footer."""
    pa = _pyarrow()
    try:
        return int(pa.parquet.ParquetFile(path).metadata.num_rows)
    except (pa.ArrowException, OSError) as exc:
        raise CatalogError(f"{display(path)}: not a readable Parquet file ({exc})") from exc


def iter_parquet(
    path: str | os.PathLike[str], *, skip: int = 0, batch_size: int = 2048
) -> Iterator[tuple[int, dict]]:
    """(row number, record) for the rows of a Parquet file, row group by row group.

    Whole row groups before ``skip`` are never decoded.
    """
    pa = _pyarrow()
    try:
        pfile = pa.parquet.ParquetFile(path)
        meta = pfile.metadata
        row = 0
        groups: list[int] = []
        for g in range(meta.num_row_groups):
            n = meta.row_group(g).num_rows
            if not groups and row + n <= skip:
                row += n
                continue
            groups.append(g)
        if not groups:
            return
        for batch in pfile.iter_batches(batch_size=batch_size, row_groups=groups):
            for record in batch.to_pylist():
                row += 1
                if row <= skip:
                    continue
                yield row, jsonable(record)
    except (pa.ArrowException, OSError) as exc:
        raise CatalogError(f"{display(path)}: not a readable Parquet file ({exc})") from exc


def _arrow_reader(pa: Any, path: str | os.PathLike[str]) -> Any:
    source = pa.memory_map(os.fspath(path), "r")
    try:
        return pa.ipc.open_stream(source)  # the layout `datasets.save_to_disk` writes
    except pa.ArrowInvalid:
        source = pa.memory_map(os.fspath(path), "r")
        return pa.ipc.open_file(source)


def _arrow_batches(reader: Any) -> Iterator[Any]:
    """The record batches of an Arrow IPC file reader (random access) or stream reader."""
    if hasattr(reader, "num_record_batches"):
        return (reader.get_batch(i) for i in range(reader.num_record_batches))
    return iter(reader)


def arrow_rows(path: str | os.PathLike[str]) -> int:
    """The exact number of rows of an Arrow IPC (stream or file) file."""
    pa = _pyarrow()
    try:
        return sum(batch.num_rows for batch in _arrow_batches(_arrow_reader(pa, path)))
    except (pa.ArrowException, OSError) as exc:
        raise CatalogError(f"{display(path)}: not a readable Arrow file ({exc})") from exc


def iter_arrow(path: str | os.PathLike[str], *, skip: int = 0) -> Iterator[tuple[int, dict]]:
    """(row number, record) for the rows of an Arrow IPC file (memory-mapped, batch by batch)."""
    pa = _pyarrow()
    try:
        row = 0
        for batch in _arrow_batches(_arrow_reader(pa, path)):
            if row + batch.num_rows <= skip:
                row += batch.num_rows
                continue
            for record in batch.to_pylist():
                row += 1
                if row <= skip:
                    continue
                yield row, jsonable(record)
    except (pa.ArrowException, OSError) as exc:
        raise CatalogError(f"{display(path)}: not a readable Arrow file ({exc})") from exc


def iter_data_file(
    path: str | os.PathLike[str],
    fmt: str,
    *,
    skip: int = 0,
    delimiter: str | None = None,
    key: str | None = None,
) -> Iterator[tuple[int, dict]]:
    """(row or line number, record) of one data file of format ``fmt`` (CSV cells parsed)."""
    if fmt == "jsonl":
        yield from iter_jsonl(path, skip=skip)
    elif fmt == "json":
        records, _ = load_json_records(path, key)
        yield from enumerate(records[skip:], start=skip + 1)
    elif fmt == "csv":
        for row_no, row in iter_csv(path, delimiter=delimiter or sniff_delimiter(path), skip=skip):
            yield row_no, {k: parse_csv_value(v) for k, v in row.items()}
    elif fmt == "parquet":
        yield from iter_parquet(path, skip=skip)
    elif fmt == "arrow":
        yield from iter_arrow(path, skip=skip)
    else:
        raise CatalogError(f"{display(path)}: unknown data format {fmt!r}")


def count_data_file(path: str | os.PathLike[str], fmt: str) -> int:
    """The exact number of records of one data file."""
    if fmt == "jsonl":
        return count_jsonl(path)
    if fmt == "parquet":
        return parquet_rows(path)
    if fmt == "arrow":
        return arrow_rows(path)
    return sum(1 for _ in iter_data_file(path, fmt))


# -- folders of media ----------------------------------------------------------------------------
def walk_files(root: str | os.PathLike[str], exts: frozenset[str]) -> Iterator[Path]:
    """Files under ``root`` with one of ``exts``, in sorted order, hidden entries skipped.

    Streams directory by directory (``os.walk``), so a folder of a million files is never
    listed into memory at once beyond one directory.
    """
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in exts:
                yield Path(dirpath) / name


def find_manifest(folder: str | os.PathLike[str]) -> Path | None:
    """The manifest (``metadata.jsonl``/``.csv`` or ``manifest.jsonl``/``.csv``) of a folder."""
    for name in MANIFEST_NAMES:
        candidate = Path(folder) / name
        if candidate.is_file():
            return candidate
    return None


def manifest_file_column(manifest: Path, columns: list[str]) -> str:
    """The manifest column that names each media file."""
    for name in FILE_COLUMNS:
        if name in columns:
            return name
    raise CatalogError(
        f"{display(manifest)}: no column naming the media file; add one of "
        f"{', '.join(FILE_COLUMNS)} (found: {', '.join(columns) or 'none'})"
    )


def iter_media_folder(
    folder: str | os.PathLike[str],
    media: str,
    *,
    manifest: str | None = None,
    skip: int = 0,
) -> Iterator[tuple[str, dict]]:
    """(location, record) for a folder of images or audio files.

    Without a manifest every file is one record ``{media: relative path, "label": subfolder}``
    (``label`` is None for files directly in the folder). With a manifest (a JSONL or CSV
    file with a ``file_name`` column, the Hugging Face ``imagefolder`` convention) each row
    is a record and its file column is renamed to ``media``.

    Raises:
        CatalogError: A manifest row names a file that does not exist (naming the row).
    """
    root = Path(folder)
    exts = IMAGE_EXTS if media == "image" else AUDIO_EXTS
    if manifest is None:
        seen = 0
        for file in walk_files(root, exts):
            seen += 1
            if seen <= skip:
                continue
            rel = file.relative_to(root)
            label = rel.parts[0] if len(rel.parts) > 1 else None
            yield str(rel), {media: rel.as_posix(), "label": label}
        return
    mpath = root / manifest
    if data_suffix(mpath) == ".csv":
        delimiter = sniff_delimiter(mpath)
        column = manifest_file_column(mpath, csv_header(mpath, delimiter))
        rows: Iterator[tuple[int, dict]] = (
            (n, {k: parse_csv_value(v) if k != column else v for k, v in row.items()})
            for n, row in iter_csv(mpath, delimiter=delimiter, skip=skip)
        )
        where = "row"
    else:
        rows = iter_jsonl(mpath, skip=skip)
        column = ""
        where = "line"
    for n, row in rows:
        if not column:
            column = manifest_file_column(mpath, list(row))
        name = row.get(column)
        if not isinstance(name, str) or not name:
            raise CatalogError(f"{display(mpath)}: {where} {n}: {column!r} is empty or not text")
        if not (root / name).is_file():
            raise CatalogError(
                f"{display(mpath)}: {where} {n}: file {name!r} does not exist in {display(root)}"
            )
        record = {media: name, **{k: v for k, v in row.items() if k != column}}
        yield f"{where} {n}", record

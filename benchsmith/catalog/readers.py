"""Streaming readers of the data formats the catalog understands.

Every reader yields one record (a ``dict``) at a time and never holds a whole large file in
memory (a plain ``.json`` file is the one exception: JSON has no streaming form, so it has
its own, lower cap). Every reader takes the caps of
:class:`~benchsmith.catalog.limits.CatalogLimits` (the defaults when none are given): a file
over the size cap is refused before it is read, a line is read in bounded pieces and
refused over the line cap, a CSV header over the column cap is refused before any row, and a
JSON record nested too deep is refused without a ``RecursionError``. Malformed input raises
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
from benchsmith.catalog.limits import DEFAULT_LIMITS, CatalogLimits, over
from benchsmith.tables import (
    data_suffix,
    json_depth_over,
    json_kind_phrase,
    json_object_line,
    parse_csv_value,
)

IMAGE_EXTS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"})
AUDIO_EXTS = frozenset({".wav", ".mp3", ".flac", ".ogg", ".opus", ".m4a", ".aac", ".aif", ".aiff"})
MANIFEST_NAMES = ("metadata.jsonl", "metadata.csv", "manifest.jsonl", "manifest.csv")
FILE_COLUMNS = ("file_name", "file", "filename", "path", "image", "audio")


def display(path: str | os.PathLike[str]) -> str:
    """How a path is named in messages."""
    return str(path)


@contextlib.contextmanager
def _as_catalog_error() -> Iterator[None]:
    """Re-raise a :class:`~benchsmith.tables.TableError` as a :class:`CatalogError`.

    A cap that was hit (:class:`~benchsmith.tables.TableLimitError`) becomes a
    :class:`~benchsmith.catalog.errors.CatalogLimitError` saying how to raise it.
    """
    try:
        yield
    except tables.TableLimitError as exc:
        raise over(str(exc), exc.limit) from exc
    except tables.TableError as exc:
        raise CatalogError(str(exc)) from exc


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


def read_lines(
    path: str | os.PathLike[str], limits: CatalogLimits | None = None
) -> Iterator[tuple[int, str]]:
    """(line number, line) pairs of a UTF-8 text file, line endings kept, a BOM dropped.

    Lines are decoded one by one, so a byte that is not UTF-8 is reported on its own line
    (the one line reader of :mod:`benchsmith.tables`), and read in bounded pieces.

    Raises:
        CatalogError: A line is not valid UTF-8, or a ``.gz`` file is truncated.
        CatalogLimitError: The file is too large, or a line too long.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    lines = tables.read_lines(
        path,
        name=display(path),
        max_line_bytes=limits.max_line_bytes,
        max_bytes=limits.max_file_bytes,
    )
    with _as_catalog_error(), contextlib.closing(lines):
        yield from lines


def read_text(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> str:
    """A whole UTF-8 text file (a BOM dropped); a bad byte is reported with its line.

    It is for a plain ``.json`` file, so ``max_json_bytes`` caps it (also uncompressed).

    Raises:
        CatalogLimitError: The file is over ``max_json_bytes``.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path, json_whole=True)
    cap = limits.max_json_bytes
    with open_binary(path) as handle:
        try:
            raw = handle.read(cap + 1)
        except (OSError, EOFError) as exc:
            raise CatalogError(f"{display(path)}: cannot be read ({exc})") from exc
    if len(raw) > cap:
        raise over(
            f"{display(path)}: more than {cap} bytes uncompressed, over the limit for a "
            "plain JSON file (it is parsed whole)",
            "max_json_bytes",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise CatalogError(
            f"{display(path)}: line {line}: not valid UTF-8 ({exc.reason}); re-save it as UTF-8"
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


# -- JSON Lines ---------------------------------------------------------------------------------
def _too_deep(where: str, max_depth: int) -> CatalogError:
    return over(f"{where}: a record nested more than {max_depth} levels deep", "max_json_depth")


def iter_jsonl(
    path: str | os.PathLike[str], *, skip: int = 0, limits: CatalogLimits | None = None
) -> Iterator[tuple[int, dict]]:
    """(line number, record) for every non-blank line of a JSON Lines file.

    Args:
        path: The ``.jsonl`` (or ``.jsonl.gz``) file.
        skip: Records to pass over first; they are counted, not parsed.
        limits: The caps (file size, line length, nesting depth); default: the defaults.

    Raises:
        CatalogError: A line is not valid JSON, or is JSON but not an object.
        CatalogLimitError: The file is too large, a line too long or a record too deep.
    """
    limits = limits or DEFAULT_LIMITS
    seen = 0
    with _as_catalog_error():
        for line_no, line in read_lines(path, limits):
            if not line.strip():
                continue
            seen += 1
            if seen <= skip:
                continue
            yield line_no, json_object_line(line, display(path), line_no, limits.max_json_depth)


def count_jsonl(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> int:
    """The number of non-blank lines of a JSON Lines file (read in binary, fast, bounded).

    Raises:
        CatalogLimitError: The file is too large, or a line too long.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    total = 0
    with open_binary(path) as handle, _as_catalog_error():
        for line in tables.binary_lines(
            handle,
            display(path),
            max_line_bytes=limits.max_line_bytes,
            max_bytes=limits.max_file_bytes,
        ):
            if line.strip():
                total += 1
    return total


# -- JSON ---------------------------------------------------------------------------------------
_LIST_KEYS = ("data", "records", "rows", "items", "examples", "instances", "results")


def load_json_records(
    path: str | os.PathLike[str], key: str | None = None, limits: CatalogLimits | None = None
) -> tuple[list[Any], str | None]:
    """The list of records in a JSON file, and the key that holds it (None: the top level).

    The file holds a list of objects, or an object with one such list (``key`` picks it when
    there are several; else ``data``, ``records``, ``rows``, ... are preferred).

    Raises:
        CatalogError: Bad JSON (with its line), or no list found.
        CatalogLimitError: The file is over ``max_json_bytes``, or a record nested deeper
            than ``max_json_depth``.
    """
    limits = limits or DEFAULT_LIMITS
    text = read_text(path, limits)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"{display(path)}: line {exc.lineno}: bad JSON ({exc.msg} at column {exc.colno})"
        ) from exc
    except RecursionError as exc:  # deeper than the parser goes (max_json_depth is below it)
        raise _too_deep(display(path), limits.max_json_depth) from exc
    if isinstance(data, list):
        _check_objects(path, text, data, None, limits.max_json_depth)
        return data, None
    if not isinstance(data, dict):
        raise CatalogError(
            f"{display(path)}: the top level is {json_kind_phrase(data)}; it must be a list of "
            "objects or an object holding one"
        )
    if key is not None:
        if not isinstance(data.get(key), list):
            raise CatalogError(f"{display(path)}: no list of records under the key {key!r}")
        _check_objects(path, text, data[key], key, limits.max_json_depth)
        return data[key], key
    lists = [k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if not lists:
        raise CatalogError(
            f"{display(path)}: the object holds no list of records; expected e.g. "
            '{"data": [{...}, ...]}'
        )
    chosen = next((k for k in _LIST_KEYS if k in lists), lists[0])
    _check_objects(path, text, data[chosen], chosen, limits.max_json_depth)
    return data[chosen], chosen


def _check_objects(
    path: str | os.PathLike[str], text: str, items: list[Any], key: str | None, max_depth: int
) -> None:
    where = f"the list under {key!r}" if key else "the list"
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            line = _element_line(text, key, index)
            at = f"line {line}: " if line else ""
            raise CatalogError(
                f"{display(path)}: {at}element {index + 1} of {where} is {json_kind_phrase(item)}, "
                "not an object"
            )
        if json_depth_over(item, max_depth):
            line = _element_line(text, key, index)
            at = f"line {line}: " if line else ""
            raise _too_deep(f"{display(path)}: {at}element {index + 1} of {where}", max_depth)


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
def sniff_delimiter(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> str:
    """The delimiter of a CSV/TSV file (:func:`benchsmith.tables.sniff_delimiter`).

    Raises:
        CatalogError: The file cannot be opened or read.
        CatalogLimitError: The file is too large, or its first line too long.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    with _as_catalog_error():
        return tables.sniff_delimiter(
            path, name=display(path), max_line_bytes=limits.max_line_bytes
        )


def iter_csv(
    path: str | os.PathLike[str],
    *,
    delimiter: str = ",",
    skip: int = 0,
    limits: CatalogLimits | None = None,
) -> Iterator[tuple[int, dict[str, str]]]:
    """(row number, {column: text}) for every data row of a CSV file (row 1 = first data row).

    Blank lines are skipped. Cells stay text; see :func:`benchsmith.tables.parse_csv_value`.

    Raises:
        CatalogError: No header, an empty or repeated column name, a row with more or fewer
            fields than the header, or a CSV syntax error - each naming the row and line.
        CatalogLimitError: The file is too large, the header too wide (before any row is
            read), or a row too long.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    rows = tables.iter_csv(
        path,
        delimiter=delimiter,
        skip=skip,
        name=display(path),
        max_line_bytes=limits.max_line_bytes,
        max_columns=limits.max_columns,
        max_bytes=limits.max_file_bytes,
    )
    with _as_catalog_error(), contextlib.closing(rows):
        _, _, header = next(rows)
        for row_no, _, cells in rows:
            yield row_no, dict(zip(header, cells, strict=True))


def csv_header(
    path: str | os.PathLike[str], delimiter: str = ",", limits: CatalogLimits | None = None
) -> list[str]:
    """The header of a CSV file.

    Raises:
        CatalogError: The file cannot be read or has no valid header.
        CatalogLimitError: The file is too large, or the header too long or too wide.
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    with _as_catalog_error():
        return tables.csv_header(
            path,
            delimiter,
            name=display(path),
            max_line_bytes=limits.max_line_bytes,
            max_columns=limits.max_columns,
        )


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


@contextlib.contextmanager
def _pyarrow_reading(path: str | os.PathLike[str], kind: str) -> Iterator[Any]:
    """``pyarrow`` to read the ``kind`` (Parquet, Arrow) file ``path`` with.

    An Arrow or OS error inside the block becomes a :class:`CatalogError` naming the file.
    """
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401 - loads the submodule
        import pyarrow.parquet  # noqa: F401 - loads the submodule
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise CatalogError(f"reading Parquet/Arrow needs pyarrow ({exc})") from exc
    try:
        yield pyarrow
    except (pyarrow.ArrowException, OSError) as exc:
        raise CatalogError(f"{display(path)}: not a readable {kind} file ({exc})") from exc


def _check_schema(path: str | os.PathLike[str], names: list[str], limits: CatalogLimits) -> None:
    if len(names) > limits.max_columns:
        raise over(
            f"{display(path)}: {len(names)} columns, more than the {limits.max_columns}-column "
            "limit",
            "max_columns",
        )


def parquet_rows(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> int:
    """The exact number of rows of a Parquet file, from its footer.

    Raises:
        CatalogLimitError: The file is too large.
    """
    (limits or DEFAULT_LIMITS).check_file(path)
    with _pyarrow_reading(path, "Parquet") as pa:
        return int(pa.parquet.ParquetFile(path).metadata.num_rows)


def iter_parquet(
    path: str | os.PathLike[str],
    *,
    skip: int = 0,
    batch_size: int = 2048,
    limits: CatalogLimits | None = None,
) -> Iterator[tuple[int, dict]]:
    """(row number, record) for the rows of a Parquet file, row group by row group.

    Whole row groups before ``skip`` are never decoded.

    Raises:
        CatalogLimitError: The file is too large, or has too many columns (from its schema,
            before any row is decoded).
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    with _pyarrow_reading(path, "Parquet") as pa:
        pfile = pa.parquet.ParquetFile(path)
        _check_schema(path, pfile.schema_arrow.names, limits)
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


def arrow_rows(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> int:
    """The exact number of rows of an Arrow IPC (stream or file) file.

    Raises:
        CatalogLimitError: The file is too large.
    """
    (limits or DEFAULT_LIMITS).check_file(path)
    with _pyarrow_reading(path, "Arrow") as pa:
        return sum(batch.num_rows for batch in _arrow_batches(_arrow_reader(pa, path)))


def iter_arrow(
    path: str | os.PathLike[str], *, skip: int = 0, limits: CatalogLimits | None = None
) -> Iterator[tuple[int, dict]]:
    """(row number, record) for the rows of an Arrow IPC file (memory-mapped, batch by batch).

    Raises:
        CatalogLimitError: The file is too large, or has too many columns (from its schema).
    """
    limits = limits or DEFAULT_LIMITS
    limits.check_file(path)
    with _pyarrow_reading(path, "Arrow") as pa:
        row = 0
        reader = _arrow_reader(pa, path)
        _check_schema(path, reader.schema.names, limits)
        for batch in _arrow_batches(reader):
            if row + batch.num_rows <= skip:
                row += batch.num_rows
                continue
            for record in batch.to_pylist():
                row += 1
                if row <= skip:
                    continue
                yield row, jsonable(record)


def iter_data_file(
    path: str | os.PathLike[str],
    fmt: str,
    *,
    skip: int = 0,
    delimiter: str | None = None,
    key: str | None = None,
    limits: CatalogLimits | None = None,
) -> Iterator[tuple[int, dict]]:
    """(row or line number, record) of one data file of format ``fmt`` (CSV cells parsed).

    Raises:
        CatalogError: Malformed data (naming the line or row), or an unknown format.
        CatalogLimitError: The data is over one of ``limits`` (default: the defaults).
    """
    limits = limits or DEFAULT_LIMITS
    if fmt == "jsonl":
        yield from iter_jsonl(path, skip=skip, limits=limits)
    elif fmt == "json":
        records, _ = load_json_records(path, key, limits)
        yield from enumerate(records[skip:], start=skip + 1)
    elif fmt == "csv":
        delimiter = delimiter or sniff_delimiter(path, limits)
        for row_no, row in iter_csv(path, delimiter=delimiter, skip=skip, limits=limits):
            yield row_no, {k: parse_csv_value(v) for k, v in row.items()}
    elif fmt == "parquet":
        yield from iter_parquet(path, skip=skip, limits=limits)
    elif fmt == "arrow":
        yield from iter_arrow(path, skip=skip, limits=limits)
    else:
        raise CatalogError(f"{display(path)}: unknown data format {fmt!r}")


def count_data_file(
    path: str | os.PathLike[str], fmt: str, limits: CatalogLimits | None = None
) -> int:
    """The exact number of records of one data file (under ``limits``, as it is read)."""
    if fmt == "jsonl":
        return count_jsonl(path, limits)
    if fmt == "parquet":
        return parquet_rows(path, limits)
    if fmt == "arrow":
        return arrow_rows(path, limits)
    return sum(1 for _ in iter_data_file(path, fmt, limits=limits))


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
    limits: CatalogLimits | None = None,
) -> Iterator[tuple[str, dict]]:
    """(location, record) for a folder of images or audio files.

    Without a manifest every file is one record ``{media: relative path, "label": subfolder}``
    (``label`` is None for files directly in the folder). With a manifest (a JSONL or CSV
    file with a ``file_name`` column, the Hugging Face ``imagefolder`` convention) each row
    is a record and its file column is renamed to ``media``.

    Raises:
        CatalogError: A manifest row names a file that does not exist (naming the row).
        CatalogLimitError: The manifest is over one of ``limits``.
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
        delimiter = sniff_delimiter(mpath, limits)
        column = manifest_file_column(mpath, csv_header(mpath, delimiter, limits))
        rows: Iterator[tuple[int, dict]] = (
            (n, {k: parse_csv_value(v) if k != column else v for k, v in row.items()})
            for n, row in iter_csv(mpath, delimiter=delimiter, skip=skip, limits=limits)
        )
        where = "row"
    else:
        rows = iter_jsonl(mpath, skip=skip, limits=limits)
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

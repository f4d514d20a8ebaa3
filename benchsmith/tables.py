"""One table reader and one CSV cell grammar, shared by the catalog and the tools.

The catalog (:mod:`benchsmith.catalog.readers`, which profiles and loads datasets) and the
table tools (:mod:`benchsmith.tools.convert`, :mod:`benchsmith.tools.transform`) read CSV
through this module, so a CSV cell means the same thing wherever benchsmith reads it.

**The CSV cell grammar** (:func:`parse_csv_value`) looks at a cell's text exactly as the CSV
parser gives it (quotes removed, nothing stripped) and reads it as the first that fits:

========================  =========================================  ======================
kind                      rule                                       examples
========================  =========================================  ======================
missing (``None``)        one of :data:`MISSING_CSV`                 ``""``, ``nan``,
                                                                     ``NaN``, ``null``,
                                                                     ``NULL``
integer (``int``)         optional sign, digits, no leading zero,    ``5``, ``+5`` (= 5),
                          within the signed 64-bit range             ``-5``, ``0``, ``-0``
number (``float``)        optional sign, digits without a leading    ``5.0``, ``1e3``,
                          zero (a lone ``0`` is fine), an optional   ``.5``, ``5.``,
                          fraction and exponent; finite              ``0.25``, ``-2E-3``
boolean (``bool``)        ``true`` or ``false``, any case            ``true``, ``FALSE``
text (``str``)            anything else, exactly as written          see below
========================  =========================================  ======================

Text, on purpose: codes with a leading zero (``007``, zip code ``02134``, ``01.5``) so ids
and zip codes are never mangled into numbers; ``0x10``; ``1,000``; padded numbers such as
``" 7 "``; ``inf``/``-inf``/``infinity`` and numbers that overflow a float (``1e400``), since
JSON has no infinity and such a cell is usually an overflow marker, not a measurement;
integers beyond 64 bits (account numbers, long ids), which neither an Arrow int64 column nor
a JSON double holds exactly; and other missing markers (``NA``, ``N/A``, ``None``), which are
real values often enough (a country code, an answer) not to be erased. Every number the
grammar yields is finite, so every value it yields round-trips through JSON and Parquet.

**Columns** (:func:`column_kind`): a column is int when every non-missing cell is an
integer, float when every non-missing cell is an integer or a number (integers widen), bool
when every non-missing cell is a boolean, and text otherwise (also when no cell is
non-missing). In a typed column missing cells are ``None``; a text column keeps every cell
exactly as written (``""``, ``nan``, ``+5`` included), so nothing is lost and it writes back
unchanged. The catalog types a column from its profiled rows, the tools from all of them.

**Reading**: :func:`read_lines` (UTF-8, one line at a time, a BOM dropped, ``.gz`` read
transparently), :func:`sniff_delimiter` (tab for ``.tsv``, else the most frequent of
``, ; tab |`` outside quotes in the first line), :func:`iter_csv` (the header, then each data
row, with the file, the row and the line named in every error) and, for the tools,
:func:`read_table` (csv/tsv, jsonl or parquet into an Arrow table), :func:`write_table` and
:func:`cell_text`. Errors are :class:`TableError`; the catalog re-raises them as its own
``CatalogError``.

**Caps**: a line is read in bounded pieces and refused over :data:`MAX_LINE_BYTES` (so a
file with no line break is never loaded whole), a CSV header over ``max_columns`` is
refused before any row is read, and :data:`MAX_FILE_BYTES`, :data:`MAX_TABLE_COLUMNS` and
:data:`MAX_TABLE_ROWS` are the defaults the tools and the catalog share. A cap that is hit
raises :class:`TableLimitError`, which names the cap.

Only the standard library and :mod:`benchsmith.errors` are imported here; pyarrow is imported
inside the functions that need it.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import decimal
import gzip
import json
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, Protocol

from benchsmith.errors import InputRejectedError

if TYPE_CHECKING:
    import pyarrow as pa

CellKind = Literal["int", "float", "bool", "str"]

MISSING_CSV = frozenset({"", "NaN", "nan", "null", "NULL"})
"""Cells that mean "no value" (read as ``None``)."""
DELIMITERS = (",", ";", "\t", "|")
"""The delimiters :func:`sniff_delimiter` chooses among (comma wins ties)."""
MAX_TABLE_ROWS = 5_000_000
MAX_TABLE_COLUMNS = 10_000
"""Most columns of a table (the tools) and, by default, of a dataset (the catalog)."""
MAX_FILE_BYTES = 500_000_000
"""Largest input file, in bytes: the default of the tools' ``Limits`` and of the catalog."""
MAX_LINE_BYTES = 16 * 2**20
"""Longest line read, in bytes with its line ending (a CSV row quoted over several lines:
all of them). A line is read in bounded chunks, so a file with no line break (NUL bytes,
a sparse file) is refused after this many bytes instead of being loaded whole."""
TABLE_FORMATS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}

_INT_RE = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_FLOAT_RE = re.compile(r"[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_BOOLS = {"true": True, "false": False}
_TYPE_KINDS: dict[type, CellKind] = {int: "int", float: "float", bool: "bool"}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_QUOTED_RE = re.compile(r'"[^"]*"')

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


class TableError(InputRejectedError):
    """A table file cannot be read: missing, not UTF-8, malformed or over a cap.

    The message names the file and, where there is one, the line or row. It is an
    :class:`~benchsmith.errors.InputRejectedError`, which is how the tools report a bad
    input; the catalog re-raises it as a ``CatalogError``.
    """


class TableLimitError(TableError):
    """An input is over one of the caps: too large, too wide, or a line too long.

    Attributes:
        limit: The name of the cap (``max_file_bytes``, ``max_columns``,
            ``max_line_bytes``), so a caller can say how to raise it.
    """

    def __init__(self, message: str, *, limit: str) -> None:
        """Keep the message and the name of the cap."""
        super().__init__(message)
        self.limit = limit


class FileLimits(Protocol):
    """What :func:`read_table` needs of the tools' ``Limits``: the largest input file."""

    @property
    def max_file_bytes(self) -> int:
        """Largest input file, in bytes."""
        ...


# -- the cell grammar ---------------------------------------------------------------------------
def parse_csv_value(text: str) -> int | float | bool | str | None:
    """A CSV cell as a value, by the grammar in this module's docstring.

    Args:
        text: The cell's text, exactly as the CSV parser gives it.

    Returns:
        None for a missing cell (:data:`MISSING_CSV`), an int, a finite float, a bool, or
        else the text unchanged. ``"+5"`` is 5, ``"nan"`` is None, ``"inf"`` and ``"007"``
        stay text.
    """
    if text in MISSING_CSV:
        return None
    if _INT_RE.fullmatch(text):
        number = int(text)
        return number if _INT64_MIN <= number <= _INT64_MAX else text
    if _FLOAT_RE.fullmatch(text):
        value = float(text)
        return value if math.isfinite(value) else text
    flag = _BOOLS.get(text.lower())
    return text if flag is None else flag


def cell_kind(value: Any) -> CellKind | None:
    """The kind of a value :func:`parse_csv_value` returned; None for a missing cell.

    Args:
        value: A parsed cell.

    Returns:
        ``"int"``, ``"float"``, ``"bool"``, ``"str"``, or None when the value is None.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def column_kind(kinds: Iterable[str]) -> CellKind:
    """The type of a CSV column from the kinds of its non-missing cells.

    Args:
        kinds: The kinds (as :func:`cell_kind` names them) of the column's non-missing cells,
            in any order and with repeats; missing cells are left out.

    Returns:
        ``"int"`` when all are integers, ``"float"`` when all are integers or numbers,
        ``"bool"`` when all are booleans, else ``"str"`` (also for no cells at all).
    """
    seen = set(kinds)
    if not seen:
        return "str"
    if seen <= {"int"}:
        return "int"
    if seen <= {"int", "float"}:
        return "float"
    if seen == {"bool"}:
        return "bool"
    return "str"


def convert_csv_value(text: str, kind: str) -> Any:
    """A CSV cell read as a cell of a column of type ``kind`` (see :func:`column_kind`).

    Args:
        text: The cell's text, exactly as the CSV parser gives it.
        kind: The column's type: ``"int"``, ``"float"``, ``"bool"`` or ``"str"``.

    Returns:
        The text unchanged in a ``str`` column; else None for a missing cell, the value
        (an int widened to float in a ``float`` column), or the text unchanged when the cell
        does not fit the column (a row after the ones a column was typed from).
    """
    if kind == "str":
        return text
    value = parse_csv_value(text)
    found = cell_kind(value)
    if found is None:
        return None
    if found == kind:
        return value
    if kind == "float" and found == "int":
        return float(value)  # type: ignore[arg-type]
    return text


def infer_column(texts: list[str]) -> tuple[CellKind, list[Any]]:
    """The type of a whole CSV column and its cells read as that type.

    Args:
        texts: Every cell of the column, as written.

    Returns:
        The column's type (:func:`column_kind`) and its values (:func:`convert_csv_value`);
        for a text column, ``texts`` itself.
    """
    values: list[Any] = []
    append = values.append
    types: set[type] = set()
    for text in texts:
        value = parse_csv_value(text)
        if type(value) is str:
            return "str", texts  # one text cell makes the column text: stop looking
        types.add(type(value))
        append(value)
    kind = column_kind(_TYPE_KINDS[t] for t in types if t in _TYPE_KINDS)
    if kind == "str":
        return "str", texts
    if kind == "float":
        return kind, [None if v is None else float(v) for v in values]
    return kind, values


# -- lines and delimiters -----------------------------------------------------------------------
def data_suffix(path: str | os.PathLike[str]) -> str:
    """The data suffix of a file, ignoring ``.gz`` (``a.jsonl.gz`` -> ``.jsonl``).

    Args:
        path: A file path.

    Returns:
        The lower-case suffix with its dot, or ``""``.
    """
    name = os.path.basename(os.fspath(path)).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return os.path.splitext(name)[1]


def _name(path: str | os.PathLike[str], name: str | None) -> str:
    return str(path) if name is None else name


def open_binary(path: str | os.PathLike[str], *, name: str | None = None) -> IO[bytes]:
    """Open a (possibly gzipped) file for reading bytes.

    Args:
        path: The file; a name ending in ``.gz`` is decompressed.
        name: How messages name the file (default: the path).

    Returns:
        The open binary handle.

    Raises:
        TableError: The file does not exist or cannot be opened.
    """
    try:
        if os.fspath(path).lower().endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except FileNotFoundError as exc:
        raise TableError(f"{_name(path, name)}: no such file") from exc
    except OSError as exc:
        raise TableError(f"{_name(path, name)}: cannot be opened ({exc.strerror or exc})") from exc


def binary_lines(
    handle: IO[bytes],
    shown: str,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_bytes: int | None = None,
) -> Iterator[bytes]:
    """The lines of an open binary file, endings kept, none longer than ``max_line_bytes``.

    Each line is read with a bounded ``readline``, so memory stays within the cap whatever
    the file holds (a gigabyte without a line break is refused after ``max_line_bytes``).

    Args:
        handle: The open file (plain or gzip).
        shown: How messages name the file.
        max_line_bytes: Longest line, in bytes with its ending.
        max_bytes: Most bytes read in all (a ``.gz`` file's uncompressed size); None: any.

    Yields:
        Each line as bytes.

    Raises:
        TableLimitError: A line is over ``max_line_bytes``, or the data over ``max_bytes``.
    """
    readline = handle.readline
    line_no = 0
    total = 0
    while True:
        raw = readline(max_line_bytes + 1)
        if not raw:
            return
        line_no += 1
        if len(raw) > max_line_bytes:
            raise TableLimitError(
                f"{shown}: line {line_no} is longer than {max_line_bytes} bytes, the longest "
                "line read (it was not loaded)",
                limit="max_line_bytes",
            )
        total += len(raw)
        if max_bytes is not None and total > max_bytes:
            raise TableLimitError(
                f"{shown}: more than {max_bytes} bytes of data (line {line_no}; a compressed "
                "file counts uncompressed), over the file size limit",
                limit="max_file_bytes",
            )
        yield raw


def read_lines(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_bytes: int | None = None,
) -> Iterator[tuple[int, str]]:
    """(line number, line) pairs of a UTF-8 text file, line endings kept, a BOM dropped.

    Lines are decoded one by one, so a byte that is not UTF-8 is reported on its own line,
    and read in bounded pieces (:func:`binary_lines`), so no line over ``max_line_bytes`` is
    ever held in memory.

    Args:
        path: The file (``.gz`` is read transparently).
        name: How messages name the file (default: the path).
        max_line_bytes: Longest line, in bytes with its ending.
        max_bytes: Most bytes read in all (uncompressed); None: any.

    Yields:
        ``(line number, text)``, counting from 1.

    Raises:
        TableError: The file cannot be opened, a line is not valid UTF-8, or a ``.gz`` file
            is truncated.
        TableLimitError: A line is too long, or the data too large.
    """
    shown = _name(path, name)
    line_no = 0
    with open_binary(path, name=name) as handle:
        try:
            for raw in binary_lines(
                handle, shown, max_line_bytes=max_line_bytes, max_bytes=max_bytes
            ):
                line_no += 1
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise TableError(
                        f"{shown}: line {line_no}: not valid UTF-8 ({exc.reason} at "
                        f"byte {exc.start + 1} of the line); re-save the file as UTF-8"
                    ) from exc
                if line_no == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield line_no, text
        except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
            raise TableError(f"{shown}: line {line_no + 1}: cannot be read ({exc})") from exc


def sniff_delimiter(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> str:
    """The delimiter of a CSV/TSV file.

    Tab for a ``.tsv`` file; else the one of :data:`DELIMITERS` found most often outside
    quoted text in the first non-blank line (comma on a tie, and when none is found).

    Args:
        path: The CSV or TSV file.
        name: How messages name the file (default: the path).
        max_line_bytes: Longest line read (:func:`read_lines`).

    Returns:
        The delimiter character.

    Raises:
        TableError: The file cannot be opened or its first lines are not UTF-8 or too long.
    """
    if data_suffix(path) == ".tsv":
        return "\t"
    lines = read_lines(path, name=name, max_line_bytes=max_line_bytes)
    try:
        first = next((line for _, line in lines if line.strip()), "")
    finally:
        lines.close()
    bare = _QUOTED_RE.sub("", first)
    counts = {d: bare.count(d) for d in DELIMITERS}
    best = max(counts, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


# -- CSV rows -----------------------------------------------------------------------------------
def iter_csv(
    path: str | os.PathLike[str],
    *,
    delimiter: str | None = None,
    skip: int = 0,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_columns: int | None = None,
    max_bytes: int | None = None,
) -> Iterator[tuple[int, int, list[str]]]:
    """The header and then every data row of a CSV file, cells as text.

    Blank lines are skipped; header names are stripped of surrounding spaces. Cells are
    left exactly as written: read them with :func:`parse_csv_value`, or type whole columns
    with :func:`infer_column` / :func:`convert_csv_value`.

    Args:
        path: The CSV/TSV file (``.gz`` is read transparently).
        delimiter: The delimiter; default: :func:`sniff_delimiter`.
        skip: Data rows to pass over first (they are still checked for their width).
        name: How messages name the file (default: the path).
        max_line_bytes: Longest row, in bytes: one line, or all the lines of a row whose
            quoted cell runs over several (an unclosed quote is refused at this size).
        max_columns: Most columns; checked on the header, before any row is read. None:
            any number (the tools check theirs in :func:`read_table`).
        max_bytes: Most bytes read in all (uncompressed); None: any.

    Yields:
        First ``(0, line, header)``, then ``(row number, line, cells)`` for each data row;
        row 1 is the first data row, ``line`` the line the row ends on.

    Raises:
        TableError: No header, an empty or repeated column name, a row with more or fewer
            fields than the header, a CSV syntax error or a line that is not UTF-8, each
            naming the row and the line.
        TableLimitError: Too many columns, a row too long, or too much data.
    """
    shown = _name(path, name)
    if delimiter is None:
        delimiter = sniff_delimiter(path, name=name, max_line_bytes=max_line_bytes)
    source = read_lines(path, name=name, max_line_bytes=max_line_bytes, max_bytes=max_bytes)
    pending = [0, 0]  # characters of the row being read, and the line it started on

    def lines() -> Iterator[str]:
        # csv.reader pulls one line at a time and never reads ahead, so what was pulled
        # since the last row is the row being read: cap it (a quote left open would
        # otherwise gather the rest of the file into one cell).
        for line_no, line in source:
            if not pending[0]:
                pending[1] = line_no
            pending[0] += len(line)
            if pending[0] > max_line_bytes:
                raise TableLimitError(
                    f"{shown}: line {line_no}: the row that starts on line {pending[1]} is "
                    f"longer than {max_line_bytes} bytes, the longest line read (a quote "
                    "left open?)",
                    limit="max_line_bytes",
                )
            yield line

    reader = csv.reader(lines(), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
        while header is not None and not header:
            header = next(reader, None)
        if header is None:
            raise TableError(f"{shown}: empty file; a CSV needs a header row")
        pending[0] = 0
        if max_columns is not None and len(header) > max_columns:
            raise TableLimitError(
                f"{shown}: {len(header)} columns, more than the {max_columns}-column limit",
                limit="max_columns",
            )
        header = [h.strip() for h in header]
        blank = [i + 1 for i, h in enumerate(header) if not h]
        if blank:
            raise TableError(
                f"{shown}: line {reader.line_num}: header column {blank[0]} has no name"
            )
        dupes = sorted(h for h, n in Counter(header).items() if n > 1)
        if dupes:
            raise TableError(
                f"{shown}: line {reader.line_num}: repeated column name(s) in the header: "
                f"{', '.join(dupes)}"
            )
        yield 0, reader.line_num, header
        width = len(header)
        row_no = 0
        for row in reader:
            pending[0] = 0
            if not row:
                continue
            row_no += 1
            if len(row) != width:
                raise TableError(
                    f"{shown}: row {row_no} (line {reader.line_num}) has {len(row)} "
                    f"field{'s' if len(row) != 1 else ''} where the header has {width}"
                )
            if row_no > skip:
                yield row_no, reader.line_num, row
    except csv.Error as exc:
        raise TableError(f"{shown}: line {reader.line_num}: CSV syntax error ({exc})") from exc
    finally:
        source.close()


def csv_header(
    path: str | os.PathLike[str],
    delimiter: str | None = None,
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_columns: int | None = None,
) -> list[str]:
    """The column names of a CSV file (checked as :func:`iter_csv` checks them).

    Args:
        path: The CSV/TSV file.
        delimiter: The delimiter; default: :func:`sniff_delimiter`.
        name: How messages name the file (default: the path).
        max_line_bytes: Longest header row (:func:`iter_csv`).
        max_columns: Most columns (:func:`iter_csv`).

    Returns:
        The header's names, stripped.

    Raises:
        TableError: As :func:`iter_csv`, for the header.
    """
    rows = iter_csv(
        path, delimiter=delimiter, name=name, max_line_bytes=max_line_bytes,
        max_columns=max_columns,
    )  # fmt: skip
    try:
        return next(rows)[2]
    finally:
        rows.close()


# -- Arrow tables (the tools) -------------------------------------------------------------------
def table_format(path: Path) -> str:
    """``csv``, ``jsonl`` or ``parquet`` from a table file's suffix.

    Args:
        path: The table file.

    Returns:
        The format name.

    Raises:
        TableError: Not a table suffix.
    """
    fmt = TABLE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise TableError(
            f"input {path.name!r}: unknown table type; use one of {sorted(TABLE_FORMATS)}"
        )
    return fmt


def _check_names(shown: str, names: list[str]) -> None:
    if not names:
        raise TableError(f"{shown} has no columns")
    if len(names) > MAX_TABLE_COLUMNS:
        raise TableError(f"{shown} has {len(names)} columns, over the {MAX_TABLE_COLUMNS} limit")
    seen: set[str] = set()
    dupes = sorted({n for n in names if n in seen or seen.add(n)})  # type: ignore[func-returns-value]
    if dupes:
        raise TableError(f"{shown}: column names must be unique; repeated: {dupes}")


def _too_many_rows(shown: str, where: str) -> TableError:
    return TableError(f"{shown} has more than {MAX_TABLE_ROWS} rows ({where}); split it first")


def _read_csv(path: Path, shown: str, infer: bool) -> pa.Table:
    import pyarrow as pa

    arrow_types = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    rows = iter_csv(path, name=shown)
    try:
        _, _, names = next(rows)
        _check_names(shown, names)
        columns: list[list[str]] = [[] for _ in names]
        for row_no, line_no, cells in rows:
            if row_no > MAX_TABLE_ROWS:
                raise _too_many_rows(shown, f"line {line_no}")
            for column, value in zip(columns, cells, strict=True):
                column.append(value)
    finally:
        rows.close()
    arrays = []
    for texts in columns:
        array = pa.array(texts, type=pa.string())
        if infer and not _surely_text(texts[:1000]):
            # The grammar runs once per distinct text; the typed values are then spread back
            # over the rows (the same column as typing every cell, much faster).
            encoded = array.dictionary_encode()
            kind, values = infer_column(encoded.dictionary.to_pylist())
            if kind != "str":
                array = pa.array(values, type=arrow_types[kind]).take(encoded.indices)
        arrays.append(array)
    return pa.Table.from_arrays(arrays, names=names)


def _surely_text(texts: list[str]) -> bool:
    """Whether some of a column's cells already make it text, whatever the other cells are."""
    kinds = {cell_kind(parse_csv_value(t)) for t in texts} - {None}
    return bool(kinds) and column_kind(kinds) == "str"


def json_kind(value: Any) -> str:
    """The JSON name of a parsed JSON value's type: null, boolean, number, string, array, object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def json_kind_phrase(value: Any) -> str:
    """A parsed JSON value's type as a message names it: "null", "a number", "an array"."""
    kind = json_kind(value)
    if kind == "null":
        return kind
    return f"{'an' if kind in ('array', 'object') else 'a'} {kind}"


def json_depth_over(value: Any, max_depth: int) -> bool:
    """Whether objects and arrays nest in ``value`` more than ``max_depth`` levels.

    A scalar is level 0, ``{"a": 1}`` level 1, ``{"a": [1]}`` level 2. The walk is
    iterative (no recursion, whatever the depth) and stops at the first level too deep.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def json_object_line(
    text: str, shown: str, line_no: int, max_depth: int | None = None
) -> dict[str, Any]:
    """The record on one line of a JSON Lines file.

    Every JSON Lines reader parses its lines here (the catalog's and :func:`read_table`), so
    a bad line is refused the same way wherever it is read, named ``<shown>: line <n>`` as
    :func:`read_lines` names a line that is not UTF-8.

    Args:
        text: The line.
        shown: How an error names the file.
        line_no: The line's number, from 1.
        max_depth: Most levels objects and arrays may nest (None: what the parser reads).

    Raises:
        TableError: Not JSON, JSON but not an object, or nested deeper than the parser goes.
        TableLimitError: Nested more than ``max_depth`` levels (the cap ``max_json_depth``).
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(
            f"{shown}: line {line_no}: bad JSON ({exc.msg} at column {exc.colno}); each line "
            "must hold one JSON object"
        ) from exc
    except RecursionError as exc:  # deeper than the parser goes (any cap is below it)
        raise _too_deep(f"{shown}: line {line_no}", max_depth) from exc
    # Only a line with more brackets than the cap can nest past it: skip the walk otherwise.
    if (
        max_depth is not None
        and text.count("{") + text.count("[") > max_depth
        and json_depth_over(value, max_depth)
    ):
        raise _too_deep(f"{shown}: line {line_no}", max_depth)
    if not isinstance(value, dict):
        raise TableError(
            f"{shown}: line {line_no}: {json_kind_phrase(value)}, not a JSON object; each line "
            'must hold one JSON object such as {"text": ..., "label": ...}'
        )
    return value


def _too_deep(place: str, max_depth: int | None) -> TableError:
    if max_depth is None:
        return TableError(f"{place}: a record nested deeper than the JSON parser reads")
    return TableLimitError(
        f"{place}: a record nested more than {max_depth} levels deep", limit="max_json_depth"
    )


def _read_jsonl(path: Path, shown: str) -> pa.Table:
    import pyarrow as pa

    names: dict[str, None] = {}
    records: list[tuple[int, dict[str, Any]]] = []
    for lineno, text in read_lines(path, name=shown):
        if not text.strip():
            continue
        record = json_object_line(text, shown, lineno)
        if len(records) >= MAX_TABLE_ROWS:
            raise _too_many_rows(shown, f"line {lineno}")
        names.update(dict.fromkeys(record))
        records.append((lineno, record))
    _check_names(shown, list(names))
    arrays = []
    for name in names:
        values = [record.get(name) for _, record in records]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            kinds = [(n, json_kind(r.get(name))) for n, r in records]
            first = next((k for _, k in kinds if k != "null"), "null")
            bad = next(((n, k) for n, k in kinds if k not in (first, "null")), None)
            where = f" but line {bad[0]} has a {bad[1]}" if bad else ""
            raise TableError(
                f"{shown}: column {name!r} mixes value types (the first value is "
                f"a {first}{where}): {exc}"
            ) from exc
    return pa.Table.from_arrays(arrays, names=list(names))


def _read_parquet(path: Path, shown: str) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        if handle.metadata.num_rows > MAX_TABLE_ROWS:
            raise _too_many_rows(shown, f"it declares {handle.metadata.num_rows}")
        table = handle.read()
    except (pa.ArrowException, OSError) as exc:
        raise TableError(f"{shown} is not a readable Parquet file: {exc}") from exc
    _check_names(shown, table.column_names)
    return table


def read_table(
    path: str | Path, limits: FileLimits | None = None, *, infer_types: bool = True
) -> pa.Table:
    """Read a csv/tsv, jsonl or parquet file into an Arrow table.

    CSV needs a header row; the delimiter is sniffed (:func:`sniff_delimiter`). With
    ``infer_types`` each column is typed by the module's grammar (:func:`infer_column`):
    int64, float64 or bool when every non-missing cell is one (missing cells become null),
    else text exactly as written. Without it every CSV cell stays text.

    Args:
        path: The table file; its suffix says its format (:data:`TABLE_FORMATS`).
        limits: The caps of the run (its ``max_file_bytes``); None checks no size.
        infer_types: Type the columns of a CSV file (other formats carry their types).

    Returns:
        The table.

    Raises:
        TableError: Missing, too large, over the row or column cap, or malformed (the
            message names the file and the line or row).
    """
    p = Path(path)
    fmt = table_format(p)
    shown = f"input {p.name!r}"
    if limits is not None and p.is_file() and p.stat().st_size > limits.max_file_bytes:
        raise TableError(
            f"input {str(p)!r} is {p.stat().st_size} bytes, over the "
            f"{limits.max_file_bytes}-byte limit"
        )
    if fmt == "csv":
        return _read_csv(p, shown, infer_types)
    if fmt == "jsonl":
        return _read_jsonl(p, shown)
    return _read_parquet(p, shown)


def cell_text(value: Any) -> str:
    """A table value as CSV text: null empty, booleans true/false, nested values as JSON.

    What it writes reads back by :func:`parse_csv_value` as the same value for ints, finite
    floats, booleans and text that the grammar keeps as text.

    Args:
        value: A value of an Arrow table (as ``to_pylist`` gives it) or of a record.

    Returns:
        The cell's text.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float | decimal.Decimal):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, dt.date | dt.time | dt.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, list | dict | tuple):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return str(value)


def _json_default(value: Any) -> Any:
    """JSON for the Arrow values json cannot write itself."""
    if isinstance(value, dt.date | dt.time | dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _iter_rows(table: pa.Table) -> Iterator[dict[str, Any]]:
    for batch in table.to_batches(max_chunksize=65536):
        yield from batch.to_pylist()


def write_table(table: pa.Table, path: Path, fmt: str) -> None:
    """Write a table deterministically (fixed options; no timestamps).

    Args:
        table: The table.
        path: The file to write.
        fmt: ``csv`` (a header row, cells by :func:`cell_text`), ``jsonl`` or ``parquet``.
    """
    import pyarrow.parquet as pq

    if fmt == "parquet":
        pq.write_table(
            table,
            path,
            compression="snappy",
            write_statistics=True,
            use_dictionary=True,
            version="2.6",
            data_page_version="1.0",
            row_group_size=1 << 20,
        )
        return
    names = table.column_names
    with open(path, "w", encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(names)
            for row in _iter_rows(table):
                writer.writerow([cell_text(row[n]) for n in names])
        else:
            for row in _iter_rows(table):
                fh.write(json.dumps(row, ensure_ascii=False, default=_json_default) + "\n")

"""One table reader and one CSV cell grammar (benchsmith.tables) for the catalog and the tools."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith import tables
from benchsmith.catalog import readers
from benchsmith.catalog.errors import CatalogError, CatalogLimitError
from benchsmith.catalog.loaders import iter_records
from benchsmith.catalog.profile import profile_path
from benchsmith.errors import InputRejectedError
from benchsmith.tables import (
    TableError,
    cell_text,
    column_kind,
    convert_csv_value,
    infer_column,
    parse_csv_value,
    read_table,
    sniff_delimiter,
)
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.registry import run_tool

# -- the grammar, cell by cell ------------------------------------------------------------------

GRAMMAR = [
    # numbers
    ("5", 5),
    ("+5", 5),
    ("-5", -5),
    ("0", 0),
    ("-0", 0),
    ("5.0", 5.0),
    ("1e3", 1000.0),
    ("-2.5E-3", -0.0025),
    (".5", 0.5),
    ("5.", 5.0),
    ("0.25", 0.25),
    ("9223372036854775807", 2**63 - 1),
    # missing
    ("", None),
    ("nan", None),
    ("NaN", None),
    ("null", None),
    ("NULL", None),
    # booleans
    ("true", True),
    ("FALSE", False),
    ("True", True),
    # text, exactly as written
    ("inf", "inf"),
    ("-inf", "-inf"),
    ("Infinity", "Infinity"),
    ("1e400", "1e400"),
    ("9223372036854775808", "9223372036854775808"),
    ("0x10", "0x10"),
    (" 7 ", " 7 "),
    ("7\n", "7\n"),
    ("1,000", "1,000"),
    ("1_000", "1_000"),
    ("007", "007"),
    ("02134", "02134"),
    ("01.5", "01.5"),
    ("-007", "-007"),
    ("NA", "NA"),
    ("N/A", "N/A"),
    ("None", "None"),
    ("yes", "yes"),
    ("٣", "٣"),  # a non-ASCII digit is text
]


@pytest.mark.parametrize(("text", "expected"), GRAMMAR)
def test_cell_grammar(text, expected):
    value = parse_csv_value(text)
    assert value == expected
    assert type(value) is type(expected)  # 5 is an int, 5.0 a float, True a bool


def test_every_number_is_finite_and_round_trips_through_cell_text():
    for value in (0, -5, 2**63 - 1, 0.1, -2.5e-3, 1e16, 1e-7, 123456.789, True, False, "007"):
        text = cell_text(value)
        back = parse_csv_value(text)
        assert back == value and type(back) is type(value), text
    for text, _ in GRAMMAR:
        value = parse_csv_value(text)
        assert not (isinstance(value, float) and not math.isfinite(value))


def test_column_kind_and_conversion():
    assert column_kind(["int", "int"]) == "int"
    assert column_kind(["int", "float"]) == "float"
    assert column_kind(["bool"]) == "bool"
    assert column_kind(["bool", "int"]) == "str"
    assert column_kind(["int", "str"]) == "str"
    assert column_kind([]) == "str"  # nothing but missing cells
    assert infer_column(["+5", "nan", "-5", ""]) == ("int", [5, None, -5, None])
    assert infer_column(["1", "2.5", "NULL"]) == ("float", [1.0, 2.5, None])
    assert infer_column(["true", "", "False"]) == ("bool", [True, None, False])
    texts = ["007", "+5", "nan", ""]
    assert infer_column(texts) == ("str", texts)  # a text column keeps every cell as written
    assert infer_column(["", "nan"]) == ("str", ["", "nan"])
    assert convert_csv_value("+5", "int") == 5
    assert convert_csv_value("7", "float") == 7.0 and isinstance(
        convert_csv_value("7", "float"), float
    )
    assert convert_csv_value("nan", "float") is None
    assert convert_csv_value("nan", "str") == "nan"
    assert convert_csv_value("oops", "int") == "oops"  # a late row that does not fit: as written
    assert convert_csv_value("1.5", "int") == "1.5"


def test_sniff_delimiter(tmp_path):
    cases = {
        "semi.csv": "a;b;c\n1;2;3\n",
        "pipe.csv": "a|b\n1|2\n",
        "tab.csv": "a\tb\n1\t2\n",
        "comma.csv": "a,b\n1,2\n",
        "quoted.csv": 'id,"a;b;c"\n1,2\n',  # delimiters inside quotes do not count
        "one.csv": "only\n1\n",
        "t.tsv": "a,b,c\n",  # .tsv is tab whatever the first line holds
    }
    expected = {"semi.csv": ";", "pipe.csv": "|", "tab.csv": "\t", "comma.csv": ",",
                "quoted.csv": ",", "one.csv": ",", "t.tsv": "\t"}  # fmt: skip
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert sniff_delimiter(tmp_path / name) == expected[name], name
        if name.endswith(".csv"):
            assert readers.sniff_delimiter(tmp_path / name) == expected[name], name


# -- the catalog and the tools read the same CSV alike ------------------------------------------

CROSS_CSV = (
    "id,code,score,ratio,flag,note\n"
    "1,007,+5,nan,true,+5\n"
    "2,010,5,1.5,false,nan\n"
    "3,02134,-5,,TRUE,007\n"
)
CROSS_ROWS = [
    {"id": 1, "code": "007", "score": 5, "ratio": None, "flag": True, "note": "+5"},
    {"id": 2, "code": "010", "score": 5, "ratio": 1.5, "flag": False, "note": "nan"},
    {"id": 3, "code": "02134", "score": -5, "ratio": None, "flag": True, "note": "007"},
]


def _typed(rows):
    """Rows with each value's type beside it, so 5 and 5.0 (or 1 and True) differ."""
    return [{k: (type(v).__name__, v) for k, v in row.items()} for row in rows]


def test_catalog_and_tools_read_one_csv_alike(tmp_path):
    src = tmp_path / "mixed.csv"
    src.write_text(CROSS_CSV, encoding="utf-8")

    # The catalog: profile, then load through the card (benchsmith.catalog.readers).
    card = profile_path(src)
    assert card.loader.options["types"] == {
        "id": "int", "code": "str", "score": "int", "ratio": "float", "flag": "bool",
        "note": "str",
    }  # fmt: skip
    catalog_rows = list(iter_records(card))
    # ... and cell by cell, as the readers give a CSV without profiled types.
    cells = [row for _, row in readers.iter_data_file(src, "csv")]
    assert [(r["code"], r["score"], r["ratio"]) for r in cells] == [
        ("007", 5, None),
        ("010", 5, 1.5),
        ("02134", -5, None),
    ]

    # The tools: read_table, and the convert_table tool's written output.
    table = read_table(src, Limits())
    assert [str(t) for t in table.schema.types] == [
        "int64", "string", "int64", "double", "bool", "string",
    ]  # fmt: skip
    ctx = ToolContext(media_dir=tmp_path / "media", seed=0)
    result = run_tool("convert_table", {"format": "jsonl"}, [src], ctx)
    assert result.provenance.measured["types"] == [str(t) for t in table.schema.types]
    written = ctx.media_dir / Path(result.provenance.outputs[0].path).name
    tool_rows = [json.loads(line) for line in written.read_text(encoding="utf-8").splitlines()]

    assert _typed(catalog_rows) == _typed(table.to_pylist()) == _typed(tool_rows)
    assert _typed(catalog_rows) == _typed(CROSS_ROWS)


def test_catalog_and_tools_share_the_grammar_and_the_reader():
    from benchsmith.tools import convert

    assert readers.parse_csv_value is tables.parse_csv_value
    assert convert.read_table is tables.read_table
    assert convert.cell_text is tables.cell_text


def test_tables_is_a_leaf_and_transform_does_not_import_convert():
    code = (
        "import sys\n"
        "import benchsmith.tables\n"
        "leaf = sorted(m for m in sys.modules if m.startswith('benchsmith'))\n"
        "print(leaf, 'pyarrow' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    assert out == ["['benchsmith', 'benchsmith.errors', 'benchsmith.tables'] False"]
    # Importing a tool module imports the tool package (which registers every tool), so the
    # circle transform -> convert is checked in the import graph, lazy imports included.
    from test_imports import import_graph

    graph = import_graph()
    assert "benchsmith.tables" in graph["benchsmith.tools.transform"]
    assert "benchsmith.tools.convert" not in graph["benchsmith.tools.transform"]


def test_one_csv_error_for_both(tmp_path):
    short = tmp_path / "short.csv"
    short.write_text("a,b\n1,2\n3\n", encoding="utf-8")
    reason = re.escape("row 2 (line 3) has 1 field where the header has 2")
    with pytest.raises(CatalogError, match=rf"short\.csv: {reason}"):
        profile_path(short)
    with pytest.raises(TableError, match=rf"input 'short\.csv': {reason}"):
        read_table(short)
    with pytest.raises(InputRejectedError, match=reason):
        run_tool("convert_table", {"format": "jsonl"}, [short], ToolContext(tmp_path / "m"))


def test_tools_now_sniff_the_delimiter_and_strip_header_names(tmp_path):
    src = tmp_path / "semi.csv"
    src.write_text(" a ;b\n1;2\n", encoding="utf-8")
    assert read_table(src).to_pylist() == [{"a": 1, "b": 2}]
    assert [r for _, r in readers.iter_data_file(src, "csv")] == [{"a": 1, "b": 2}]


def test_read_table_size_cap_and_missing_file(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(TableError, match="over the 3-byte limit"):
        read_table(src, Limits(max_file_bytes=3))
    with pytest.raises(TableError, match="no such file"):
        read_table(tmp_path / "gone.csv")


def test_read_table_types_every_column_as_infer_column_does(tmp_path):
    # Long enough that a column's first cells do not decide it (read_table looks at the
    # distinct texts; the result must be what typing every cell in order gives).
    n = 1500
    columns = {
        "late_text": [str(i) for i in range(n)] + ["x"],
        "late_int": [""] * n + ["+7"],
        "late_float": ["1"] * n + ["2.5"],
        "bools": ["true", "FALSE", "nan"] * (n // 3) + ["True"],
        "codes": ["1"] * n + ["007"],
    }
    src = tmp_path / "long.csv"
    rows = zip(*columns.values(), strict=True)
    src.write_text(
        ",".join(columns) + "\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8"
    )
    table = read_table(src)
    for name, texts in columns.items():
        kind, values = infer_column(texts)
        assert table.column(name).to_pylist() == values, name
        assert str(table.schema.field(name).type) == {
            "int": "int64", "float": "double", "bool": "bool", "str": "string",
        }[kind]  # fmt: skip
    assert table.column("late_text").to_pylist()[-2:] == [str(n - 1), "x"]
    assert table.column("late_int").to_pylist()[-1] == 7


def test_every_json_lines_reader_refuses_a_bad_line_the_same_way(tmp_path):
    # One parser of a JSON Lines record (tables.json_object_line) behind read_table and the
    # catalog: the same line is refused with the same words, each naming its own place.
    deep = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON parser goes
    for n, (line, said) in enumerate(
        [
            (
                '{"a": 3,}',
                "bad JSON (Expecting property name enclosed in double quotes at column 9)",
            ),
            ("[1, 2]", "an array, not a JSON object"),
            ('"text"', "a string, not a JSON object"),
            (deep, "a record nested deeper than the JSON parser reads"),
        ]
    ):
        src = tmp_path / f"bad{n}.jsonl"
        src.write_text('{"a": 1}\n\n' + line + "\n", encoding="utf-8")
        with pytest.raises(TableError) as table_error:
            read_table(src)
        assert f"input 'bad{n}.jsonl': line 3: {said}" in str(table_error.value)
        with pytest.raises(CatalogError) as catalog_error:
            list(readers.iter_jsonl(src))
        if line is deep:  # the catalog's own depth cap is met first, and named as a cap
            assert isinstance(catalog_error.value, CatalogLimitError)
            assert catalog_error.value.limit == "max_json_depth"
            assert f"bad{n}.jsonl: line 3: a record nested more than" in str(catalog_error.value)
        else:
            assert f"bad{n}.jsonl: line 3: {said}" in str(catalog_error.value)

"""The one reader of ``data/test.jsonl`` and the errors each caller names."""

from __future__ import annotations

import pytest

from benchsmith.errors import ExportError
from benchsmith.layout import FolderError, data_path, item_lines, json_lines
from benchsmith.package.hf_export import data_lines


def _write(folder, text: str):
    path = data_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_lines_are_numbered_in_the_file_and_blank_ones_skipped(tmp_path):
    path = _write(tmp_path, '{"id": "a"}\n\n  \n{"id": "b", "big": 123456789012345678901}\n')
    rows = list(json_lines(path))
    assert [n for n, _ in rows] == [1, 4]
    assert rows[1][1]["big"] == 123456789012345678901  # an integer beyond 64 bits stays exact
    assert list(item_lines(tmp_path)) == rows == list(data_lines(path))


def test_a_bad_line_is_named_with_its_number_by_both_callers(tmp_path):
    path = _write(tmp_path, '{"id": "a"}\n{"id": \n')
    with pytest.raises(FolderError, match=r"test.jsonl:2: not a JSON line"):
        list(item_lines(tmp_path))
    with pytest.raises(ExportError, match=r"test.jsonl:2: not a JSON line") as caught:
        list(data_lines(path))
    assert isinstance(caught.value.__cause__, FolderError)


def test_missing_file_messages_tell_what_to_do(tmp_path):
    with pytest.raises(FolderError, match="is .* a benchmark folder"):
        list(item_lines(tmp_path))
    with pytest.raises(ExportError, match="write the items before exporting them"):
        list(data_lines(data_path(tmp_path)))


def test_item_lines_refuses_a_line_that_is_not_an_object(tmp_path):
    _write(tmp_path, '{"id": "a"}\n[1, 2]\n')
    with pytest.raises(FolderError, match=r"test.jsonl:2: not an item"):
        list(item_lines(tmp_path))
    assert [n for n, _ in data_lines(data_path(tmp_path))] == [1, 2]  # the export checks items


def test_a_line_that_is_not_an_item_is_named_by_both_readers(tmp_path):
    from benchsmith.layout import read_items
    from benchsmith.package.hf_export import read_records

    path = _write(tmp_path, '{"id": "a"}\n')
    with pytest.raises(FolderError, match=r"test.jsonl:1: not an item \(.+\)"):
        read_items(tmp_path)
    with pytest.raises(ExportError, match=r"test.jsonl:1: not an item \(.+\)"):
        list(read_records(path))

"""The atomic writers publish files with the usual mode, not mkstemp's owner-only 0600."""

from __future__ import annotations

import os
import stat

from benchsmith import files


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_umask_mode_and_a_replaced_one_keeps_its_mode(tmp_path):
    card = files.atomic_write(tmp_path / "README.md", "# card\n")
    assert mode(card) == 0o666 & ~files._UMASK  # 0644 under the usual umask, not 0600
    os.chmod(card, 0o640)
    files.atomic_write(card, "# card, rewritten\n")
    assert mode(card) == 0o640 and card.read_text() == "# card, rewritten\n"


def test_a_hashed_file_gets_the_umask_mode(tmp_path):
    with files.atomic_hashed_path(tmp_path / "hf", "test", ".parquet") as out:
        out.tmp.write_bytes(b"rows")
    assert out.path is not None and out.path.name.startswith("test-")
    assert mode(out.path) == 0o666 & ~files._UMASK


def test_fsync_can_be_skipped_for_files_readers_check(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    files.atomic_write(tmp_path / "a.json", "{}\n")
    assert len(synced) == 1
    entry = files.atomic_write(tmp_path / "cache" / "b.json", "{}\n", fsync=False)
    assert len(synced) == 1 and entry.read_text() == "{}\n"
    assert [p.name for p in entry.parent.iterdir()] == ["b.json"]  # no temporary file left


def test_parse_json_gives_what_json_loads_gives():
    import json

    texts = [
        '{"seed": 6131639559268546750, "t": 1796239580.946, "x": [1, 2.5, "é"], "n": null}',
        "18446744073709551615",  # the largest integer orjson reads exactly
        "123456789012345678901234567890",  # beyond 64 bits: orjson would give a float
        "-9223372036854775809",  # one below the smallest 64-bit integer
        '{"a": NaN, "b": -Infinity}',  # not JSON, but json reads it
        "1e400",  # beyond a double: json gives inf, orjson refuses
        '"\\ud800"',  # a lone surrogate escape
        '{"a": 1, "a": 2}',
    ]
    for text in texts:
        for given in (text, text.encode("utf-8")):
            got, want = files.parse_json(given), json.loads(text)
            assert repr(got) == repr(want) and type(got) is type(want), text
    # Bytes that are not UTF-8 are read with replacement characters, as the ledger did.
    assert files.parse_json(b'{"x": "\xff"}') == {"x": "\ufffd"}
    for bad in ("{bad", b"", '{"a": 1'):
        try:
            files.parse_json(bad)
        except json.JSONDecodeError:
            pass
        else:
            raise AssertionError(f"{bad!r} parsed")


def test_json_line_is_compact_strict_json_and_refuses_what_json_refuses():
    import json

    value = {"id": "x-1", "choices": ["Zürich", "東京"], "n": 2**70, "ok": True, "f": 0.1}
    line = files.json_line(value)
    assert "\n" not in line and ", " not in line and "Zürich" in line
    assert json.loads(line) == value
    assert list(json.loads(line)) == list(value)  # keys keep their order
    assert files.json_line({1: "a"}) == '{"1":"a"}'  # keys json turns into strings
    # A non-finite float is null: strict readers refuse NaN.
    assert files.json_line({"x": float("nan"), "y": float("inf")}) == '{"x":null,"y":null}'
    try:
        files.json_line({"x": object()})
    except TypeError:
        pass
    else:
        raise AssertionError("an object json cannot write was written")


def test_the_ledger_keeps_an_entry_whose_text_holds_a_unicode_line_separator(tmp_path):
    """Lines are split on newlines only: U+2028 and U+0085 are text inside a JSON string."""
    from benchsmith.item import Item
    from benchsmith.ledger import Ledger

    ledger = Ledger(tmp_path)
    slot = {"id": "s1", "grounding_id": "g", "subtask_id": "t", "record_index": 0}
    text = "Line one\u2028line two\x85and three?"
    ledger.accept(slot, Item(id="i1", input=text, target="A", choices=["x", "y"]))
    ledger.reject({**slot, "id": "s2", "record_index": 1}, "bad\u2029record")
    reopened = Ledger(tmp_path)
    assert sorted(reopened.done_ids()) == ["s1", "s2"]
    assert [item.input for item in reopened.accepted_items()] == [text]

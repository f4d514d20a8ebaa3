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

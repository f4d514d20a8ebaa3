"""The reader model's weights: joined once from fake parts, checked, and served by spec."""

import hashlib
import json
import threading

import pytest

import benchsmith.doctor as doctor
import benchsmith.llm.local as local
from benchsmith.cli import main
from benchsmith.errors import LocalModelError
from benchsmith.llm import reader_model
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.reader_model import SplitGGUF, assembly_state, reader_model_path
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import READER_MODEL_NAME, ROLES, parse_model_spec

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"second part " * 50, b"last"]


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """Three fake parts standing in for the 22 packages, and a home of the test's own."""
    folder = tmp_path / "site"
    folder.mkdir()
    files = {}
    for number, chunk in enumerate(CHUNKS, start=1):
        path = folder / f"part{number:02d}.bin"
        path.write_bytes(chunk)
        files[f"fake-model-part{number}"] = path
    whole = b"".join(CHUNKS)
    fake = SplitGGUF(
        title="Fake Reader Q4",
        filename="fake-reader.gguf",
        packages=tuple(files),
        version="0.2.0",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )
    monkeypatch.setattr(reader_model, "READER", fake)
    monkeypatch.setattr(reader_model, "part_path", lambda package, number: files.get(package))
    monkeypatch.setattr(reader_model, "installed_version", lambda package: "0.2.0")
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    return {"files": files, "whole": whole, "model": fake, "models": tmp_path / "home" / "models"}


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_parts_are_joined_in_order_into_the_home_and_verified(parts):
    path = reader_model_path()
    assert path == parts["models"] / "fake-reader.gguf"
    assert path.read_bytes() == parts["whole"]
    marker = parts["models"] / "fake-reader.gguf.sha256"
    assert marker.read_text().strip() == parts["model"].sha256
    assert _leftovers(parts["models"]) == []
    state = assembly_state()
    assert state.ready and state.size == len(parts["whole"]) and state.missing == ()


def test_a_second_call_reads_neither_parts_nor_bytes(parts, monkeypatch):
    path = reader_model_path()
    before = path.stat()

    def refuse(*args, **kwargs):
        raise AssertionError("joined or hashed again")

    monkeypatch.setattr(reader_model, "_join", refuse)
    monkeypatch.setattr(reader_model, "_sha256", refuse)
    monkeypatch.setattr(reader_model, "part_path", refuse)
    assert reader_model_path() == path
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_file_without_its_marker_is_hashed_once_not_joined_again(parts, monkeypatch):
    path = reader_model_path()
    (parts["models"] / "fake-reader.gguf.sha256").unlink()  # killed between rename and marker
    monkeypatch.setattr(reader_model, "_join", lambda *a: pytest.fail("joined again"))
    assert reader_model_path() == path
    assert (parts["models"] / "fake-reader.gguf.sha256").is_file()


def test_a_missing_part_names_its_package_and_writes_nothing(parts):
    parts["files"].pop("fake-model-part2")
    with pytest.raises(LocalModelError) as info:
        reader_model_path()
    message = str(info.value)
    assert "fake-model-part2 is not installed" in message
    assert "pip install 'benchsmith[local]'" in message and "make demo" in message
    assert not (parts["models"] / "fake-reader.gguf").exists()
    state = assembly_state()
    assert state.missing == ("fake-model-part2",) and not state.ready


def test_a_checksum_mismatch_names_what_was_expected_and_found(parts, monkeypatch):
    wrong = SplitGGUF(**{**parts["model"].__dict__, "sha256": "0" * 64})
    monkeypatch.setattr(reader_model, "READER", wrong)
    with pytest.raises(LocalModelError) as info:
        reader_model_path()
    message = str(info.value)
    assert f"SHA-256 {parts['model'].sha256}" in message  # found
    assert f"SHA-256 {'0' * 64}" in message  # expected
    assert "fake-model-part1 ... fake-model-part3" in message
    assert "--force-reinstall" in message
    assert not (parts["models"] / "fake-reader.gguf").exists()
    assert not (parts["models"] / "fake-reader.gguf.sha256").exists()
    assert _leftovers(parts["models"]) == []


def test_parts_of_the_wrong_size_fail_before_anything_is_copied(parts, monkeypatch):
    parts["files"]["fake-model-part3"].write_bytes(b"las")
    monkeypatch.setattr(reader_model, "_join", lambda *a: pytest.fail("copied"))
    with pytest.raises(LocalModelError, match=r"hold 1,\d{3} bytes; expected 1,\d{3}"):
        reader_model_path()


def test_a_part_of_another_version_is_named(parts, monkeypatch):
    monkeypatch.setattr(
        reader_model,
        "installed_version",
        lambda package: "0.3.0" if package == "fake-model-part3" else "0.2.0",
    )
    with pytest.raises(LocalModelError, match=r"fake-model-part3 0\.3\.0 is installed.*0\.2\.0"):
        reader_model_path()


def test_two_threads_at_once_join_the_parts_once(parts, monkeypatch):
    joins = []
    join = reader_model._join
    monkeypatch.setattr(reader_model, "_join", lambda *a: joins.append(1) or join(*a))
    barrier = threading.Barrier(2)
    results = []

    def run():
        barrier.wait()
        results.append(reader_model_path())

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(joins) == 1 and len(set(results)) == 1


def test_doctor_and_models_show_the_reader_in_each_state(parts, capsys, monkeypatch):
    monkeypatch.setattr(doctor, "server_available", lambda: True)
    parts["files"].pop("fake-model-part3")
    check = doctor.check_reader_model()
    assert check.status == "missing" and "fake-model-part3" in check.detail
    parts["files"]["fake-model-part3"] = parts["files"]["fake-model-part1"].with_name("part03.bin")
    check = doctor.check_reader_model()
    assert check.status == "info" and "models --prepare" in check.detail

    assert main(["models", "--prepare", "--json"]) == 0
    rows = {row["spec"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"local", "local:reader"}
    reader = rows["local:reader"]
    assert reader["ready"] and reader["state"] == "ready"
    assert reader["path"] == str(parts["models"] / "fake-reader.gguf")
    assert reader["size_bytes"] == len(parts["whole"])
    check = doctor.check_reader_model()
    assert check.status == "ok" and "verified" in check.detail and "local:reader" in check.detail

    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert "embedded models:" in text and "local:reader" in text and "Fake Reader Q4" in text


def test_the_reader_spec_is_served_by_its_own_server(monkeypatch):
    asked = []

    class FakeServer:
        def ensure_started(self):
            return "http://127.0.0.1:9/v1"

    def fake_server(context=8192, model=None):
        asked.append(model)
        return FakeServer()

    monkeypatch.setattr(local, "local_server", fake_server)
    reader = parse_model_spec("local:reader", env={})
    smollm2 = parse_model_spec("local", env={})
    runtime = LLMRuntime(models={r: ResolvedModel(r, reader, "test") for r in ROLES}, env={})
    runtime.chat_model(reader)
    runtime.chat_model(smollm2)
    assert asked == [READER_MODEL_NAME, smollm2.model]


def test_unknown_embedded_names_fail_with_the_known_ones():
    with pytest.raises(LocalModelError, match="no embedded model is named 'nope'"):
        local.embedded_model("nope")
    assert local.embedded_model(READER_MODEL_NAME).spec == "local:reader"

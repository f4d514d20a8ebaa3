"""One exit code per failure family, the same on every path, and documented in --help."""

from __future__ import annotations

import importlib
import json
import pkgutil

import pytest

import benchsmith
from benchsmith.cli import main
from benchsmith.errors import EXIT_CODES, BenchsmithError


def all_error_classes() -> set[type]:
    for info in pkgutil.walk_packages(benchsmith.__path__, "benchsmith."):
        if ".testing" in info.name or info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    found, todo = set(), [BenchsmithError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def test_every_error_family_exits_with_a_documented_code():
    classes = all_error_classes()
    assert len(classes) > 20
    undocumented = {c.__name__: c.exit_code for c in classes if c.exit_code not in EXIT_CODES}
    assert undocumented == {}


def test_input_errors_exit_2_whatever_the_path(tmp_path, capsys):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    bad_csv = tmp_path / "broken.csv"
    bad_csv.write_bytes(b"\x00\x01\x02")
    full = tmp_path / "full"
    full.mkdir()
    (full / "x.txt").write_text("someone's file")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"intent": "x", "size": 1}))
    random_mp3 = tmp_path / "random.mp3"
    random_mp3.write_bytes(b"not audio at all" * 64)
    cases = {
        "missing spec": ["build", "--spec", str(tmp_path / "none.json")],
        "malformed spec": ["build", "--spec", str(bad_json), "--out", str(tmp_path / "o1")],
        "size with spec": ["build", "--spec", str(bad_json), "--size", "5"],
        "occupied folder": ["build", "--spec", str(spec), "--out", str(full)],
        "missing dataset": ["build", "intent", "--dataset", str(tmp_path / "none.csv")],
        "bad tool input": [
            "tools", "run", "audio_gain", "--param", "gain_db=3",
            "--input", str(random_mp3), "--out", str(tmp_path / "t"),
        ],
        "bad catalog file": [
            "catalog", "add", str(bad_csv), "--catalog", str(tmp_path / "cat"),
        ],
        "missing eval folder": ["eval", str(tmp_path / "nothing"), "--model", "baseline:random"],
    }  # fmt: skip
    codes = {}
    for name, argv in cases.items():
        codes[name] = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("benchsmith: error: "), (name, err)
    assert codes == dict.fromkeys(cases, 2)


def test_the_exit_codes_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        benchsmith.cli.cli.main(["--help"], prog_name="benchsmith")
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    for code, what in EXIT_CODES.items():
        assert f"{code} {what}" in lines  # one line each, not rewrapped into a paragraph

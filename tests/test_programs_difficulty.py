"""Predicted difficulty on question-program builds, and ``build --difficulty`` over a table.

Every item carries ``metadata.difficulty_model`` (the program's parameters, a score and a
label); a build with a mix keeps the candidates that follow it and reports the mix asked
for and reached, and where a label fell short; a bad mix is refused naming the input.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from test_programs_library import write_gadgets

from benchsmith.cli import main
from benchsmith.difficulty_mix import apportion, parse_mix


@pytest.fixture
def gadgets(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    return write_gadgets(tmp_path / "gadgets.csv")


SUPERLATIVE = "Which gadget is the heaviest?"
COMPARE = "Which of the two gadgets is heavier? Multiple choice."
COUNT = "From the rows shown in a table, how many gadgets have a price above 30?"


def build(gadgets: Path, out: Path, server, intent: str, *extra: str) -> int:
    # The rules read the intent: the fake server's made-up replies pick no slot of it.
    return main(["build", intent, "--size", "6", "--dataset", str(gadgets), "--out", str(out),
                 "--model", f"fake-model@{server.base_url}", "--programs", "rules", "--quiet",
                 *extra])  # fmt: skip


def items(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]


def test_every_program_item_carries_its_predicted_difficulty(gadgets, tmp_path, fake_server):
    out = tmp_path / "out"
    assert build(gadgets, out, fake_server, SUPERLATIVE) == 0
    for item in items(out):
        meta = item["metadata"]
        model = meta["difficulty_model"]
        assert model["source"] == "generator" and 0 <= model["score"] <= 1
        assert meta["difficulty"] == model["label"]
        params = model["params"]
        assert params["kind"] == "superlative" and params["rows"] == params["k"] == 4
        assert params["options"] == len(item["choices"]) == 4
        assert params["book"] == "closed" and 0 <= params["gap"] <= 1
    report = json.loads((out / "report.json").read_text())
    assert "difficulty_mix" not in report


@pytest.mark.parametrize(
    ("intent", "mix"),
    [(SUPERLATIVE, "medium=0.5,hard=0.5"), (COMPARE, "easy:50%,medium:50%")],
)
def test_a_table_build_follows_the_mix(gadgets, tmp_path, fake_server, intent, mix):
    out = tmp_path / "out"
    assert build(gadgets, out, fake_server, intent, "--difficulty", mix) == 0
    made = items(out)
    got = Counter(i["metadata"]["difficulty"] for i in made)
    wanted = apportion(6, parse_mix(mix))
    for label, n in wanted.items():
        assert abs(got[label] - n) <= 1, (label, got, wanted)
    report = json.loads((out / "report.json").read_text())
    section = report["difficulty_mix"]
    assert section["requested"] == parse_mix(mix)
    assert section["subtasks"]["records-gadgets"]["wanted"] == wanted
    assert section["achieved_counts"] == {k: got[k] for k in wanted}
    assert "## Difficulty mix" in (out / "report.md").read_text()
    # Every item is still the program's, re-executed by the verifier.
    for item in made:
        checks = {v["check"]: v["ok"] for v in item["metadata"]["verification"]["structural"]}
        assert checks["program"] is True


def test_a_label_the_generator_cannot_reach_is_reported(gadgets, tmp_path, fake_server):
    # Counting over at most 8 rows with one condition is never predicted hard: the build
    # keeps its size with the nearest label and says what it could not do.
    out = tmp_path / "out"
    assert build(gadgets, out, fake_server, COUNT, "--difficulty", "medium=0.5,hard=0.5") == 0
    assert len(items(out)) == 6
    report = json.loads((out / "report.json").read_text())
    notes = report["difficulty_mix"]["notes"]
    assert notes == [
        "difficulty mix: records-gadgets: hard 0 of 3 wanted (the generator produced no more)"
    ]
    assert notes[0] in (out / "report.md").read_text()


@pytest.mark.parametrize(
    ("mix", "says"),
    [
        ("easy=0.5,hard=0.6", "'easy=0.5,hard=0.6': the shares sum to 1.1"),
        ("easy=0.5,brutal=0.5", "'easy=0.5,brutal=0.5': unknown label 'brutal'"),
        ("hard", "'hard': 'hard' is not LABEL=SHARE"),
    ],
)
def test_a_bad_mix_is_a_usage_error_naming_the_input(
    gadgets, tmp_path, fake_server, capsys, mix, says
):
    code = build(gadgets, tmp_path / "out", fake_server, COMPARE, "--difficulty", mix)
    err = capsys.readouterr().err
    assert code == 2
    assert "--difficulty" in err and says in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_without_a_mix_a_table_build_is_unchanged(gadgets, tmp_path, fake_server):
    first, second = tmp_path / "first", tmp_path / "second"
    assert build(gadgets, first, fake_server, COMPARE) == 0
    assert build(gadgets, second, fake_server, COMPARE) == 0
    assert (first / "data" / "test.jsonl").read_bytes() == (
        second / "data" / "test.jsonl"
    ).read_bytes()
    assert "difficulty_mix" not in json.loads((first / "report.json").read_text())

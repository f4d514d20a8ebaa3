"""The ``catalog`` click group, through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from catalog_helpers import write_jsonl
from click.testing import CliRunner

from benchsmith.catalog import CatalogError
from benchsmith.catalog.commands import catalog


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def data(tmp_path):
    return write_jsonl(
        tmp_path / "quiz.jsonl",
        [{"question": f"Capital of land {i}?", "answer": f"City {i}"} for i in range(5)],
    )


def run(runner, root, *args):
    result = runner.invoke(catalog, ["--catalog", str(root), *args], catch_exceptions=True)
    return result


def test_add_list_show_search_records_remove(runner, tmp_path, data):
    root = tmp_path / "cat"
    result = run(runner, root, "add", str(data), "--name", "Quiz", "--license", "CC0-1.0")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("added quiz  5 records")

    result = run(runner, root, "list")
    assert "quiz" in result.output and "Quiz" in result.output
    listed = json.loads(run(runner, root, "list", "--json").output)
    assert [c["id"] for c in listed] == ["quiz"]

    shown = run(runner, root, "show", "quiz")
    assert "license: CC0-1.0" in shown.output and "question (text" in shown.output
    card = json.loads(run(runner, root, "show", "quiz", "--json").output)
    assert card["size"] == 5 and card["license"] == "CC0-1.0"

    hits = run(runner, root, "search", "capital", "--json")
    assert json.loads(hits.output)[0]["id"] == "quiz"
    assert "1. quiz" in run(runner, root, "search", "capital").output
    assert "no dataset matches" in run(runner, root, "search", "zebra").output
    assert "no dataset matches" in run(runner, root, "search", "", "--modality", "image").output

    lines = run(runner, root, "records", "quiz", "--limit", "2").output.splitlines()
    assert [json.loads(line)["answer"] for line in lines] == ["City 0", "City 1"]
    assert json.loads(lines[0]) == {"answer": "City 0", "question": "Capital of land 0?"}

    assert run(runner, root, "remove", "quiz").output.strip() == "removed quiz"
    assert "the catalog is empty" in run(runner, root, "list").output


def test_errors_are_catalog_errors_with_one_line(runner, tmp_path, data):
    root = tmp_path / "cat"
    assert run(runner, root, "add", str(data)).exit_code == 0
    again = run(runner, root, "add", str(data))
    assert isinstance(again.exception, CatalogError)
    assert "--replace" in str(again.exception) and "\n" not in str(again.exception)
    assert run(runner, root, "add", str(data), "--replace").exit_code == 0

    missing = run(runner, root, "show", "quizz")
    assert isinstance(missing.exception, CatalogError)
    assert "close ids: quiz" in str(missing.exception)
    assert missing.exception.exit_code == 2

    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3\n", encoding="utf-8")
    result = run(runner, root, "add", str(bad))
    assert "row 2 (line 3) has 1 field where the header has 2" in str(result.exception)


def test_bad_modality_is_a_usage_error(runner, tmp_path):
    result = run(runner, tmp_path / "cat", "search", "x", "--modality", "video")
    assert result.exit_code == 2 and "Invalid value" in result.output


def test_default_location_from_benchsmith_home(runner, tmp_path, data, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    result = runner.invoke(catalog, ["add", str(data)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "home" / "catalog" / "cards" / "quiz.json").is_file()


def test_starter_command(runner, tmp_path):
    root = tmp_path / "cat"
    result = run(runner, root, "starter")
    assert result.exit_code == 0, result.output
    added = [line for line in result.output.splitlines() if line.startswith("added")]
    assert len(added) >= 8
    assert "starter datasets in" in result.output
    again = run(runner, root, "starter")
    assert "added" not in again.output and "unchanged" in again.output
    images = json.loads(run(runner, root, "search", "", "--modality", "image", "--json").output)
    assert images


def test_help(runner):
    result = runner.invoke(catalog, ["--help"])
    assert result.exit_code == 0
    for command in ("add", "list", "show", "search", "starter", "records", "remove"):
        assert command in result.output


def test_search_with_hub_reports_it_unavailable_offline_and_keeps_local_hits(
    runner, tmp_path, data, monkeypatch
):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    root = tmp_path / "cat"
    run(runner, root, "add", str(data), "--name", "Quiz")
    result = run(runner, root, "search", "capital", "--hub", "--json")
    payload = json.loads(result.output)
    assert payload["hub"] == []
    assert payload["hub_unavailable"].startswith("Hugging Face Hub: ")
    assert [h["id"] for h in payload["catalog"]] == ["quiz"]
    text = run(runner, root, "search", "capital", "--hub").output
    assert "Hugging Face Hub: " in text and "quiz" in text

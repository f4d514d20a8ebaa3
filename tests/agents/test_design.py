"""Design: subtasks only from the intent's programs and the run's references, never invented."""

import json

import pytest
from langgraph.runtime import Runtime

import benchsmith.agents.design as design
from benchsmith.agents.design import design_node, modalities_from_intent
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths


@pytest.fixture
def config(tmp_path):
    for name, rows in (
        ("capitals", [{"name": "France", "capital": "Paris"}, {"name": "Peru", "capital": "Lima"}]),
        ("rivers", [{"river": "Nile", "length_km": 6650}, {"river": "Rhine", "length_km": 1230}]),
    ):
        data = tmp_path / f"{name}.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))
        Catalog(tmp_path / "catalog").add(str(data), id=name, replace=True)
    return RunConfig(paths=RunPaths(catalog_dir=str(tmp_path / "catalog")))


def test_modalities_from_intent():
    assert modalities_from_intent("spoken questions about capitals") == ("audio",)
    assert modalities_from_intent("questions about photos of cats") == ("image",)
    assert modalities_from_intent("arithmetic word problems") == ()


def test_a_table_the_intent_is_about_gives_the_subtask_of_its_program(config):
    update = design_node(
        {"intent": "ask for the capital of a country", "size": 4}, Runtime(context=config)
    )
    (subtask,) = update["subtasks"]
    assert subtask.id == "records-capitals" and subtask.name == "Lookup over capitals"
    assert "the capital of a capitals record" in subtask.description


def test_a_covered_intent_no_program_reads_is_refused_with_what_to_write(config, monkeypatch):
    # The catalog covers the intent's words, but no program could be read from it (and no
    # table refused it): the old path had a model invent a subtask here.
    monkeypatch.setattr(design, "table_subtasks", lambda *a, **k: ([], None))
    update = design_node({"intent": "capitals of rivers", "size": 4}, Runtime(context=config))
    assert update["plan_status"] == "uncovered" and "subtasks" not in update
    error = update["error"]
    assert error.startswith("no question program over the catalog's tables could be read")
    assert (
        "closest tables: capitals, rivers" in error or "closest tables: rivers, capitals" in error
    )
    assert "--program" in error and "--reference" in error


def test_a_refusal_of_the_tables_is_the_plan_error(config, monkeypatch):
    refusal = "no question program over the catalog's tables serves the intent: no field holds it"
    monkeypatch.setattr(design, "table_subtasks", lambda *a, **k: ([], refusal))
    update = design_node({"intent": "capitals of rivers", "size": 4}, Runtime(context=config))
    assert update["plan_status"] == "uncovered" and update["error"] == refusal


def test_a_spoken_intent_in_any_language_asks_for_audio():
    for intent in (
        "Preguntas habladas, leídas en voz alta, sobre las capitales",
        "Questions lues à voix haute sur les capitales",
        "Domande sulle capitali, lette ad alta voce",
        "Gesproken vragen over hoofdsteden",
        "Perguntas faladas sobre capitais",
        "Vorgelesene Fragen zu Hauptstädten",
    ):
        assert modalities_from_intent(intent) == ("audio",), intent
    assert modalities_from_intent("Zeige eine Tabelle mit Ländern") == ()

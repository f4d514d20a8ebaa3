"""The languages an intent names become the languages of its items."""

import json

import pytest
from langgraph.runtime import Runtime

from benchsmith.agents.alignment import languages_from_intent
from benchsmith.agents.design import design_node
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths


def test_languages_come_from_the_intent():
    assert languages_from_intent("questions about world capitals in German and Spanish") == (
        "de",
        "es",
    )
    assert languages_from_intent("capitals, in English, French or Italian, with noise") == (
        "en",
        "fr",
        "it",
    )
    assert languages_from_intent("spoken questions about world capitals") == ()
    assert languages_from_intent("questions about French cities") == ()
    assert languages_from_intent("what people eat in Tonga") == ()  # a country, not a language


def test_the_languages_an_intent_names_reach_its_subtasks(tmp_path):
    # "questions about world capitals in German and Spanish" gave English items: the
    # languages of the intent never reached the plan.
    rows = [("France", "Paris"), ("Spain", "Madrid"), ("Japan", "Tokyo"), ("Peru", "Lima")]
    data = tmp_path / "capitals.jsonl"
    data.write_text("".join(json.dumps({"name": n, "capital": c}) + "\n" for n, c in rows))
    Catalog(tmp_path / "catalog").add(str(data), id="capitals", replace=True)
    config = RunConfig(paths=RunPaths(catalog_dir=str(tmp_path / "catalog")))
    intent = "questions about the capital of a country, in German and Spanish"
    update = design_node({"intent": intent, "size": 8}, Runtime(context=config))
    (subtask,) = update["subtasks"]
    assert subtask.languages == ["de", "es"]


def test_a_subtask_no_language_can_word_says_each_languages_reason_not_the_reading():
    from benchsmith.agents.grounding import unworded

    notes = [
        "records-world-countries: read through the reader's translation: 'Hello. ...'",
        "records-world-countries: language es dropped: no Spanish name for 'Oceania'",
        "records-cars: language fr dropped: no French label for 'Origin'",
    ]
    reason = unworded("records-world-countries", notes)
    assert reason == (
        "no language of the subtask can be worded: "
        "records-world-countries: language es dropped: no Spanish name for 'Oceania'"
    )
    # No language's reason among the notes: all of them, so nothing is hidden.
    assert unworded("records-x", notes[:1]).endswith(notes[0])


@pytest.mark.parametrize(
    ("intent", "languages"),
    [
        ("Welsh-language week at school. Give the English name of a country and ask what it "
         "is called in Welsh.", ()),
        ("Ask in French what each country is called in Welsh.", ("fr",)),
        ("A French-language multiple choice quiz on capitals.", ("fr",)),
    ],
)  # fmt: skip
def test_a_language_a_thing_is_called_in_is_not_the_items_language(intent, languages):
    assert languages_from_intent(intent) == languages

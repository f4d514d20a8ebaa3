"""Readings the eleventh blind starter set found missing after its first run, each pinned.

A French intent with few function words, a picture "of a two-row table" or "con una tabla",
"what do you call a person from Peru" (the demonym), and "covers the most land" (the area).
"""

from __future__ import annotations

from test_programs_phrasings import table_of, top

from benchsmith.agents.design import rendered_intent
from benchsmith.programs.gloss import intent_language

COUNTRIES = [
    ("Peru", "Peruvian", "Sol", 1285216),
    ("Chile", "Chilean", "Peso", 756102),
    ("Kenya", "Kenyan", "Shilling", 580367),
    ("Japan", "Japanese", "Yen", 377930),
]


def countries():
    columns = {"name": "text", "demonym": "text", "currency_names": "text", "area_km2": "number"}
    return table_of("countries", columns, COUNTRIES)


def test_a_french_intent_with_few_function_words_is_french():
    assert (
        intent_language(
            "Questions orales (synthèse vocale), en français : on cite cinq pays africains et on "
            "demande lequel compte le moins d'habitants. Rien n'est affiché."
        )
        == "fr"
    )
    assert (
        intent_language("Show some cars and ask which is the heaviest, in French please.") == "en"
    )


def test_a_picture_of_or_with_a_table_asks_the_rows_drawn():
    assert rendered_intent("Look at an image of a two-row table (two airports) and say which.")
    assert rendered_intent("Preguntas en francés: una imagen con una tabla de aeropuertos.")
    assert not rendered_intent("Show a table of airports and ask which is further west.")


def test_a_person_from_a_country_and_the_most_land():
    spec = top("Spoken quiz: 'What do you call a person from Peru?' Nothing shown.", countries())
    assert (spec.kind, spec.answer_field, spec.key_field) == ("lookup", "demonym", "name")
    spec = top(
        "Name three or four countries, ask what currency is used in the one that covers the "
        "most land. Nothing displayed.",
        countries(),
    )
    assert (spec.kind, spec.field, spec.answer_field) == (
        "multihop", "area_km2", "currency_names",
    )  # fmt: skip

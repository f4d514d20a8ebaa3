"""Readings the eleventh blind starter set found missing after its first run, each pinned.

A French intent with few function words, a picture "of a two-row table" or "con una tabla",
"what do you call a person from Peru" (the demonym), and "covers the most land" (the area).
"""

from __future__ import annotations

from test_programs_phrasings import table_of, top

from benchsmith.agents.design import rendered_intent
from benchsmith.programs.gloss import intent_language, to_english

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


DAYS = [
    ("2012-01-01", 0.0, 12.8, 5.0, 4.7, "drizzle"),
    ("2012-01-02", 10.9, 10.6, 2.8, 4.5, "rain"),
    ("2012-01-03", 0.8, 11.7, 7.2, 2.3, "rain"),
    ("2012-01-04", 20.3, 5.2, -2.1, 6.7, "rain"),
    ("2012-01-05", 1.3, 8.9, -0.6, 6.1, "rain"),
    ("2012-01-06", 0.0, 4.4, -1.7, 2.2, "sun"),
]


def weather():
    columns = {"date": "text", "precipitation": "number", "temp_max": "number",
               "temp_min": "number", "wind": "number", "weather": "category"}  # fmt: skip
    table = table_of("seattle-weather", columns, DAYS)
    table.columns["temp_max"].labels["en"] = "maximum temperature (°C)"
    table.columns["temp_min"].labels["en"] = "minimum temperature (°C)"
    table.columns["weather"].labels["en"] = "weather type"
    return table


def test_a_temperature_below_a_bound_is_the_minimum_and_freezing_is_zero():
    spec = top(
        "Render 2 weeks of Seattle weather as a table image; question = on how many of those "
        "days did the temperature drop below freezing (0 °C) at some point?",
        weather(),
    )
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("temp_min", "<", 0)]
    spec = top("Show 2 weeks; ask how many days had a temperature above 10.", weather())
    assert [(c.field, c.op) for c in spec.conditions] == [("temp_max", ">")]
    spec = top("Show 2 weeks; ask how many days had a maximum temperature below 9.", weather())
    assert [(c.field, c.op) for c in spec.conditions] == [("temp_max", "<")]


def test_questions_of_the_type_and_a_rank_word_in_a_fields_name_report_nothing():
    intent = to_english(
        "Vorrei domande in italiano del tipo «Quale di questi giorni è stato il più caldo?», "
        "con una tabella di 6-7 giorni del meteo di Seattle (temperatura massima inclusa). "
        "Si risponde con la data.",
        "it",
    )
    spec = top(intent, weather())
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "temp_max", "max")


def test_the_weather_on_the_windiest_day_in_german():
    intent = to_english(
        "Zweistufig: Tabelle mit einigen Tagen Seattle-Wetter zeigen; gefragt wird, welches "
        "Wetter (Regen, Sonne, ...) an dem Tag mit dem stärksten Wind herrschte. Deutsch.",
        "de",
    )
    spec = top(intent, weather())
    assert (spec.kind, spec.field, spec.answer_field) == ("multihop", "wind", "weather")


def test_north_of_a_parallel_american_models_and_nothing_shown_in_french():
    airports = [("Seattle-Tacoma", "WA", 47.45), ("Miami International", "FL", 25.79),
                ("Minneapolis-St Paul", "MN", 44.88), ("Bangor International", "ME", 44.81),
                ("Billings Logan", "MT", 45.81)]  # fmt: skip
    table = table_of("airports", {"name": "text", "state": "text", "latitude": "number"}, airports)
    intent = to_english(
        "Der Name eines Flughafens wird genannt, gefragt ist der Bundesstaat. Aber nur Flughäfen "
        "nördlich des 45. Breitengrads. Ohne Tabelle.",
        "de",
    )
    spec = top(intent, table)
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("latitude", ">", 45)]
    rows = [("a", 130, "USA"), ("b", 95, "Japan"), ("c", 150, "USA"), ("d", 70, "Europe")]
    cars = table_of("cars", {"Name": "text", "Horsepower": "number", "Origin": "category"}, rows)
    intent = to_english(
        "Laat een tabel met auto's zien, alleen Amerikaanse modellen, en vraag welke het meeste "
        "vermogen (pk) heeft.",
        "nl",
    )
    spec = top(intent, cars)
    assert [(c.field, c.value) for c in spec.conditions] == [("Origin", "USA")]
    assert "nothing is shown" in to_english("Rien n'est affiché.", "fr")


def test_the_petal_longer_than_a_bound_and_the_lowest_blood_sugar_in_italian():
    flowers = [(5.1, 1.4), (7.0, 4.7), (6.3, 6.0), (4.9, 1.5), (6.5, 5.2), (5.8, 5.1)]
    iris = table_of("iris", {"sepal_length_cm": "number", "petal_length_cm": "number"}, flowers)
    intent = to_english(
        "Zählfragen zu Schwertlilien, auf Deutsch: Tabelle mit ~10 Blüten zeigen, Frage: Bei "
        "wie vielen ist das Kronblatt länger als 5 cm?",
        "de",
    )
    spec = top(intent, iris)
    assert spec.kind == "count"
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("petal_length_cm", ">", 5)]
    patients = [(24.1, 87), (31.2, 95), (33.5, 70), (22.8, 101), (35.0, 88), (29.9, 90)]
    table = table_of("diabetes", {"bmi": "number", "s6_glu": "number"}, patients)
    table.columns["s6_glu"].labels["en"] = "blood sugar level"
    intent = to_english(
        "Domanda di tipo aggregato in italiano: data una tabella di pazienti (diabetes), qual è "
        "il valore più basso di glicemia tra quelli con BMI sopra 30?",
        "it",
    )
    spec = top(intent, table)
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "min", "s6_glu")
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("bmi", ">", 30)]

"""Readings the ninth blind starter set found missing, each pinned on a small table.

A German intent with few function words, the answer named as a thing's name, two records
named "between A and B", a comparative on the map in German, fuel used as the inverse of
fuel efficiency, digit words in the plural, the median, "60 years and older", a list of the
columns shown, "escludete l'Europa", "the V8s", and a price no field holds.
"""

from __future__ import annotations

import statistics

from test_programs_phrasings import table_of, top

from benchsmith.programs import Refusal, generate, plan
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.programs.intent import _format, _numbers

CARS = [
    ("datsun 510", 27.0, 8, 2300, "Japan"),
    ("toyota corolla", 29.0, 4, 2200, "Japan"),
    ("ford pinto", 25.0, 4, 2046, "USA"),
    ("chevrolet impala", 14.0, 8, 4354, "USA"),
    ("fiat 128", 29.0, 4, 2074, "Europe"),
    ("plymouth fury", 14.0, 8, 4312, "USA"),
]
AIRPORTS = [
    ("SEA", "Seattle", 47.45, -122.31),
    ("BOS", "Boston", 42.36, -71.01),
    ("MIA", "Miami", 25.79, -80.29),
    ("DEN", "Denver", 39.86, -104.67),
]
PATIENTS = [(23, 24.1), (61, 30.2), (45, 27.5), (70, 22.8),
            (66, 35.0), (38, 19.9), (59, 28.4), (72, 26.6)]  # fmt: skip
DAYS = [
    ("2012-01-01", 0.0, 12.8, 4.7, "drizzle"),
    ("2012-01-02", 10.9, 10.6, 4.5, "rain"),
    ("2012-01-03", 0.8, 11.7, 2.3, "rain"),
    ("2012-01-04", 20.3, 12.2, 4.7, "rain"),
    ("2012-01-05", 1.3, 8.9, 6.1, "rain"),
    ("2012-01-06", 0.0, 4.4, 2.2, "sun"),
]
COUNTRIES = [
    ("France", "Francia", "Europe", 551695),
    ("Peru", "Perù", "Americas", 1285216),
    ("Chile", "Cile", "Americas", 756102),
    ("Japan", "Giappone", "Asia", 377930),
    ("Spain", "Spagna", "Europe", 505992),
    ("Kenya", "Kenya", "Africa", 580367),
]


def cars():
    columns = {"Name": "text", "Miles_per_Gallon": "number", "Cylinders": "number",
               "Weight_in_lbs": "number", "Origin": "category"}  # fmt: skip
    return table_of("cars", columns, CARS)


def airports():
    columns = {"iata": "text", "city": "text", "latitude": "number", "longitude": "number"}
    return table_of("airports", columns, AIRPORTS)


def test_an_intent_with_few_function_words_is_placed_by_its_letters():
    german = (
        "Zeig jeweils einen Ausschnitt von etwa zehn Tagen aus den Seattle-Wetterdaten und "
        "frag: An wie vielen dieser Tage gab es überhaupt Niederschlag (also mehr als 0 mm)? "
        "Antwort nur als Zahl, Fragen auf Deutsch."
    )
    assert intent_language(german) == "de"
    assert "how many" in to_english(german, "de")
    assert intent_language("Show ten days of the Seattle data; ask how many had rain.") == "en"


def test_the_answer_named_as_a_things_name_or_code_asks_a_short_answer():
    for said in (
        "Answer = the name of the model.",
        "the answer is the code",
        "respond with the name of the car",
        to_english("Geantwortet wird mit dem Ländernamen.", "de"),
        to_english("Responde con el nombre del coche.", "es"),
        "No table. Short response, questions in French.",  # a translation's words
    ):
        assert _format(said.lower(), "multiple_choice") == "short_answer", said
    assert _format("answer = a number", "multiple_choice") == "numeric"
    assert _format("ask which is heavier", "multiple_choice") == "multiple_choice"


def test_two_records_between_which_and_fuel_used_as_the_inverse_of_efficiency():
    intent = to_english(
        'Domande lette ad alta voce, tipo: "Tra la datsun 510 e la toyota corolla, quale '
        'consuma meno carburante?". Niente tabella, domande in italiano.',
        "it",
    )
    spec = top(intent, cars())
    assert (spec.kind, spec.field, spec.direction, spec.book) == (
        "compare", "Miles_per_Gallon", "max", "closed",
    )  # fmt: skip
    spec = top("Show five cars and ask which one uses the most fuel.", cars())
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "Miles_per_Gallon", "min")
    # a year range said "between" is no pair of records
    spec = top("Cars made between 1970 and 1975: which is the heaviest of five shown?", cars())
    assert spec.kind == "superlative"


def test_a_comparative_on_the_map_in_german():
    intent = (
        "Zwei Flughafencodes vorlesen (z.B. SEA und BOS) und fragen, welcher der beiden "
        "Flughäfen weiter nördlich liegt. Ohne Tabelle, Antwort ist der Code."
    )
    spec = top(intent, airports())
    assert (spec.kind, spec.field, spec.direction, spec.answer_format) == (
        "compare", "latitude", "max", "short_answer",
    )  # fmt: skip
    assert "further west" in to_english("Welcher liegt westlicher?", "de")


def test_digit_words_in_the_plural_name_a_value_and_a_number_before_a_noun_counts():
    assert (7.0, False) in _numbers("how many of them are sevens")
    assert (3.0, False) in _numbers("how many of them are 3s")
    assert _numbers("show six handwritten digit images")[0] == (6.0, True)
    assert _numbers("how many show a seven") == [(7.0, False)]


def test_the_median_of_the_rows_shown():
    table = table_of("patients", {"age": "number", "bmi": "number"}, PATIENTS)
    spec = top("Show 6 patients and ask the median bmi of the patients shown.", table)
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "median", "bmi")
    (instance,) = generate(spec, {table.id: table}, n=1, seed=3)
    shown = [table.order_value(r, "bmi") for r in instance.rows]
    assert float(instance.answer) == round(statistics.median(shown), 2)
    assert "median" in instance.question
    italian = to_english("chiedere il valore mediano della bmi sui campioni mostrati", "it")
    assert "median" in italian


def test_an_age_and_older_or_younger_is_a_bound_on_the_age():
    table = table_of("patients", {"age": "number", "bmi": "number"}, PATIENTS)
    for intent, bound in (
        ("Show a few patients, ask the average bmi of the patients 60 years and older", (">=", 60)),
        (
            "Show a few patients, ask the average bmi of the patients of 60 year and older",
            (">=", 60),
        ),
        ("Show a few patients, ask the average bmi of those 40 or younger", ("<=", 40)),
    ):
        spec = top(intent, table)
        assert spec.field == "bmi", intent
        assert [(c.field, c.op, c.value) for c in spec.conditions] == [("age", *bound)], intent


def test_the_columns_listed_to_show_are_no_filter():
    columns = {"date": "text", "precipitation": "number", "temp_max": "number",
               "wind": "number", "weather": "category"}  # fmt: skip
    table = table_of("weather", columns, DAYS)
    spec = top(
        "Show some days (date, rain, temperatures, wind) and ask on which day it rained most.",
        table,
    )
    assert (spec.kind, spec.field, spec.conditions) == ("superlative", "precipitation", [])
    spec = top("Show the rainy days and ask which had the most wind.", table)
    assert [(c.field, c.value) for c in spec.conditions] == [("weather", "rain")]


def test_an_exclusion_in_italian_and_the_v8s():
    columns = {"name": "text", "names.it": "text", "region": "category", "area_km2": "number"}
    table = table_of("countries", columns, COUNTRIES)
    intent = to_english(
        "domande a risposta multipla: due paesi, quale dei due ha la superficie minore? "
        "escludete l'Europa. senza tabella",
        "it",
    )
    spec = top(intent, table)
    assert (spec.kind, spec.field, spec.direction) == ("compare", "area_km2", "min")
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("region", "!=", "Europe")]
    spec = top("Show a small table of cars, only the V8s, and ask which is the heaviest.", cars())
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Cylinders", "==", 8)]


def test_leaving_out_what_lies_outside_a_region_keeps_the_region():
    columns = {"name": "text", "names.it": "text", "region": "category", "area_km2": "number"}
    table = table_of("countries", columns, COUNTRIES)
    for intent, op in (
        (
            "Show six countries and ask which has the smallest area. Leave out all outside Europe.",
            "==",
        ),
        (
            to_english(
                "Zeig sechs Länder, frag nach der kleinsten Fläche; alles außerhalb Europas "
                "bitte weglassen.",
                "de",
            ),
            "==",
        ),
        ("Show six countries outside Europe and ask which has the smallest area.", "!="),
        (
            to_english(
                "Zeig sechs Länder außerhalb Europas, frag nach der kleinsten Fläche.", "de"
            ),
            "!=",
        ),
    ):
        spec = top(intent, table)
        assert [(c.field, c.op, c.value) for c in spec.conditions] == [("region", op, "Europe")]


def test_a_picture_of_a_table_asked_in_the_german_genitive():
    from benchsmith.agents.design import rendered_intent

    assert rendered_intent("Zeig dem Modell ein Bild einer kleinen Tabelle mit sechs Ländern.")
    assert not rendered_intent("Zeig dem Modell eine kleine Tabelle mit sechs Ländern.")


def test_a_price_no_field_holds_is_refused_by_name():
    for intent in (
        to_english("Quel était le prix de vente de tel modèle, par ex. la ford pinto ?", "fr"),
        "Show two of the cars (1970s models) and ask which one was cheaper to buy new.",
    ):
        found = plan(intent, {"cars": cars()}, "cars")
        assert isinstance(found, Refusal), intent
        assert "'price'" in found.missing, found.missing

"""Readings the tenth blind starter set found missing, each pinned on a small table.

A German request whose question is asked "nach der Einwohnerzahl eines bestimmten Landes",
and a code column guessed from short English words after "e.g.".
"""

from __future__ import annotations

from test_programs_phrasings import table_of, top

from benchsmith.programs.gloss import to_english

COUNTRIES = [
    ("Portugal", "PT", "Europe", 10300000, 92212),
    ("India", "IN", "Asia", 1400000000, 3287263),
    ("American Samoa", "AS", "Oceania", 55000, 199),
    ("Kenya", "KE", "Africa", 54000000, 580367),
    ("Chile", "CL", "Americas", 19000000, 756102),
    ("Japan", "JP", "Asia", 125000000, 377930),
]


def countries():
    columns = {"name": "text", "alpha_2": "text", "region": "category",
               "population": "number", "area_km2": "number"}  # fmt: skip
    return table_of("countries", columns, COUNTRIES)


def test_a_german_request_for_a_countrys_population_is_a_closed_book_lookup():
    intent = to_english(
        "Die Fragen sollen vorgelesen werden, auf Deutsch, und es wird keinerlei Tabelle "
        "gezeigt – das Modell muss es einfach wissen. Gefragt wird jeweils nach der "
        "Einwohnerzahl eines bestimmten Landes, also etwa „Wie viele Menschen leben in "
        "Portugal?“. Als Antwort genügt eine Zahl.",
        "de",
    )
    spec = top(intent, countries())
    assert (spec.kind, spec.book, spec.answer_field, spec.key_field) == (
        "lookup", "closed", "population", "name",
    )  # fmt: skip


def test_short_english_words_after_e_g_are_no_codes():
    table = countries()
    spec = top(
        "Ask the population of a given country, e.g. how many people live in Portugal? As "
        "answer a number is enough.",
        table,
    )
    assert spec.key_field == "name"
    spec = top("Give a country code (like PT or KE) and ask the country's population.", table)
    assert spec.key_field == "alpha_2"


CARS = [
    ("datsun 510", 27.0, 4, 16.5),
    ("toyota corolla", 29.0, 4, 14.0),
    ("ford pinto", 25.0, 4, 17.0),
    ("chevrolet impala", 14.0, 8, 12.0),
    ("fiat 128", 29.5, 4, 15.5),
    ("plymouth fury", 13.0, 8, 11.0),
]


def cars():
    columns = {"Name": "text", "Miles_per_Gallon": "number", "Cylinders": "number",
               "Acceleration": "number"}  # fmt: skip
    table = table_of("cars", columns, CARS)
    table.columns["Acceleration"].labels["en"] = "seconds from 0 to 60 mph"
    return table


def test_thirsty_is_fuel_used_and_i_mean_is_no_average():
    spec = top(
        "show 2 cars in a table and the model must say wich one is more thirsty, i mean wich "
        "one use more fuel per mile.",
        cars(),
    )
    assert (spec.kind, spec.field, spec.direction) == ("compare", "Miles_per_Gallon", "min")
    spec = top("Show five cars and ask which is the thirstiest.", cars())
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "Miles_per_Gallon", "min")


def test_quickest_off_the_line_is_the_shortest_acceleration_time():
    spec = top(
        "- table: 5-8 cars, shown in the prompt\n- only 4-cylinder cars go in the table\n"
        "- question: which one is quickest off the line (0-60)?",
        cars(),
    )
    assert (spec.field, spec.direction) == ("Acceleration", "min")
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Cylinders", "==", 4)]


def test_the_field_named_after_the_rank_word_is_ranked_and_head_count_is_population():
    for said in ("the biggest population", "the biggest head count"):
        spec = top(f"Name 4 countries, ask for the region of whichever has {said}.", countries())
        assert (spec.kind, spec.field, spec.direction) == ("multihop", "population", "max"), said
    spec = top("Show five countries and ask which is the biggest.", countries())
    assert spec.field == "area_km2"


def test_a_region_glossed_with_its_adjective_after_the_noun():
    columns = {"name": "text", "region": "category", "subregion": "category"}
    rows = [
        ("Kenya", "Africa", "Sub-Saharan Africa"),
        ("Egypt", "Africa", "Northern Africa"),
        ("Chad", "Africa", "Sub-Saharan Africa"),
        ("Peru", "Americas", "South America"),
        ("Japan", "Asia", "Eastern Asia"),
        ("Mali", "Africa", "Sub-Saharan Africa"),
    ]
    table = table_of("countries", columns, rows)
    intent = to_english(
        "Des questions sur la région des pays. Seulement les pays d'Afrique subsaharienne. "
        "Pas de tableau.",
        "fr",
    )
    spec = top(intent, table)
    assert [(c.field, c.value) for c in spec.conditions] == [("subregion", "Sub-Saharan Africa")]


def test_a_name_asked_in_a_language_no_field_holds_is_refused_and_one_held_is_the_answer():
    from benchsmith.programs import Refusal, plan

    columns = {"name": "text", "names.fr": "text", "calling_codes": "text"}
    rows = [("Finland", "Finlande", "358"), ("Kenya", "Kenya", "254"),
            ("Japan", "Japon", "81"), ("Chile", "Chili", "56")]  # fmt: skip
    table = table_of("countries", columns, rows)
    table.columns["names.fr"].labels["en"] = "the country's name in French"
    refused = plan(
        "Questions in English like 'What is Finland called in Swedish?'. No table.",
        {table.id: table},
        table.id,
    )
    assert isinstance(refused, Refusal) and "names in Swedish" in refused.missing
    spec = top("Ask what each country is called in French, questions in English.", table)
    assert (spec.key_field, spec.answer_field) == ("name", "names.fr")
    assert to_english("altijd de Zweedse naam van een land", "nl").startswith("altijd the swedish")


AIRPORTS = [
    ("SEA", "Seattle-Tacoma International", "Seattle", 47.45),
    ("BOS", "Logan International", "Boston", 42.36),
    ("MIA", "Miami International", "Miami", 25.79),
    ("DEN", "Denver International", "Denver", 39.86),
    ("MSP", "Minneapolis-St Paul International", "Minneapolis", 44.88),
]


def test_an_answer_given_as_a_code_names_the_records_by_it():
    columns = {"iata": "text", "name": "text", "city": "text", "latitude": "number"}
    table = table_of("airports", columns, AIRPORTS)
    intent = to_english(
        "Mostrare una piccola tabella con 5 aeroporti (codice, nome, città, coordinate) e "
        "chiedere quale si trova più a nord. Si risponde con il codice IATA dell'aeroporto.",
        "it",
    )
    spec = top(intent, table)
    assert (spec.kind, spec.key_field, spec.field) == ("superlative", "iata", "latitude")


def test_three_and_a_half_thousand_and_years_as_an_age():
    heavy = [("a", 3400), ("b", 3600), ("c", 2100), ("d", 4300), ("e", 3550)]
    table = table_of("cars", {"Name": "text", "Weight_in_lbs": "number"}, heavy)
    spec = top(
        "Render ~8 cars as an image, and ask how many of the cars in the picture weigh over "
        "three and a half thousand pounds.",
        table,
    )
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Weight_in_lbs", ">", 3500)]
    patients = [(23, 24.1, 80), (61, 30.2, 95), (45, 27.5, 70), (70, 22.8, 101), (66, 35.0, 88)]
    table = table_of("patients", {"age": "number", "bmi": "number", "bp": "number"}, patients)
    intent = to_english(
        "Si mostra una tabella di una decina di pazienti e si chiede l'indice di massa "
        "corporea medio, considerando solo i pazienti con più di 50 anni.",
        "it",
    )
    spec = top(intent, table)
    assert (spec.kind, spec.field) == ("aggregate", "bmi")
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("age", ">", 50)]


def test_no_other_record_shown_is_a_closed_book_classification():
    wines = [(13.2, 1.8, "class_0"), (12.4, 3.1, "class_1"), (13.9, 1.5, "class_0"),
             (12.1, 2.2, "class_2"), (12.8, 4.0, "class_2"), (12.3, 1.1, "class_1")]  # fmt: skip
    columns = {"alcohol": "number", "malic_acid": "number", "cultivar": "category"}
    spec = top(
        "Questions that give the full chemical analysis of one wine (alcohol, malic acid and so "
        "on) and ask which of the three "
        "cultivars it comes from, offering the three classes as answer options. No other wines "
        "should be shown.",
        table_of("wine", columns, wines),
    )
    assert (spec.kind, spec.book, spec.answer_field) == ("classify", "closed", "cultivar")


def test_which_region_a_ranked_record_comes_from_is_its_origin():
    rows = [("a", 130, "USA"), ("b", 95, "Japan"), ("c", 150, "USA"), ("d", 70, "Europe")]
    table = table_of("cars", {"Name": "text", "Horsepower": "number", "Origin": "category"}, rows)
    for intent in (
        to_english(
            "Preguntas de dos pasos: se muestra una tabla con algunos coches y se pregunta de "
            "qué región de origen es el coche con más caballos de potencia.",
            "es",
        ),
        "Show some cars and ask which region the car with the most horsepower comes from.",
    ):
        spec = top(intent, table)
        assert (spec.kind, spec.answer_field, spec.field) == ("multihop", "Origin", "Horsepower")

"""Readings the thirteenth blind starter set found missing after its first run, each pinned.

"Réponse en nombre, sans montrer de données"; the median said before "average blood
pressure"; "i petali più larghi" and "wider petals" (the petal's width); "the westernmost
airport, the answer is its state"; "the maximum temperature on 4 July 2014" and "the mean
wind speed on a given Seattle date" (one record's value, not an aggregate); a table "shown
as an image" or "rendu en image"; "what is the Finnish name of the country whose capital
is Warsaw"; "¿Cómo se dice «Polonia» en finlandés?"; codes given "por ex. SAN e BTV".
"""

from __future__ import annotations

from test_programs_phrasings import table_of, top
from test_programs_readings12 import AIRPORTS, best, iris

from benchsmith.agents.design import rendered_intent
from benchsmith.spec import Condition


def test_a_number_answer_and_no_data_said_in_french():
    countries = table_of(
        "countries",
        {"name": "text", "capital": "text", "population": "number"},
        [("Kenya", "Nairobi", 47), ("Peru", "Lima", 33), ("Chile", "Santiago", 19),
         ("Japan", "Tokyo", 125), ("Spain", "Madrid", 47)],
    )  # fmt: skip
    spec = top(
        "Les questions seront lues à voix haute : « Combien d'habitants compte le Kenya ? », "
        "un pays par question. Réponse en nombre, sans montrer de données.",
        countries,
    )
    assert (spec.kind, spec.answer_field, spec.book, spec.answer_format) == (
        "lookup", "population", "closed", "numeric",
    )  # fmt: skip


def diabetes():
    columns = {"age": "number", "bp": "number", "s6_glu": "number", "progression": "number"}
    rows = [(59, 101, 87, 151), (48, 87, 69, 75), (72, 93, 85, 141), (24, 84, 89, 206),
            (50, 101, 80, 135), (23, 89, 68, 97)]  # fmt: skip
    table = table_of("diabetes", columns, rows)
    table.columns["bp"].labels["en"] = "average blood pressure"
    table.columns["progression"].labels["en"] = "disease progression one year after baseline"
    return table


def test_the_aggregate_said_first_leads():
    spec = top(
        "Hola. Necesito preguntas en inglés sobre la tabla de diabetes: mostrar unas 15 filas y "
        "preguntar la mediana de la progresión de la enfermedad al cabo de un año, solo entre "
        "los pacientes con presión arterial media de 100 o más.",
        diabetes(),
    )
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "median", "progression")
    assert spec.conditions == [Condition(field="bp", op=">=", value=100)]


def test_wider_petals_are_the_petals_width():
    for intent in (
        "Due fiori di iris mostrati in tabella (fiore 1 e fiore 2): quale ha i petali più "
        "larghi? Domande in italiano.",
        "Show two iris flowers and ask which has wider petals.",
    ):
        spec = top(intent, iris())
        assert (spec.kind, spec.field, spec.direction) == ("compare", "petal_width_cm", "max")


def airports():
    columns = {"iata": "text", "name": "text", "state": "category", "latitude": "number",
               "longitude": "number"}  # fmt: skip
    rows = [(a, n, s, lat, -80.0 - 3 * i) for i, (a, n, s, lat, _r) in enumerate(AIRPORTS)]
    return table_of("airports", columns, rows)


def test_the_westernmost_airport_then_its_state():
    spec = top(
        "Die Tabelle mit 7 US-Flughäfen (Name, Code, Bundesstaat, Längengrad) bitte als Bild "
        "zeigen. Gefragt wird nach dem am weitesten westlich gelegenen Flughafen – die Antwort "
        "ist sein Bundesstaat (Kürzel). Fragen auf Niederländisch.",
        airports(),
    )
    assert (spec.kind, spec.field, spec.direction, spec.answer_field) == (
        "multihop", "longitude", "min", "state",
    )  # fmt: skip


def test_airports_named_by_the_codes_given_as_examples():
    spec = top(
        "Perguntas faladas: dados dois códigos de aeroporto, por ex. SAN e SEA, qual dos dois "
        "fica mais ao sul? Sem tabela.",
        airports(),
    )
    assert (spec.kind, spec.key_field, spec.field, spec.direction) == (
        "compare", "iata", "latitude", "min",
    )  # fmt: skip


def weather():
    columns = {"date": "date", "temp_max": "number", "wind": "number", "weather": "category"}
    rows = [("2014-07-04", 25.6, 3.1, "sun"), ("2014-07-05", 27.2, 2.2, "sun"),
            ("2014-01-02", 6.1, 4.0, "snow"), ("2014-01-03", 5.0, 5.3, "snow"),
            ("2014-03-01", 11.0, 6.0, "rain"), ("2014-03-02", 9.4, 3.9, "rain")]  # fmt: skip
    table = table_of("weather", columns, rows)
    table.columns["wind"].labels["en"] = "mean wind speed (m/s)"
    return table


def test_one_days_value_asked_by_its_date_or_a_given_date():
    spec = top(
        "Graag vragen in het Engels over het weer in Seattle, zoals: wat was de "
        "maximumtemperatuur op 4 juli 2014? Eén dag per vraag, geen tabel erbij.",
        weather(),
    )
    assert (spec.kind, spec.key_field, spec.answer_field, spec.book) == (
        "lookup", "date", "temp_max", "closed",
    )  # fmt: skip
    spec = top(
        "Ask what the mean wind speed (m/s) was on a given Seattle date, but only use days "
        "that had snow. closed book.",
        weather(),
    )
    assert (spec.kind, spec.answer_field) == ("filtered_lookup", "wind")
    assert spec.conditions == [Condition(field="weather", op="==", value="snow")]


def test_a_table_shown_as_an_image_is_drawn():
    assert rendered_intent(
        "Tableau de 12 voitures affiché comme image ; question : combien de ces voitures ne "
        "sont pas américaines ? En français, réponse numérique."
    )
    assert rendered_intent(
        "Mettre huit vins dans un tableau rendu en image (capture d'écran), puis demander "
        "lequel a la couleur la plus intense."
    )
    assert rendered_intent(
        "Die Tabelle mit 7 US-Flughäfen (Name, Code, Bundesstaat, Längengrad) bitte als Bild "
        "zeigen. Gefragt wird nach dem am weitesten westlich gelegenen Flughafen."
    )
    assert not rendered_intent("Show one handwritten digit image and ask which digit it is.")
    assert not rendered_intent("Show a table of five countries in English; which is largest?")


def test_the_name_in_a_language_asked_as_an_adjective_and_how_it_is_said():
    spec = best(
        "two-hop Qs: 'What is the Finnish name of the country whose capital is Warsaw?' — "
        "capital -> country -> its name in Finnish. English questions, short answer.",
        "countries",
    )
    assert (spec.kind, spec.key_field, spec.answer_field) == ("multihop", "capital", "name")
    assert spec.hops[0].conditions == [Condition(field="language", op="==", value="fi")]
    spec = best(
        "¿Cómo se dice «Polonia» en finlandés? Quiero muchas preguntas así, siempre hacia el "
        "finlandés, planteadas en español.",
        "country-names",
    )
    assert spec.conditions == [Condition(field="language", op="==", value="fi")]
    assert spec.answer_field == "name"


def test_the_readers_column_yields_to_the_one_the_rank_word_measures():
    from test_programs_translation import Scripted

    from benchsmith.programs.slots import read

    table = iris()
    intent = (
        "Due fiori di iris mostrati in tabella (fiore 1 e fiore 2): quale ha i petali più "
        "larghi? Domande in italiano."
    )
    # No translation passes; the reader says petal length where "più larghi" measures a width.
    reading = read(intent, {table.id: table}, table.id, Scripted(None, asked="petal_length_cm"))
    assert reading.candidates[0].spec.field == "petal_width_cm"
    assert any("rank word measures" in n for n in reading.notes), reading.notes

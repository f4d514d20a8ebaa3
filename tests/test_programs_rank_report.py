"""Two-step questions: rank the records, then report another field of the one ranked first.

"Which of these countries has the largest area: A, B or C? Answer with the capital of that
country." A ``multihop`` program with a ``field`` (and no joins, or joins after the
ranking): its executor, its wording in seven languages, its re-execution by the verifier,
the reading of such intents, and the list fields (a country's one currency) and CLDR
region names the starter intents needed.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_programs_phrasings import table_of

from benchsmith.programs import Refusal, build_table, generate, plan
from benchsmith.programs.handwritten import parse_program
from benchsmith.programs.items import to_item
from benchsmith.programs.run import ProgramError, execute
from benchsmith.programs.table import single_values
from benchsmith.spec import Condition, ProgramSpec
from benchsmith.verify.programs import check_program

COUNTRIES = [
    # name, capital, region, subregion, area, population, currencies
    ("Thailand", "Bangkok", "Asia", "South-eastern Asia", 513120, 69, ["THB"]),
    ("Vietnam", "Hanoi", "Asia", "South-eastern Asia", 331212, 97, ["VND"]),
    ("Indonesia", "Jakarta", "Asia", "South-eastern Asia", 1904569, 273, ["IDR"]),
    ("Laos", "Vientiane", "Asia", "South-eastern Asia", 236800, 7, ["LAK"]),
    ("Cambodia", "Phnom Penh", "Asia", "South-eastern Asia", 181035, 16, ["KHR"]),
    ("Malaysia", "Kuala Lumpur", "Asia", "South-eastern Asia", 330803, 32, ["MYR"]),
    ("Philippines", "Manila", "Asia", "South-eastern Asia", 300000, 109, ["PHP"]),
    ("France", "Paris", "Europe", "Western Europe", 551695, 67, ["EUR"]),
    ("Germany", "Berlin", "Europe", "Western Europe", 357022, 83, ["EUR"]),
    ("Belgium", "Brussels", "Europe", "Western Europe", 30528, 11, ["EUR"]),
    ("Switzerland", "Bern", "Europe", "Western Europe", 41285, 8, ["CHF"]),
    (
        "Panama",
        "Panama City",
        "Americas",
        "Latin America and the Caribbean",
        75417,
        4,
        ["PAB", "USD"],
    ),
    ("Nigeria", "Abuja", "Africa", "Sub-Saharan Africa", 923768, 206, ["NGN"]),
    ("Kenya", "Nairobi", "Africa", "Sub-Saharan Africa", 580367, 53, ["KES"]),
    ("Ghana", "Accra", "Africa", "Sub-Saharan Africa", 238533, 31, ["GHS"]),
    ("Egypt", "Cairo", "Africa", "Northern Africa", 1002450, 102, ["EGP"]),
]
KINDS = {
    "name": "text",
    "capital": "text",
    "region": "category",
    "subregion": "category",
    "area_km2": "number",
    "population": "number",
    "currencies": "json",
}


def countries(rows: list[tuple] = COUNTRIES):
    table = table_of("countries", KINDS, rows)
    table.columns["area_km2"].labels["en"] = "area"
    return table


def spec(**given) -> ProgramSpec:
    values = {
        "kind": "multihop",
        "table": "countries",
        "key_field": "name",
        "answer_field": "capital",
        "field": "area_km2",
        "direction": "max",
        "k": 3,
    }
    return ProgramSpec(**{**values, **given})


def test_the_answer_is_the_reported_field_of_the_record_ranked_first():
    table = countries()
    made = generate(spec(), {"countries": table}, n=6, seed=1)
    assert len(made) == 6
    for instance in made:
        areas = [table.order_value(r, "area_km2") for r in instance.rows]
        winner = instance.rows[areas.index(max(areas))]
        assert instance.answer == table.text(winner, "capital")
        # The other records' capitals come first among the wrong choices: a wrong ranking
        # picks a wrong choice, never the answer.
        others = [table.text(r, "capital") for r in instance.rows if r != winner]
        assert instance.distractors[: len(others)] == others
        # Closed book: every record compared is named, the question says what to answer.
        for row in instance.rows:
            assert table.text(row, "name") in instance.question
        assert instance.question.endswith("Answer with the capital of that country.")
        assert instance.hops[0]["key"] == table.text(winner, "name")
        meta = instance.metadata(spec())
        meta["question"] = instance.question
        assert execute(meta, {"countries": table}) == instance.answer


def test_a_sample_whose_records_share_the_answer_or_tie_at_the_top_is_drawn_again():
    rows = [
        ("A", "Same", "X", "Y", 10, 1, ["EUR"]),
        ("B", "Same", "X", "Y", 5, 2, ["EUR"]),
        ("C", "Other", "X", "Y", 10, 3, ["EUR"]),
        ("D", "Fourth", "X", "Y", 1, 4, ["EUR"]),
    ]
    table = countries(rows)
    made = generate(spec(k=2), {"countries": table}, n=10, seed=0)
    for instance in made:
        capitals = {table.text(r, "capital") for r in instance.rows}
        areas = [table.order_value(r, "area_km2") for r in instance.rows]
        assert len(capitals) == 2, "two compared records share the answer"
        assert len(set(areas)) == 2, "the top is tied"
    assert made, "the samples that can be asked are asked"


def test_open_book_shows_the_name_the_ranked_value_and_the_reported_field():
    table = countries()
    (instance,) = generate(spec(book="open", k=4), {"countries": table}, n=1, seed=2)
    assert instance.shown_fields == ["name", "area_km2", "capital"]
    for row in instance.rows:
        assert f"| {table.text(row, 'name')} |" in instance.table_text
    assert instance.question.startswith("According to the table, which country")


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("fr", "Répondez par la capitale de ce pays."),
        ("de", "Gesucht ist die Hauptstadt des betreffenden Landes."),
        ("es", "Responda con la capital del país en cuestión."),
        ("it", "Rispondi con la capitale del paese in questione."),
        ("nl", "Antwoord met de hoofdstad van het betreffende land."),
        ("pt", "Responda com a capital do país em questão."),
    ],
)
def test_the_second_step_is_worded_in_every_language(language, said):
    table = countries()
    (instance,) = generate(spec(), {"countries": table}, n=1, seed=3, language=language)
    assert instance.question.endswith(said), instance.question


def test_the_verifier_re_executes_the_ranking_and_the_report():
    table = countries()
    program = spec(answer_format="short_answer")
    (instance,) = generate(program, {"countries": table}, n=1, seed=4)
    subtask = SimpleNamespace(id="s", name="s", skills=[], difficulty="medium")
    item = to_item(instance, program, item_id="x", language="en", seed=1, subtask=subtask)
    tables = {"countries": table}
    assert check_program(item, tables).ok, check_program(item, tables).reason
    # The answer of another compared record: re-executed, the program says which is right.
    other = next(r for r in instance.rows if table.text(r, "capital") != instance.answer)
    wrong = item.model_copy(update={"target": table.text(other, "capital")})
    verdict = check_program(wrong, tables)
    assert not verdict.ok and "re-executed" in verdict.reason
    # A compared record the closed-book question does not name.
    missing = table.text(instance.rows[0], "name")
    assert isinstance(item.input, str)
    unnamed = item.model_copy(update={"input": item.input.replace(missing, "somewhere")})
    verdict = check_program(unnamed, tables)
    assert not verdict.ok and "does not name row" in verdict.reason


def test_a_choice_that_is_also_right_is_refused():
    table = countries()
    program = spec()
    (instance,) = generate(program, {"countries": table}, n=1, seed=5)
    subtask = SimpleNamespace(id="s", name="s", skills=[], difficulty="medium")
    item = to_item(instance, program, item_id="x", language="en", seed=1, subtask=subtask)
    assert item.choices and check_program(item, {"countries": table}).ok
    doubled = [instance.answer if c != instance.answer else c for c in item.choices]
    verdict = check_program(item.model_copy(update={"choices": doubled}), {"countries": table})
    assert not verdict.ok and "choices equal" in verdict.reason


def test_a_multihop_without_joins_or_a_ranking_is_refused_with_what_to_give():
    table = countries()
    with pytest.raises(ProgramError, match="give one or both"):
        generate(spec(field=None), {"countries": table}, n=1, seed=0)
    with pytest.raises(ProgramError, match="answer=FIELD"):
        generate(spec(answer_field=None), {"countries": table}, n=1, seed=0)


def test_a_program_written_by_hand_ranks_then_reports():
    tables = {"countries": countries()}
    written = parse_program(
        "multihop table=countries key=name answer=capital field=population direction=min k=3",
        tables,
    )
    assert (written.kind, written.field, written.direction) == ("multihop", "population", "min")
    assert written.reading() == (
        "multihop, closed book: 3 records of countries: the capital of the one with the "
        "smallest population"
    )


@pytest.mark.parametrize(
    "intent",
    [
        "Name three countries and ask for the capital of the one with the largest area.",
        "Show a few countries with their area; the model first has to find the largest, "
        "then report its capital.",
        "Two-step questions: what is the capital of the biggest of these countries by area?",
    ],
)
def test_an_intent_that_ranks_then_asks_another_field_is_read_as_two_steps(intent):
    table = countries()
    found = plan(intent, {"countries": table}, "countries")
    assert not isinstance(found, Refusal), found
    lead = found[0].spec
    assert (lead.kind, lead.field, lead.answer_field) == ("multihop", "area_km2", "capital")
    assert lead.direction == "max"


@pytest.mark.parametrize(
    "intent",
    [
        "Which of these countries has the largest area?",
        "Which of two countries is larger by area? Name both countries.",
        "Show countries with their capital and area and ask which has the largest area.",
    ],
)
def test_a_plain_ranking_stays_a_ranking(intent):
    table = countries()
    found = plan(intent, {"countries": table}, "countries")
    assert not isinstance(found, Refusal), found
    assert found[0].spec.kind in ("compare", "superlative"), found[0].spec.describe()


def test_a_list_field_whose_records_mostly_hold_one_value_is_a_column_of_that_value():
    table = countries()
    column = table.columns["currencies"]
    assert column.listed and column.kind == "category"
    france = next(r for r in table.rows() if table.text(r, "name") == "France")
    panama = next(r for r in table.rows() if table.text(r, "name") == "Panama")
    assert table.value(france, "currencies") == "EUR"
    assert table.value(panama, "currencies") is None  # two currencies: never asked about
    assert single_values([["a", "b"], ["c", "d"], ["e"]]) is None  # mostly several
    assert single_values([[{"x": 1}], [{"y": 2}]]) is None  # objects
    assert single_values(["a", "b"]) is None  # not lists


def test_a_code_written_as_text_is_never_ranked():
    rows = [(f"C{i}", [str(30 + i)]) for i in range(8)]
    table = table_of("places", {"name": "text", "calling_codes": "json"}, rows)
    assert table.columns["calling_codes"].kind == "text"
    assert not table.columns["calling_codes"].orderable


@pytest.mark.parametrize(
    ("intent", "value"),
    [
        ("Ask for the capital of a country of Southeast Asia.", "South-eastern Asia"),
        ("Take a few Southeast Asian countries and ask for a capital.", "South-eastern Asia"),
        ("Nenne Länder aus Südostasien und frag nach der Hauptstadt.", "South-eastern Asia"),
        ("Countries of sub-Saharan Africa: ask for the capital.", "Sub-Saharan Africa"),
        ("Countries from Latin America: ask for the capital.", "Latin America and the Caribbean"),
    ],
)
def test_a_region_is_named_as_cldr_names_it_in_any_language(intent, value):
    table = countries()
    found = plan(intent, {"countries": table}, "countries")
    assert not isinstance(found, Refusal), found
    conditions = found[0].spec.conditions
    assert conditions == [Condition(field="subregion", op="==", value=value)]


def test_the_sample_is_reproducible():
    table = countries()
    first = generate(spec(), {"countries": table}, n=3, seed=9)
    again = generate(spec(), {"countries": table}, n=3, seed=9)
    assert [i.question for i in first] == [i.question for i in again]


def test_a_number_before_a_field_s_noun_is_a_value_of_that_field_but_not_a_count():
    rows = [(f"car {i}", 4 if i % 2 else 6, 20 + i, 60 + i, 1970 + i % 5) for i in range(12)]
    columns = {"Name": "text", "Cylinders": "number", "mpg": "number", "age": "number",
               "Year": "number"}  # fmt: skip
    cars = table_of("cars", columns, rows)
    tables = {"cars": cars}
    found = plan("Only cars with four cylinders: show six and ask the mean mpg.", tables, "cars")
    assert not isinstance(found, Refusal)
    assert found[0].spec.conditions == [Condition(field="Cylinders", op="==", value=4.0)]
    # A count of records said before their noun filters nothing.
    found = plan("Show ten cars and ask the mean mpg.", tables, "cars")
    assert not isinstance(found, Refusal) and found[0].spec.conditions == []
    # "older than": the age, not the field named nearest.
    found = plan(
        "Show cars whose mpg is shown, older than 62, and ask the mean mpg.", tables, "cars"
    )
    assert not isinstance(found, Refusal)
    assert Condition(field="age", op=">", value=62.0) in found[0].spec.conditions


@pytest.mark.parametrize(
    "intent",
    [
        "Take two days of the weather log, show their data and ask which had more wind.",
        "We show a short series of days and ask which had the most wind.",
        "Show the specifications of two days and ask which had more wind.",
    ],
)
def test_showing_the_records_data_makes_the_question_open_book(intent):
    days = [(f"2020-01-{d:02d}", d % 7, d % 5) for d in range(1, 20)]
    columns = {"date": "text", "wind": "number", "rain": "number"}
    log = table_of("weather", columns, days)
    found = plan(intent, {"weather": log}, "weather")
    assert not isinstance(found, Refusal) and found[0].spec.book == "open"


def _cars():
    rows = [
        (f"car {i}", 4 if i % 2 else 6, 20 + i, 3000 + 97 * i, 10 + (i * 7) % 9, o)
        for i, o in enumerate(["usa", "europe", "japan"] * 4)
    ]
    columns = {"Name": "text", "Cylinders": "number", "Horsepower": "number",
               "Weight_in_lbs": "number", "Acceleration": "number",
               "Origin": "category"}  # fmt: skip
    table = table_of("cars", columns, rows)
    table.columns["Acceleration"].labels["en"] = "acceleration time"
    return {"cars": table}


@pytest.mark.parametrize(
    ("intent", "kind", "field", "direction"),
    [
        # The rank word's own quantity, wherever the fields are listed.
        ("Show 5 up to 6 cars as a table (name, weight, horsepower) and ask which is the heaviest.",
         "superlative", "Weight_in_lbs", "max"),
        # A time: faster is less of it.
        ("Show two cars with their acceleration time and ask which accelerates faster.",
         "compare", "Acceleration", "min"),
        ("Show two cars with their acceleration time and ask which is slower.",
         "compare", "Acceleration", "max"),
    ],
)  # fmt: skip
def test_the_rank_word_names_its_quantity_and_its_direction(intent, kind, field, direction):
    found = plan(intent, _cars(), "cars")
    assert not isinstance(found, Refusal), found
    lead = found[0].spec
    assert (lead.kind, lead.field, lead.direction) == (kind, field, direction)
    # "5 up to 6 cars" is how many rows, not a bound on a field.
    assert lead.conditions == []


def test_where_a_record_comes_from_is_its_origin():
    intent = (
        "Show five cars with weight and origin, find the lightest, then ask where it comes from."
    )
    found = plan(intent, _cars(), "cars")
    assert not isinstance(found, Refusal), found
    lead = found[0].spec
    assert (lead.kind, lead.field, lead.answer_field) == ("multihop", "Weight_in_lbs", "Origin")
    assert lead.direction == "min"


def test_a_bound_takes_the_field_named_just_before_it():
    intent = (
        "Show cars (weight, horsepower, acceleration) and count how many have horsepower above 25."
    )
    found = plan(intent, _cars(), "cars")
    assert not isinstance(found, Refusal), found
    assert found[0].spec.conditions == [Condition(field="Horsepower", op=">", value=25.0)]


def test_no_context_table_is_closed_book():
    intent = "Give a car's name and ask its origin. No context table."
    found = plan(intent, _cars(), "cars")
    assert not isinstance(found, Refusal), found
    assert found[0].spec.book == "closed"


def _translations():
    """A table of translations: a country's name in several languages, one record each."""
    local = {"cy": "Gwlad", "fi": "Maa", "nl": "Land", "fr": "Pays"}
    language = {"cy": "Welsh", "fi": "Finnish", "nl": "Dutch", "fr": "French", "en": "English",
                "en-gb": "British English", "sco": "Scots"}  # fmt: skip
    # English, British English and Scots write the English names: names repeat.
    records = [
        {"name_en": f"Country {i}", "language": code, "language_name": language[code],
         "name": f"{local[code]} {i}" if code in local else f"Country {i}"}
        for i in range(60)
        for code in language
    ]  # fmt: skip
    fields = [
        SimpleNamespace(path=p, modality=m, translations={}, labels=labels)
        for p, m, labels in (
            ("name_en", "text", {"en": "English name", "nl": "de Engelse naam"}),
            ("language", "category", {"en": "language code", "nl": "de taalcode"}),
            ("language_name", "category", {"en": "language", "nl": "de taal"}),
            ("name", "text", {"en": "translated name", "nl": "de vertaalde naam"}),
        )
    ]
    entity = {"en": "country name", "nl": "de landsnaam"}
    table = build_table("country-names", records, fields, card_entity=entity)
    return {"country-names": table}


@pytest.mark.parametrize(
    ("intent", "language", "local"),
    [
        ("Give the English name of a country and ask what it is called in Welsh.", "cy", "en"),
        ("Geef de Engelse naam van een land en vraag hoe dat land in het Fins heet. "
         "De vragen in het Nederlands.", "fi", "nl"),
    ],
)  # fmt: skip
def test_a_name_that_repeats_across_languages_names_one_record_of_one_language(
    intent, language, local
):
    tables = _translations()
    table = tables["country-names"]
    assert table.key is None  # "Germany" is the English name of four records
    found = plan(intent, tables, "country-names")
    assert not isinstance(found, Refusal), found
    lead = found[0].spec
    assert (lead.kind, lead.key_field, lead.answer_field) == ("filtered_lookup", "name_en", "name")
    # Stated on the code the table gives each language name.
    assert lead.conditions == [Condition(field="language", op="==", value=language)]
    for instance in generate(lead, tables, n=4, seed=1, language=local):
        (row,) = instance.rows
        assert table.text(row, "language") == language
        # The English name stays English, the answer is the name as written, and the
        # question says which language's name it asks for.
        assert table.text(row, "name_en") in instance.question
        assert instance.answer == table.text(row, "name")
        said = "cy (Welsh)" if local == "en" else "fi (Fins)"
        assert said in instance.question, instance.question


def test_two_steps_is_not_two_records():
    intent = "Two-step questions: show five countries and ask the capital of the largest by area."
    found = plan(intent, {"countries": countries()}, "countries")
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.k) == ("multihop", 5)


def test_a_quantity_said_before_its_superlative_that_no_field_holds_is_refused():
    days = [(f"2020-01-{d:02d}", d % 7, d % 5) for d in range(1, 20)]
    columns = {"date": "date", "wind": "number", "rain": "number"}
    tables = {"weather": table_of("weather", columns, days)}
    refused = plan("Show a week and ask on which day the humidity was highest.", tables, "weather")
    assert isinstance(refused, Refusal) and "'humidity'" in refused.missing
    found = plan("Show a week and ask on which day the wind was highest.", tables, "weather")
    assert not isinstance(found, Refusal) and found[0].spec.field == "wind"


def _weather(with_min: bool = False):
    """Days of weather: a weather type, or (``with_min``) a minimum temperature, last."""
    kinds = ("sun", "rain", "fog", "drizzle", "snow")
    days = [
        (f"2020-01-{d:02d}", (d * 3) % 11, 10 + d % 9, d % 7 - 2 if with_min else kinds[d % 5])
        for d in range(1, 28)
    ]
    last = {"temp_min": "number"} if with_min else {"weather": "category"}
    columns = {"date": "date", "precipitation": "number", "temp_max": "number", **last}
    table = table_of("weather", columns, days)
    table.columns["precipitation"].labels["en"] = "precipitation (mm)"
    table.columns["temp_max"].labels["en"] = "maximum temperature"
    if with_min:
        table.columns["temp_min"].labels["en"] = "minimum temperature"
    return {"weather": table}


@pytest.mark.parametrize(
    ("intent", "kind", "field", "conditions"),
    [
        # "pasó de 25": a bound, however it is said.
        ("Se enseñan unos diez días con su temperatura máxima y se pregunta en cuántos de "
         "esos días la máxima pasó de 25 °C.", "count", None,
         [Condition(field="temp_max", op=">", value=25.0)]),
        # "how many millimetres ... in total": a sum; "the rain" is the quantity.
        ("Quiero preguntas de suma sobre la lluvia: ¿cuántos milímetros de precipitación se "
         "acumularon en total entre estos días? Se muestra una serie corta de días.",
         "aggregate", "precipitation", []),
        # "rained most": ranked by the precipitation, not a filter on rainy days.
        ("Show five days with their precipitation and ask on which day it rained most.",
         "superlative", "precipitation", []),
    ],
)  # fmt: skip
def test_a_quantity_said_as_a_verb_or_a_unit_is_the_quantity(intent, kind, field, conditions):
    found = plan(intent, _weather(), "weather")
    assert not isinstance(found, Refusal), found
    lead = found[0].spec
    assert (lead.kind, lead.field, lead.conditions) == (kind, field, conditions)


@pytest.mark.parametrize(
    ("intent", "kind", "field"),
    [
        # One given day's value: "at most" is an adverb, "warm" names the temperature.
        ("Show a few days and ask how warm it got at most on a given date.", "lookup",
         "temp_max"),
        ("Eine Tabelle mit ein paar Tagen zeigen und fragen, wie warm es an einem bestimmten "
         "Datum höchstens wurde.", "lookup", "temp_max"),
        ("Show a few days and ask how high the temperature was on a given day.", "lookup",
         "temp_max"),
        ("Show a few days and ask how cold it got at least on a particular date.", "lookup",
         "temp_min"),
        # Without a given day the rank word ranks the days.
        ("Show a few days and ask which day had the highest temperature.", "superlative",
         "temp_max"),
        ("Show a few days and ask on which day it was warmest.", "superlative", "temp_max"),
    ],
)  # fmt: skip
def test_one_given_days_value_is_a_lookup_and_a_rank_without_one_ranks(intent, kind, field):
    found = plan(intent, _weather(with_min=True), "weather")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    got = spec.answer_field if kind == "lookup" else spec.field
    assert (spec.kind, got) == (kind, field)
    if kind == "lookup":
        assert spec.key_field == "date"


@pytest.mark.parametrize(
    ("intent", "cylinders"),
    [
        ("Vergelijkingsvragen over viercilinders: laat twee modellen zien met hun gegevens (o.a. "
         "acceleratie in seconden) en vraag welke van de twee sneller optrekt.", 4),
        ("Nur Achtzylinder: zeig zwei Autos mit ihren Daten (Beschleunigung in Sekunden) und "
         "frag, welches schneller beschleunigt.", 8),
    ],
)  # fmt: skip
def test_a_compound_of_a_number_and_cylinders_is_a_filter(intent, cylinders):
    rows = [(f"car {i}", (4, 6, 8)[i % 3], 12 + i % 7 + i / 10, 70 + 9 * i) for i in range(18)]
    columns = {"Name": "text", "Cylinders": "number", "Acceleration": "number",
               "Horsepower": "number"}  # fmt: skip
    table = table_of("cars", columns, rows)
    table.columns["Acceleration"].labels["en"] = "acceleration time (s)"
    found = plan(intent, {table.id: table}, table.id)
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert spec.kind == "compare" and spec.field == "Acceleration" and spec.direction == "min"
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Cylinders", "==", cylinders)]


@pytest.mark.parametrize(
    "intent",
    [
        "Give the English name of a country and ask its translated name. In French.",
        "Geef de Engelse naam van een land en vraag de vertaalde naam. In het Frans.",
    ],
)
def test_a_sentence_that_only_names_the_items_language_selects_no_records(intent):
    found = plan(intent, _translations(), "country-names")
    assert all(
        c.field != "language" and c.field != "language_name"
        for cand in ([] if isinstance(found, Refusal) else found)
        for c in cand.spec.conditions
    ), found
    plain = intent.replace("In French.", "").replace("In het Frans.", "")
    named = plan(plain + " Ask what it is called in Welsh.", _translations(), "country-names")
    assert not isinstance(named, Refusal)
    welsh = Condition(field="language", op="==", value="cy")
    assert welsh in named[0].spec.conditions


def _places():
    """Countries with their own names in French and Portuguese, a region and a capital."""
    regions = ("Africa", "Europe", "Asia")
    records = [
        {"name": f"Land {i}", "names.fr": f"Pays {i}", "names.pt": f"País {i}",
         "capital": f"Town {i}", "region": regions[i % 3], "area_km2": 1000 + 37 * i,
         "iata": f"X{i:02d}"}
        for i in range(30)
    ]  # fmt: skip
    labels = {"names.fr": "French name", "names.pt": "Portuguese name", "area_km2": "area",
              "iata": "country code"}  # fmt: skip
    fields = [
        SimpleNamespace(path=p, modality="number" if p == "area_km2" else
                        "category" if p == "region" else "text",
                        translations={}, labels={"en": labels.get(p, p)})
        for p in records[0]
    ]  # fmt: skip
    entity = {"en": "country", "fr": "le pays", "pt": "o país"}
    return {"places": build_table("places", records, fields, card_entity=entity)}


@pytest.mark.parametrize(
    ("intent", "kind", "key", "answer"),
    [
        # The column the records are named by, said in the intent.
        ("Questions de géographie sur les pays d'Afrique : « Quelle est la capitale de <pays> "
         "? », le pays étant désigné par son nom français. Pas de tableau.", "filtered_lookup",
         "names.fr", "capital"),
        ("Uma voz lê «Qual destes dois países tem a maior área?». Os países devem ser chamados "
         "pelos nomes em português. Sem tabela, é de memória.", "compare", "names.pt", None),
        # One quoted example of a column the intent names ("the code, e.g. X07").
        ("Closed book: given only the country code (e.g. X07), ask for the capital.", "lookup",
         "iata", "capital"),
        # "Answer: the code": the ranked records are named by it.
        ("Show six countries and ask which is the largest by area. Answer: the country code.",
         "superlative", "iata", None),
    ],
)  # fmt: skip
def test_the_column_the_records_are_named_by(intent, kind, key, answer):
    found = plan(intent, _places(), "places")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.key_field) == (kind, key)
    if answer:
        assert spec.answer_field == answer


def test_a_filter_every_record_passes_is_no_filter():
    tables = _places()
    found = plan("Show five European countries and ask which is the largest.", tables, "places")
    assert not isinstance(found, Refusal)
    assert found[0].spec.conditions == [Condition(field="region", op="==", value="Europe")]
    table = tables["places"]
    for record in table.records:
        record["region"] = "Africa"
    same = build_table("places", table.records, [
        SimpleNamespace(path=c.path, modality=c.kind if c.kind != "category" else "category",
                        translations={}, labels=c.labels)
        for c in table.columns.values()], card_entity=table.entity)  # fmt: skip
    found = plan("Show five African countries and ask which is the largest.", {"places": same},
                 "places")  # fmt: skip
    assert not isinstance(found, Refusal)
    assert found[0].spec.conditions == []


@pytest.mark.parametrize(
    ("intent", "kind", "field", "aggregate"),
    [
        ("show 6 patient rows and ask for the avergae body mass index of those patients",
         "aggregate", "bmi", "mean"),  # a typo of a cue word
        ("Zeig fünf Patienten als Tabelle und frag nach dem kleinsten Prolin-Wert unter "
         "diesen Patienten (gesucht ist der Wert selbst).", "aggregate", "proline", "min"),
    ],
)  # fmt: skip
def test_an_aggregate_is_read_through_a_typo_and_as_the_value_itself(
    intent, kind, field, aggregate
):
    rows = [(30 + i, 20 + i % 9, 80 + 3 * i) for i in range(20)]
    columns = {"age": "number", "bmi": "number", "proline": "number"}
    table = table_of("patients", columns, rows)
    table.columns["bmi"].labels["en"] = "body mass index"
    found = plan(intent, {"patients": table}, "patients")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.field, spec.aggregate) == (kind, field, aggregate)


def test_a_word_meaning_the_field_right_after_the_cue_leads():
    # "the average power in horses": power means horsepower, though "weight" is named too.
    rows = [(f"car {i}", 60 + 5 * i, 2000 + 37 * i) for i in range(20)]
    cars = table_of("cars", {"Name": "text", "Horsepower": "number", "Weight_in_lbs": "number"},
                    rows)  # fmt: skip
    intent = ("Take some cars, draw their rows (model, weight) as an image and ask the average "
              "power in horses of the cars shown.")  # fmt: skip
    found = plan(intent, {"cars": cars}, "cars")
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.field) == ("aggregate", "Horsepower")
    found = plan(intent.replace("power in horses", "weight"), {"cars": cars}, "cars")
    assert not isinstance(found, Refusal), found
    assert found[0].spec.field == "Weight_in_lbs"


def test_dates_are_never_added_up_and_a_span_of_years_is_no_year():
    tables = _weather(with_min=True)
    found = plan("Show a week of days with date and precipitation and ask for the total "
                 "precipitation (sum, in mm).", tables, "weather")  # fmt: skip
    assert not isinstance(found, Refusal)
    assert all(c.spec.field != "date" for c in found if c.spec.kind == "aggregate")
    assert found[0].spec.field == "precipitation"
    rows = [(f"car {i}", 1970 + i % 13, 60 + 5 * i) for i in range(26)]
    cars = table_of("cars", {"Name": "text", "Year": "number", "Horsepower": "number"}, rows)
    found = plan("Spoken questions about the cars of 1970-1982. Example: how many horsepower "
                 "does the car 5 have? Closed book.", {"cars": cars}, "cars")  # fmt: skip
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.answer_field, spec.conditions) == ("lookup", "Horsepower", [])


def test_a_compound_that_starts_with_a_fields_word_is_split():
    rows = [(12 + i % 3, 100 + i, ("class_0", "class_1", "class_2")[i % 3]) for i in range(18)]
    columns = {"alcohol": "number", "magnesium": "number", "cultivar": "category"}
    table = table_of("wine", columns, rows)
    intent = ("Geef de kenmerken van één wijn (alcohol, magnesium) en vraag tot welke "
              "cultivarklasse hij behoort. Geen voorbeeldtabel.")  # fmt: skip
    found = plan(intent, {"wine": table}, "wine")
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.answer_field) == ("classify", "cultivar")


def test_cldr_language_names_are_glossed():
    from benchsmith.programs.gloss import to_english

    assert "japanese" in to_english("il nome di un paese in giapponese", "it")
    assert "swedish" in to_english("de naam in het Zweeds", "nl")


def test_how_many_choices_after_with_is_not_the_key():
    rows = [(f"Painter {i}", 1800 + i * 3, ("France", "Spain")[i % 2]) for i in range(20)]
    columns = {"painter": "text", "birth_year": "number", "birth_country": "category"}
    table = table_of("painters", columns, rows)
    found = plan("Name the painter and ask for their year of birth, with four candidate years "
                 "to choose from. Closed book.", {"painters": table}, "painters")  # fmt: skip
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.key_field, spec.answer_field) == ("painter", "birth_year")


@pytest.mark.parametrize(
    ("intent", "kind", "shown"),
    [
        ("Show a few days (date, precipitation, maximum and minimum temperature) and ask what "
         "the maximum temperature was on a given day.", "lookup", ["precipitation", "temp_min"]),
        ("Show 6 days with their precipitation and minimum temperature, and ask on which day "
         "it rained the most.", "superlative", ["temp_min"]),
        ("Show 6 days and ask on which day it rained the most.", "superlative", []),
    ],
)  # fmt: skip
def test_an_open_book_table_shows_the_columns_the_intent_lists(intent, kind, shown):
    tables = _weather(with_min=True)
    found = plan(intent, tables, "weather")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.book, spec.shown) == (kind, "open", shown)
    # The plan's sentence says which columns the table shows besides the question's own.
    assert ("the table also shows" in spec.reading()) is bool(shown)
    assert all(path in spec.reading() for path in shown)
    (instance,) = generate(spec, tables, n=1, seed=3)
    needed = ["date", "temp_max" if kind == "lookup" else "precipitation"]
    assert instance.shown_fields == needed + shown
    header = instance.table_text.splitlines()[0]
    for path in shown:
        assert tables["weather"].columns[path].labels["en"].capitalize() in header
    # The same columns by hand; a column the table lacks is named.
    written = parse_program(
        "superlative table=weather key=date field=precipitation direction=max book=open k=4 "
        "show=temp_min,temp_max",
        tables,
    )
    assert written.shown == ["temp_min", "temp_max"]
    with pytest.raises(Exception, match="'wind' is not a field of weather"):
        parse_program("superlative table=weather key=date field=precipitation book=open "
                      "show=wind", tables)  # fmt: skip


def test_every_column_shown_when_the_intent_asks_for_all_of_them():
    tables = _weather(with_min=True)
    found = plan("On montre une dizaine de jours (toutes les colonnes) et on demande quel jour "
                 "a eu la température maximale la plus haute.", tables, "weather")  # fmt: skip
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.book, spec.field) == ("superlative", "open", "temp_max")
    assert spec.shown == ["precipitation", "temp_min"]


def _cars_of_origin():
    origins = ("USA", "Europe", "Japan")
    rows = [(f"car {i}", origins[i % 3], 1970 + i % 13, 1800 + 91 * i) for i in range(30)]
    columns = {"Name": "text", "Origin": "category", "Year": "number", "Weight_in_lbs": "number"}
    return {"cars": table_of("cars", columns, rows)}


@pytest.mark.parametrize(
    ("intent", "book", "conditions"),
    [
        # The value after "only" is the filter, though the others are named to be ignored.
        ("Toon ongeveer acht auto's uit de tabel en vraag wat het gemiddelde gewicht is van "
         "alleen de Amerikaanse auto's daartussen. De Europese en Japanse moet het model dus "
         "negeren.", "open", [Condition(field="Origin", op="==", value="USA")]),
        # Named alike, none of them singled out: values listed, no filter.
        ("Show eight cars from Europe, Japan and the USA and ask the average weight.", "open",
         []),
        # "1970-82" is the data's span, not the year 1970.
        ("Take only the Japanese cars of the 1970-82 data, paste those rows into the prompt "
         "and ask the average weight.", "open",
         [Condition(field="Origin", op="==", value="Japan")]),
        ("Ask the average weight of six Japanese cars; the model answers without seeing any "
         "table.", "closed", [Condition(field="Origin", op="==", value="Japan")]),
    ],
)  # fmt: skip
def test_only_one_value_a_short_span_of_years_and_no_table_seen(intent, book, conditions):
    found = plan(intent, _cars_of_origin(), "cars")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.field, spec.conditions) == ("Weight_in_lbs", conditions)
    from benchsmith.programs.intent import _book

    assert _book(intent, "open") == book


def test_the_first_rows_are_no_rank_and_a_table_not_used_is_closed_book():
    from benchsmith.programs.intent import _book

    found = plan("Show the first 12 lines of the weather data and ask how many days it was "
                 "'rain'. Provide a table in the prompt.", _weather(), "weather")  # fmt: skip
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.conditions) == ("count", [Condition(field="weather", op="==",
                                                                value="rain")])  # fmt: skip
    assert _book("Ask which of two airports is further west; do not use a table.", "open") == (
        "closed"
    )


@pytest.mark.parametrize(
    ("intent", "answer"),
    [
        ("Ask for the currency code of a country.", "currencies"),
        ("Ask for the ISO 4217 code of the currency of a country.", "currencies"),
        ("Ask for the currency of a country.", "currency_names"),
    ],
)
def test_the_column_two_words_name_together_is_asked(intent, answer):
    names = ("euro", "dollar", "yen", "pound", "franc", "krona")
    rows = [(f"Country {i}", names[i % 6].upper()[:3], names[i % 6]) for i in range(24)]
    table = table_of("lands", {"name": "text", "currencies": "text", "currency_names": "text"},
                     rows)  # fmt: skip
    table.columns["currencies"].labels["en"] = "currency code"
    table.columns["currency_names"].labels["en"] = "currency"
    found = plan(intent, {"lands": table}, "lands")
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.answer_field) == ("lookup", answer)


def test_a_cue_word_before_one_records_key_asks_that_records_value():
    tables = _weather(with_min=True)
    found = plan("Render some days as a table image and ask 'What was the maximum temperature "
                 "on 2020-01-15?'", tables, "weather")  # fmt: skip
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.answer_field) == ("lookup", "temp_max")
    found = plan("Render some days as a table image and ask for the maximum temperature among "
                 "them.", tables, "weather")  # fmt: skip
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.aggregate) == ("aggregate", "max")


@pytest.mark.parametrize(
    ("intent", "missing"),
    [
        ("Which airport lies higher above sea level, DEN or SEA? Compare them by height.",
         "ranks the records by 'height'"),
        ('Questions like "What is the GDP per capita of DEN?", numeric answer.', "'gdp'"),
    ],
)  # fmt: skip
def test_a_quantity_no_field_holds_is_refused_by_name(intent, missing):
    rows = [(f"A{i:02d}", f"Airport {i}", 30 + i * 0.7, -120 + i) for i in range(20)]
    airports = table_of("airports", {"iata": "text", "name": "text", "latitude": "number",
                                     "longitude": "number"}, rows)  # fmt: skip
    found = plan(intent, {"airports": airports}, "airports")
    assert isinstance(found, Refusal), found
    assert missing in found.missing
    found = plan("Which airport lies further north, DEN or SEA?", {"airports": airports},
                 "airports")  # fmt: skip
    assert not isinstance(found, Refusal) and found[0].spec.field == "latitude"


def test_a_ranking_names_its_records_as_the_quoted_examples_are_written():
    from benchsmith.programs.intent import _book

    rows = [(f"A{i:02d}", f"Airport {i}", 30 + i * 0.7, -120 + i) for i in range(20)]
    airports = table_of("airports", {"iata": "text", "name": "text", "latitude": "number",
                                     "longitude": "number"}, rows)  # fmt: skip
    intent = ("Show two IATA codes and ask which one is further west. Type 'A03' or 'A07'. "
              "The model does not see any table.")  # fmt: skip
    found = plan(intent, {"airports": airports}, "airports")
    assert not isinstance(found, Refusal), found
    spec = found[0].spec
    assert (spec.kind, spec.key_field, spec.field) == ("compare", "iata", "longitude")
    assert _book(intent, "open") == "closed"


def test_nearest_neighbour_names_a_way_to_classify_not_a_rank():
    found = plan("Nearest-neighbour flavour: a table of days with their weather type, then one "
                 "extra day described only by its precipitation and maximum temperature; which "
                 "weather type did that day have?", _weather(), "weather")  # fmt: skip
    assert not isinstance(found, Refusal), found
    assert (found[0].spec.kind, found[0].spec.answer_field) == ("classify", "weather")

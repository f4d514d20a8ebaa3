"""Reader cases found on the starter-dev intents, each pinned on a small table of its own.

A value said as an adjective ("8-cylinder") or alone (a model year) filters and is never the
field ranked; a US state said by its name ("Alaska") filters a column of state codes; a
quantity ranked that no field holds ("the most passengers") is refused; "the most rain"
ranks the rainfall and filters nothing; "which country it is" asks for the record itself;
"guess whether it is A, B or C" is a classification.
"""

from __future__ import annotations

from types import SimpleNamespace

from test_programs_phrasings import table_of

from benchsmith.programs import Refusal, build_table, generate, plan
from benchsmith.programs.items import to_item
from benchsmith.spec import Condition, Subtask
from benchsmith.verify.programs import check_program

SUBTASK = Subtask(id="s", name="s", description="d")

CARS = [
    ("ford torino", 8, 140, "1970", "USA", 3449),
    ("vw beetle", 4, 46, "1970", "Europe", 1835),
    ("chevy impala", 8, 165, "1970", "USA", 4209),
    ("datsun 510", 4, 88, "1971", "Japan", 2130),
    ("pontiac catalina", 8, 175, "1971", "USA", 4464),
    ("toyota corona", 4, 95, "1972", "Japan", 2372),
    ("audi 100", 4, 90, "1972", "Europe", 2430),
    ("amc hornet", 6, 97, "1973", "USA", 2774),
]
AIRPORTS = [
    ("ANC", "Ted Stevens Anchorage", "Anchorage", "AK"),
    ("FAI", "Fairbanks International", "Fairbanks", "AK"),
    ("JNU", "Juneau International", "Juneau", "AK"),
    ("DFW", "Dallas Fort Worth", "Dallas", "TX"),
    ("AUS", "Austin Bergstrom", "Austin", "TX"),
    ("SFO", "San Francisco International", "San Francisco", "CA"),
    ("LAX", "Los Angeles International", "Los Angeles", "CA"),
    ("SEA", "Seattle Tacoma", "Seattle", "WA"),
    ("DEN", "Denver International", "Denver", "CO"),
]
WEATHER = [
    (f"2012-01-{d:02d}", (d * 7) % 11 + 0.5, ("rain", "sun", "fog")[d % 3]) for d in range(1, 13)
]


def cars():
    columns = {
        "Name": "text", "Cylinders": "number", "Horsepower": "number", "Year": "text",
        "Origin": "category", "Weight_in_lbs": "number",
    }  # fmt: skip
    return table_of("cars", columns, CARS)


def airports():
    columns = {"iata": "text", "name": "text", "city": "text", "state": "text"}
    return table_of("us-airports", columns, AIRPORTS)


def best(intent: str, table):
    found = plan(intent, {table.id: table}, table.id)
    assert not isinstance(found, Refusal), found
    return found[0].spec


def test_a_number_said_as_an_adjective_filters_its_field():
    spec = best("Only the 8-cylinder cars: show a few and ask for the horsepower of one.", cars())
    assert spec.kind == "filtered_lookup" and spec.answer_field == "Horsepower"
    assert Condition(field="Cylinders", op="==", value=8) in spec.conditions


def test_a_year_said_alone_filters_and_is_not_the_field_aggregated():
    spec = best("Show the 1970 model-year cars and ask what the lowest horsepower is.", cars())
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "min", "Horsepower")
    assert Condition(field="Year", op="==", value=1970) in spec.conditions


def test_a_state_said_by_its_name_filters_a_column_of_state_codes():
    spec = best("alaska only: name an airport in Alaska and ask what city it is in", airports())
    assert spec.answer_field == "city"
    assert spec.conditions == [Condition(field="state", op="==", value="AK")]
    count = best("Show eight airports with their state and ask how many are in Texas.", airports())
    assert count.kind == "count" and count.conditions == [
        Condition(field="state", op="==", value="TX")
    ]


def test_a_quantity_ranked_that_no_field_holds_is_refused():
    found = plan(
        "Show a few airports and ask which one handles the most passengers per year.",
        {"us-airports": airports()},
        "us-airports",
    )
    assert isinstance(found, Refusal) and "'passengers'" in found.missing
    # A field the quantity names is ranked as before.
    spec = best("Show four cars and ask which has the most horsepower.", cars())
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "Horsepower", "max")


def test_the_most_rain_ranks_the_rainfall_and_filters_nothing():
    columns = {"date": "text", "precipitation": "number", "weather": "category"}
    table = table_of("seattle-weather", columns, WEATHER)
    spec = best(
        "Paste five days with their rainfall and ask on which date the most rain fell.", table
    )
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "precipitation", "max")
    assert spec.conditions == []
    rainy = best("Show eight days and ask how many of them were rainy.", table)
    assert rainy.conditions == [Condition(field="weather", op="==", value="rain")]


def test_which_record_it_is_asks_for_the_record_itself():
    columns = {"alpha_3": "text", "name": "text", "iso_name": "text", "capital": "text"}
    rows = [
        ("DEU", "Germany", "Germany, Federal Republic of", "Berlin"),
        ("FRA", "France", "France, French Republic", "Paris"),
        ("BRA", "Brazil", "Brazil, Federative Republic of", "Brasília"),
        ("JPN", "Japan", "Japan", "Tokyo"),
        ("ITA", "Italy", "Italy, Italian Republic", "Rome"),
    ]
    table = table_of("countries", columns, rows)
    spec = best("give the 3 letter code (DEU, BRA, JPN etc) and ask which country it is", table)
    assert (spec.key_field, spec.answer_field) == ("alpha_3", "name")


def test_guess_whether_it_is_one_of_the_listed_values_is_a_classification():
    spec = best(
        "From a car's specs only (cylinders, horsepower, weight) guess whether it was made in "
        "the USA, Europe or Japan. The car's name is not given.",
        cars(),
    )
    assert (spec.kind, spec.answer_field) == ("classify", "Origin")
    assert "Name" not in spec.features


def test_what_the_lowest_value_was_on_one_record_is_a_lookup():
    columns = {
        "date": "text", "precipitation": "number", "temp_max": "number", "temp_min": "number",
        "wind": "number", "weather": "category",
    }  # fmt: skip
    rows = [
        (f"2012-02-{d:02d}", d % 4, d + 3, d - 5, d % 6, ("snow", "sun", "rain")[d % 3])
        for d in range(1, 16)
    ]
    table = table_of("seattle-weather", columns, rows)
    spec = best(
        "Show the snowy days and ask what the minimum temperature was on one particular date.",
        table,
    )
    assert (spec.kind, spec.answer_field, spec.key_field) == (
        "filtered_lookup",
        "temp_min",
        "date",
    )
    over = best("Show the snowy days and ask what the lowest minimum temperature is.", table)
    assert (over.kind, over.aggregate, over.field) == ("aggregate", "min", "temp_min")


def test_people_guess_which_value_of_a_named_record_is_a_lookup():
    spec = best(
        "We print a three-letter airport code (like SEA or DEN) and people guess which state "
        "the airport is in.",
        airports(),
    )
    assert (spec.kind, spec.key_field, spec.answer_field) == ("lookup", "iata", "state")


def test_min_after_a_quantity_is_a_minimum_and_after_a_duration_minutes():
    from benchsmith.programs.table import english_label

    assert english_label("temp_min") == "minimum temperature"
    assert english_label("price_min") == "minimum price"
    assert english_label("runtime_min") == "runtime (minutes)"
    assert english_label("flight_time_min") == "flight time (minutes)"


COUNTRIES = [
    ("France", "Europe"), ("Japan", "Asia"), ("Peru", "Americas"), ("Chad", "Africa"),
    ("India", "Asia"), ("Norway", "Europe"), ("Chile", "Americas"), ("Nepal", "Asia"),
    ("Kenya", "Africa"), ("Spain", "Europe"),
]  # fmt: skip


def test_a_closed_book_count_names_the_records_and_shows_no_values():
    table = table_of("countries", {"name": "text", "region": "category"}, COUNTRIES)
    spec = best("Name five countries and ask how many of them are in Asia. No table.", table)
    assert (spec.kind, spec.book) == ("count", "closed")
    (made,) = generate(spec, {"countries": table}, n=1, seed=4)
    names = [table.text(r, "name") for r in made.rows]
    assert made.table_text == "" and all(n in made.question for n in names)
    assert "Asia" in made.question
    assert made.answer == str(sum(table.text(r, "region") == "Asia" for r in made.rows))
    item = to_item(made, spec, item_id="c-0", language="en", seed=0, subtask=SUBTASK)
    assert check_program(item, {"countries": table}).ok
    item.input = item.input.replace(names[0], "Atlantis")
    verdict = check_program(item, {"countries": table})
    assert not verdict.ok and "does not name row" in verdict.reason
    # An open-book count still shows its rows in a table.
    shown = best("Show five countries in a table and ask how many are in Asia.", table)
    assert shown.book == "open"


def diabetes():
    columns = {"age": "number", "bp": "number", "s6_glu": "number"}
    rows = [(20 + 5 * i, 70 + i, 80 + 3 * i) for i in range(12)]
    records = [dict(zip(columns, row, strict=True)) for row in rows]
    labels = {"bp": "average blood pressure", "s6_glu": "blood sugar level"}
    fields = [
        SimpleNamespace(path=c, modality=k, translations={}, labels={"en": labels.get(c, c)})
        for c, k in columns.items()
    ]
    return build_table("diabetes", records, fields)


def test_years_old_bounds_the_age_and_the_aggregate_word_names_no_field():
    table = diabetes()
    spec = best(
        "Show a table of patients and ask for the mean blood sugar of the patients over 60 "
        "years old.",
        table,
    )
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "mean", "s6_glu")
    assert spec.conditions == [Condition(field="age", op=">", value=60)]


# -- cases found on the starter-blind-3 intents (after their first, blind run) -------------


def test_a_cue_word_inside_a_field_s_name_is_not_the_aggregate_asked():
    table = diabetes()
    spec = best(
        "Give a small table of patients (5-8 rows) and ask what the highest average blood "
        "pressure among them is, just the number.",
        table,
    )
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "max", "bp")
    mean = best("Show six patients and ask for the mean blood pressure.", table)
    assert (mean.aggregate, mean.field) == ("mean", "bp")
    # Worded without saying the aggregate twice ("the average average blood pressure").
    (made,) = generate(mean, {"diabetes": table}, n=1, seed=1)
    assert "average average" not in made.question
    assert "the average of the average blood pressure" in made.question


def test_a_bound_in_millions_is_scaled():
    columns = {"name": "text", "population": "number"}
    rows = [(f"Land {i}", 3_000_000 * i) for i in range(1, 9)]
    table = table_of("countries", columns, rows)
    spec = best("Show six countries and ask how many have more than 10 million people.", table)
    assert spec.kind == "count"
    assert spec.conditions == [Condition(field="population", op=">", value=10_000_000)]
    # Over a field counted in millions, "10 million" is 10.
    columns = {"name": "text", "population_millions": "number"}
    table = table_of("states", columns, [(f"State {i}", 1.5 * i) for i in range(1, 9)])
    spec = best("Show six states and ask how many have more than 10 million people.", table)
    assert spec.conditions == [Condition(field="population_millions", op=">", value=10)]


def test_an_estimate_of_how_many_are_shown_is_not_a_value_asked():
    columns = {"image": "image", "label": "category"}
    rows = [(f"img{i}.png", i % 10) for i in range(20)]
    table = table_of("digits", columns, rows)
    spec = best(
        "Show a handful of the digit images (say six) and ask how many of them show the digit 7.",
        table,
    )
    assert (spec.kind, spec.rows_shown) == ("count", 6)
    assert spec.conditions == [Condition(field="label", op="==", value=7)]


def test_show_and_a_spelled_number_of_records_is_open_book():
    columns = {"date": "text", "precipitation": "number", "weather": "category"}
    table = table_of("seattle-weather", columns, WEATHER)
    spec = best("Show five days with the precipitation and ask on which day it rained most.", table)
    assert (spec.kind, spec.book, spec.field) == ("superlative", "open", "precipitation")


def test_a_city_column_with_a_few_homonyms_of_countries_is_said_as_it_is():
    # "Lebanon" and "Jordan" are towns here: a column of 120 town names does not need a
    # Dutch name for each (the old rule refused the language for one homonym).
    towns = [f"Town{chr(65 + i % 26)}{i}ville" for i in range(118)] + ["Lebanon", "Jordan"]
    table = table_of(
        "airports",
        {"name": "text", "city": "text"},
        [(f"Field {i}", t) for i, t in enumerate(towns)],
    )
    assert table.neutral("city")
    small = table_of(
        "teams",
        {"name": "text", "winner": "text"},
        [("a", "Lebanon"), ("b", "Kenya"), ("c", "Peru"), ("d", "Chile"), ("e", "Oman")],
    )
    assert not small.neutral("winner")

"""Question programs from phrasings the first corpora did not have (the dev-4 set's kinds).

Each test names the reading it pins: a year that names a record, a bound after its number,
"how many" of a number field, a refused request for a field the data lacks, and French
questions for records the lexicon has no noun for.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchsmith.agents.alignment import languages_from_intent
from benchsmith.programs import Refusal, build_table, generate, plan
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.programs.items import to_item
from benchsmith.programs.labels import is_place, lexicon_noun
from benchsmith.verify.programs import check_program

SEASONS = [
    (1990, "Ayrton Senna", "McLaren", 6),
    (1991, "Ayrton Senna", "McLaren", 7),
    (1992, "Nigel Mansell", "Williams", 9),
    (1993, "Alain Prost", "Williams", 7),
    (1994, "Michael Schumacher", "Benetton", 8),
    (1995, "Michael Schumacher", "Benetton", 9),
]
DRIVERS = [
    ("Ayrton Senna", "Brazil", "1960-03-21", 3),
    ("Nigel Mansell", "United Kingdom", "1953-08-08", 1),
    ("Alain Prost", "France", "1955-02-24", 4),
    ("Michael Schumacher", "Germany", "1969-01-03", 7),
    ("Max Verstappen", "Netherlands", "1997-09-30", 4),
    ("Lewis Hamilton", "United Kingdom", "1985-01-07", 7),
]


def field(path: str, modality: str) -> SimpleNamespace:
    return SimpleNamespace(path=path, modality=modality, translations={}, labels={})


def table_of(name: str, columns: dict[str, str], rows: list[tuple], intent: str = ""):
    """A table from its columns (name -> modality) and rows, as the profiler would give it."""
    records = [dict(zip(columns, row, strict=True)) for row in rows]
    fields = [field(c, k) for c, k in columns.items()]
    return build_table(name, records, fields, intent=intent)


def seasons(intent: str = ""):
    columns = {"season": "number", "champion": "text", "constructor": "text"}
    return table_of("f1_seasons", {**columns, "champion_wins": "number"}, SEASONS, intent)


def drivers(intent: str = ""):
    columns = {"driver": "text", "country": "category", "birth_date": "text", "titles": "number"}
    return table_of("f1_drivers", columns, DRIVERS, intent)


def top(intent: str, table) -> object:
    found = plan(intent, {table.id: table}, table.id)
    assert not isinstance(found, Refusal), found
    return found[0].spec


def test_a_unique_year_column_names_the_records():
    table = seasons()
    assert table.key == "season" and table.entity["en"] == "season"
    spec = top(
        "Show some seasons and ask which team the champion drove for in a given year.", table
    )
    assert (spec.kind, spec.key_field, spec.answer_field, spec.book) == (
        "lookup",
        "season",
        "constructor",
        "open",
    )


def test_the_rank_field_is_the_one_named_nearest_the_rank_word():
    spec = top(
        "Show a few seasons with their champion, and ask in which season the champion won "
        "the most.",
        seasons(),
    )
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "champion_wins", "max")


def test_bounds_after_the_number_and_between_two_numbers():
    spec = top("Only champions born in 1980 or later: ask which country one is from.", drivers())
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [
        ("birth_date", ">=", "1980-01-01")
    ]
    spec = top("Seasons between 1991 and 1993 only: who was the champion?", seasons())
    assert sorted((c.field, c.op, float(c.value)) for c in spec.conditions) == [
        ("season", "<=", 1993.0),
        ("season", ">=", 1991.0),
    ]
    made = generate(spec, {"f1_seasons": seasons()}, n=6, seed=0)
    assert {i.records[0] for i in made} <= {"1991", "1992", "1993"}


def test_how_many_of_a_number_field_is_a_lookup_or_an_aggregate_not_a_count():
    spec = top("Show their rows and ask how many titles a given driver has.", drivers())
    assert (spec.kind, spec.answer_field) == ("lookup", "titles")
    spec = top(
        "Show some seasons: how many wins in total did the McLaren champions get?", seasons()
    )
    assert (spec.kind, spec.field, spec.aggregate) == ("aggregate", "champion_wins", "sum")
    spec = top("Show the drivers: how many of them were born after 1960?", drivers())
    assert spec.kind == "count"


def test_options_refused_in_words_mean_a_short_answer():
    spec = top("Name a driver and ask his country. Open-ended, no answer options.", drivers())
    assert spec.answer_format == "short_answer"
    spec = top("Name a driver and ask his country, four options.", drivers())
    assert spec.answer_format == "multiple_choice"


def test_a_plural_value_is_a_filter():
    spec = top("Only the Williams seasons: who won the title?", seasons())
    assert [(c.field, c.value) for c in spec.conditions] == [("constructor", "Williams")]
    spec = top("Just the United Kingdoms drivers: when was each born?", drivers())
    assert [(c.field, c.value) for c in spec.conditions] == [("country", "United Kingdom")]


def test_a_field_the_data_lacks_is_refused_by_name():
    found = plan("Ask what vintage each season's car had.", {"f1_seasons": seasons()}, "f1_seasons")
    assert isinstance(found, Refusal) and "'vintage'" in found.missing


def test_french_questions_about_named_records_need_no_record_noun():
    table = drivers()
    table.entity["en"] = "motorist"  # a noun the lexicon does not have
    spec = top("Name a driver and ask which country he raced for.", table)
    made = generate(spec, {"f1_drivers": table}, n=6, seed=0, language="fr")
    senna = next(i for i in made if i.records[0] == "Ayrton Senna")
    assert senna.question == "Quel est le pays d'Ayrton Senna ?"
    assert senna.answer == "Brésil"


def test_french_words_are_composed_from_the_lexicon():
    assert lexicon_noun("birth date", "fr").text == "date de naissance"
    assert lexicon_noun("boiling point", "fr").text == "point d'ébullition"
    assert lexicon_noun("titles", "fr").text == "nombre de titres"
    assert lexicon_noun("champion wins", "fr") is None  # a plural head is not guessed


def test_the_items_language_named_before_a_noun():
    assert languages_from_intent("French multiple-choice items about the Olympics") == ("fr",)
    assert languages_from_intent("A French-language version for Québec") == ("fr",)
    assert languages_from_intent("questions about French cities") == ()


def test_an_intent_in_french_or_german_is_planned_through_its_gloss():
    french = "Pose les questions : quel est le pays d'un pilote donné ?"
    german = "Fragen bitte auf Deutsch: Auf welchem Kontinent liegt ein bestimmtes Land?"
    assert intent_language(french) == "fr" and intent_language(german) == "de"
    assert intent_language("Show a few seasons and ask which team won.") == "en"
    assert "which" in to_english(french, "fr") and "country" in to_english(french, "fr")
    assert "continent" in to_english(german, "de") and "country" in to_english(german, "de")
    spec = top(french, drivers())
    assert (spec.kind, spec.answer_field) == ("lookup", "country")
    # Items are in the intent's own language unless it names another.
    assert languages_from_intent(french) == ("fr",)
    assert languages_from_intent("Combien de saisons ? Questions in English.") == ("en",)
    assert lexicon_noun("french name", "fr").text == "nom français"


def test_which_country_names_the_column_of_countries_and_a_missing_role_is_refused():
    columns = {"year": "number", "winner": "text", "runner_up": "text", "winner_goals": "number"}
    rows = [
        (1998, "France", "Brazil", 3),
        (2002, "Brazil", "Germany", 2),
        (2006, "Italy", "France", 1),
        (2010, "Spain", "Netherlands", 1),
        (2014, "Germany", "Argentina", 1),
        (2018, "France", "Croatia", 4),
        (2022, "Argentina", "France", 3),
    ]
    finals = table_of("finals", columns, rows)
    assert finals.key == "year"
    spec = top("Give the year of a final and ask which country won it.", finals)
    assert (spec.kind, spec.key_field, spec.answer_field) == ("lookup", "year", "winner")
    found = plan("Ask who finished third in each final.", {"finals": finals}, "finals")
    assert isinstance(found, Refusal) and "'third'" in found.missing


def finals_table():
    columns = {"year": "number", "teams": "number", "winner": "text", "runner_up": "text"}
    columns |= {"winner_goals": "number", "runner_up_goals": "number", "decided_in": "category"}
    rows = [
        (1994, 24, "Brazil", "Italy", 0, 0, "penalties"),
        (1998, 32, "France", "Brazil", 3, 0, "normal time"),
        (2002, 32, "Brazil", "Germany", 2, 0, "normal time"),
        (2006, 32, "Italy", "France", 1, 1, "penalties"),
        (2010, 32, "Spain", "Netherlands", 1, 0, "extra time"),
        (2014, 32, "Germany", "Argentina", 1, 0, "extra time"),
        (2018, 32, "France", "Croatia", 4, 2, "normal time"),
        (2022, 32, "Argentina", "France", 3, 3, "penalties"),
    ]
    return table_of("finals", columns, rows)


def test_which_team_is_a_thing_not_the_count_of_teams_and_losing_means_runner_up():
    finals = finals_table()
    spec = top(
        "Give a year and ask which nation won the final, with four teams as options.", finals
    )
    assert (spec.key_field, spec.answer_field) == ("year", "winner")
    spec = top("Two finals -> in which one did the winning team score more goals? recall", finals)
    assert (spec.kind, spec.field, spec.direction) == ("compare", "winner_goals", "max")
    spec = top("Show some finals; in which did the losing side score the most goals?", finals)
    assert (spec.kind, spec.field) == ("superlative", "runner_up_goals")


def test_an_exclusion_stands_over_the_values_that_explain_it():
    spec = top(
        "Only finals not settled in normal time (so extra time or penalties): ask which team "
        "finished as runner-up.",
        finals_table(),
    )
    assert (spec.kind, spec.answer_field) == ("filtered_lookup", "runner_up")
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [
        ("decided_in", "!=", "normal time")
    ]
    found = plan("Ask for the referee's name of each final.", {"finals": finals_table()}, "finals")
    assert isinstance(found, Refusal) and "'referee'" in found.missing


def test_the_verifier_reads_an_open_book_table_in_the_items_language():
    rows = [(17.9, "malignant"), (13.5, "benign"), (20.6, "malignant"), (11.4, "benign")] * 2
    records = [{"radius": r + i, "diagnosis": d} for i, (r, d) in enumerate(rows)]
    fields = [field("radius", "number"), field("diagnosis", "category")]
    tumors = build_table("tumors", records, fields)
    spec = top("Show some rows and ask how many tumours are malignant. In French.", tumors)
    inst = generate(spec, {"tumors": tumors}, n=1, seed=0, language="fr")[0]
    subtask = SimpleNamespace(id="s", name="s", skills=[], difficulty="medium")
    item = to_item(inst, spec, item_id="x", language="fr", seed=1, subtask=subtask)
    assert "| malin |" in item.input_text() and "malignant" not in item.input_text()
    assert check_program(item, {"tumors": tumors}).ok


def cars(intent: str = ""):
    columns = {"Weight_in_lbs": "number", "Cylinders": "number", "Miles_per_Gallon": "number"}
    rows = [
        (3504, 8, 18, "USA"),
        (2372, 4, 24, "Japan"),
        (2833, 6, 22, "USA"),
        (1835, 4, 26, "Europe"),
        (4354, 8, 14, "USA"),
        (2130, 4, 32, "Japan"),
        (3270, 6, 19, "USA"),
        (2254, 4, 30, "Europe"),
    ]
    return table_of("cars", {**columns, "Origin": "category"}, rows)


def test_negated_values_and_overlapping_bounds():
    spec = top("How many of the cars shown are not from Japan and weigh no more than 3000?", cars())
    assert sorted((c.field, c.op, str(c.value)) for c in spec.conditions) == [
        ("Origin", "!=", "Japan"),
        ("Weight_in_lbs", "<=", "3000.0"),
    ]
    # The items' language is not a value filter.
    spec = top("Questions in French: how many of the cars shown are from Europe?", cars())
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Origin", "==", "Europe")]


def test_spelled_ranges_and_the_word_after_a_number_name_the_field():
    spec = top("Cars table shown: count how many weigh between two and three thousand.", cars())
    assert spec.kind == "count"
    assert sorted((c.op, float(c.value)) for c in spec.conditions) == [
        ("<=", 3000.0),
        (">=", 2000.0),
    ]
    spec = top(
        "Show the cars; keep only cars with at least six cylinders and ask what is the "
        "heaviest weight among them.",
        cars(),
    )
    assert (spec.kind, spec.field, spec.aggregate) == ("aggregate", "Weight_in_lbs", "max")
    assert [(c.field, c.op) for c in spec.conditions] == [("Cylinders", ">=")]


def test_ranks_below_the_top_and_unknown_quantities_are_refused():
    found = plan("Show the cars and ask which is the second-heaviest.", {"cars": cars()}, "cars")
    assert isinstance(found, Refusal) and "second-heaviest" in found.missing
    found = plan(
        "For each driver, ask how old he was at his first title.",
        {"f1_drivers": drivers()},
        "f1_drivers",
    )
    assert isinstance(found, Refusal) and "'age'" in found.missing


def test_arrows_pairs_bottom_and_possessive_ordinals():
    table = drivers()
    spec = top("driver -> country. closed book.", table)
    assert (spec.key_field, spec.answer_field) == ("driver", "country")
    spec = top("driver pairs, who was born first? closed book", table)
    assert (spec.kind, spec.field, spec.direction) == ("compare", "birth_date", "min")
    spec = top("Out of four drivers, which one comes out at the bottom by titles?", table)
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "titles", "min")
    spec = top(
        "Drivers born before 1960 only. Show them and ask which country one had his first "
        "title for.",
        table,
    )
    assert (spec.kind, spec.answer_field) == ("filtered_lookup", "country")


def test_event_fields_read_as_events_in_questions_and_conditions():
    records = [
        {"bridge": "Severn", "opened": 1966, "span": 988},
        {"bridge": "Suez", "opened": 2001, "span": 404},
        {"bridge": "Rion", "opened": 2004, "span": 560},
        {"bridge": "Golden Gate", "opened": 1937, "span": 1280},
    ]
    fields = [field("bridge", "text"), field("opened", "number"), field("span", "number")]
    bridges = build_table("bridges", records, fields)
    spec = top("Show the bridges: average span of those opened in 2000 or later?", bridges)
    inst = generate(spec, {"bridges": bridges}, n=1, seed=0)[0]
    assert "the bridges that opened in 2000 or later" in inst.question
    assert float(inst.answer) == (404 + 560) / 2
    born = [{"composer": "Verdi", "born": 1813}, {"composer": "Mozart", "born": 1756}]
    composers = build_table("composers", born, [field("composer", "text"), field("born", "number")])
    spec = top("composer pairs: who was born first? closed book", composers)
    inst = generate(spec, {"composers": composers}, n=1, seed=0)[0]
    assert inst.question.startswith("Which composer was born earlier:")
    assert inst.answer == "Mozart"


def test_only_country_names_count_as_places_not_colours_or_seasons():
    assert is_place("Brazil") and is_place("Europe")
    assert not is_place("red") and not is_place("winter") and not is_place("malignant")
    # The kit colours translate (rouge, blanc) but are not places: "which nation" is the winner.
    columns = {"year": "number", "winner": "text", "kit_colour": "category"}
    rows = [
        (1998, "France", "blue"),
        (2002, "Brazil", "yellow"),
        (2006, "Italy", "blue"),
        (2010, "Spain", "red"),
        (2014, "Germany", "white"),
        (2018, "France", "blue"),
    ]
    spec = top(
        "Give the year of a final and ask which nation it was.", table_of("f", columns, rows)
    )
    assert (spec.key_field, spec.answer_field) == ("year", "winner")


DAYS = [
    ("2012-01-10", 1.0, 6.1, 0.6, 3.4, "rain"),
    ("2012-01-16", 2.5, 1.7, -2.8, 5.0, "snow"),
    ("2012-02-20", 0.0, 12.2, 1.1, 2.0, "sun"),
    ("2012-03-27", 13.7, 8.3, 1.7, 5.8, "rain"),
    ("2012-05-01", 3.3, 3.9, 0.6, 5.3, "snow"),
    ("2012-06-15", 0.0, 18.3, 10.6, 6.0, "sun"),
    ("2012-07-19", 0.0, 27.2, 13.3, 2.1, "sun"),
    ("2012-12-18", 8.1, 10.0, 2.2, 4.9, "rain"),
]


def days():
    columns = {"date": "text", "precipitation_mm": "number", "temp_max_c": "number"}
    columns |= {"temp_min_c": "number", "wind_ms": "number", "weather": "category"}
    return table_of("seattle_weather", columns, DAYS)


def test_a_daily_log_is_named_by_its_dates_and_its_abbreviated_fields_are_spelled_out():
    log = days()
    assert (log.key, log.entity["en"]) == ("date", "day")
    assert log.columns["temp_max_c"].labels["en"] == "maximum temperature (°C)"
    assert lexicon_noun("maximum temperature (°C)", "fr").text == "température maximale (°C)"
    spec = top("Show some days in a table and ask which of them was the windiest.", log)
    assert (spec.kind, spec.field, spec.direction) == ("superlative", "wind_ms", "max")
    spec = top("Show a table of days; ask the average maximum temperature of the rainy days.", log)
    assert (spec.kind, spec.field, spec.aggregate) == ("aggregate", "temp_max_c", "mean")
    assert [(c.field, c.value) for c in spec.conditions] == [("weather", "rain")]
    # A few-shot classification shows each example with its date; the verifier passes it.
    spec = top(
        "Nearest-neighbour flavour: a table of labelled days, then one more day by its "
        "measurements; which weather type was it?",
        log,
    )
    assert (spec.kind, spec.answer_field, spec.book) == ("classify", "weather", "open")
    inst = generate(spec, {log.id: log}, n=1, seed=3)[0]
    assert inst.table_text.splitlines()[0].startswith("| Date |")
    subtask = SimpleNamespace(id="s", name="s", skills=[], difficulty="medium")
    item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=subtask)
    assert check_program(item, {log.id: log}).ok


def test_agents_demonyms_and_prefixed_bounds():
    columns = {"painting": "text", "painter": "category", "year": "number", "museum": "text"}
    rows = [
        ("The Starry Night", "Vincent van Gogh", 1889, "Museum of Modern Art"),
        ("Guernica", "Pablo Picasso", 1937, "Museo Reina Sofía"),
        ("Las Meninas", "Diego Velázquez", 1656, "Museo del Prado"),
        ("The Night Watch", "Rembrandt", 1642, "Rijksmuseum"),
        ("American Gothic", "Grant Wood", 1930, "Art Institute of Chicago"),
        ("The Kiss", "Gustav Klimt", 1908, "Belvedere"),
        ("The Hay Wain", "John Constable", 1821, "National Gallery"),
    ]
    works = table_of("paintings", columns, rows)
    spec = top("Name a famous painting; pupils pick the artist who painted it. No notes.", works)
    assert (spec.kind, spec.key_field, spec.answer_field) == ("lookup", "painting", "painter")
    spec = top("Items in French. Pre-1850 works only: show their rows, ask for the museum.", works)
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("year", "<", 1850)]
    # Museum names are proper names: a French item writes them as the data does.
    assert works.neutral("museum")
    painters = table_of(
        "painters",
        {"painter": "text", "birth_year": "number", "birth_country": "category"},
        [("Grant Wood", 1891, "United States"), ("Edward Hopper", 1882, "United States"),
         ("Claude Monet", 1840, "France"), ("Rembrandt", 1606, "Netherlands"),
         ("Frida Kahlo", 1907, "Mexico"), ("Andy Warhol", 1928, "United States")],
    )  # fmt: skip
    spec = top("American-born painters only: name one and ask for their year of birth.", painters)
    assert spec.kind == "filtered_lookup" and spec.answer_field == "birth_year"
    assert [(c.field, c.value) for c in spec.conditions] == [("birth_country", "United States")]
    deaths = [("Monet", 1926), ("Goya", 1828), ("Hopper", 1967), ("Klimt", 1918)]
    died = table_of("p", {"painter": "text", "death_year": "number"}, deaths)
    spec = top("Give two painters' names and ask which of the two died first. Closed book.", died)
    assert (spec.kind, spec.field, spec.direction) == ("compare", "death_year", "min")


@pytest.mark.parametrize(
    ("text", "language", "glossed"),
    [
        # An elided article is no part of the word after it ...
        ("Quel est l'indicatif téléphonique de la Belgique ?", "fr", "calling code"),
        ("Qual è il prefisso telefonico dell'Italia?", "it", "calling code"),
        # ... and a phrase written with one still matches whole.
        ("Dans l'année 1990", "fr", "the year"),
    ],
)
def test_the_gloss_reads_a_word_after_an_elided_article(text, language, glossed):
    assert glossed in to_english(text, language)


@pytest.mark.parametrize(
    ("intent", "languages"),
    [
        # Another language than the intent's own, asked in the intent's words.
        ("On montre dix jours et on demande quel jour. Les questions doivent être rédigées en "
         "anglais, pas en français, car le modèle testé est anglophone.", ("en",)),
        ("Zeig fünf Länder und frag nach der Hauptstadt. Fragen bitte auf Englisch.", ("en",)),
        ("Le domande devono essere scritte in inglese, non in italiano.", ("en",)),
        # A thing's name in a language is not the items' language.
        ("Si parte dal nome di un paese in giapponese e si chiede la capitale. Domande in "
         "italiano.", ("it",)),
        ("Zeig fünf Länder und frag nach der Hauptstadt.", ("de",)),
        ('Damos o nome de um país em sueco (por ex. "Tyskland") e perguntamos qual é a '
         "capital desse país. Sem tabelas.", ("pt",)),
        ("Same tumour data, but the questions must be written in French: list some rows.",
         ("fr",)),
        ("Ask what each country is called in Welsh.", ()),
    ],
)  # fmt: skip
def test_the_items_language_may_differ_from_the_intents_own(intent, languages):
    assert languages_from_intent(intent) == languages

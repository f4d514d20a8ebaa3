"""Readings the twelfth blind starter set (and older sets' refusals) found missing, each pinned.

Names asked in a language only a table of translations holds, reached from another table
("what is the country whose capital is Warsaw called in Polish"); one language of several
that share a name ("Portuguese of Portugal"); "(so not in Dutch)" said of the items;
"how do you say Greece in Swedish"; accents in a value's name ("Califórnia"); "how long is
the longest sepal" (a maximum); "the countries of America" (the Americas); "ranked by annual
passenger traffic" (no such field); a record's measurements drawn as a table (closed book).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_programs_phrasings import table_of, top

from benchsmith.agents.alignment import languages_from_intent
from benchsmith.programs import build_table, generate
from benchsmith.programs.intent import Refusal, plan
from benchsmith.programs.run import ProgramError, follow
from benchsmith.spec import Condition, Hop, ProgramSpec

LANDS = [
    ("PL", "Poland", "Warsaw", "Polska", "Polónia", "Polônia", "Puola"),
    ("DE", "Germany", "Berlin", "Niemcy", "Alemanha", "Alemanha", "Saksa"),
    ("FR", "France", "Paris", "Francja", "França", "França", "Ranska"),
    ("IT", "Italy", "Rome", "Włochy", "Itália", "Itália", "Italia"),
    ("ES", "Spain", "Madrid", "Hiszpania", "Espanha", "Espanha", "Espanja"),
    ("NL", "Netherlands", "Amsterdam", "Holandia", "Países Baixos", "Holanda", "Alankomaat"),
]
# ... and eighty more (named alike in pt and pt-br), so that names and codes read as
# names, not as a few categories.
LANDS += [
    (f"Q{i}", f"Country {i}", f"City {i}", f"Kraj {i}", f"País {i}", f"País {i}", f"Maa {i}")
    for i in range(80)
]
LANGUAGES = (("pl", "Polish"), ("pt", "Portuguese"), ("pt-br", "Portuguese"), ("fi", "Finnish"))
NAME = {"en": "translated name", "de": "der Name", "es": "el nombre", "fr": "le nom"}
CODE = {"en": "alpha 2", "de": "der Alpha-2-Code", "es": "el código alfa-2", "fr": "le code alpha"}


def _fields(specs):
    return [
        SimpleNamespace(path=p, modality=m, translations={}, labels=labels)
        for p, m, labels in specs
    ]


def tables():
    """Countries (by capital) and their names in several languages (one record each)."""
    names = [
        {"alpha_2": a, "name_en": en, "language": code, "language_name": said, "name": local}
        for a, en, _capital, *locals_ in LANDS
        for (code, said), local in zip(LANGUAGES, locals_, strict=True)
    ]
    translations = build_table(
        "country-names",
        names,
        _fields(
            (
                ("alpha_2", "text", CODE),
                ("name_en", "text", {"en": "English name"}),
                ("language", "category", {"en": "language code"}),
                ("language_name", "category", {"en": "language"}),
                ("name", "text", NAME),
            )
        ),
        card_entity={"en": "country name"},
    )
    countries = build_table(
        "countries",
        [{"alpha_2": a, "name": en, "capital": capital} for a, en, capital, *_ in LANDS],
        _fields(
            (
                ("alpha_2", "text", CODE),
                ("name", "text", {"en": "name"}),
                ("capital", "text", {"en": "capital"}),
            )
        ),
        card_entity={"en": "country"},
    )
    return {"country-names": translations, "countries": countries}


def best(intent: str, main: str):
    found = plan(intent, tables(), main)
    assert not isinstance(found, Refusal), found
    return found[0].spec


def test_a_name_in_a_language_only_the_translations_hold_is_reached_by_a_chain():
    spec = best(
        "Two-step geography: name a capital city, and the question is what the country whose "
        "capital that is is called in Polish. No lookup table in the prompt.",
        "countries",
    )
    assert (spec.kind, spec.key_field, spec.answer_field) == ("multihop", "capital", "name")
    assert spec.hops == [
        Hop(
            via="alpha_2",
            table="country-names",
            key_field="alpha_2",
            conditions=[Condition(field="language", op="==", value="pl")],
        )
    ]
    # A chain that starts from the names ("given its Polish name, e.g. Niemcy") is not this.
    found = plan(
        "Give a country's name as written in Polish (e.g. Niemcy) and ask its capital.",
        tables(),
        "countries",
    )
    assert isinstance(found, Refusal) or all(not c.spec.hops for c in found)


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "What is the country whose capital is Warsaw called in Polish?"),
        ("de", "Wie heißt das Land, dessen Hauptstadt Warsaw ist, auf Polnisch?"),
        ("es", "¿Cómo se llama en polaco el país cuya capital es Warsaw?"),
        ("fr", "Comment s'appelle en polonais le pays dont la capitale est Warsaw ?"),
    ],
)
def test_the_chain_to_a_name_in_a_language_is_worded_as_such(language, question):
    # (this table names its capitals in English only)
    spec = ProgramSpec(
        kind="multihop",
        table="countries",
        key_field="capital",
        answer_field="name",
        hops=[
            Hop(
                via="alpha_2",
                table="country-names",
                key_field="alpha_2",
                conditions=[Condition(field="language", op="==", value="pl")],
            )
        ],
    )
    # (the one record of Poland, so that the item is about it)
    only = spec.model_copy(update={"conditions": [Condition(field="alpha_2", op="==", value="PL")]})
    (poland,) = generate(only, tables(), n=1, seed=0, language=language)
    assert poland.answer == "Polska"
    assert poland.question == question
    # The choices are names in the same language, never another language's name of Poland.
    assert set(poland.distractors) <= {land[3] for land in LANDS} - {"Polska"}


def test_a_steps_conditions_pick_the_record_it_lands_on():
    spec = ProgramSpec(
        kind="multihop",
        table="countries",
        key_field="capital",
        answer_field="name",
        hops=[
            Hop(
                via="alpha_2",
                table="country-names",
                key_field="alpha_2",
                conditions=[Condition(field="language", op="==", value="fi")],
            )
        ],
    )
    all_tables = tables()
    path = follow(spec, all_tables, 0)
    assert path is not None
    last, row = path[-1]
    assert last.text(row, "name") == "Puola"
    # Without the condition the code names six records: no single one.
    loose = spec.model_copy(update={"hops": [spec.hops[0].model_copy(update={"conditions": []})]})
    assert follow(loose, all_tables, 0) is None


def test_one_language_of_several_that_share_a_name():
    spec = best(
        "Dá-se o nome de um país tal como se escreve em português de Portugal e pergunta-se "
        "como esse país se chama em inglês.",
        "country-names",
    )
    assert spec.conditions == [Condition(field="language", op="==", value="pt")]
    assert (spec.key_field, spec.answer_field) == ("name", "name_en")
    spec = best(
        "Give a country's name in Brazilian Portuguese and ask for its English name.",
        "country-names",
    )
    assert spec.conditions == [Condition(field="language", op="==", value="pt-br")]


def test_the_items_language_said_with_a_refusal_is_not_a_filter():
    spec = best(
        "Voor een vertaaltaak wil ik vragen in het Engels (dus niet in het Nederlands) van het "
        "type: 'What is Poland called in Finnish?'. Uit het hoofd, zonder tabel.",
        "country-names",
    )
    assert spec.conditions == [Condition(field="language", op="==", value="fi")]
    assert (spec.key_field, spec.answer_field) == ("name_en", "name")


def test_how_do_you_say_a_name_in_a_language():
    spec = best(
        "Domande lette ad alta voce: «Come si dice Francia in finlandese?» e simili. Le "
        "domande in italiano.",
        "country-names",
    )
    assert spec.conditions == [Condition(field="language", op="==", value="fi")]
    assert (spec.key_field, spec.answer_field) == ("name_en", "name")


def test_an_english_name_stays_english_in_any_items_language():
    names = tables()["country-names"]
    assert names.neutral("name_en")


AIRPORTS = [
    ("LAX", "Los Angeles Intl", "CA", 33.94, 12),
    ("SFO", "San Francisco Intl", "CA", 37.62, 15),
    ("SEA", "Seattle-Tacoma Intl", "WA", 47.45, 20),
    ("ORD", "Chicago O'Hare Intl", "IL", 41.98, 9),
    ("JFK", "John F Kennedy Intl", "NY", 40.64, 4),
    ("SAN", "San Diego Intl", "CA", 32.73, 2),
]


def airports():
    columns = {"iata": "text", "name": "text", "state": "category", "latitude": "number",
               "runways": "number"}  # fmt: skip
    return table_of("airports", columns, AIRPORTS)


def test_a_value_named_with_accents():
    spec = top(
        "Exibir 15 aeroportos dos EUA numa tabela e perguntar quantos ficam na Califórnia. "
        "Resposta: um número inteiro.",
        airports(),
    )
    assert spec.kind == "count"
    assert spec.conditions == [Condition(field="state", op="==", value="CA")]


def test_a_quantity_ranked_by_that_no_field_holds_is_refused():
    found = plan(
        "Rank the shown US airports by annual passenger traffic and ask which one is the "
        "busiest hub. Show ~8 rows.",
        {"airports": airports()},
        "airports",
    )
    assert isinstance(found, Refusal)
    assert "annual passenger traffic" in found.missing
    spec = top("Show 6 airports sorted by latitude and ask which is northernmost.", airports())
    assert (spec.kind, spec.field) == ("superlative", "latitude")


FLOWERS = [
    (5.1, 3.5, 1.4, 0.2, "setosa"),
    (7.0, 3.2, 4.7, 1.4, "versicolor"),
    (6.3, 3.3, 6.0, 2.5, "virginica"),
    (4.9, 3.0, 1.4, 0.2, "setosa"),
    (6.4, 3.2, 4.5, 1.5, "versicolor"),
    (5.8, 2.7, 5.1, 1.9, "virginica"),
]


def iris():
    columns = {"sepal_length_cm": "number", "sepal_width_cm": "number",
               "petal_length_cm": "number", "petal_width_cm": "number",
               "species": "category"}  # fmt: skip
    return table_of("iris", columns, FLOWERS)


def test_how_long_is_the_longest_asks_the_maximum():
    spec = top(
        "Zeige jeweils 15 Iris-Blüten als Tabelle. Frage: Wie lang ist das längste Kelchblatt "
        "(sepal length, in cm) unter den Blüten der Art virginica? Nur den Zahlenwert.",
        iris(),
    )
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "max", "sepal_length_cm")
    assert spec.conditions == [Condition(field="species", op="==", value="virginica")]


def test_a_records_measurements_drawn_as_a_table_are_no_reference_rows():
    spec = top(
        "Build iris items where the four measurements are rendered as a picture of a small "
        "table, not as text, and the model has to tell which species the flower is.",
        iris(),
    )
    assert (spec.kind, spec.book) == ("classify", "closed")
    spec = top(
        "Show a table of labelled iris samples, then describe a new flower by its "
        "measurements and ask which species it most likely belongs to.",
        iris(),
    )
    assert (spec.kind, spec.book) == ("classify", "open")


def test_a_region_named_in_the_singular():
    columns = {"name": "text", "region": "category", "population": "number"}
    rows = [
        ("Peru", "Americas", 33),
        ("Chile", "Americas", 19),
        ("Brazil", "Americas", 214),
        ("Kenya", "Africa", 54),
        ("Japan", "Asia", 125),
        ("Spain", "Europe", 47),
    ]
    spec = top(
        "Preguntas en inglés, por favor. Enseña cinco países de América con su población y "
        "pregunta cuál es la capital del más poblado de ellos.",
        table_of("countries", {**columns, "capital": "text"}, [(*r, f"{r[0]} City") for r in rows]),
    )
    assert spec.conditions == [Condition(field="region", op="==", value="Americas")]


def test_the_items_language_is_read_past_a_name_in_an_earlier_sentence():
    assert languages_from_intent(
        "Which is the northernmost? The answer should be the city, not the airport name. "
        "Ask in German pls."
    ) == ("de",)
    assert languages_from_intent("Ask what each country is called in Welsh.") == ()


def test_records_no_field_names_are_compared_shown_and_lettered():
    wines = table_of(
        "wine",
        {"alcohol": "number", "malic_acid": "number", "class": "category"},
        [(13.2, 1.8, "class_0"), (12.4, 2.1, "class_1"), (14.1, 1.6, "class_0"),
         (11.9, 3.0, "class_2"), (13.7, 1.9, "class_0"), (12.8, 2.4, "class_1")],
    )  # fmt: skip
    assert wines.key is None
    spec = top(
        "On montre deux vins de la base « wine » côte à côte et on demande lequel est le "
        "plus alcoolisé. Questions en français.",
        wines,
    )
    assert (spec.kind, spec.book, spec.key_field, spec.field) == ("compare", "open", None,
                                                                  "alcohol")  # fmt: skip
    best = ProgramSpec(kind="superlative", book="open", table="wine", field="alcohol",
                       direction="max", k=4, rows_shown=4)  # fmt: skip
    for item in generate(best, {"wine": wines}, n=3, seed=0, language="en"):
        lines = item.table_text.splitlines()
        assert lines[0].startswith("| # |")
        assert item.records == ["A", "B", "C", "D"]
        winner = max(item.rows, key=lambda r: wines.order_value(r, "alcohol"))
        assert item.answer == "ABCD"[item.rows.index(winner)]
        assert lines[2 + item.rows.index(winner)].startswith(f"| {item.answer} |")
    closed = best.model_copy(update={"book": "closed"})
    with pytest.raises(ProgramError, match="lettered"):
        generate(closed, {"wine": wines}, n=1, seed=0, language="en")

"""Question programs: intent to program by code, execution, wording, re-execution."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchsmith.item import Item
from benchsmith.programs import (
    Refusal,
    WordsMissing,
    build_table,
    execute,
    generate,
    plan,
)
from benchsmith.programs.items import to_item
from benchsmith.spec import Condition, Hop, ProgramSpec
from benchsmith.verify.programs import check_program

GADGETS = [
    ("Zorbix", "ZB1", 120, 19.5, "alpha", "tool"),
    ("Quendle", "QD2", 340, 45, "beta", "toy"),
    ("Marlo", "ML3", 85, 12, "alpha", "tool"),
    ("Fennix", "FX4", 510, 99, "gamma", "device"),
    ("Tarvo", "TV5", 230, 33, "beta", "toy"),
    ("Olmin", "OM6", 60, 8.5, "alpha", "device"),
    ("Priss", "PR7", 410, 70, "gamma", "tool"),
    ("Ulrex", "UX8", 150, 25, "beta", "device"),
]
COLUMNS = ("name", "code", "weight_g", "price_usd", "group", "category")
SUBTASK = SimpleNamespace(id="s", name="s", skills=[], difficulty="medium")


def field(path: str, modality: str, **extra: object) -> SimpleNamespace:
    return SimpleNamespace(path=path, modality=modality, translations={}, labels={}, **extra)


IRIS = [
    {"sepal_length": 5.1, "petal_length": 1.4, "species": "setosa"},
    {"sepal_length": 7.0, "petal_length": 4.7, "species": "versicolor"},
    {"sepal_length": 6.3, "petal_length": 6.0, "species": "virginica"},
    {"sepal_length": 4.9, "petal_length": 1.5, "species": "setosa"},
]


def iris_table(intent: str = ""):
    fields = [
        field("sepal_length", "number"),
        field("petal_length", "number"),
        field("species", "category"),
    ]
    return build_table("iris", IRIS, fields, intent=intent)


def write_gadgets(path: Path, header=None, rows=None) -> Path:
    """The gadgets table as a CSV file at ``path``."""
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header or COLUMNS)
        writer.writerows(rows or GADGETS)
    return path


def gadgets(intent: str = ""):
    records = [dict(zip(COLUMNS, row, strict=True)) for row in GADGETS]
    fields = [field(c, "number" if c in ("weight_g", "price_usd") else "text") for c in COLUMNS]
    return build_table("gadgets", records, fields, intent=intent)


def best(intent: str, tables=None, main: str = "gadgets") -> ProgramSpec:
    tables = tables or {"gadgets": gadgets(intent)}
    found = plan(intent, tables, main)
    assert not isinstance(found, Refusal), found
    return found[0].spec


def test_columns_are_typed_and_the_key_and_noun_come_from_the_data():
    table = gadgets()
    assert table.key == "name"
    assert table.entity["en"] == "gadget"
    assert table.columns["weight_g"].kind == "number"
    assert table.columns["weight_g"].labels["en"] == "weight (g)"
    assert table.columns["code"].unique and not table.columns["group"].unique


@pytest.mark.parametrize(
    ("intent", "kind", "book", "fields"),
    [
        (
            "Given the name, which is its code? Multiple choice.",
            "lookup",
            "closed",
            ("name", "code"),
        ),
        ("Given the code, which gadget is it?", "lookup", "closed", ("code", "name")),
        ("Which of the two gadgets has the larger weight?", "compare", "closed", ("weight_g",)),
        (
            "From a table of a few gadgets, which has the highest price?",
            "superlative",
            "open",
            ("price_usd",),
        ),
        ("How many of the gadgets shown have a price above 30?", "count", "open", ()),
        (
            "What is the average weight of the tool gadgets in the table?",
            "aggregate",
            "open",
            ("weight_g",),
        ),
        ("What is the price of each toy?", "filtered_lookup", "closed", ("name", "price_usd")),
    ],
)
def test_the_intent_picks_the_program_by_code(intent, kind, book, fields):
    spec = best(intent)
    assert (spec.kind, spec.book) == (kind, book)
    if kind in ("lookup", "filtered_lookup"):
        assert (spec.key_field, spec.answer_field) == fields
    elif fields:
        assert spec.field == fields[0]


def test_values_and_bounds_in_the_intent_become_conditions():
    assert best("How many of the gadgets shown have a price above 30?").conditions == [
        Condition(field="price_usd", op=">", value=30.0)
    ]
    assert best("What is the price of each toy?").conditions == [
        Condition(field="category", op="==", value="toy")
    ]


def test_a_quantity_the_table_lacks_is_refused_naming_what_is_missing():
    found = plan("Which gadget has the largest screen size?", {"gadgets": gadgets()}, "gadgets")
    assert isinstance(found, Refusal)
    # The quantity is named: the refusal says which one no field holds.
    assert "ranks the records by 'screen', which no field of gadgets holds" in found.missing


def test_compare_items_recompute_the_winner_and_list_both_records():
    table = gadgets()
    spec = best("Which of the two gadgets has the larger weight?")
    made = generate(spec, {"gadgets": table}, n=10, seed=3)
    assert len(made) == 10
    for inst in made:
        a, b = inst.rows
        winner = a if table.value(a, "weight_g") > table.value(b, "weight_g") else b
        assert inst.answer == table.value(winner, "name")
        assert table.value(a, "name") in inst.question and table.value(b, "name") in inst.question
        item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
        assert item.choices and item.choices[ord(item.target) - 65] == inst.answer
        assert check_program(item, {"gadgets": table}).ok


def test_open_book_items_show_every_row_they_need():
    table = gadgets()
    spec = best("How many of the gadgets shown have a price above 30?")
    for inst in generate(spec, {"gadgets": table}, n=5, seed=1):
        item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
        prompt = item.input_text()
        shown = [r for r in inst.rows if table.value(r, "name") in prompt]
        assert shown == inst.rows
        expected = sum(table.value(r, "price_usd") > 30 for r in inst.rows)
        assert item.target == str(expected)
        assert check_program(item, {"gadgets": table}).ok


def test_the_verifier_fails_a_wrong_answer_and_a_record_outside_the_filter():
    table = gadgets()
    spec = ProgramSpec(
        kind="filtered_lookup", table="gadgets", key_field="name", answer_field="code",
        conditions=[Condition(field="category", op="==", value="toy")],
    )  # fmt: skip
    inst = generate(spec, {"gadgets": table}, n=1, seed=0)[0]
    item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
    assert check_program(item, {"gadgets": table}).ok
    wrong = item.model_copy(deep=True)
    wrong.choices = [c if c != inst.answer else "ZZ9" for c in item.choices or []]
    assert not check_program(wrong, {"gadgets": table}).ok
    outside = item.model_copy(deep=True)
    outside.metadata["program"]["rows"] = [0]  # Zorbix is a tool
    outside.metadata["program"]["question"] = "What is the code of the gadget Zorbix?"
    outside.choices = [c if c != inst.answer else "ZB1" for c in item.choices or []]
    assert "breaks the condition" in check_program(outside, {"gadgets": table}).reason


def test_classification_states_one_records_features_and_needs_no_name_column():
    records = IRIS
    table = iris_table(intent="a flower")
    assert table.key is None
    spec = best("Given a flower's measurements, which species is it?", {"iris": table}, "iris")
    assert (spec.kind, spec.answer_field) == ("classify", "species")
    for inst in generate(spec, {"iris": table}, n=4, seed=0):
        row = inst.rows[0]
        assert inst.answer == records[row]["species"]
        for name in ("sepal_length", "petal_length"):
            assert f"{records[row][name]:g}" in inst.question


def test_multihop_follows_a_key_into_another_table():
    countries = build_table(
        "countries",
        [
            {"country": "Japan", "currency_code": "JPY"},
            {"country": "France", "currency_code": "EUR"},
            {"country": "Mexico", "currency_code": "MXN"},
        ],
        [field("country", "text"), field("currency_code", "text")],
    )
    currencies = build_table(
        "currencies",
        [
            {"currency_code": "JPY", "currency_name": "yen"},
            {"currency_code": "EUR", "currency_name": "euro"},
            {"currency_code": "MXN", "currency_name": "peso"},
        ],
        [field("currency_code", "text"), field("currency_name", "text")],
    )
    tables = {"countries": countries, "currencies": currencies}
    spec = best("What is the name of the currency used in each country?", tables, "countries")
    assert spec.kind == "multihop"
    assert spec.hops == [Hop(via="currency_code", table="currencies", key_field="currency_code")]
    made = {i.records[0]: i.answer for i in generate(spec, tables, n=3, seed=0)}
    assert made == {"Japan": "yen", "France": "euro", "Mexico": "peso"}
    inst = generate(spec, tables, n=1, seed=0)[0]
    assert execute({**inst.metadata(spec), "question": inst.question}, tables) == inst.answer
    # In French the followed code names its record ("currency_code" -> "la monnaie").
    countries.entity["en"] = "country"
    spec = spec.model_copy(update={"answer_field": "currency_code"})
    french = {i.records[0]: i for i in generate(spec, tables, n=3, seed=0, language="fr")}
    assert french["Japan"].question == "Quel est le code de la monnaie du pays Japon ?"
    assert french["Japan"].answer == "JPY"


def test_french_count_questions_agree_with_the_label():
    records = [
        {"country": "Japan", "continent": "Asia", "population": 125},
        {"country": "France", "continent": "Europe", "population": 68},
        {"country": "Spain", "continent": "Europe", "population": 48},
        {"country": "Kenya", "continent": "Africa", "population": 55},
    ]
    fields = [field("country", "text"), field("continent", "category")]
    table = build_table("countries", records, [*fields, field("population", "number")])
    table.entity["en"] = "country"
    spec = ProgramSpec(
        kind="count",
        book="open",
        table="countries",
        conditions=[Condition(field="population", op=">", value="50")],
        rows_shown=4,
    )
    inst = generate(spec, {"countries": table}, n=1, seed=0, language="fr")[0]
    assert "combien de pays y a-t-il dont la population est supérieure à 50 ?" in inst.question
    assert inst.answer == "3"


def test_a_row_without_the_counted_value_is_not_shown_in_a_count():
    # Antarctica has no region: "how many are not in Asia" cannot say whether it counts.
    records = [
        {"country": "Japan", "continent": "Asia"},
        {"country": "France", "continent": "Europe"},
        {"country": "Antarctica", "continent": ""},
        {"country": "Kenya", "continent": "Africa"},
        {"country": "India", "continent": "Asia"},
        {"country": "Peru", "continent": "Americas"},
    ]
    fields = [field("country", "text"), field("continent", "category")]
    table = build_table("countries", records, fields)
    spec = ProgramSpec(
        kind="count",
        book="open",
        table="countries",
        conditions=[Condition(field="continent", op="!=", value="Asia")],
        rows_shown=5,
    )
    made = generate(spec, {"countries": table}, n=5, seed=0)
    assert made
    for inst in made:
        assert "Antarctica" not in inst.table_text and "Antarctica" not in inst.records
        outside = [r for r in inst.records if r not in ("Japan", "India")]
        assert inst.answer == str(len(outside))


def test_french_labels_come_from_cldr_and_the_lexicon_or_are_refused_by_name():
    records = [
        {"country": "Japan", "continent": "Asia"},
        {"country": "France", "continent": "Europe"},
        {"country": "Kenya", "continent": "Africa"},
        {"country": "Peru", "continent": "South America"},
    ]
    table = build_table(
        "countries", records, [field("country", "text"), field("continent", "category")]
    )
    spec = ProgramSpec(
        kind="lookup", table="countries", key_field="country", answer_field="continent"
    )
    made = generate(spec, {"countries": table}, n=4, seed=0, language="fr")
    answers = {i.answer for i in made}
    assert answers == {"Asie", "Europe", "Afrique", "Amérique du Sud"}
    assert all(i.question.startswith("Quel est le continent du pays ") for i in made)
    odd = build_table(
        "things",
        [{"name": "a", "zorp": "x"}, {"name": "b", "zorp": "y"}],
        [field("name", "text"), field("zorp", "category")],
        card_entity={"en": "gadget"},
    )
    spec = ProgramSpec(kind="lookup", table="things", key_field="name", answer_field="zorp")
    with pytest.raises(WordsMissing, match="zorp"):
        generate(spec, {"things": odd}, n=1, seed=0, language="fr")


def test_difficulty_is_predicted_from_the_parameters():
    table = gadgets()
    easy = generate(best("Given the name, which is its code?"), {"gadgets": table}, n=1, seed=0)
    hard = generate(
        best("What is the average weight of the tool gadgets in the table?"),
        {"gadgets": table},
        n=1,
        seed=0,
    )
    assert easy[0].difficulty["score"] < hard[0].difficulty["score"]
    assert hard[0].difficulty["params"]["rows_shown"] >= 4


def test_an_item_is_an_item():
    table = gadgets()
    spec = best("Given the name, which is its code? Multiple choice.")
    inst = generate(spec, {"gadgets": table}, n=1, seed=0)[0]
    item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
    assert isinstance(item, Item)
    assert item.metadata["program"]["kind"] == "lookup"
    assert len(item.choices or []) == 4 and len(set(item.choices or [])) == 4


def test_every_kind_reexecutes_from_its_own_metadata():
    """The verifier recomputes each kind's answer from the item alone (metadata + tables)."""
    table = gadgets()
    intents = [
        "Given the name, which is its code? Multiple choice.",
        "Given the code, which gadget is it?",
        "Which of the two gadgets has the larger weight?",
        "From a table of a few gadgets, which has the highest price?",
        "How many of the gadgets shown have a price above 30?",
        "What is the average weight of the tool gadgets in the table?",
        "What is the price of each toy?",
    ]
    for intent in intents:
        spec = best(intent)
        for inst in generate(spec, {"gadgets": table}, n=3, seed=2):
            item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
            verdict = check_program(item, {"gadgets": table})
            assert verdict.ok, (intent, verdict.reason)
    iris = iris_table()
    spec = best("Which species is a flower with these measurements?", {"iris": iris}, "iris")
    for inst in generate(spec, {"iris": iris}, n=3, seed=0):
        item = to_item(inst, spec, item_id="x", language="en", seed=1, subtask=SUBTASK)
        assert check_program(item, {"iris": iris}).ok

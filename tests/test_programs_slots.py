"""The reader's question about an intent's column: asked only where the rules are unsure, the
answer a ``Literal`` of the table's columns, checked by code before the rules take it.

The reader here is scripted (``Scripted``: the answer per slot, and every question asked is
kept); the real model's figures are ``benchmarks/intent_slots.py``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from test_programs_phrasings import table_of
from test_programs_reader_values import cars

from benchsmith.agents import programs as agent
from benchsmith.config import RunConfig
from benchsmith.errors import LocalModelError, StructuredOutputError
from benchsmith.programs import Refusal
from benchsmith.programs.slots import check, read
from benchsmith.spec import ProgramSpec


class Scripted:
    """A reader that answers each slot as scripted, and keeps the questions it was asked."""

    def __init__(self, **answers: str) -> None:
        self.answers = answers
        self.asked: list[tuple[str, tuple[str, ...], str]] = []

    def __call__(self, schema: Any, prompt: str) -> Any:
        if schema.__name__ == "IntentInEnglish":  # no translation: the gloss reads
            raise StructuredOutputError("no valid IntentInEnglish (scripted)")
        slot = schema.__name__.removeprefix("Slot").lower()
        options = schema.model_fields["answer"].annotation.__args__
        self.asked.append((slot, options, prompt))
        return schema(answer=self.answers[slot])


def read_cars(intent: str, reader: Scripted):
    table = cars()
    return read(intent, {table.id: table}, table.id, reader), table


def test_a_plain_english_intent_the_rules_are_sure_of_asks_nothing():
    reader = Scripted()
    reading, _ = read_cars(
        "Show two cars with their horsepower and ask which of the two has more horsepower.",
        reader,
    )
    assert reader.asked == []
    assert not isinstance(reading.candidates, Refusal)
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.field, spec.direction, spec.book) == (
        "compare", "Horsepower", "max", "open"
    )  # fmt: skip


def test_the_readers_column_replaces_the_rules_column_when_it_holds_numbers():
    intent = "Zeig zwei Autos mit ihren Daten und frag, welches der beiden stärker ist."
    reader = Scripted(asked="Horsepower")
    reading, table = read_cars(intent, reader)
    slots = [slot for slot, _, _ in reader.asked]
    assert slots == ["asked"]  # a German intent is read through a gloss: its column is asked
    options = next(o for slot, o, _ in reader.asked if slot == "asked")
    assert set(options) == set(table.columns)  # a Literal of the table's columns
    prompt = reader.asked[0][2]
    assert "<<<" in prompt and intent in prompt  # the intent goes in fenced, as data
    spec = reading.candidates[0].spec
    assert spec.kind == "compare" and spec.field == "Horsepower"
    assert reading.answers["asked"] == "Horsepower"


def test_a_column_that_cannot_be_ranked_is_set_aside():
    intent = "Zeig zwei Autos mit ihren Daten und frag, welches der beiden schwerer ist."
    before, _ = read_cars(intent, Scripted(asked="Weight_in_lbs"))
    reading, _ = read_cars(intent, Scripted(asked="Origin"))
    assert "asked" not in reading.taken
    assert any("Origin holds neither numbers nor dates" in n for n in reading.notes)
    assert reading.candidates[0].spec.field == before.candidates[0].spec.field


def test_a_class_must_be_a_category_some_records_share():
    rows = [(5.1 + i / 10, 3.5, ("setosa", "virginica")[i % 2], f"f{i}") for i in range(12)]
    table = table_of(
        "flowers",
        {"sepal_length": "number", "sepal_width": "number", "species": "category",
         "tag": "text"},
        rows,
    )  # fmt: skip
    classify = ProgramSpec(kind="classify", table="flowers", answer_field="species",
                           features=["sepal_length", "sepal_width"])  # fmt: skip
    assert check("species", table, classify) is None
    assert "not a class" in check("sepal_width", table, classify)
    assert "not a class" in check("tag", table, classify)  # one value per record
    assert "no column" in check("petal_width", table, classify)


def test_a_refused_intent_asks_the_column_and_a_checked_answer_gives_the_program():
    rows = [(5.1 + i / 10, 3.0 + i / 20, ("setosa", "virginica")[i % 2]) for i in range(12)]
    table = table_of(
        "flowers", {"sepal_length": "number", "sepal_width": "number", "cultivar": "category"},
        rows,
    )  # fmt: skip
    intent = "Quale varietà di fiore è, dalle sue misure?"
    rules = read(intent, {table.id: table}, table.id, Scripted(asked="sepal_length"))
    reader = Scripted(asked="cultivar")
    reading = read(intent, {table.id: table}, table.id, reader)
    assert [slot for slot, _, _ in reader.asked] == ["asked"]
    assert not isinstance(reading.candidates, Refusal)
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.answer_field) == ("classify", "cultivar")
    assert reading.taken == {"asked": "cultivar"} and reading.rescued  # the rules refused
    # The rules alone refuse ("variety" names no field); a column that gives no program is
    # set aside and the refusal stands.
    assert isinstance(rules.candidates, Refusal) and "'variety'" in rules.candidates.missing
    assert rules.taken == {} and any("gives no program" in n for n in rules.notes)


def test_a_table_the_rules_read_comes_before_one_only_the_readers_column_made(monkeypatch):
    from benchsmith.programs import Candidate
    from benchsmith.programs.slots import Reading

    def reading(table: str, score: float, rescued: bool) -> Reading:
        spec = ProgramSpec(kind="lookup", table=table, key_field="name", answer_field="x")
        return Reading([Candidate(spec, score, "scripted")], rescued=rescued)

    readings = {"cars": reading("cars", 3.0, True), "countries": reading("countries", 2.0, False)}
    monkeypatch.setattr(agent, "run_tables", lambda config, intent: dict.fromkeys(readings))
    monkeypatch.setattr(agent, "proposed", lambda config, intent, model: None)
    monkeypatch.setattr(
        agent, "relevant_tables", lambda config, intent, tables: dict.fromkeys(tables, 1)
    )
    monkeypatch.setattr(agent, "_joined_rank", lambda ranks, table, spec, tables=None: (1, 0))
    monkeypatch.setattr(agent, "read_plan", lambda config, intent, tables, table: readings[table])
    chosen, cands, _ = agent.candidates_for(RunConfig(programs="reader"), "Met welke munt?")
    assert chosen == "countries"  # the rules' program, though the rescued one scores higher
    readings["cars"] = reading("cars", 3.0, False)
    assert agent.candidates_for(RunConfig(programs="reader"), "Met welke munt?")[0] == "cars"


def test_a_failing_reader_leaves_the_rules_reading(monkeypatch, tmp_path):
    class Broken:
        spec = SimpleNamespace(text="local:reader", provider="local", model="x")

        def structured(self, schema: Any, messages: Any) -> Any:
            raise LocalModelError("the reader model is not installed")

    monkeypatch.setattr(agent, "reader_for", lambda config: Broken())
    table = cars()
    config = RunConfig(programs="reader")
    reading = agent.read_plan(config, "Welches Auto ist schwerer?", {table.id: table}, table.id)
    assert not isinstance(reading.candidates, Refusal)
    assert any("gave no answer, the rules read alone" in n for n in reading.notes)


@pytest.mark.parametrize(
    ("programs", "reader", "asks"),
    [
        ("auto", "local", False),  # SmolLM2 reads nothing
        ("auto", "local:reader", True),
        ("reader", "local", True),  # asked for: the three-way figures ask SmolLM2 too
        ("rules", "local:reader", False),
        ("model", "local:reader", False),
    ],
)
def test_who_reads_the_unsure_slots(programs, reader, asks):
    config = RunConfig(programs=programs, role_models={"reader": reader})
    found = agent.reader_for(config)
    assert (found is not None) is asks
    if asks:
        assert found.spec.text == reader


def test_a_direction_on_the_map_is_not_asked_even_in_another_language():
    rows = [(f"Airport {i}", 30 + i * 1.5, -120 + i * 3.3) for i in range(10)]
    airports = table_of(
        "airports", {"name": "text", "latitude": "number", "longitude": "number"}, rows
    )
    intent = (
        "On montre deux aéroports avec leurs coordonnées (latitude, longitude) et on demande "
        "lequel des deux se trouve le plus à l'ouest."
    )
    reader = Scripted(asked="latitude")
    reading = read(intent, {airports.id: airports}, airports.id, reader)
    assert reader.asked == []  # "le plus à l'ouest" names the longitude: nothing to ask
    assert not isinstance(reading.candidates, Refusal)
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.field, spec.direction) == ("compare", "longitude", "min")


def test_a_column_of_codes_is_taken_only_when_the_intent_asks_for_a_code():
    rows = [(f"Land {i}", ("EUR", "USD", "JPY")[i % 3], ("euro", "dollar", "yen")[i % 3])
            for i in range(9)]  # fmt: skip
    table = table_of(
        "lands", {"name": "text", "currency_code": "category", "currency": "category"}, rows
    )
    lookup = ProgramSpec(kind="lookup", table="lands", key_field="name", answer_field="currency")
    asked = "A country is read aloud and the question is which currency one pays with there."
    assert "asks for no code" in check("currency_code", table, lookup, asked)
    assert check("currency", table, lookup, asked) is None
    assert check("currency_code", table, lookup, "Ask for the ISO currency code.") is None
    intent = (
        "Es wird ein Land vorgelesen, und gefragt wird, mit welcher Währung man dort bezahlt. "
        "Keine Tabelle."
    )
    reader = Scripted(asked="currency_code")
    reading = read(intent, {table.id: table}, table.id, reader)
    assert [slot for slot, _, _ in reader.asked] == ["asked"]
    assert "asked" not in reading.taken  # the reader's code column is set aside
    assert any("asks for no code" in n for n in reading.notes)


def test_a_column_the_ranked_word_does_not_name_does_not_replace_a_refusal():
    rows = [(f"Airport {i}", 30 + i * 1.5, -120 + i * 3.3) for i in range(10)]
    airports = table_of(
        "airports", {"name": "text", "latitude": "number", "longitude": "number"}, rows
    )
    intent = "Given two airports, ask which of the two has the longest runway."
    reader = Scripted(asked="latitude")
    reading = read(intent, {airports.id: airports}, airports.id, reader)
    assert [slot for slot, _, _ in reader.asked] == ["asked"]
    assert isinstance(reading.candidates, Refusal)
    assert reading.taken == {}
    assert any("not what 'runway' names" in n for n in reading.notes)


def test_a_column_the_asked_quantity_does_not_name_does_not_replace_a_refusal():
    rows = [(f"Airport {i}", f"A{i:02d}", 30 + i * 1.5) for i in range(10)]
    airports = table_of("airports", {"name": "text", "iata": "text", "latitude": "number"}, rows)
    intent = "For each airport, named by its code, ask how high it sits above sea level."
    reading = read(intent, {airports.id: airports}, airports.id, Scripted(asked="latitude"))
    assert isinstance(reading.candidates, Refusal) and "'height'" in reading.candidates.missing
    assert reading.taken == {}


def test_a_column_the_intent_names_in_full_is_not_replaced_by_one_it_never_names():
    # "a média de cilindros" names the cylinders; no word of the intent names the Year.
    intent = "Mostre seis carros e pergunte a média de cilindros desses carros. Em português."
    reading, _ = read_cars(intent, Scripted(asked="Year"))
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.field) == ("aggregate", "Cylinders")
    assert any("names Cylinders in full" in n for n in reading.notes), reading.notes
    # A column the intent does name may still replace the rules' reading.
    intent = "Mostre seis carros com o ano e os cilindros e pergunte a média do ano. Em português."
    reading, _ = read_cars(intent, Scripted(asked="Year"))
    assert reading.candidates[0].spec.field == "Year"

"""The corpus is sound, and the independent reviewer accepts good items and rejects bad ones.

Every item here is written by hand from the corpus data (the values are asserted against the
files first), then mutated the ways a program could go wrong: a wrong winner, a record outside
the filter, a shown row missing from the prompt, a changed feature, a wrong hop, the wrong
language, the answer given away, the wrong kind for the intent.
"""

from __future__ import annotations

import ast
import copy
import csv
import importlib.util
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from reviewer import load_corpus, review_item

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
KINDS = (
    "lookup",
    "filtered_lookup",
    "compare",
    "superlative",
    "count",
    "aggregate",
    "classify",
    "multihop",
)
INTENT_LIST: list[dict[str, Any]] = json.loads((CORPUS / "intents.json").read_text("utf-8"))
INTENTS = {intent["id"]: intent for intent in INTENT_LIST}
TABLE_SPECS: list[dict[str, Any]] = json.loads((CORPUS / "tables.json").read_text("utf-8"))


# ----------------------------------------------------------------------------------------------
# Hand-made items


def read_table(file: str) -> list[dict[str, str]]:
    path = CORPUS / file
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        return [{k: str(v) for k, v in row.items()} for row in rows]
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def row_of(file: str, column: str, value: str) -> tuple[int, dict[str, str]]:
    """The 0-based data row whose ``column`` is ``value``."""
    for index, row in enumerate(read_table(file)):
        if row[column] == value:
            return index, row
    raise AssertionError(f"{value!r} not in {file}")


def md_table(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cells) + " |" for cells in lines]
    return "\n".join(out)


def make_item(
    text: str,
    answer: str,
    program: dict[str, Any],
    *,
    choices: list[str] | None = None,
    target: str | None = None,
    language: str = "en",
) -> dict[str, Any]:
    return {
        "input": text,
        "choices": choices,
        "target": target if choices else answer,
        "metadata": {"answer": answer, "language": language, "program": program},
    }


def make_program(kind: str, book: str, rows: list[int], **fields: Any) -> dict[str, Any]:
    program: dict[str, Any] = {
        "kind": kind,
        "book": book,
        "key_field": None,
        "answer_field": None,
        "field": None,
        "direction": None,
        "aggregate": None,
        "conditions": [],
        "rows": rows,
        "records": [],
        "shown_fields": [],
        "features": {},
        "hops": [],
    }
    program.update(fields)
    return program


def lookup_closed() -> dict[str, Any]:
    index, row = row_of("us_states.csv", "name", "Texas")
    assert row["capital_city"] == "Austin"
    text = (
        "What is the capital city of the US state of Texas?\n"
        "A. Houston\nB. Austin\nC. Dallas\nD. San Antonio\nAnswer with the letter only."
    )
    program = make_program(
        "lookup",
        "closed",
        [index],
        key_field="name",
        answer_field="capital_city",
        records=["Texas"],
    )
    return make_item(
        text, "Austin", program, choices=["Houston", "Austin", "Dallas", "San Antonio"], target="B"
    )


def filtered_lookup_closed() -> dict[str, Any]:
    index, row = row_of("elements.csv", "name", "Tungsten")
    assert row["symbol"] == "W" and int(row["year_discovered"]) < 1800
    program = make_program(
        "filtered_lookup",
        "closed",
        [index],
        key_field="name",
        answer_field="symbol",
        records=["Tungsten"],
        conditions=[{"field": "year_discovered", "op": "<", "value": 1800}],
    )
    return make_item("What is the chemical symbol of tungsten?", "W", program)


EUROPE = ["France", "Germany", "Spain", "Poland"]


def filtered_lookup_open(countries: list[str] = EUROPE) -> dict[str, Any]:
    rows, lines = [], []
    for name in countries:
        index, row = row_of("countries_small.csv", "country", name)
        rows.append(index)
        lines.append([row["country"], row["iso3"], row["continent"]])
    assert row_of("countries_small.csv", "country", "Spain")[1]["iso3"] == "ESP"
    text = (
        md_table(["Country", "ISO3", "Continent"], lines)
        + "\n\nAccording to the table, what is the ISO3 code of Spain?"
    )
    program = make_program(
        "filtered_lookup",
        "open",
        rows,
        key_field="country",
        answer_field="iso3",
        records=list(countries),
        shown_fields=["country", "iso3", "continent"],
        conditions=[{"field": "continent", "op": "==", "value": "Europe"}],
    )
    return make_item(text, "ESP", program)


def compare_closed() -> dict[str, Any]:
    k2, k2_row = row_of("mountains.csv", "name", "K2")
    lhotse, lhotse_row = row_of("mountains.csv", "name", "Lhotse")
    assert int(k2_row["height_m"]) > int(lhotse_row["height_m"])
    program = make_program(
        "compare",
        "closed",
        [k2, lhotse],
        key_field="name",
        field="height_m",
        direction="max",
        records=["K2", "Lhotse"],
    )
    return make_item(
        "Which mountain is higher: K2 or Lhotse?",
        "K2",
        program,
        choices=["K2", "Lhotse"],
        target="A",
    )


def superlative_open(
    games: tuple[str, ...] = ("Seoul 1988", "Sydney 2000", "Tokyo 2020", "Paris 2024"),
    answer: str = "Tokyo 2020",
) -> dict[str, Any]:
    rows, lines = [], []
    for name in games:
        index, row = row_of("olympics.csv", "name", name)
        rows.append(index)
        lines.append([row["name"], row["opening_date"], row["events"]])
    text = (
        md_table(["Games", "Opening date", "Events"], lines)
        + "\n\nWhich of these Summer Olympic Games had the most medal events?"
    )
    program = make_program(
        "superlative",
        "open",
        rows,
        key_field="name",
        field="events",
        direction="max",
        records=list(games),
        shown_fields=["name", "opening_date", "events"],
    )
    return make_item(text, answer, program)


FILMS = ["Seven Samurai", "Parasite", "The Godfather", "Roma", "Titanic"]


def count_open(extra_line: bool = False) -> dict[str, Any]:
    rows, lines = [], []
    for title in FILMS:
        index, row = row_of("films.csv", "title", title)
        rows.append(index)
        lines.append([row["title"], row["year"], row["runtime_min"]])
    assert sum(int(row_of("films.csv", "title", t)[1]["runtime_min"]) > 150 for t in FILMS) == 3
    if extra_line:
        lines.append(["Jaws", "1975", "124"])
    text = (
        md_table(["Title", "Year", "Runtime (min)"], lines)
        + "\n\nHow many of these films run longer than 150 minutes?"
    )
    program = make_program(
        "count",
        "open",
        rows,
        key_field="title",
        aggregate="count",
        records=list(FILMS),
        conditions=[{"field": "runtime_min", "op": ">", "value": 150}],
        shown_fields=["title", "year", "runtime_min"],
    )
    return make_item(text, "3", program)


def aggregate_open() -> dict[str, Any]:
    consoles = ["Wii", "Nintendo DS", "PlayStation 2", "GameCube"]
    rows, lines = [], []
    for name in consoles:
        index, row = row_of("consoles.csv", "name", name)
        rows.append(index)
        lines.append([row["name"], row["manufacturer"], row["units_sold_millions"]])
    text = (
        md_table(["Console", "Manufacturer", "Units sold (millions)"], lines)
        + "\n\nAmong the Nintendo consoles in the table, what is the highest number of "
        "units sold, in millions?"
    )
    program = make_program(
        "aggregate",
        "open",
        rows,
        key_field="name",
        field="units_sold_millions",
        aggregate="max",
        records=consoles,
        conditions=[{"field": "manufacturer", "op": "==", "value": "Nintendo"}],
        shown_fields=["name", "manufacturer", "units_sold_millions"],
    )
    return make_item(text, "154.02", program)


def mean_open() -> dict[str, Any]:
    names = ["Hydrogen", "Helium", "Lithium", "Beryllium"]
    rows, lines, masses = [], [], []
    for name in names:
        index, row = row_of("elements.csv", "name", name)
        rows.append(index)
        lines.append([row["name"], row["symbol"], row["atomic_mass"]])
        masses.append(float(row["atomic_mass"]))
    assert abs(sum(masses) / 4 - 5.24) < 0.005
    text = (
        md_table(["Element", "Symbol", "Atomic mass"], lines)
        + "\n\nWhat is the average atomic mass of the elements shown? Round to two "
        "decimals."
    )
    program = make_program(
        "aggregate",
        "open",
        rows,
        key_field="name",
        field="atomic_mass",
        aggregate="mean",
        records=names,
        shown_fields=["name", "symbol", "atomic_mass"],
    )
    return make_item(text, "5.24", program)


IRIS = {"sepal_length": "5.5", "sepal_width": "2.3", "petal_length": "4.0", "petal_width": "1.3"}


def iris_row(values: dict[str, str]) -> tuple[int, dict[str, str]]:
    for index, row in enumerate(read_table("iris.csv")):
        if all(float(row[k]) == float(v) for k, v in values.items()):
            return index, row
    raise AssertionError(values)


def iris_question(features: dict[str, str]) -> str:
    return (
        f"An iris flower has a sepal length of {features['sepal_length']} cm, a sepal "
        f"width of {features['sepal_width']} cm, a petal length of "
        f"{features['petal_length']} cm and a petal width of {features['petal_width']} cm. "
        "Which species is it?"
    )


def classify_closed(features: dict[str, str] = IRIS) -> dict[str, Any]:
    index, row = iris_row(IRIS)
    assert row["species"] == "versicolor"
    text = iris_question(features) + "\nA. setosa\nB. versicolor\nC. virginica"
    program = make_program(
        "classify", "closed", [index], answer_field="species", features=dict(features)
    )
    return make_item(
        text, "versicolor", program, choices=["setosa", "versicolor", "virginica"], target="B"
    )


EXAMPLES = [
    {"sepal_length": "5.1", "sepal_width": "3.5", "petal_length": "1.4", "petal_width": "0.2"},
    {"sepal_length": "7.0", "sepal_width": "3.2", "petal_length": "4.7", "petal_width": "1.4"},
    {"sepal_length": "6.3", "sepal_width": "3.3", "petal_length": "6.0", "petal_width": "2.5"},
]


def classify_open(show_subject: bool = False) -> dict[str, Any]:
    rows, lines = [], []
    shown = [*EXAMPLES, IRIS] if show_subject else EXAMPLES
    for values in shown:
        index, row = iris_row(values)
        rows.append(index)
        lines.append(
            [
                row[c]
                for c in ("sepal_length", "sepal_width", "petal_length", "petal_width", "species")
            ]
        )
    if not show_subject:
        rows.append(iris_row(IRIS)[0])
    text = (
        md_table(["Sepal length", "Sepal width", "Petal length", "Petal width", "Species"], lines)
        + "\n\nUsing the labelled samples above: "
        + iris_question(IRIS)
    )
    program = make_program(
        "classify",
        "open",
        rows,
        answer_field="species",
        features=dict(IRIS),
        shown_fields=["sepal_length", "sepal_width", "petal_length", "petal_width", "species"],
    )
    return make_item(text, "versicolor", program)


def multihop_closed(second_key: str = "JPY", answer: str = "Japanese yen") -> dict[str, Any]:
    index, row = row_of("countries_small.csv", "country", "Japan")
    assert row["currency_code"] == "JPY"
    assert row_of("currencies.csv", "currency_code", "JPY")[1]["currency_name"] == answer or (
        answer != "Japanese yen"
    )
    hops = [
        {"table": "countries", "key_field": "country", "key": "Japan", "field": "currency_code"},
        {
            "table": "currencies",
            "key_field": "currency_code",
            "key": second_key,
            "field": "currency_name",
        },
    ]
    program = make_program(
        "multihop",
        "closed",
        [index],
        key_field="country",
        answer_field="currency_name",
        records=["Japan"],
        hops=hops,
    )
    return make_item("What is the name of the currency used in Japan?", answer, program)


STAFF = ["Samuel Adeyemi", "Chloe Nguyen", "Mei Chen"]


def multihop_open(shown: list[str] = STAFF, first_field: str = "manager") -> dict[str, Any]:
    rows, lines = [], []
    for name in shown:
        index, row = row_of("staff.csv", "name", name)
        rows.append(index)
        lines.append([row["name"], row["role"], row["department"], row["manager"]])
    all_rows = [row_of("staff.csv", "name", n)[0] for n in STAFF]
    samuel = row_of("staff.csv", "name", "Samuel Adeyemi")[1]
    assert samuel["manager"] == "Chloe Nguyen"
    assert row_of("staff.csv", "name", "Chloe Nguyen")[1]["department"] == "Finance"
    text = (
        md_table(["Name", "Role", "Department", "Manager"], lines)
        + "\n\nIn which department does Samuel Adeyemi's manager work?"
    )
    hops = [
        {"table": "staff", "key_field": "name", "key": "Samuel Adeyemi", "field": first_field},
        {"table": "staff", "key_field": "name", "key": "Chloe Nguyen", "field": "department"},
    ]
    program = make_program(
        "multihop",
        "open",
        all_rows,
        key_field="name",
        answer_field="department",
        records=list(STAFF),
        hops=hops,
        shown_fields=["name", "role", "department", "manager"],
    )
    return make_item(text, "Finance", program)


def lookup_french(
    question: str = "Sur quel continent se trouve l'Égypte ?",
    choices: tuple[str, ...] = ("Europe", "Afrique", "Asie", "Océanie"),
    answer: str = "Afrique",
    language: str = "fr",
) -> dict[str, Any]:
    index, row = row_of("countries_small.csv", "country", "Egypt")
    assert row["continent"] == "Africa"
    program = make_program(
        "lookup",
        "closed",
        [index],
        key_field="country",
        answer_field="continent",
        records=["Egypt"],
    )
    return make_item(
        question,
        answer,
        program,
        choices=list(choices),
        target="ABCD"[choices.index(answer)],
        language=language,
    )


GOOD: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "lookup closed": ("i03", lookup_closed),
    "filtered_lookup closed": ("i05", filtered_lookup_closed),
    "filtered_lookup open": ("i06", filtered_lookup_open),
    "compare closed": ("i07", compare_closed),
    "superlative open": ("i12", superlative_open),
    "count open": ("i15", count_open),
    "aggregate open max": ("i45", aggregate_open),
    "aggregate open mean": ("i17", mean_open),
    "classify closed": ("i19", classify_closed),
    "classify open": ("i20", classify_open),
    "multihop closed": ("i23", multihop_closed),
    "multihop open": ("i22", multihop_open),
    "lookup closed in French": ("i27", lookup_french),
}


def review(intent_id: str, item: dict[str, Any]) -> list[str]:
    return review_item(item, INTENTS[intent_id], CORPUS)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_reviewer_accepts_correct_items(name: str) -> None:
    intent_id, build = GOOD[name]
    assert review(intent_id, build()) == []


def with_program(item: dict[str, Any], **changes: Any) -> dict[str, Any]:
    item = copy.deepcopy(item)
    item["metadata"]["program"].update(changes)
    return item


def with_answer(item: dict[str, Any], answer: str, target: str | None = None) -> dict[str, Any]:
    item = copy.deepcopy(item)
    item["metadata"]["answer"] = answer
    item["target"] = target if item.get("choices") else answer
    return item


def with_input(item: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    item = copy.deepcopy(item)
    assert old in item["input"]
    item["input"] = item["input"].replace(old, new)
    return item


def without_line(item: dict[str, Any], starts: str) -> dict[str, Any]:
    item = copy.deepcopy(item)
    lines = item["input"].splitlines()
    kept = [line for line in lines if not line.startswith(starts)]
    assert len(kept) == len(lines) - 1
    item["input"] = "\n".join(kept)
    return item


def outside_filter() -> dict[str, Any]:
    return filtered_lookup_open(["France", "Germany", "Spain", "Japan"])


def sodium_outside_filter() -> dict[str, Any]:
    index, row = row_of("elements.csv", "name", "Sodium")
    assert int(row["year_discovered"]) >= 1800
    item = filtered_lookup_closed()
    item = with_program(item, rows=[index], records=["Sodium"])
    item = with_input(item, "tungsten", "sodium")
    return with_answer(item, "Na")


def tie() -> dict[str, Any]:
    return superlative_open(("Seoul 1988", "Beijing 2008", "London 2012"), "Beijing 2008")


def changed_feature() -> dict[str, Any]:
    return classify_closed({**IRIS, "petal_length": "4.1"})


def english_question_marked_french() -> dict[str, Any]:
    return lookup_french(question="On which continent is the country of Egypt located?")


def english_answer_in_french_item() -> dict[str, Any]:
    return lookup_french(choices=("Europe", "Africa", "Asia", "Oceania"), answer="Africa")


MUTATIONS: dict[str, tuple[str, Callable[[], dict[str, Any]], str]] = {
    # name: (intent, bad item, tag of the expected problem)
    "wrong winner (compare)": (
        "i07",
        lambda: with_answer(compare_closed(), "Lhotse", "B"),
        "winner:",
    ),
    "wrong winner (superlative)": (
        "i12",
        lambda: with_answer(superlative_open(), "Paris 2024"),
        "winner:",
    ),
    "tie for the superlative": ("i12", tie, "winner:"),
    "wrong direction": ("i07", lambda: with_program(compare_closed(), direction="min"), "intent:"),
    "record outside the filter (open)": ("i06", outside_filter, "condition:"),
    "record outside the filter (closed)": ("i05", sodium_outside_filter, "condition:"),
    "condition dropped": ("i45", lambda: with_program(aggregate_open(), conditions=[]), "intent:"),
    "shown row missing from the prompt": (
        "i06",
        lambda: without_line(filtered_lookup_open(), "| Germany"),
        "shown:",
    ),
    "hop record missing from the prompt": (
        "i22",
        lambda: without_line(multihop_open(), "| Chloe Nguyen"),
        "shown:",
    ),
    "value the answer depends on not shown": (
        "i12",
        lambda: with_input(superlative_open(), "| 300 |", "| 310 |"),
        "shown:",
    ),
    "extra unlisted row in the table": ("i15", lambda: count_open(extra_line=True), "shown:"),
    "wrong count": ("i15", lambda: with_answer(count_open(), "4"), "count:"),
    "wrong aggregate": ("i45", lambda: with_answer(aggregate_open(), "160"), "aggregate:"),
    "wrong mean": ("i17", lambda: with_answer(mean_open(), "5.6"), "aggregate:"),
    "feature value changed": ("i19", changed_feature, "feature:"),
    "classified record shown with its label": (
        "i20",
        lambda: classify_open(show_subject=True),
        "giveaway:",
    ),
    "wrong hop": ("i23", lambda: multihop_closed(second_key="CNY"), "hop:"),
    "wrong final answer after the hops": (
        "i23",
        lambda: multihop_closed(answer="Chinese yuan"),
        "hop:",
    ),
    "hop through the wrong field": ("i22", lambda: multihop_open(first_field="department"), "hop:"),
    "question in English for a French intent": ("i27", english_question_marked_french, "language:"),
    "answer label left in English": ("i27", english_answer_in_french_item, "language:"),
    "metadata language differs from the intent": (
        "i27",
        lambda: lookup_french(language="en"),
        "intent:",
    ),
    "answer given away (lookup)": (
        "i03",
        lambda: with_input(
            lookup_closed(), "the US state of Texas?", "Texas, whose capital is Austin?"
        ),
        "giveaway:",
    ),
    "answer given away (classify)": (
        "i19",
        lambda: with_input(
            classify_closed(),
            "Which species is it?",
            "Is this versicolor-like flower of a known species?",
        ),
        "giveaway:",
    ),
    "wrong kind for the intent": ("i10", compare_closed, "intent:"),
    "wrong book for the intent": (
        "i06",
        lambda: with_program(filtered_lookup_open(), book="closed"),
        "intent:",
    ),
    "wrong answer for the lookup": (
        "i03",
        lambda: with_answer(lookup_closed(), "Houston", "A"),
        "lookup:",
    ),
    "target letter points elsewhere": (
        "i03",
        lambda: {**lookup_closed(), "target": "A"},
        "choices:",
    ),
    "duplicate choices": ("i07", lambda: {**compare_closed(), "choices": ["K2", "K2"]}, "choices:"),
    "rows and records disagree": (
        "i07",
        lambda: with_program(compare_closed(), records=["Lhotse", "K2"]),
        "rows:",
    ),
    "row index out of range": ("i03", lambda: with_program(lookup_closed(), rows=[999]), "rows:"),
    "leftover placeholder": (
        "i03",
        lambda: with_input(lookup_closed(), "Texas?", "{state}?"),
        "generic:",
    ),
    "no question mark": (
        "i03",
        lambda: with_input(lookup_closed(), "Texas?", "Texas."),
        "generic:",
    ),
    "None in the prompt": (
        "i03",
        lambda: with_input(lookup_closed(), "D. San Antonio", "D. None"),
        "generic:",
    ),
    "item for an unservable intent": ("i29", lookup_closed, "intent:"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_reviewer_rejects_mutated_items(name: str) -> None:
    intent_id, build, tag = MUTATIONS[name]
    problems = review(intent_id, build())
    assert any(p.startswith(tag) for p in problems), problems


# ----------------------------------------------------------------------------------------------
# Rank then report: a multihop that ranks the records shown or named, then reports another
# field of the winner (one hop when the field is the winner's own, one more per join).

STARTER_INTENTS = {
    i["id"]: i for i in json.loads((CORPUS / "intents_starter5.json").read_text("utf-8"))
}


def rank_intent(
    tables: list[str],
    book: str,
    key_field: str,
    answer_field: str,
    field: str,
    direction: str,
    *,
    language: str = "en",
    conditions: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    expect = {
        "kinds": ["multihop"], "book": book, "answer_field": answer_field,
        "key_field": key_field, "field": field, "direction": direction, "aggregate": None,
        "conditions": list(conditions), "language": language, "answer_format": None,
    }  # fmt: skip
    return {"id": "rank", "tables": tables, "intent": "rank, then report", "expect": expect,
            "held_out": False, "servable": True}  # fmt: skip


ASIA = {"field": "continent", "op": "==", "value": "Asia"}
CURRENCY_JOIN = {"field": "currency_code", "table": "currencies", "key": "currency_code"}
# Of three Asian countries, the name of the currency of the most populous (a join to currencies).
RANK_CURRENCY = rank_intent(
    ["countries", "currencies"], "closed", "country", "currency_name", "population_millions",
    "max", conditions=(ASIA,),
)  # fmt: skip
# In Italian: of three countries, the continent of the most populous (the winner's own field).
RANK_CONTINENT_IT = rank_intent(
    ["countries"], "closed", "country", "continent", "population_millions", "max", language="it"
)
# A table of mountains: the year of the first ascent of the highest (or the easternmost).
RANK_ASCENT = rank_intent(["mountains"], "open", "name", "first_ascent_year", "height_m", "max")
RANK_ASCENT_EAST = rank_intent(
    ["mountains"], "open", "name", "first_ascent_year", "longitude", "max"
)


def rank_program(
    book: str,
    table: str,
    found: list[tuple[int, dict[str, str]]],
    key_field: str,
    field: str,
    direction: str,
    hops: list[dict[str, Any]],
    answer_field: str,
    **fields: Any,
) -> dict[str, Any]:
    return make_program(
        "multihop", book, [i for i, _ in found], table=table, key_field=key_field,
        answer_field=answer_field, field=field, direction=direction, k=len(found),
        records=[r[key_field] for _, r in found], hops=hops, **{"joins": [], **fields},
    )  # fmt: skip


def rank_currency(
    countries: tuple[str, ...] = ("Japan", "India", "Indonesia"),
    winner: str = "India",
    question: str = "Of Japan, India and Indonesia, what is the name of the currency used in "
    "the most populous of the three?",
    answer: str = "Indian rupee",
    choices: tuple[str, ...] | None = ("Japanese yen", "Indian rupee", "Indonesian rupiah",
                                       "Thai baht"),
) -> dict[str, Any]:  # fmt: skip
    """Closed book, two hops: India (1430 million) wins, INR is the Indian rupee."""
    found = [row_of("countries_small.csv", "country", c) for c in countries]
    assert max(found, key=lambda f: float(f[1]["population_millions"]))[1]["country"] == "India"
    index, row = row_of("countries_small.csv", "country", winner)
    code = row["currency_code"]
    assert row_of("currencies.csv", "currency_code", "INR")[1]["currency_name"] == "Indian rupee"
    hops = [
        {"table": "countries", "key_field": "country", "key": winner, "field": "currency_code",
         "row": index},
        {"table": "currencies", "key_field": "currency_code", "key": code,
         "field": "currency_name"},
    ]  # fmt: skip
    program = rank_program(
        "closed", "countries", found, "country", "population_millions", "max", hops,
        "currency_name", conditions=[ASIA], joins=[CURRENCY_JOIN],
    )  # fmt: skip
    text = question + "".join(f"\n{'ABCD'[i]}. {c}" for i, c in enumerate(choices or ()))
    target = "ABCD"[choices.index(answer)] if choices and answer in choices else None
    return make_item(
        text, answer, program, choices=list(choices) if choices else None, target=target
    )


def rank_continent_it(
    choices: tuple[str, ...] = ("Nord America", "Asia", "America del Sud", "Europa"),
    answer: str = "America del Sud",
) -> dict[str, Any]:
    """Closed book in Italian, one hop: Brazil (216 million) is on South America."""
    found = [row_of("countries_small.csv", "country", c) for c in ("Mexico", "Japan", "Brazil")]
    index, row = found[2]
    assert row["continent"] == "South America"
    assert [float(r["population_millions"]) for _, r in found] == [129, 123, 216]
    hops = [{"table": "countries", "key_field": "country", "key": "Brazil", "field": "continent",
             "row": index}]  # fmt: skip
    program = rank_program(
        "closed", "countries", found, "country", "population_millions", "max", hops, "continent"
    )
    text = "Tra Messico, Giappone e Brasile, in quale continente si trova il paese più popoloso?"
    text += "".join(f"\n{'ABCD'[i]}. {c}" for i, c in enumerate(choices))
    return make_item(
        text, answer, program, choices=list(choices), target="ABCD"[choices.index(answer)],
        language="it",
    )  # fmt: skip


PEAKS = ("K2", "Lhotse", "Makalu", "Cho Oyu", "Nanga Parbat")


def rank_ascent_open(
    peaks: tuple[str, ...] = PEAKS,
    winner: str = "K2",
    field: str = "height_m",
    question: str = "According to the table, in which year was the highest of these mountains "
    "first climbed?",
) -> dict[str, Any]:  # fmt: skip
    """Open book, one hop: K2 (8611 m) is the highest shown, first climbed in 1954."""
    found = [row_of("mountains.csv", "name", p) for p in peaks]
    index, row = row_of("mountains.csv", "name", winner)
    columns = ["name", "height_m", "longitude", "first_ascent_year"]
    lines = [[r[c] for c in columns] for _, r in found]
    text = (
        md_table(["Mountain", "Height (m)", "Longitude", "First ascent"], lines) + "\n\n" + question
    )
    hops = [{"table": "mountains", "key_field": "name", "key": winner,
             "field": "first_ascent_year", "row": index}]  # fmt: skip
    program = rank_program(
        "open", "mountains", found, "name", field, "max", hops, "first_ascent_year",
        shown_fields=columns,
    )  # fmt: skip
    return make_item(text, row["first_ascent_year"], program)


def starter_row(table_id: str, column: str, value: str) -> tuple[int, dict[str, str]]:
    """The one row of a starter table whose ``column`` is ``value`` (skip without its data)."""
    from starter_data import StarterUnavailable, starter_table

    try:
        table = starter_table(table_id)
    except StarterUnavailable as exc:
        pytest.skip(str(exc))
    found = [(i, r) for i, r in enumerate(table.rows) if r[column] == value]
    assert len(found) == 1, (table_id, column, value, len(found))
    return found[0]


def capital_of_largest_de(
    countries: tuple[str, ...] = ("Indonesia", "Thailand", "Vietnam"),
    winner: str = "Indonesia",
    answer: str = "Jakarta",
    question: str = "Von den drei Ländern Indonesien, Thailand und Vietnam: Wie heißt die "
    "Hauptstadt des flächenmäßig größten Landes?",
    choices: tuple[str, ...] | None = ("Bangkok", "Hanoi", "Jakarta", "Manila"),
) -> dict[str, Any]:  # fmt: skip
    """g17 (world-countries, German, closed book): Indonesia is the largest, capital Jakarta."""
    found = [starter_row("world-countries", "name", c) for c in countries]
    assert all(r["subregion"] == "South-eastern Asia" for _, r in found) or "Japan" in countries
    areas = {r["name"]: float(r["area_km2"]) for _, r in found}
    index, row = starter_row("world-countries", "name", winner)
    assert max(areas, key=areas.__getitem__) == "Indonesia"
    hops = [{"table": "world-countries", "key_field": "name", "key": winner, "field": "capital",
             "row": index}]  # fmt: skip
    program = rank_program(
        "closed", "world-countries", found, "name", "area_km2", "max", hops, "capital",
        conditions=[{"field": "subregion", "op": "==", "value": "South-eastern Asia"}],
    )  # fmt: skip
    text = question + "".join(f"\n{'ABCD'[i]}. {c}" for i, c in enumerate(choices or ()))
    return make_item(
        text, answer, program, choices=list(choices) if choices else None,
        target="ABCD"[choices.index(answer)] if choices else None, language="de",
    )  # fmt: skip


CARS = (
    "mazda rx2 coupe",
    "datsun 610",
    "ford mustang ii",
    "mercury monarch ghia",
    "toyota corona liftback",
)


def year_of_most_powerful_es(cars: tuple[str, ...] = CARS) -> dict[str, Any]:
    """g18 (vega-cars, Spanish, open book): the mercury monarch ghia (139 hp) is of 1978."""
    found = [starter_row("vega-cars", "Name", c) for c in cars]
    index, row = starter_row("vega-cars", "Name", "mercury monarch ghia")
    assert (row["Horsepower"], row["Year"]) == ("139", "1978")
    columns = ["Name", "Horsepower", "Year"]
    text = (
        md_table(["Modelo", "Caballos", "Año"], [[r[c] for c in columns] for _, r in found])
        + "\n\nSegún la tabla, ¿de qué año es el modelo con más caballos de potencia?"
    )
    hops = [{"table": "vega-cars", "key_field": "Name", "key": "mercury monarch ghia",
             "field": "Year", "row": index}]  # fmt: skip
    program = rank_program(
        "open", "vega-cars", found, "Name", "Horsepower", "max", hops, "Year",
        shown_fields=columns,
    )  # fmt: skip
    return make_item(text, "1978", program, language="es")


RANK_GOOD: dict[str, tuple[dict[str, Any], Callable[[], dict[str, Any]]]] = {
    "closed, through a join": (RANK_CURRENCY, rank_currency),
    "closed, in Italian": (RANK_CONTINENT_IT, rank_continent_it),
    "open": (RANK_ASCENT, rank_ascent_open),
}
STARTER_RANK_GOOD: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "closed over world-countries, in German": ("g17", capital_of_largest_de),
    "open over vega-cars, in Spanish": ("g18", year_of_most_powerful_es),
}


@pytest.mark.parametrize("name", sorted(RANK_GOOD))
def test_reviewer_accepts_rank_then_report(name: str) -> None:
    intent, build = RANK_GOOD[name]
    item = build()
    assert item["metadata"]["program"]["field"] and item["metadata"]["program"]["direction"]
    assert review_item(item, intent, CORPUS) == []


@pytest.mark.parametrize("name", sorted(STARTER_RANK_GOOD))
def test_reviewer_accepts_rank_then_report_over_starter_tables(name: str) -> None:
    intent_id, build = STARTER_RANK_GOOD[name]
    assert review_item(build(), STARTER_INTENTS[intent_id], CORPUS) == []


def wrong_winner() -> dict[str, Any]:
    """The first hop starts from Japan (123 million), not India; its currency is the answer."""
    return rank_currency(winner="Japan", answer="Japanese yen")


def peak_tie() -> dict[str, Any]:
    """Everest and Lhotse both lie at 86.93° E: no single easternmost mountain."""
    everest, lhotse = (row_of("mountains.csv", "name", n)[1] for n in ("Mount Everest", "Lhotse"))
    assert everest["longitude"] == lhotse["longitude"]
    return rank_ascent_open(
        ("K2", "Mount Everest", "Lhotse"), "Mount Everest", "longitude",
        "According to the table, in which year was the easternmost of these mountains first "
        "climbed?",
    )  # fmt: skip


RANK_MUTATIONS: dict[str, tuple[dict[str, Any], Callable[[], dict[str, Any]], str]] = {
    # name: (intent, bad item, tag of the expected problem)
    "first hop is not the winner": (RANK_CURRENCY, wrong_winner, "winner:"),
    "answer is the winner's name, not its field": (
        RANK_CURRENCY,
        lambda: rank_currency(answer="India", choices=None),
        "hop:",
    ),
    "answer is not the winner's field": (
        RANK_CURRENCY,
        lambda: rank_currency(answer="Indonesian rupiah"),
        "hop:",
    ),
    "compared record not named in the question": (
        RANK_CURRENCY,
        lambda: rank_currency(
            question="Of Japan and India, what is the name of the currency used in the more "
            "populous of the two?"
        ),
        "shown:",
    ),
    "compared record breaks the condition": (
        RANK_CURRENCY,
        lambda: rank_currency(
            countries=("Japan", "India", "Brazil"),
            question="Of Japan, India and Brazil, what is the name of the currency used in the "
            "most populous of the three?",
        ),
        "condition:",
    ),
    "tie for the top": (RANK_ASCENT_EAST, peak_tie, "winner:"),
    "another choice is also correct": (
        RANK_CONTINENT_IT,
        lambda: rank_continent_it(("Nord America", "Asia", "America del Sud", "Sudamerica")),
        "choices:",
    ),
    "answer left in English": (
        RANK_CONTINENT_IT,
        lambda: rank_continent_it(
            ("North America", "Asia", "South America", "Europe"), "South America"
        ),
        "language:",
    ),
    "compared record missing from the open table": (
        RANK_ASCENT,
        lambda: without_line(rank_ascent_open(), "| Makalu"),
        "shown:",
    ),
    "ranked field not shown on a line": (
        RANK_ASCENT,
        lambda: with_program(
            with_input(rank_ascent_open(), "| Makalu | 8485 |", "| Makalu | 8,4 km |"),
            shown_fields=["name", "longitude", "first_ascent_year"],
        ),
        "shown:",
    ),
    "no hop from the winner": (
        RANK_CURRENCY,
        lambda: with_program(rank_currency(), hops=[]),
        "hop:",
    ),
    "joins and hops disagree": (
        RANK_CURRENCY,
        lambda: with_program(rank_currency(), joins=[]),
        "hop:",
    ),
    "k is not the number of compared records": (
        RANK_CURRENCY,
        lambda: with_program(rank_currency(), k=4),
        "rows:",
    ),
    "ranked the other way than the intent": (
        RANK_CURRENCY,
        lambda: with_program(rank_currency(), direction="min"),
        "intent:",
    ),
    "ranked by another field than the intent": (
        RANK_ASCENT,
        lambda: with_program(rank_ascent_open(), field="longitude"),
        "intent:",
    ),
    "a ranking item for a plain multihop intent": (INTENTS["i23"], rank_currency, "intent:"),
}


@pytest.mark.parametrize("name", sorted(RANK_MUTATIONS))
def test_reviewer_rejects_bad_rank_then_report(name: str) -> None:
    intent, build, tag = RANK_MUTATIONS[name]
    problems = review_item(build(), intent, CORPUS)
    assert any(p.startswith(tag) for p in problems), problems


STARTER_RANK_MUTATIONS: dict[str, tuple[str, Callable[[], dict[str, Any]], str]] = {
    "first hop is not the largest": (
        "g17",
        lambda: capital_of_largest_de(winner="Thailand", answer="Bangkok"),
        "winner:",
    ),
    "answer is the largest country's name": (
        "g17",
        lambda: capital_of_largest_de(answer="Indonesien", choices=None),
        "hop:",
    ),
    "compared country not named": (
        "g17",
        lambda: capital_of_largest_de(
            question="Von den Ländern Indonesien und Thailand: Wie heißt die Hauptstadt des "
            "flächenmäßig größeren Landes?"
        ),
        "shown:",
    ),
    "compared country outside South-eastern Asia": (
        "g17",
        lambda: capital_of_largest_de(
            countries=("Indonesia", "Thailand", "Japan"),
            question="Von den drei Ländern Indonesien, Thailand und Japan: Wie heißt die "
            "Hauptstadt des flächenmäßig größten Landes?",
        ),
        "condition:",
    ),
    "compared car without horsepower": (
        "g18",
        lambda: year_of_most_powerful_es((*CARS[:4], "renault 18i")),
        "winner:",
    ),
}


@pytest.mark.parametrize("name", sorted(STARTER_RANK_MUTATIONS))
def test_reviewer_rejects_bad_rank_then_report_over_starter_tables(name: str) -> None:
    intent_id, build, tag = STARTER_RANK_MUTATIONS[name]
    problems = review_item(build(), STARTER_INTENTS[intent_id], CORPUS)
    assert any(p.startswith(tag) for p in problems), problems


def test_a_multihop_that_does_not_rank_still_needs_two_hops() -> None:
    item = multihop_closed()
    one_hop = with_program(item, hops=item["metadata"]["program"]["hops"][:1])
    problems = review("i23", one_hop)
    assert "hop: a multihop item needs at least two hops" in problems, problems


def test_tables_may_be_named_by_file() -> None:
    item = multihop_closed()
    hops = item["metadata"]["program"]["hops"]
    hops[0]["table"], hops[1]["table"] = "countries_small", "currencies.csv"
    assert review("i23", item) == []
    item["metadata"]["program"]["table"] = "rivers"
    assert any(p.startswith("intent:") for p in review("i23", item))


def test_features_may_be_a_list_of_pairs() -> None:
    item = classify_closed()
    pairs = [{"field": k, "value": v} for k, v in IRIS.items()]
    item["metadata"]["program"]["features"] = pairs
    assert review("i19", item) == []
    pairs[2]["value"] = "4.1"
    assert any(p.startswith("feature:") for p in review("i19", item))


def test_every_kind_and_book_has_a_good_item() -> None:
    seen = set()
    for _intent_id, build in GOOD.values():
        program = build()["metadata"]["program"]
        seen.add((program["kind"], program["book"]))
    assert {kind for kind, _ in seen} == set(KINDS)
    assert {book for _, book in seen} == {"closed", "open"}
    assert len(seen) >= 8


def test_reviewer_is_independent_of_benchsmith() -> None:
    tree = ast.parse((HERE / "reviewer.py").read_text("utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    assert "benchsmith" not in modules
    assert modules <= {
        "__future__",
        "csv",
        "json",
        "math",
        "re",
        "unicodedata",
        "collections",
        "dataclasses",
        "functools",
        "pathlib",
        "typing",
        # The starter tables, rebuilt from the packages that ship them (not from benchsmith),
        # CLDR names through Babel and language detection through lingua.
        "starter_data",
        "babel",
        "lingua",
        # ISO alpha-3 country codes ("USA") to the territory CLDR names.
        "pycountry",
        # A drawn question's picture, read by the tesseract program (Pillow, when there, only
        # upscales it) and aligned with the lines it should show.
        "difflib",
        "shutil",
        "subprocess",
        "tempfile",
        "PIL",
    }
    starter = ast.parse((HERE / "starter_data.py").read_text("utf-8"))
    assert not any(
        (isinstance(n, ast.ImportFrom) and (n.module or "").startswith("benchsmith"))
        or (isinstance(n, ast.Import) and any(a.name.startswith("benchsmith") for a in n.names))
        for n in ast.walk(starter)
    )


# ----------------------------------------------------------------------------------------------
# The corpus itself


def test_tables_load_and_keys_are_unique() -> None:
    assert len(TABLE_SPECS) >= 12
    ids = [spec["id"] for spec in TABLE_SPECS]
    assert len(ids) == len(set(ids))
    corpus = load_corpus(CORPUS)
    for spec in TABLE_SPECS:
        assert (CORPUS / spec["file"]).is_file(), spec["file"]
        rows = read_table(spec["file"])
        assert 12 <= len(rows) <= 60, (spec["id"], len(rows))
        assert len(corpus[spec["id"]].rows) == len(rows)
        assert spec["entity"]
        columns = list(rows[0])
        for row in rows:
            assert list(row) == columns and None not in row.values(), spec["id"]
        if spec["key"] is not None:
            keys = [row[spec["key"]] for row in rows]
            assert all(k.strip() for k in keys), spec["id"]
            assert len(set(keys)) == len(keys), spec["id"]
        for join in spec["joins"]:
            target = next(s for s in TABLE_SPECS if s["id"] == join["table"])
            target_keys = {row[join["key"]] for row in read_table(target["file"])}
            values = {row[join["field"]] for row in rows} - {""}
            assert values <= target_keys, (spec["id"], values - target_keys)


def test_keyless_table_has_no_duplicate_measurements() -> None:
    keyless = [spec for spec in TABLE_SPECS if spec["key"] is None]
    assert keyless
    for spec in keyless:
        rows = read_table(spec["file"])
        measurements = [tuple(v for k, v in row.items() if k != "species") for row in rows]
        assert len(set(measurements)) == len(measurements)


def test_intents_are_well_formed() -> None:
    assert len(INTENT_LIST) >= 40
    tables = {spec["id"]: list(read_table(spec["file"])[0]) for spec in TABLE_SPECS}
    rows = {spec["id"]: read_table(spec["file"]) for spec in TABLE_SPECS}
    for position, intent in enumerate(INTENT_LIST):
        assert intent["id"] == f"i{position + 1:02d}"
        assert intent["held_out"] is (position % 3 == 2), intent["id"]
        assert intent["intent"].strip()
        assert intent["tables"] and all(t in tables for t in intent["tables"])
        expect = intent["expect"]
        if not intent["servable"]:
            assert expect.get("missing"), intent["id"]
            continue
        assert expect["kinds"] and set(expect["kinds"]) <= set(KINDS), intent["id"]
        assert expect["book"] in ("closed", "open")
        assert expect["direction"] in (None, "max", "min")
        assert expect["aggregate"] in (None, "count", "mean", "sum", "min", "max")
        columns = {c for t in intent["tables"] for c in tables[t]}
        for name in ("answer_field", "key_field", "field"):
            assert expect[name] is None or expect[name] in columns, (intent["id"], name)
        for condition in expect["conditions"]:
            assert condition["field"] in tables[intent["tables"][0]], intent["id"]
            assert condition["op"] in ("==", "!=", "<", "<=", ">", ">=")
            values = [r[condition["field"]] for r in rows[intent["tables"][0]]]
            assert any(_holds(v, condition["op"], condition["value"]) for v in values), (
                intent["id"],
                "the filter selects nothing",
            )


def _holds(cell: str, op: str, value: Any) -> bool:
    if isinstance(value, (int, float)):
        a: Any = float(cell)
        b: Any = float(value)
    else:
        a, b = cell, value
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def test_intents_cover_every_kind_and_book_in_both_parts() -> None:
    for held_out in (False, True):
        part = [i for i in INTENT_LIST if i["held_out"] is held_out and i["servable"]]
        kinds = {k for i in part for k in i["expect"]["kinds"]}
        assert kinds >= set(KINDS), (held_out, set(KINDS) - kinds)
        assert {i["expect"]["book"] for i in part} == {"closed", "open"}
        assert len({i["expect"]["kinds"][0] for i in part}) >= 6
    languages = [i for i in INTENT_LIST if i["servable"] and i["expect"]["language"] != "en"]
    assert len(languages) >= 2
    assert len([i for i in INTENT_LIST if not i["servable"]]) >= 2
    for kind in KINDS:
        assert sum(kind in i["expect"]["kinds"] for i in INTENT_LIST if i["servable"]) >= 3, kind


def test_a_program_without_a_key_passes_the_asked_key_only_when_its_rows_are_named_by_it():
    intent_id, build = GOOD["aggregate open max"]
    intent = copy.deepcopy(INTENTS[intent_id])
    intent["expect"]["key_field"] = "name"
    item = build()
    # No key set, the rows shown named by the table's names: as the intent asks.
    assert review_item(with_program(item, key_field=None), intent, CORPUS) == []
    # No key set, and a shown row's name missing from the item: the key is not as asked.
    nameless = with_input(with_program(item, key_field=None), "Nintendo DS", "A handheld")
    assert any("key_field None" in p for p in review_item(nameless, intent, CORPUS))


def test_a_count_s_field_is_the_one_its_condition_tests():
    intent_id, build = GOOD["count open"]
    item = build()
    intent = copy.deepcopy(INTENTS[intent_id])
    intent["expect"]["field"] = "runtime_min"
    assert review_item(item, intent, CORPUS) == []
    intent["expect"]["field"] = "year"  # a field no condition of the item tests
    assert any("field None" in p for p in review_item(item, intent, CORPUS))


def test_a_drawn_question_is_read_from_the_lines_drawn_and_only_with_its_picture() -> None:
    from reviewer import spoken_prompt

    drawn = (
        "Answer using this table.\nName: Ulrex, Weight (g): 150.\nName: Marlo, Weight (g): 85.\n"
        "According to the table, which gadget has the greatest weight (g)?"
    )
    content = [{"type": "text", "text": "Read the question in the image and answer it."},
               {"type": "image", "image": "media/x.png"}]  # fmt: skip
    item = {"input": [{"role": "user", "content": content}],
            "metadata": {"rendered_text": drawn}}  # fmt: skip
    text, read = spoken_prompt(item)
    assert read
    assert "| Name | Weight (g) |" in text and "| Ulrex | 150 |" in text
    assert text.endswith("which gadget has the greatest weight (g)?")
    # Without its picture the drawn lines are not what the test-taker sees.
    item["input"][0]["content"] = content[:1]
    assert spoken_prompt(item) == ("", False)


# ----------------------------------------------------------------------------------------------
# Drawn questions: the picture is read back (OCR) and must agree with metadata.rendered_text

HAS_PIL = importlib.util.find_spec("PIL") is not None
needs_ocr = pytest.mark.skipif(
    shutil.which("tesseract") is None or not HAS_PIL,
    reason="needs the tesseract program (Debian tesseract-ocr) and Pillow to draw the picture",
)
FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
)


def spoken_lines(text: str) -> list[str]:
    """An item's Markdown prompt as the lines a drawn question shows (``Label: value, ...``)."""
    out: list[str] = ["Answer using this table."]
    header: list[str] = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not header:
                header = cells
            elif not all(set(c) <= set("-:") for c in cells):
                out.append(", ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True)) + ".")
        elif line.strip():
            out.append(line.strip())
    return out


def draw_lines(lines: list[str], path: Path) -> None:
    """Draw ``lines`` one per line, black on white, large enough for tesseract."""
    from PIL import Image, ImageDraw, ImageFont

    font_file = next((f for f in FONTS if f.is_file()), None)
    font = ImageFont.truetype(str(font_file), 28) if font_file else ImageFont.load_default(28)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    width = int(max(measure.textlength(line, font=font) for line in lines)) + 60
    image = Image.new("RGB", (width, 40 * len(lines) + 60), "white")
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((30, 30 + 40 * n), line, fill="black", font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)


def drawn_item(item: dict[str, Any], bench: Path) -> dict[str, Any]:
    """``item`` asked as a drawn question: a picture under ``bench`` of its lines, and those
    lines in ``metadata.rendered_text``."""
    lines = spoken_lines(item["input"])
    draw_lines(lines, bench / "media" / "q.png")
    drawn = copy.deepcopy(item)
    drawn["input"] = [
        {"role": "user", "content": [
            {"type": "text", "text": "Read the question in the image and answer it."},
            {"type": "image", "image": "media/q.png"}]}
    ]  # fmt: skip
    drawn["metadata"]["rendered_text"] = "\n".join(lines)
    return drawn


def with_rendered(item: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    changed = copy.deepcopy(item)
    assert old in changed["metadata"]["rendered_text"]
    changed["metadata"]["rendered_text"] = changed["metadata"]["rendered_text"].replace(old, new)
    return changed


@needs_ocr
def test_a_drawn_item_whose_picture_shows_its_lines_is_accepted(tmp_path: Path) -> None:
    from reviewer import ocr_skipped

    intent_id, build = GOOD["count open"]
    item = drawn_item(build(), tmp_path)
    assert (
        "Title: Seven Samurai, Year: 1954, Runtime (min): 207." in item["metadata"]["rendered_text"]
    )
    assert ocr_skipped(item, tmp_path) is None
    assert review_item(item, INTENTS[intent_id], CORPUS, bench_dir=tmp_path) == []


@needs_ocr
def test_a_drawn_item_whose_lines_are_not_its_picture_is_rejected(tmp_path: Path) -> None:
    intent_id, build = GOOD["count open"]
    item = drawn_item(build(), tmp_path)
    rows = item["metadata"]["program"]["rows"]
    index, jaws = row_of("films.csv", "title", "Jaws")
    assert int(jaws["runtime_min"]) <= 150  # the count stays 3
    # Lines that agree with the data, and so with every other check: only the picture tells.
    swapped = with_program(
        with_rendered(
            item,
            "Title: Roma, Year: 2018, Runtime (min): 135.",
            f"Title: Jaws, Year: {jaws['year']}, Runtime (min): {jaws['runtime_min']}.",
        ),
        rows=[*rows[:3], index, rows[4]],
        records=["Seven Samurai", "Parasite", "The Godfather", "Jaws", "Titanic"],
    )
    assert review_item(swapped, INTENTS[intent_id], CORPUS) == []
    mutants = {
        "a row swapped for another record": swapped,
        "a number changed": with_rendered(item, "Runtime (min): 207.", "Runtime (min): 208."),
        "two values moved between rows": with_rendered(
            with_rendered(with_rendered(item, "1954", "YEAR"), "2019", "1954"), "YEAR", "2019"
        ),
    }
    found = {
        name: review_item(mutant, INTENTS[intent_id], CORPUS, bench_dir=tmp_path)
        for name, mutant in mutants.items()
    }
    for name, problems in found.items():
        assert any(p.startswith("ocr:") for p in problems), (name, problems)
    swap = found["a row swapped for another record"]
    assert all(p.startswith("ocr:") for p in swap) and "jaws" in str(swap)


@needs_ocr
def test_a_drawn_item_whose_picture_is_missing_is_rejected(tmp_path: Path) -> None:
    intent_id, build = GOOD["count open"]
    item = drawn_item(build(), tmp_path)
    (tmp_path / "media" / "q.png").unlink()
    problems = review_item(item, INTENTS[intent_id], CORPUS, bench_dir=tmp_path)
    assert any(p.startswith("ocr:") and "missing" in p for p in problems), problems


def test_without_the_benchmark_folder_the_picture_check_is_skipped_not_passed() -> None:
    from reviewer import ocr_skipped

    intent_id, build = GOOD["count open"]
    item = build()
    item["input"] = [{"role": "user", "content": [{"type": "image", "image": "media/q.png"}]}]
    item["metadata"]["rendered_text"] = "\n".join(spoken_lines(build()["input"]))
    assert review_item(item, INTENTS[intent_id], CORPUS) == []  # rendered_text on trust
    assert ocr_skipped(item, None) is not None and "bench_dir" in str(ocr_skipped(item, None))
    assert ocr_skipped(build(), None) is None  # a written item: nothing to read


def test_ocr_text_is_compared_with_slips_allowed_only_where_no_value_changes() -> None:
    from reviewer import levenshtein, ocr_problems

    assert levenshtein("kitten", "sitting") == 3 and levenshtein("kitten", "sitting", 1) == 2
    drawn = (
        "Answer using this table.\nName: Ulrex, Weight (g): 1,234.\n"
        "Name: Dhaulagiri I, Weight (g): 85.\nWhich is heavier?"
    )
    # Case, table rules, look-alikes in a number or a name (I read as a bar): OCR slips.
    read = (
        "ANSWER USING THIS TABLE\n| Name: Uirex | Weight (g): l.234 |\n"
        "Name: Dhaulagiri |, Weight (g): 85\nWhich is heavier?"
    )
    assert ocr_problems(drawn, read) == []
    assert any("['234']" in p for p in ocr_problems(drawn, read.replace("l.234", "1.284")))
    assert any("ulrex" in p for p in ocr_problems(drawn, read.replace("Uirex", "Tarvo")))
    moved = read.replace("l.234", "X").replace("85", "l.234").replace("X", "85")
    assert any("does not show the number" in p for p in ocr_problems(drawn, moved))
    assert any("error rate" in p for p in ocr_problems(drawn, "Answer using this table."))
    # A lone zero read as the letter O is the zero; a letter that looks like another digit
    # (b is an 8) still changes the value.
    zero = "Date: 2015-04-29, Rain: 0.\nDate: 2013-09-26, Rain: 6.\nWhat is the total?"
    assert ocr_problems(zero, zero.replace("0.", "O.")) == []
    assert any("['6']" in p for p in ocr_problems(zero, zero.replace("6.", "b.")))


def test_a_records_own_picture_is_not_read_back_as_drawn_lines(tmp_path: Path) -> None:
    """A digit's image (no ``rendered_text``) is the record's picture: no OCR check runs."""
    from reviewer import drawn_problems

    item = {
        "input": [{"role": "user", "content": [
            {"type": "image", "image": "media/digit.png"},
            {"type": "text", "text": "Which digit does the image show?"},
        ]}],
        "metadata": {"program": {"kind": "classify", "records": []}},
    }  # fmt: skip
    assert drawn_problems(item, tmp_path) == []
    drawn = {**item, "metadata": {**item["metadata"], "rendered_text": "1 | 2\nWhich?"}}
    assert any(p.startswith("ocr:") for p in drawn_problems(drawn, tmp_path))  # no picture


def test_a_pictured_classify_is_not_held_to_the_keys_word_for_its_book() -> None:
    """One digit picture and no reference rows: a key may call it open or closed."""
    expect = {"kinds": ["classify"], "book": "open", "answer_field": "label", "key_field": None,
              "field": None, "direction": None, "aggregate": None, "conditions": [],
              "language": "en", "answer_format": None}  # fmt: skip
    intent = {"id": "digit", "tables": ["digits"], "intent": "which digit", "expect": expect,
              "held_out": False, "servable": True}  # fmt: skip
    program = {"kind": "classify", "book": "closed", "table": "digits", "rows": [0],
               "answer_field": "label", "media_field": "image"}  # fmt: skip
    item = {
        "input": [{"role": "user", "content": [
            {"type": "text", "text": "Which digit does the image show?"},
            {"type": "image", "image": "media/x.png"}]}],
        "target": "0",
        "metadata": {"program": program, "answer": "0", "language": "en"},
    }  # fmt: skip
    books = [p for p in review_item(item, intent, CORPUS) if p.startswith("intent: book")]
    assert books == []
    text = {**item, "input": "Which digit has these pixel values: 0, 0, 5, 13?"}
    text["metadata"] = {**item["metadata"], "program": {**program, "media_field": None}}
    books = [p for p in review_item(text, intent, CORPUS) if p.startswith("intent: book")]
    assert books  # a classify from stated values is held to the key's book


def test_an_alpha3_country_code_is_accepted_by_its_cldr_name() -> None:
    """vega-cars' origin "USA" is "Estados Unidos" in Portuguese, "Vereinigte Staaten" in German."""
    from reviewer import accepted_forms

    pytest.importorskip("pycountry")
    pytest.importorskip("babel")
    assert "Estados Unidos" in accepted_forms("USA", "pt")
    assert "Vereinigte Staaten" in accepted_forms("USA", "de")
    assert "Estados Unidos" not in accepted_forms("JPN", "pt")


def test_an_open_table_may_name_its_records_by_the_programs_own_key() -> None:
    """Lines that show each record's opening date (unique), not its name: still its lines."""
    games = ("Seoul 1988", "Sydney 2000", "Tokyo 2020", "Paris 2024")
    rows, lines, dates = [], [], []
    for name in games:
        index, row = row_of("olympics.csv", "name", name)
        rows.append(index)
        dates.append(row["opening_date"])
        lines.append([row["opening_date"], row["events"]])
    text = (
        md_table(["Opening date", "Events"], lines)
        + "\n\nWhich of these Games, by opening date, had the most medal events?"
    )
    program = make_program("superlative", "open", rows, key_field="opening_date",
                           field="events", direction="max", records=dates,
                           shown_fields=["opening_date", "events"])  # fmt: skip
    item = make_item(text, dates[2], program)
    assert not [p for p in review("i12", item) if p.startswith("shown:")]
    # Named by the table's own key, the same lines do not show the records.
    by_name = make_program("superlative", "open", rows, key_field="name", field="events",
                           direction="max", records=list(games),
                           shown_fields=["opening_date", "events"])  # fmt: skip
    problems = review("i12", make_item(text, "Tokyo 2020", by_name))
    assert any(p.startswith("shown:") for p in problems)


def _compare_de(names: tuple[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Bolivia and Colombia compared by area, in German (the key asks for names.de)."""
    found = [starter_row("world-countries", "name", c) for c in ("Colombia", "Bolivia")]
    rows = [i for i, _ in found]
    expect = {"kinds": ["compare"], "book": "closed", "answer_field": None,
              "key_field": "names.de", "field": "area_km2", "direction": "max",
              "aggregate": None, "conditions": [], "language": "de",
              "answer_format": None}  # fmt: skip
    intent = {"id": "cmp", "tables": ["world-countries"], "intent": "Paarvergleiche", "expect":
              expect, "held_out": False, "servable": True}  # fmt: skip
    program = make_program("compare", "closed", rows, key_field="name", field="area_km2",
                           direction="max", records=["Colombia", "Bolivia"])  # fmt: skip
    text = f"Welches Land ist flächenmäßig größer: {names[0]} oder {names[1]}?"
    item = make_item(text, names[0], program, choices=list(names), target="A", language="de")
    return item, intent


def test_records_named_in_the_asked_columns_words_satisfy_its_key() -> None:
    """The key asks names.de; a program keyed by name and worded in German names them so."""
    item, intent = _compare_de(("Kolumbien", "Bolivien"))
    assert not [p for p in review_item(item, intent, CORPUS) if p.startswith("intent: key")]
    item, intent = _compare_de(("Colombia", "Bolivia"))  # English names: not what was asked
    assert [p for p in review_item(item, intent, CORPUS) if p.startswith("intent: key")]


def test_an_answer_in_the_asked_fields_translation_satisfies_its_key() -> None:
    """The key asks currency_names_in.nl; a program answering currency_names in Dutch does."""
    index, _ = starter_row("world-countries", "name", "Japan")
    expect = {"kinds": ["lookup"], "book": "closed", "answer_field": "currency_names_in.nl",
              "key_field": "names.nl", "field": None, "direction": None, "aggregate": None,
              "conditions": [], "language": "nl", "answer_format": "short_answer"}  # fmt: skip
    intent = {"id": "cur", "tables": ["world-countries"], "intent": "Met welke munt",
              "expect": expect, "held_out": False, "servable": True}  # fmt: skip
    program = make_program("lookup", "closed", [index], key_field="names.nl",
                           answer_field="currency_names", records=["Japan"])  # fmt: skip
    text = "Met welke munt betaal je in Japan?"

    def problems(answer: str) -> list[str]:
        item = make_item(text, answer, program, language="nl")
        return [p for p in review_item(item, intent, CORPUS) if p.startswith("intent:")]

    assert problems("Japanse yen") == []
    assert problems("Yen")  # the English name is not the Dutch one asked


def test_a_chains_join_column_is_the_field_its_first_step_follows() -> None:
    expect = {"kinds": ["multihop"], "book": "closed", "answer_field": "capital",
              "key_field": None, "field": "alpha_2", "direction": None, "aggregate": None,
              "conditions": [], "language": "en", "answer_format": None}  # fmt: skip
    intent = {"id": "chain", "tables": ["country-names-multilingual", "world-countries"],
              "intent": "chain", "expect": expect, "held_out": False, "servable": True}  # fmt: skip
    for via, wrong in (("alpha_2", False), ("name_en", True)):
        program = make_program("multihop", "closed", [0], answer_field="capital",
                               hops=[{"table": "country-names-multilingual", "key_field": "name",
                                      "key": "x", "field": via}])  # fmt: skip
        item = make_item("What is the capital of the country whose Swedish name is x?", "y",
                         program)  # fmt: skip
        fields = [p for p in review_item(item, intent, CORPUS) if p.startswith("intent: field")]
        assert bool(fields) is wrong, fields


def test_a_chains_first_record_is_one_its_conditions_select() -> None:
    """'Afganistan' is the Bosnian and the Turkish name: the Turkish one, as the item says."""
    from starter_data import StarterUnavailable, starter_table

    try:
        names = starter_table("country-names-multilingual")
    except StarterUnavailable as exc:
        pytest.skip(str(exc))
    turkish = next(i for i, r in enumerate(names.rows)
                   if r["name"] == "Afganistan" and r["language"] == "tr")  # fmt: skip
    index, row = starter_row("world-countries", "alpha_2", "AF")
    expect = {"kinds": ["multihop"], "book": "closed", "answer_field": "capital",
              "key_field": "name", "field": "alpha_2", "direction": None, "aggregate": None,
              "conditions": [{"field": "language", "op": "==", "value": "tr"}],
              "language": "en", "answer_format": None}  # fmt: skip
    intent = {"id": "chain", "tables": ["country-names-multilingual", "world-countries"],
              "intent": "chain", "expect": expect, "held_out": False, "servable": True}  # fmt: skip
    hops = [{"table": "country-names-multilingual", "key_field": "name", "key": "Afganistan",
             "field": "alpha_2"},
            {"table": "world-countries", "key_field": "alpha_2", "key": "AF",
             "field": "capital", "row": index}]  # fmt: skip
    in_turkish = [{"field": "language", "op": "==", "value": "tr"}]
    program = make_program("multihop", "closed", [turkish], key_field="name",
                           answer_field="capital", hops=hops, records=["Afganistan"],
                           conditions=in_turkish)  # fmt: skip
    item = make_item("What is the capital of the country whose Turkish name is Afganistan?",
                     row["capital"], program)  # fmt: skip
    assert not [p for p in review_item(item, intent, CORPUS) if p.startswith("rows:")]
    bosnian = make_program("multihop", "closed", [260], key_field="name", answer_field="capital",
                           hops=hops, records=["Afganistan"], conditions=in_turkish)  # fmt: skip
    item = make_item(item["input"], row["capital"], bosnian)
    assert [p for p in review_item(item, intent, CORPUS) if p.startswith("rows:")]


# ----------------------------------------------------------------------------------------------
# Records no column names (iris flowers) are compared shown, lettered A, B, ... in the order
# program.records gives.

LETTERED_INTENT = {
    "id": "lettered",
    "tables": ["iris"],
    "intent": "Show four iris flowers and ask which has the longest petal.",
    "expect": {"kinds": ["superlative"], "book": "open", "key_field": None,
               "field": "petal_length", "direction": "max", "conditions": []},
    "held_out": False,
    "servable": True,
}  # fmt: skip


def lettered_superlative(lines_letters: str = "ABCD", answer: str | None = None) -> dict[str, Any]:
    rows = [0, 20, 10, 25]
    table = read_table("iris.csv")
    values = [table[r]["petal_length"] for r in rows]
    lines = [[letter, values[i]] for i, letter in enumerate(lines_letters)]
    text = (
        md_table(["#", "Petal length"], lines)
        + "\n\nAccording to the table, which iris flower has the longest petal?"
    )
    best = max(range(4), key=lambda i: float(values[i]))
    program = make_program(
        "superlative",
        "open",
        rows,
        field="petal_length",
        direction="max",
        records=list("ABCD"),
        shown_fields=["petal_length"],
    )
    return make_item(text, answer or "ABCD"[best], program)


def test_reviewer_accepts_a_ranking_of_lettered_rows() -> None:
    assert review_item(lettered_superlative(), LETTERED_INTENT, CORPUS) == []


def test_reviewer_rejects_a_wrong_letter_or_rows_lettered_otherwise() -> None:
    item = lettered_superlative()
    wrong = next(c for c in "ABCD" if c != item["metadata"]["answer"])
    problems = review_item(lettered_superlative(answer=wrong), LETTERED_INTENT, CORPUS)
    assert any(p.startswith("winner:") for p in problems), problems
    problems = review_item(lettered_superlative("BADC"), LETTERED_INTENT, CORPUS)
    assert any(p.startswith("shown:") for p in problems), problems

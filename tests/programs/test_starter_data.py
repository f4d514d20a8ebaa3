"""The reviewer's starter tables agree with benchsmith's starter catalog; it judges items on them.

``starter_data`` rebuilds the starter catalog's tables from the packages that ship them without
using benchsmith; here (and only here) benchsmith's own records are read to check that every
table has the same rows, columns and cell text. Then hand-made items over starter tables, in
English and in the six other languages the starter intents ask for, are accepted when right and
rejected when wrong.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from reviewer import CLDR, accepted_forms, detected_languages, record_rows, review_item
from starter_data import STARTER_IDS, STARTER_TABLES, starter_table

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
INTENTS = {i["id"]: i for i in json.loads((CORPUS / "intents_starter1.json").read_text("utf-8"))}
LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")

# Rows the reviewer builds differently from benchsmith's starter catalog, by (table, alpha_2),
# with why and the columns that differ (none since benchsmith takes countryinfo's entry named
# like the country where a code has two, as the reviewer does).
KNOWN_DIFFERENCES: dict[tuple[str, str], tuple[str, set[str]]] = {}


def missing_packages(table_id: str) -> list[str]:
    return [m for m in STARTER_TABLES[table_id].packages if importlib.util.find_spec(m) is None]


def skip_without_packages(table_id: str) -> None:
    missing = missing_packages(table_id)
    if missing:
        pytest.skip(f"{table_id}: package(s) {', '.join(missing)} not installed")


# ----------------------------------------------------------------------------------------------
# Agreement with benchsmith's records


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The user's catalog, and a scratch one for starter tables it does not hold."""
    from benchsmith.catalog.store import Catalog

    return {"default": Catalog.default(), "scratch": tmp_path_factory.mktemp("starter")}


def benchsmith_records(table_id: str, catalogs: dict[str, Any]) -> list[dict[str, Any]]:
    """The records benchsmith's ``catalog starter`` wrote, media paths relative to the records.

    From the user's catalog (``Catalog.default()``: the one items without ``--dataset`` are
    built from) when it holds the table, else built now into a scratch catalog.
    """
    from benchsmith.catalog.starter import build_starter_report
    from benchsmith.catalog.store import Catalog

    catalog = catalogs["default"]
    if table_id not in catalog or not catalog.data_path(table_id).is_file():
        catalog = Catalog(catalogs["scratch"] / "catalog")
        if table_id not in catalog:
            outcome = build_starter_report(catalog, only=[table_id])
            assert table_id not in outcome.skipped, outcome.skipped[table_id]
    card = catalog.get(table_id)
    folder = catalog.data_path(table_id).parent
    media = [f.path for f in card.fields if f.modality in ("image", "audio", "video")]
    records = []
    for record in catalog.records(table_id):
        for path in media:
            if isinstance(record.get(path), str):
                record[path] = Path(record[path]).relative_to(folder).as_posix()
        records.append(record)
    return records


def test_every_starter_table_of_the_intents_is_rebuilt() -> None:
    named = {t for intent in INTENTS.values() for t in intent["tables"]}
    assert named <= STARTER_IDS, named - STARTER_IDS


@pytest.mark.parametrize("table_id", sorted(STARTER_IDS))
def test_starter_table_agrees_with_benchsmith(table_id: str, catalogs: dict[str, Any]) -> None:
    skip_without_packages(table_id)
    mine = starter_table(table_id)
    columns, rows, _ = record_rows(benchsmith_records(table_id, catalogs))
    assert len(mine.rows) == len(rows), (table_id, len(mine.rows), len(rows))
    assert list(mine.columns) == columns, table_id
    differences: dict[str, set[str]] = {}
    for index, (ours, theirs) in enumerate(zip(mine.rows, rows, strict=True)):
        if ours != theirs:
            name = ours.get("alpha_2") or str(index)
            differences[name] = {c for c in columns if ours[c] != theirs[c]}
    known = {
        code: fields
        for (table, code), (_, fields) in KNOWN_DIFFERENCES.items()
        if table == table_id
    }
    shown = {
        row: {c: (mine.rows[i][c], rows[i][c]) for c in cols}
        for row, cols in list(differences.items())[:5]
        for i in [next(k for k, r in enumerate(mine.rows) if (r.get("alpha_2") or str(k)) == row)]
    }
    assert differences == known, f"{table_id}: rows differ (reviewer, benchsmith): {shown}"


def test_the_key_names_records_of_its_table() -> None:
    for table_id, spec in STARTER_TABLES.items():
        if spec.key is None or missing_packages(table_id):
            continue
        table = starter_table(table_id)
        keys = [row[spec.key] for row in table.rows]
        assert sum(1 for k in keys if k.strip()) == len(keys), table_id
        assert len(set(keys)) >= 0.6 * len(keys), table_id


def test_starter_data_is_independent_of_benchsmith() -> None:
    for module in ("starter_data.py", "reviewer.py"):
        tree = ast.parse((HERE / module).read_text("utf-8"))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.add((node.module or "").split(".")[0])
        assert "benchsmith" not in names, module


# ----------------------------------------------------------------------------------------------
# CLDR names in the six languages


M49 = {"Europe": "150", "Asia": "142", "Africa": "002", "Oceania": "009", "Americas": "019"}


def test_region_and_country_names_are_accepted_in_cldr_form() -> None:
    babel = pytest.importorskip("babel")
    skip_without_packages("world-countries")
    table = starter_table("world-countries")
    for language in LANGUAGES:
        territories = babel.Locale.parse(language).territories
        aliases = table.aliases[language]
        for region in {row["region"] for row in table.rows} - {""}:
            assert territories[M49[region]] in accepted_forms(region, language), (language, region)
        for row in table.rows:
            forms = accepted_forms(row["name"], language, aliases)
            cldr = territories.get(row["alpha_2"])
            if cldr is not None:
                assert cldr in forms, (language, row["name"], forms)
            if row[f"names.{language}"]:
                assert row[f"names.{language}"] in forms, (language, row["name"], forms)


def test_hand_written_names_are_cldr_names() -> None:
    babel = pytest.importorskip("babel")
    codes = {name: code for code, name in babel.Locale.parse("en").territories.items()}
    for language in LANGUAGES:
        territories = babel.Locale.parse(language).territories
        for english, names in CLDR[language].items():
            if english in codes:
                assert territories[codes[english]] in names, (language, english, names)


# ----------------------------------------------------------------------------------------------
# Hand-made items over starter tables


def row_of(table_id: str, column: str, value: str) -> tuple[int, dict[str, str]]:
    """The one row of a starter table whose ``column`` is ``value``."""
    skip_without_packages(table_id)
    found = [(i, r) for i, r in enumerate(starter_table(table_id).rows) if r[column] == value]
    assert len(found) == 1, (table_id, column, value, len(found))
    return found[0]


def md_table(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(out + ["| " + " | ".join(cells) + " |" for cells in lines])


def make_item(
    text: str,
    answer: str,
    program: dict[str, Any],
    *,
    language: str = "en",
    choices: list[str] | None = None,
) -> dict[str, Any]:
    target = "ABCDE"[choices.index(answer)] if choices else answer
    return {
        "input": text
        + (
            "\n" + "\n".join(f"{'ABCDE'[i]}. {c}" for i, c in enumerate(choices)) if choices else ""
        ),
        "choices": choices,
        "target": target,
        "metadata": {"answer": answer, "language": language, "program": program},
    }


def make_program(
    kind: str, book: str, table: str, rows: list[int], **fields: Any
) -> dict[str, Any]:
    program: dict[str, Any] = {
        "kind": kind,
        "book": book,
        "table": table,
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


def cars_compare(answer: str = "buick skylark 320") -> dict[str, Any]:
    """s09: which of two cars had more horsepower (closed book)."""
    names = ["buick skylark 320", "amc rebel sst"]
    found = [row_of("vega-cars", "Name", n) for n in names]
    assert [r["Horsepower"] for _, r in found] == ["165", "150"]
    program = make_program(
        "compare", "closed", "vega-cars", [i for i, _ in found],
        key_field="Name", field="Horsepower", direction="max", records=names,
    )  # fmt: skip
    text = "Which car had more horsepower: the buick skylark 320 or the amc rebel sst?"
    return make_item(text, answer, program)


def capital_de(answer: str = "Wien") -> dict[str, Any]:
    """s01: the capital of a European country, in German, four choices."""
    index, row = row_of("world-countries", "name", "Austria")
    assert (row["capital"], row["capital_names.de"], row["region"]) == ("Vienna", "Wien", "Europe")
    program = make_program(
        "filtered_lookup", "closed", "world-countries", [index],
        key_field="name", answer_field="capital", records=["Austria"],
        conditions=[{"field": "region", "op": "==", "value": "Europe"}],
    )  # fmt: skip
    choices = ["Graz", "Salzburg", "Innsbruck", answer]
    return make_item(
        "Was ist die Hauptstadt von Österreich?", answer, program, language="de", choices=choices
    )


def area_nl(
    answer: str = "Frankrijk",
    question: str = "Welk land heeft de grootste oppervlakte: Duitsland of Frankrijk?",
) -> dict[str, Any]:
    """s20: which of two countries is larger, in Dutch."""
    found = [row_of("world-countries", "name", n) for n in ("Germany", "France")]
    assert float(found[1][1]["area_km2"]) > float(found[0][1]["area_km2"])
    program = make_program(
        "compare", "closed", "world-countries", [i for i, _ in found],
        key_field="name", field="area_km2", direction="max", records=["Germany", "France"],
    )  # fmt: skip
    return make_item(question, answer, program, language="nl")


WEEK = [f"2012-04-{day}" for day in range(10, 17)]


def week_it(answer: str | None = None) -> dict[str, Any]:
    """s29: the mean daily high of seven consecutive Seattle days, in Italian."""
    found = [row_of("seattle-weather", "date", d) for d in WEEK]
    mean = sum(float(r["temp_max"]) for _, r in found) / len(found)
    program = make_program(
        "aggregate", "open", "seattle-weather", [i for i, _ in found],
        field="temp_max", aggregate="mean", shown_fields=["date", "temp_max"],
    )  # fmt: skip
    text = (
        md_table(
            ["Data", "Temperatura massima (°C)"], [[r["date"], r["temp_max"]] for _, r in found]
        )
        + "\n\nQual è stata la media delle temperature massime in questi sette giorni? "
        "Arrotonda a due decimali."
    )
    return make_item(text, answer or f"{mean:.2f}".replace(".", ","), program, language="it")


def currency_pt(
    answer: str = "Real brasileiro", question: str = "Qual é a moeda usada no Brasil?"
) -> dict[str, Any]:
    """s25: the currency of a country of the Americas, in Portuguese, four choices."""
    index, row = row_of("world-countries", "name", "Brazil")
    assert (row["currency_names"], row["region"]) == ("Brazilian Real", "Americas")
    program = make_program(
        "filtered_lookup", "closed", "world-countries", [index],
        key_field="name", answer_field="currency_names", records=["Brazil"],
        conditions=[{"field": "region", "op": "==", "value": "Americas"}],
    )  # fmt: skip
    choices = ["Peso argentino", "Dólar americano", "Euro", answer]
    return make_item(question, answer, program, language="pt", choices=choices)


def region_es(answer: str = "África") -> dict[str, Any]:
    """s04: the region a country is in, in Spanish, short answer."""
    index, row = row_of("world-countries", "name", "Egypt")
    assert row["region"] == "Africa"
    program = make_program(
        "lookup", "closed", "world-countries", [index],
        key_field="name", answer_field="region", records=["Egypt"],
    )  # fmt: skip
    return make_item(
        "¿En qué región del mundo se encuentra Egipto?", answer, program, language="es"
    )


def polish_name(answer: str = "Polska") -> dict[str, Any]:
    """s18: from a capital to its country's name in Polish (two tables)."""
    index, row = row_of("world-countries", "capital", "Warsaw")
    assert row["alpha_2"] == "PL"
    names = [
        r
        for r in starter_table("country-names-multilingual").rows
        if r["alpha_2"] == "PL" and r["language"] == "pl"
    ]
    assert [r["name"] for r in names] == ["Polska"]
    program = make_program(
        "multihop", "closed", "world-countries", [index],
        key_field="capital", answer_field="name", records=["Poland"],
        conditions=[{"field": "language", "op": "==", "value": "pl"}],
        hops=[
            {"table": "world-countries", "key_field": "capital", "key": "Warsaw",
             "field": "alpha_2"},
            {"table": "country-names-multilingual", "key_field": "alpha_2", "key": "PL",
             "field": "name"},
        ],
    )  # fmt: skip
    return make_item(
        "What is the country whose capital is Warsaw called in Polish?", answer, program
    )


IRIS = {
    "sepal_length_cm": "5.5",
    "sepal_width_cm": "2.3",
    "petal_length_cm": "4.0",
    "petal_width_cm": "1.3",
}


def iris_classify(answer: str = "versicolor") -> dict[str, Any]:
    """s03: an iris of the starter table (150 flowers, columns in cm) by its measurements."""
    skip_without_packages("iris")
    rows = starter_table("iris").rows
    found = [i for i, r in enumerate(rows) if all(r[k] == v for k, v in IRIS.items())]
    assert len(found) == 1 and rows[found[0]]["species"] == "versicolor"
    program = make_program(
        "classify", "closed", "iris", found, answer_field="species", features=dict(IRIS)
    )
    text = (
        "An iris flower has a sepal length of 5.5 cm, a sepal width of 2.3 cm, a petal length "
        "of 4.0 cm and a petal width of 1.3 cm. Which species is it?"
    )
    return make_item(text, answer, program, choices=["setosa", "virginica", answer])


def pictured(
    question: str, answer: str, program: dict[str, Any], files: list[str], **kw: Any
) -> dict[str, Any]:
    """An item that shows one image (the records' pictures, in a grid when several)."""
    item = make_item(question, answer, program, **kw)
    item["input"] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": question},
                {"type": "image", "image": "media/item.png"},
            ],
        }
    ]
    tool = "image_grid" if len(files) > 1 else "image_resize"
    item["metadata"]["trace"] = [{"step": 0, "tool": tool, "inputs": files}]
    return item


def digit_rows(*indices: int) -> list[int]:
    skip_without_packages("digits")
    return [int(starter_table("digits").rows[i]["label"]) for i in indices]


def digit_classify(answer: str = "7", files: tuple[str, ...] = ("0007.png",)) -> dict[str, Any]:
    """s13: which digit one picture shows (row 7 of sklearn's digits is a 7)."""
    assert digit_rows(7) == [7]
    program = make_program(
        "classify", "closed", "digits", [7], answer_field="label", media_field="image"
    )
    choices = ["3", answer, "1", "9"] if answer != "3" else ["3", "7", "1", "9"]
    return pictured("Which digit does the image show?", answer, program, list(files),
                    choices=choices)  # fmt: skip


def digit_count(answer: str = "1") -> dict[str, Any]:
    """s15: how many of six pictures show a seven (rows 0-5 are 0-5, row 7 a 7)."""
    rows = [0, 1, 7, 2, 3, 4]
    assert digit_rows(*rows) == [0, 1, 7, 2, 3, 4]
    program = make_program(
        "count", "open", "digits", rows, media_field="image",
        conditions=[{"field": "label", "op": "==", "value": 7}],
    )  # fmt: skip
    files = [f"{r:04d}.png" for r in rows]
    return pictured("How many of the 6 images show the digit 7?", answer, program, files)


def digit_compare(answer: str = "B") -> dict[str, Any]:
    """s57: which of two pictures (a 2, then a 5) shows the larger digit."""
    assert digit_rows(2, 5) == [2, 5]
    program = make_program(
        "compare", "closed", "digits", [2, 5], field="label", direction="max", media_field="image"
    )
    question = "Which image shows the larger digit: A or B?"
    return pictured(question, answer, program, ["0002.png", "0005.png"], choices=["A", "B"])


GOOD: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "digit picture classified": ("s13", digit_classify),
    "digit pictures counted": ("s15", digit_count),
    "digit pictures compared": ("s57", digit_compare),
    "compare cars (en)": ("s09", cars_compare),
    "capital in German": ("s01", capital_de),
    "area in Dutch": ("s20", area_nl),
    "mean in Italian (open)": ("s29", week_it),
    "currency in Portuguese": ("s25", currency_pt),
    "region in Spanish": ("s04", region_es),
    "multihop to Polish": ("s18", polish_name),
    "classify starter iris": ("s03", iris_classify),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_reviewer_accepts_correct_starter_items(name: str) -> None:
    intent_id, build = GOOD[name]
    assert review_item(build(), INTENTS[intent_id], CORPUS) == []


def with_answer(item: dict[str, Any], answer: str) -> dict[str, Any]:
    item = copy.deepcopy(item)
    item["metadata"]["answer"] = answer
    choices = item.get("choices")
    item["target"] = "ABCDE"[choices.index(answer)] if choices else answer
    return item


MUTATIONS: dict[str, tuple[str, Callable[[], dict[str, Any]], str]] = {
    "wrong digit": ("s13", lambda: digit_classify("3"), "classify:"),
    "another picture than the record's": (
        "s13",
        lambda: digit_classify(files=("0003.png",)),
        "rows:",
    ),
    "not a record's picture": ("s13", lambda: digit_classify(files=("cat.png",)), "pictures:"),
    "wrong count of sevens": ("s15", lambda: digit_count("2"), "count:"),
    "wrong picture of two": ("s57", lambda: digit_compare("A"), "compare:"),
    "wrong winner (cars)": ("s09", lambda: cars_compare("amc rebel sst"), "winner:"),
    "wrong capital (German)": ("s01", lambda: capital_de("Graz"), "lookup:"),
    "capital left in English (German)": ("s01", lambda: capital_de("Vienna"), "language:"),
    "wrong winner (Dutch)": ("s20", lambda: area_nl("Duitsland"), "winner:"),
    "question in English for a Dutch intent": (
        "s20",
        lambda: area_nl(question="Which country has the larger area: Germany or France?"),
        "language:",
    ),
    "wrong mean (Italian)": ("s29", lambda: week_it("15,1"), "aggregate:"),
    "wrong currency (Portuguese)": ("s25", lambda: currency_pt("Peso chileno"), "lookup:"),
    "region left in English (Spanish)": ("s04", lambda: region_es("Africa"), "language:"),
    "wrong region (Spanish)": ("s04", lambda: region_es("Asia"), "lookup:"),
    "wrong name after the hops": ("s18", lambda: polish_name("Polen"), "hop:"),
    "wrong species (starter iris)": (
        "s03",
        lambda: with_answer(iris_classify(), "virginica"),
        "classify:",
    ),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_reviewer_rejects_wrong_starter_items(name: str) -> None:
    intent_id, build, tag = MUTATIONS[name]
    problems = review_item(build(), INTENTS[intent_id], CORPUS)
    assert any(p.startswith(tag) for p in problems), problems


def test_question_in_spanish_for_a_portuguese_intent() -> None:
    if detected_languages("Qual é a moeda usada no Brasil?") is None:
        pytest.skip("lingua-language-detector is not installed")
    item = currency_pt(question="¿Cuál es la moneda que se usa en Brasil?")
    problems = review_item(item, INTENTS["s25"], CORPUS)
    assert "language: the question reads as 'es', not 'pt'" in problems, problems


def test_iris_shared_by_corpus_and_starter_catalog() -> None:
    """``iris`` is a corpus table too: a program naming the starter columns reads the starter
    table; told to read the corpus, the reviewer finds no such columns."""
    item = iris_classify()
    assert review_item(item, INTENTS["s03"], CORPUS, starter=True) == []
    problems = review_item(item, INTENTS["s03"], CORPUS, starter=False)
    assert any(p.startswith("feature:") for p in problems), problems


def test_unbuildable_starter_table_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import starter_data

    def unavailable(table_id: str) -> Any:
        raise starter_data.StarterUnavailable("package(s) not installed: vega_datasets")

    monkeypatch.setattr(starter_data, "starter_table", unavailable)
    problems = review_item(cars_compare(), INTENTS["s09"], CORPUS)
    assert problems == [
        "program: the starter table 'vega-cars' cannot be rebuilt "
        "(package(s) not installed: vega_datasets)"
    ]

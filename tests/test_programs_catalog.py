"""Intents over the catalog's own tables (no ``--dataset``) take the question-program path.

A table added with ``catalog add`` (as the starter tables are) is read into programs like a
table given with ``--dataset``: the intent chooses the table it is about among the
catalog's, a table it is not about never serves it, a spoken intent gets its prompt read
aloud (espeak-ng), and an intent over a catalog table that no program can serve is refused
naming what is missing. Records that share a name are never the record a question names.
"""

from __future__ import annotations

import json
import re
import wave
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_programs_library import COLUMNS, GADGETS, write_gadgets

from benchsmith.agents.execution import speakable
from benchsmith.agents.programs import (
    intent_parts,
    relevance,
    relevant_tables,
    run_tables,
    split_intent,
)
from benchsmith.catalog.cards import FieldInfo
from benchsmith.catalog.store import Catalog
from benchsmith.cli import main
from benchsmith.config import RunConfig
from benchsmith.programs import build_table, generate
from benchsmith.spec import ProgramSpec

WEATHER = "day,rain_mm,wind_ms,weather\n" + "".join(
    f"2020-01-{d:02d},{(d * 7) % 11},{(d * 3) % 8},{'rain' if d % 3 else 'sun'}\n"
    for d in range(1, 21)
)


@pytest.fixture
def catalog(tmp_path, monkeypatch) -> Path:
    """A home whose catalog holds two tables: gadgets and daily weather."""
    home = tmp_path / "home"
    monkeypatch.setenv("BENCHSMITH_HOME", str(home))
    gadgets = write_gadgets(tmp_path / "gadgets.csv", COLUMNS, GADGETS)
    weather = tmp_path / "daily-weather.csv"
    weather.write_text(WEATHER, encoding="utf-8")
    for path in (gadgets, weather):
        assert main(["catalog", "add", str(path), "--json"]) == 0
    return home


def _config(home: Path) -> RunConfig:
    return RunConfig().with_paths(catalog_dir=str(home / "catalog"))


def test_the_intent_chooses_the_catalog_table_it_is_about(catalog):
    config = _config(catalog)
    intent = "Which of the two gadgets is heavier?"
    tables = run_tables(config, intent)
    assert set(tables) == {"gadgets", "daily-weather"}
    ranks = relevant_tables(config, intent, tables)
    assert list(ranks) == ["gadgets"], ranks
    windy = "On which of these days was it windiest? Show the days in a table."
    assert list(relevant_tables(config, windy, run_tables(config, windy)))[0] == "daily-weather"
    # Words every intent over records uses name no table.
    plain = "Show a table with a few rows and ask about one record."
    assert relevant_tables(config, plain, run_tables(config, plain)) == {}


def test_relevance_weighs_the_table_name_over_a_column_and_a_named_value(catalog):
    config = _config(catalog)
    cards = {c.id: c for c in Catalog(catalog / "catalog").list()}
    intent = "How many sunny days were there?"
    tables = run_tables(config, intent)
    # "days"/"day" names the weather table's column, "sun" one of its weather values.
    assert relevance(intent, cards["daily-weather"], tables["daily-weather"]) >= 4
    assert relevance(intent, cards["gadgets"], tables["gadgets"]) == 0


def test_a_build_over_a_catalog_table_runs_a_question_program(catalog, tmp_path, fake_server):
    out = tmp_path / "out"
    code = main(["build", "Which of the two gadgets is heavier? Multiple choice.", "--size", "4",
                 "--out", str(out), "--model", f"fake-model@{fake_server.base_url}",
                 "--quiet"])  # fmt: skip
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    (grounding,) = spec["groundings"]
    assert grounding["strategy"] == "question_program"
    assert grounding["dataset_id"] == "gadgets"
    assert grounding["program"]["kind"] == "compare"
    assert grounding["program"]["field"] == "weight_g"
    (subtask,) = spec["subtasks"]
    assert subtask["id"] == "records-gadgets" and "gadgets" in subtask["name"]
    weight = {r[0]: r[2] for r in GADGETS}
    for line in (out / "data" / "test.jsonl").read_text().splitlines():
        item = json.loads(line)
        a, b = item["metadata"]["program"]["records"]
        assert item["choices"]["ABCD".index(item["target"])] == (a if weight[a] > weight[b] else b)


def test_a_catalog_table_that_cannot_serve_the_intent_is_refused(
    catalog, tmp_path, fake_server, capsys
):
    out = tmp_path / "out"
    code = main(["build", "Which gadget has the largest screen?", "--size", "4", "--out",
                 str(out), "--model", f"fake-model@{fake_server.base_url}",
                 "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0
    assert "no question program over the catalog's tables" in err
    assert "'screen', which no field of gadgets holds" in err
    assert not (out / "data" / "test.jsonl").exists()


def media_items(intent: str, out: Path, fake_server, kind: str) -> list[tuple[dict, dict, dict]]:
    """Build a 2-item benchmark of the intent; each item's (item, text part, media part).

    Every item is one message of an instruction and one ``kind`` part, and says so.
    """
    code = main(["build", intent, "--size", "2", "--out", str(out), "--model",
                 f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    assert spec["subtasks"][0]["input_modalities"] == [kind]
    lines = (out / "data" / "test.jsonl").read_text().splitlines()
    assert len(lines) == 2
    found = []
    for line in lines:
        item = json.loads(line)
        (message,) = item["input"]
        text, media = message["content"]
        assert text["type"] == "text" and media["type"] == kind
        assert item["metadata"]["modalities"] == ["text", kind]
        found.append((item, text, media))
    return found


def test_a_spoken_intent_reads_the_program_prompt_aloud(catalog, tmp_path, fake_server):
    out = tmp_path / "out"
    intent = "Spoken quiz: show three gadgets with their weight and ask which one is heaviest."
    for item, text, audio in media_items(intent, out, fake_server, "audio"):
        assert "Listen" in text["text"]
        with wave.open(str(out / audio["audio"])) as w:
            assert w.getnframes() / w.getframerate() > 1.0
        spoken = item["metadata"]["spoken_text"]
        for name in item["metadata"]["program"]["records"]:
            assert name in spoken  # the rows are read aloud
        assert "|" not in spoken
    (grounding,) = json.loads((out / "spec.json").read_text())["groundings"]
    assert [s["tool"] for s in grounding["plan"]] == ["tts_speak"]


def test_speakable_reads_each_row_as_a_sentence():
    prompt = (
        "Answer using this table.\n\n| Name | Population |\n| --- | --- |\n"
        "| France | 68000000 |\n| Peru | 34000000 |\n\nWhich country has the most people?"
    )
    assert speakable(prompt).splitlines() == [
        "Answer using this table.",
        "Name: France, Population: 68000000.",
        "Name: Peru, Population: 34000000.",
        "Which country has the most people?",
    ]


def test_records_that_share_a_name_are_never_the_one_a_question_names():
    names = [f"Field {i}" for i in range(58)] + ["Municipal", "Municipal"]
    records = [{"name": n, "city": f"Town {i}", "elevation": i * 10} for i, n in enumerate(names)]
    fields = [
        FieldInfo(path="name", modality="text"),
        FieldInfo(path="city", modality="text"),
        FieldInfo(path="elevation", modality="number"),
    ]
    table = build_table("airfields", records, fields, card_entity={"en": "airfield"})
    assert table.key == "name"
    assert table.columns["name"].ambiguous == frozenset({"municipal"})
    spec = ProgramSpec(
        kind="lookup", table="airfields", key_field="name", answer_field="city", book="closed"
    )
    made = generate(spec, {"airfields": table}, n=60, seed=3)
    assert len(made) == 58  # every record but the two namesakes
    assert all("Municipal" not in i.question for i in made)
    assert all(not re.search(r"Town 5[89]\b", i.answer) for i in made)


def test_a_program_written_by_hand_is_checked_and_used(catalog, tmp_path, fake_server, capsys):
    out = tmp_path / "out"
    program = "superlative table=gadgets field=price_usd direction=min book=open k=3 key=name"
    code = main(["build", "a gadget quiz", "--size", "3", "--out", str(out), "--program", program,
                 "--model", f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    (grounding,) = spec["groundings"]
    assert grounding["program"]["kind"] == "superlative"
    assert (grounding["program"]["field"], grounding["program"]["direction"]) == (
        "price_usd",
        "min",
    )
    assert spec["subtasks"][0]["description"].startswith(
        "Reading: superlative, open book: 3 rows of gadgets, which has the smallest price_usd."
    )
    price = {r[0]: r[3] for r in GADGETS}
    for line in (out / "data" / "test.jsonl").read_text().splitlines():
        item = json.loads(line)
        shown = item["metadata"]["program"]["records"]
        assert len(shown) == 3
        assert item["metadata"]["answer"] == min(shown, key=lambda n: price[n])
    bad = tmp_path / "bad"
    code = main(["build", "a gadget quiz", "--size", "3", "--out", str(bad), "--program",
                 "count table=gadgets where='colour == red'", "--model",
                 f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0 and "'colour' is not a field of gadgets" in err and "weight_g" in err


def test_parse_program_reads_every_part_and_names_what_is_wrong(catalog):
    from benchsmith.errors import ConfigError
    from benchsmith.programs.handwritten import parse_program

    tables = run_tables(_config(catalog), "gadgets")
    spec = parse_program(
        "count table=gadgets book=open rows=5 where='price_usd > 30' where='group == home'",
        tables,
    )
    assert spec.kind == "count" and spec.rows_shown == 5
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [
        ("price_usd", ">", 30.0),
        ("group", "==", "home"),
    ]
    for text, said in [
        ("", "empty"),
        ("lookup table=nowhere", "not a table of the run's catalog"),
        ("lookup table=gadgets key=name answer=size", "'size' is not a field of gadgets"),
        ("lookup table=gadgets colour=red", "unknown name 'colour'"),
        ("sort table=gadgets", "kind"),
        ("count table=gadgets where=price", "is not 'FIELD OP VALUE'"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(said)):
            parse_program(text, tables)


def test_a_lookup_without_a_key_names_its_records_by_the_table_s_key_or_says_what_to_give():
    from test_programs_phrasings import table_of

    from benchsmith.programs import ProgramError, generate, probe
    from benchsmith.spec import ProgramSpec

    named = table_of(
        "towns", {"town": "text", "river": "text"}, [("Bonn", "Rhine"), ("Linz", "Danube")]
    )
    assert named.key == "town"
    spec = ProgramSpec(kind="lookup", table="towns", answer_field="river")
    made = generate(spec, {"towns": named}, n=2, seed=1)
    assert sorted(i.named[0] for i in made) == ["Bonn", "Linz"]
    keyless = table_of("pairs", {"river": "text", "depth": "number"}, [("Rhine", 4), ("Rhine", 9)])
    assert keyless.key is None
    spec = ProgramSpec(kind="lookup", table="pairs", answer_field="depth")
    with pytest.raises(ProgramError, match="no field of pairs names a record"):
        generate(spec, {"pairs": keyless}, n=2, seed=1)
    assert "key=FIELD" in (probe(spec, {"pairs": keyless}, "en", seed=1) or "")


def test_review_switches_a_program_to_its_runner_up_reading(catalog, tmp_path, fake_server):
    from benchsmith.agents.review import summarize, switch_to_runner_up
    from benchsmith.errors import ConfigError
    from benchsmith.spec import BenchmarkSpec

    out = tmp_path / "plan"
    intent = "gadget price and weight quiz"
    code = main(["plan", intent, "--size", "4", "--out", str(out), "--model",
                 f"fake-model@{fake_server.base_url}"])  # fmt: skip
    assert code == 0
    spec = BenchmarkSpec.model_validate_json((out / "spec.json").read_text())
    (grounding,) = spec.groundings
    assert grounding.runner_up is not None
    first, second = grounding.program, grounding.runner_up
    assert first.reading() != second.reading()
    assert f"runner-up: {second.reading()}" in summarize(spec)
    switched = switch_to_runner_up(spec)
    assert switched.groundings[0].program == second
    assert switched.groundings[0].runner_up == first
    assert switched.subtasks[0].description.startswith(
        f"Reading: {second.reading()}. Runner-up reading: {first.reading()}. Items computed"
    )
    back = switch_to_runner_up(switched)
    assert back.groundings[0].program == first
    assert back.subtasks[0].description == spec.subtasks[0].description
    alone = spec.model_copy(
        update={"groundings": [grounding.model_copy(update={"runner_up": None})]}
    )
    with pytest.raises(ConfigError, match="no runner-up"):
        switch_to_runner_up(alone)


def _places() -> dict:
    names = [f"Field {i}" for i in range(30)]
    records = [
        {"name": n, "lat": 30 + (i * 7) % 20, "lon": -120 + (i * 11) % 40, "bmi_value": 20 + i}
        for i, n in enumerate(names)
    ]
    fields = [
        FieldInfo(path="name", modality="text"),
        FieldInfo(path="lat", modality="number", labels={"en": "latitude"}),
        FieldInfo(path="lon", modality="number", labels={"en": "longitude"}),
        FieldInfo(path="bmi_value", modality="number", labels={"en": "body mass index"}),
    ]
    return {"places": build_table("places", records, fields, card_entity={"en": "place"})}


@pytest.mark.parametrize(
    ("intent", "field", "direction"),
    [
        ("Show four places with their coordinates; which lies furthest north?", "lat", "max"),
        ("Which of two places is further west? Names only.", "lon", "min"),
        ("Show a few places: which is the southernmost?", "lat", "min"),
        ("Which place is farthest to the east, from the table?", "lon", "max"),
    ],
)
def test_a_direction_on_the_map_ranks_a_coordinate(intent, field, direction):
    from benchsmith.programs import plan

    best = plan(intent, _places(), "places")[0].spec
    assert (best.field, best.direction) == (field, direction)


def test_a_field_is_named_by_its_card_label_or_its_own_name():
    from benchsmith.programs import plan

    for said in ("bmi value", "body mass index"):
        best = plan(f"Show ten places and ask how many have a {said} above 35.", _places(),
                    "places")[0].spec  # fmt: skip
        assert best.kind == "count"
        assert [(c.field, c.op, c.value) for c in best.conditions] == [("bmi_value", ">", 35.0)]


def _airfields() -> dict:
    states = ["AK", "TX", "CA", "WA", "NY"]
    records = [
        {"name": f"Field {i}", "code": f"{chr(65 + i % 26)}{chr(66 + i // 26)}X", "state": s}
        for i, s in enumerate(states * 8)
    ]
    fields = [
        FieldInfo(path="name", modality="text"),
        FieldInfo(path="code", modality="text"),
        FieldInfo(path="state", modality="category"),
    ]
    return {"airfields": build_table("airfields", records, fields, card_entity={"en": "airfield"})}


def test_quoted_example_values_name_the_key_and_which_us_state_asks_the_state():
    from benchsmith.programs import plan

    tables = _airfields()
    codes = [tables["airfields"].text(r, "code") for r in (0, 1)]
    intent = (
        f"Code trivia: we print a three-letter code (like {codes[0]} or {codes[1]}) and people "
        "guess which US state the airfield is in."
    )
    best = plan(intent, tables, "airfields")[0].spec
    assert (best.kind, best.key_field, best.answer_field) == ("lookup", "code", "state")
    # One example tells the column only when the intent also names it ("a code").
    single = f"we print a code (like {codes[0]}) and ask which US state the airfield is in"
    assert plan(single, tables, "airfields")[0].spec.key_field == "code"
    unnamed = f"we print one (like {codes[0]}) and ask which US state the airfield is in"
    assert plan(unnamed, tables, "airfields")[0].spec.key_field == "name"


@pytest.mark.parametrize(
    ("intent", "parts"),
    [
        (
            "Ask which of two gadgets is heavier. Also ask how many of the days shown had sun.",
            ["Ask which of two gadgets is heavier", "ask how many of the days shown had sun"],
        ),
        (
            "Questions about gadgets: (1) which of two is heavier, (2) what is the code of one",
            [
                "Questions about gadgets: which of two is heavier",
                "Questions about gadgets: what is the code of one",
            ],
        ),  # fmt: skip
        # "then" after a part that asks nothing: one question.
        ("Show five gadgets with their weight, then ask which is heaviest", None),
        ("Which gadget is heaviest, and also tell me", None),
    ],
)
def test_an_intent_is_split_where_it_asks_for_another_program(intent, parts):
    assert split_intent(intent) == (parts or [intent])


def test_an_intent_asking_for_two_programs_gets_a_subtask_for_each(catalog, tmp_path, fake_server):
    out = tmp_path / "out"
    intent = (
        "Ask which of two gadgets is heavier. Also ask how many of the days shown had sun, "
        "from the weather table."
    )
    code = main(["build", intent, "--size", "8", "--out", str(out), "--model",
                 f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    subtasks = {s["id"]: s for s in spec["subtasks"]}
    assert set(subtasks) == {"records-gadgets-compare", "records-daily-weather-count"}
    for g in spec["groundings"]:
        subtask = subtasks[g["subtask_id"]]
        # The name and the description are the program's own: never another table's.
        assert g["dataset_id"] in subtask["name"] and g["program"]["kind"] in subtask["id"]
        assert subtask["description"].startswith(f"Reading: {g['program']['kind']}")
    kinds = {
        json.loads(line)["metadata"]["program"]["kind"]
        for line in (out / "data" / "test.jsonl").read_text().splitlines()
    }
    assert kinds == {"compare", "count"}
    # An intent that asks for one thing keeps one subtask, under the table's own id.
    config = _config(catalog)
    (one,), _ = intent_parts(config, "Which of the two gadgets is heavier?")
    assert one.subtask_id == "records-gadgets"


def test_an_intent_that_asks_for_the_rows_drawn_gets_them_as_a_picture(
    catalog, tmp_path, fake_server
):
    intent = (
        "Visual table reading: draw three gadgets with their weight as an image of a table "
        "and ask which one is heaviest. Only the picture is given."
    )
    for item, text, _image in media_items(intent, tmp_path / "out", fake_server, "image"):
        drawn = item["metadata"]["rendered_text"]
        for name in item["metadata"]["program"]["records"]:
            assert name in drawn and name not in text["text"]  # the rows are in the picture


@pytest.mark.parametrize(
    ("intent", "drawn"),
    [
        ("render those rows as a picture of a table and ask which is largest", True),
        ("draw their rows (name, population, area) as an image of a table", True),
        ("show five cars and ask which one is the heaviest", False),
        ("show a few of the digit images and ask which digit is shown", False),
        ("Laat zes landen zien en vraag welk land het grootst is.", False),  # zien: "see"
        ("a table of ten cars converted into an image, then ask how many have 8 cylinders", True),
        ("Una tabella di circa 15 iris trasformata in immagine, con la domanda: quanti?", True),
    ],
)
def test_which_intents_ask_for_the_rows_drawn(intent, drawn):
    from benchsmith.agents.design import rendered_intent

    assert rendered_intent(intent) is drawn


def test_an_open_book_two_step_build_keeps_its_items(catalog, tmp_path, fake_server):
    out = tmp_path / "out"
    intent = "Show a table of four gadgets and ask for the price of the heaviest one."
    code = main(["build", intent, "--size", "4", "--out", str(out),
                 "--model", f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    assert code == 0
    spec = json.loads((out / "spec.json").read_text())
    (grounding,) = spec["groundings"]
    program = grounding["program"]
    assert (program["kind"], program["book"]) == ("multihop", "open")
    assert (program["field"], program["answer_field"]) == ("weight_g", "price_usd")
    gadgets = {r[0]: r for r in GADGETS}
    lines = (out / "data" / "test.jsonl").read_text().splitlines()
    assert len(lines) == 4  # the records are named in the table, not in the question
    for line in lines:
        item = json.loads(line)
        shown = [gadgets[name] for name in item["metadata"]["program"]["records"]]
        heaviest = max(shown, key=lambda r: r[2])
        assert item["metadata"]["answer"] == f"{heaviest[3]:g}"
        assert all(f"| {r[0]} |" in item["input"] for r in shown)


def test_a_program_that_joins_the_table_the_intent_is_most_about_ranks_with_it():
    from benchsmith.agents.programs import _joined_rank
    from benchsmith.programs import build_table
    from benchsmith.spec import Condition, Hop, ProgramSpec

    ranks = {"countries": 8, "country-names": 7}
    chain = ProgramSpec(kind="multihop", table="country-names", key_field="name",
                        answer_field="capital", hops=[Hop(via="alpha_2", table="countries",
                                                          key_field="alpha_2")],
                        conditions=[Condition(field="language", op="==", value="sv")])  # fmt: skip
    lookup = ProgramSpec(kind="lookup", table="country-names", key_field="name",
                         answer_field="language")  # fmt: skip
    assert _joined_rank(ranks, "country-names", chain) == (8, 0)  # "a Swedish name, then ..."
    assert _joined_rank(ranks, "country-names", lookup) == (7, 0)
    assert _joined_rank(ranks, "countries", lookup) == (8, 0)
    # Countries that hold their own French names make a join for French names needless.
    records = [{"alpha_2": f"C{i}", "name": f"Land {i}", "names.fr": f"Pays {i}",
                "capital": f"Town {i}"} for i in range(8)]  # fmt: skip
    fields = [SimpleNamespace(path=p, modality="text", translations={}, labels={})
              for p in records[0]]  # fmt: skip
    tables = {"countries": build_table("countries", records, fields)}
    french = chain.model_copy(update={"conditions": [Condition(field="language", op="==",
                                                               value="fr")]})  # fmt: skip
    assert _joined_rank(ranks, "country-names", french, tables) == (8, -1)
    assert _joined_rank(ranks, "country-names", chain, tables) == (8, 0)


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "What is the capital of the country whose Swedish name is Tyskland?"),
        ("fr", "Quelle est la capitale du pays dont le nom en suédois est Tyskland ?"),
        ("es", "¿Cuál es la capital del siguiente país (nombre en sueco): Tyskland?"),
    ],
)
def test_a_chain_from_a_name_in_one_language_says_that_language(language, question):
    from benchsmith.programs import build_table, generate
    from benchsmith.spec import Condition, Hop, ProgramSpec

    lands = [("DE", "Germany", "Tyskland", "Berlin"), ("FR", "France", "Frankrike", "Paris"),
             ("IT", "Italy", "Italien", "Rome"), ("ES", "Spain", "Spanien", "Madrid"),
             ("PT", "Portugal", "Portugal", "Lisbon")]  # fmt: skip

    codes = {"en": "alpha 2", "fr": "le code alpha-2", "es": "el código alfa-2"}

    def table(table_id, records, kinds, entity=None):
        fields = [SimpleNamespace(path=p, modality=kinds.get(p, "text"), translations={},
                                  labels=codes if p == "alpha_2" else {"en": p.replace("_", " ")})
                  for p in records[0]]  # fmt: skip
        return build_table(table_id, records, fields, card_entity=entity or {})

    names = [{"name": n, "alpha_2": a, "language": code}
             for a, en, sv, _c in lands for code, n in (("en", en), ("sv", sv), ("fi", en + "i"),
                                                          ("da", sv + "e"))]  # fmt: skip
    countries = [{"alpha_2": a, "name": en, "capital": c} for a, en, _sv, c in lands]
    tables = {
        "names": table("names", names, {"language": "category"}),
        "countries": table("countries", countries, {}, {"en": "country"}),
    }
    spec = ProgramSpec(kind="multihop", table="names", key_field="name", answer_field="capital",
                       hops=[Hop(via="alpha_2", table="countries", key_field="alpha_2")],
                       conditions=[Condition(field="language", op="==", value="sv")])  # fmt: skip
    made = generate(spec, tables, n=5, seed=0, language=language)
    germany = next(i for i in made if i.answer == "Berlin")
    assert germany.question == question


def test_an_intents_own_language_stays_though_the_data_holds_it_as_a_value():
    from benchsmith.agents.programs import item_languages
    from benchsmith.programs import build_table

    languages = ["Portuguese", "Swedish", "Russian", "German"] * 3
    records = [{"name": f"Land {i}", "language_name": lang} for i, lang in enumerate(languages)]
    fields = [SimpleNamespace(path=p, modality="category" if p == "language_name" else "text",
                              translations={}, labels={}) for p in records[0]]  # fmt: skip
    table = build_table("names", records, fields)
    # Written in Portuguese, naming no language of its items: in Portuguese.
    assert item_languages("Damos o nome de um país em sueco e perguntamos a capital.", table,
                          ["pt"]) == ["pt"]  # fmt: skip
    # "Only the names in Russian" filters on a value; it asks for no Russian items.
    assert item_languages("Only the names in Russian; ask for the country.", table,
                          ["ru"]) == []  # fmt: skip

"""Question templates, plan alignment and the wording of each item (scripted fake model)."""

import json

import pytest
from executor_fakes import COUNTRIES, Router, install, judge_yes, make_catalog, make_spec
from planner_fakes import COUNTRIES as COUNTRIES_CARD
from planner_fakes import FakeCatalog, card

import benchsmith.agents.sources as sources
from benchsmith.agents.alignment import (
    carries_intent,
    formats_from_intent,
    rank_answer_fields,
    topic_stems,
)
from benchsmith.agents.design import check_subtasks, design_node
from benchsmith.agents.grounding import pick_templates
from benchsmith.agents.templates import (
    CONCEPTS,
    answer_field_for,
    candidates,
    fill,
    question_slot,
    template_problems,
)
from benchsmith.api import build_benchmark
from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import Grounding, Scores, Subtask
from benchsmith.verify.wording import failure_reasons, wording_verdicts


def _problems(*args, **kwargs):
    """The reasons a wording fails every check of the reviewer (empty: it passes)."""
    return failure_reasons(wording_verdicts(*args, **kwargs))


ASKS = "What is the capital of the following country: "

WORLD = card(
    "world",
    "World countries: capitals, regions, currencies",
    ["text", "table"],
    [("name", "text"), ("capital", "text"), ("subregion", "category"), ("region", "category")],
    size=250,
)


def test_candidates_come_from_the_card_and_never_slot_the_answer():
    [concept] = candidates(
        question_field="name", answer_field="capital", answer_semantics="capital city"
    )
    assert concept.templates["en"] == "What is the capital of the following country: {name}?"
    assert concept.templates["fr"] == "Quelle est la capitale du pays suivant : {name} ?"
    [generic] = candidates(
        question_field="name", answer_field="leader", answer_semantics="head of state"
    )
    assert generic.templates == {"en": "What is the head of state of {name}?"}
    [digit] = candidates(
        question_field=None, answer_field="label", answer_semantics="the digit shown, 0-9",
        has_media=True,
    )  # fmt: skip
    assert digit.templates["en"] == "Which digit is written in the image?"
    assert fill("What is the capital of {name}?", {"name": "Kenya"}) == (
        "What is the capital of Kenya?"
    )
    assert fill("What is the capital of {name}?", {"name": None}) is None
    assert template_problems(
        "What is {capital}?", language="en", answer_field="capital", fields=["name", "capital"]
    ) == ["slot {capital} is the answer field"]
    with pytest.raises(ValueError, match="answer field"):
        Grounding(
            id="g", subtask_id="s", dataset_id="d", answer_field="capital",
            question_templates={"en": "Is {capital} a city?"},
            scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
            available_records=1,
        )  # fmt: skip


def test_a_template_names_the_entity_in_its_own_language_where_the_card_translates_it():
    # "Quelle est la capitale du pays suivant : Western Sahara ?" mixed two languages: the
    # French template slotted the English name although the card gives the French one.
    translations = {"fr": "names.fr", "de": "names.de"}
    [concept] = candidates(
        question_field="name", answer_field="capital", answer_semantics="capital city",
        translations=translations,
    )  # fmt: skip
    assert concept.templates["en"] == "What is the capital of the following country: {name}?"
    assert concept.templates["fr"] == "Quelle est la capitale du pays suivant : {names.fr} ?"
    assert concept.templates["de"] == "Was ist die Hauptstadt des folgenden Landes: {names.de}?"
    assert concept.templates["es"] == "¿Cuál es la capital del siguiente país: {name}?"
    fields = ["name", "names.fr", "names.de", "capital"]
    check = {"translations": {"name": translations}, "fields": fields, "answer_field": "capital"}
    assert template_problems(
        "Quelle est la capitale du pays suivant : {name} ?", language="fr", **check
    ) == ["slot {name} holds en text in a fr template; use {names.fr}"]
    assert template_problems(
        "¿Cuál es la capital del siguiente país: {name}?", language="es", **check
    ) == ["slot {name} holds en text in a es template; the dataset has no es name"]
    for text, lang in [(concept.templates["fr"], "fr"), (concept.templates["en"], "en")]:
        assert template_problems(text, language=lang, **check) == []
    record = {"name": "Western Sahara", "names": {"fr": "Sahara occidental"}}
    assert fill(concept.templates["fr"], record) == (
        "Quelle est la capitale du pays suivant : Sahara occidental ?"
    )
    # the entity the checks look for is the one the language's template names
    assert question_slot(concept.templates, "fr", "name") == "names.fr"
    assert question_slot(concept.templates, "en", "name") == "name"
    assert question_slot(concept.templates, None, "name") == "name"
    assert question_slot(concept.templates, "fr", None) is None


def test_pick_templates_uses_the_cards_translations():
    translated = card(
        "world2",
        "World countries: capitals",
        ["text", "table"],
        [
            ("name", "text"),
            ("names.fr", "text"),
            ("capital", "text"),
            ("capital_names.fr", "text"),
            ("region", "category"),
        ],
        size=250,
    )
    translated.fields[0] = translated.fields[0].model_copy(
        update={"translations": {"fr": "names.fr"}}
    )
    translated.fields[2] = translated.fields[2].model_copy(
        update={"translations": {"fr": "capital_names.fr"}}
    )
    subtask = Subtask(
        id="capitals", name="Capitals", description="Name the capital of a country.",
        languages=["en", "fr"],
    )  # fmt: skip
    picked = pick_templates(
        None, subtask, translated, question_field="name", answer_field="capital",
        has_media=False,
    )  # fmt: skip
    assert picked.templates == {
        "en": "What is the capital of the following country: {name}?",
        "fr": "Quelle est la capitale du pays suivant : {names.fr} ?",
    }
    assert picked.missing == {}
    # the French item's answer and choices are the capitals' French names ("Vienne")
    assert picked.answer_fields == {"fr": "capital_names.fr"}
    grounding = Grounding(
        id="g", subtask_id="capitals", dataset_id="world2", question_field="name",
        answer_field="capital", answer_fields=picked.answer_fields,
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
        available_records=1,
    )  # fmt: skip
    assert answer_field_for(grounding, "fr") == "capital_names.fr"
    assert answer_field_for(grounding, "en") == answer_field_for(grounding, None) == "capital"
    # regions come in English only: a French item would offer "Europe, Asia, Americas"
    regions = pick_templates(
        None, subtask, translated, question_field="name", answer_field="region",
        has_media=False,
    )  # fmt: skip
    assert list(regions.templates) == ["en"]
    assert regions.missing == {"fr": "the dataset gives its region values in en only, not in fr"}


def test_answer_fields_are_ranked_by_the_intent_so_capitals_never_ask_for_a_subregion():
    topics = topic_stems("spoken questions about world capitals")
    assert topics == {"world", "capit"}
    assert rank_answer_fields(WORLD, topics) == [("capital", 2)]
    regions = rank_answer_fields(WORLD, topic_stems("which region is each country in"))
    assert [p for p, _ in regions] == ["region"]


def test_design_refuses_subtasks_that_carry_none_of_the_intent():
    intent = "spoken questions about world capitals"
    assert not carries_intent("1-2-3", "1-2-3", intent)
    assert not carries_intent("1-4-different-subtasks", "Four different subtasks.", intent)
    assert carries_intent("Spoken capitals", "Hear a country and name its capital.", intent)
    bad = Subtask(id="1-2-3", name="1-2-3", description="1-2-3")
    good = Subtask(id="capitals", name="Capitals", description="Name the capital of a country.")
    kept, problems = check_subtasks([bad, good], max_count=3, intent=intent)
    assert [s.id for s in kept] == ["capitals"]
    assert problems == ["1-2-3: its name and description carry none of the intent's words"]


def test_intent_formats_are_enforced():
    assert formats_from_intent("give the number of legs of each animal") == ("numeric",)
    assert formats_from_intent("capitals, with a short answer") == ("short_answer",)
    assert formats_from_intent("spoken questions about world capitals") == ()


def test_an_intent_no_dataset_covers_ends_the_plan_with_what_to_add(monkeypatch):
    fake = FakeCatalog([COUNTRIES_CARD])
    monkeypatch.setattr(sources, "catalog_sources", lambda config: [fake])
    update = design_node({"intent": "protein folding energies", "size": 10}, None)
    assert update["plan_status"] == "uncovered"
    assert "protein folding energies" in update["error"]
    assert "--dataset" in update["error"] and "--reference" in update["error"]
    assert "catalog add" in update["error"]


def test_a_language_without_a_passing_template_is_reported_not_filled():
    subtask = Subtask(
        id="regions", name="Regions", description="Name the world region of a country.",
        languages=["en", "fr", "sw"],
    )  # fmt: skip
    # the regions come in French and Swahili too: only the templates can be missing
    world = WORLD.model_copy(deep=True)
    region = next(i for i, f in enumerate(world.fields) if f.path == "region")
    world.fields[region] = world.fields[region].model_copy(
        update={"translations": {"fr": "region_fr", "sw": "region_sw"}}
    )
    picked = pick_templates(
        None, subtask, world, question_field="name", answer_field="region", has_media=False
    )
    assert set(picked.templates) == {"en", "fr"}
    assert picked.templates["fr"].startswith("Dans quelle région du monde")
    assert list(picked.missing) == ["sw"]
    assert "no candidate template in sw" in picked.missing["sw"]


def test_a_model_template_in_the_wrong_language_is_refused():
    subtask = Subtask(id="caps", name="Capitals", description="Name the capital.", languages=["sw"])

    class Model:
        def structured(self, schema, messages):
            return schema(template="own", own_sw="What is the capital of {name}?")

    world = WORLD.model_copy(deep=True)  # Swahili capitals: only the template can fail
    world.fields[1] = world.fields[1].model_copy(update={"translations": {"sw": "capital_sw"}})
    picked = pick_templates(
        Model(), subtask, world, question_field="name", answer_field="capital", has_media=False
    )
    assert picked.templates == {}
    assert "language_id" in picked.missing["sw"]


def test_wording_checks_each_refuse_a_bad_rewording():
    entity, answer = "Kenya", "Nairobi"
    cases = {
        "entity": "What is the capital of this country?",
        "language_id": "Quelle est la capitale du pays suivant : Kenya ?",
        "meta_text": "What is the capital of Kenya? The correct answer is the record's.",
        "sentence": "capital Kenya",
        "no_leak": "Is Nairobi the capital of Kenya?",
    }
    for check, text in cases.items():
        problems = _problems(text, "en", entity, answer=answer)
        assert problems and problems[0].startswith(f"{check}:"), (check, problems)
    assert _problems("Which city is the capital of Kenya?", "en", entity, answer=answer) == []


def _build(tmp_path, question, languages=None):
    catalog, _card = make_catalog(tmp_path)
    out = tmp_path / "out"
    config = RunConfig(
        concurrency=1,
        reword="on",  # the fake stands in for a capable model
        paths=RunPaths(catalog_dir=str(catalog.root), out_dir=str(out), run_dir=str(out / ".run")),
    )
    router = Router(SampleDecision=question, JudgeVerdict=judge_yes)
    install(config, router)
    spec = make_spec([("capitals--capitals", "capitals", 3, len(COUNTRIES), {})])
    if languages:
        spec.subtasks[0].languages = languages
    try:
        result = build_benchmark(spec=spec, out=tmp_path / "out", config=config)
    finally:
        register_runtime(config, None)
    items = [json.loads(line) for line in (tmp_path / "out/data/test.jsonl").open()]
    return result, items, router


def test_a_rewording_that_passes_every_check_is_kept(tmp_path):
    def reword(prompt):
        name = prompt.split(f"The question is: {ASKS}")[1].split("?")[0]
        return {"question": f"Which city is the capital of {name}?"}

    result, items, _router = _build(tmp_path, reword)
    assert result.status == "complete"
    assert {i["metadata"]["wording"] for i in items} == {"model"}
    names = {n for n, _c, _k in COUNTRIES}
    for item in items:
        assert item["metadata"]["template"].startswith(ASKS)
        asked = item["input"].removeprefix("Which city is the capital of ").removesuffix("?")
        assert asked in names and asked == item["metadata"]["template"][len(ASKS) : -1]
    assert result.report["wording"]["model"] == 3


BAD_REWORDINGS = {
    "entity": lambda name: "Which city is the capital of this country?",
    "language_id": lambda name: f"Quelle est la capitale du pays suivant : {name} ?",
    "meta_text": lambda name: f"What is the capital of {name}? The correct answer is the record's.",
    "sentence": lambda name: f"capital {name}",
    "no_leak": lambda name: (
        f"Is {dict((n, c) for n, c, _k in COUNTRIES)[name]} the capital of {name}?"
    ),
}


@pytest.mark.parametrize("check", sorted(BAD_REWORDINGS))
def test_a_rewording_refused_by_each_check_is_replaced_by_the_template(tmp_path, check):
    def reword(prompt):
        name = prompt.split(f"The question is: {ASKS}")[1].split("?")[0]
        return {"question": BAD_REWORDINGS[check](name)}

    result, items, _router = _build(tmp_path, reword)
    assert result.status == "complete" and len(items) == 3
    for item in items:
        meta = item["metadata"]
        assert meta["wording"] == "template"
        assert item["input"] == meta["template"] == meta["question"]
        assert item["input"].startswith("What is the capital of ")
        assert meta["rewording_rejected"].split(":")[0] == check or (
            f"{check}:" in meta["rewording_rejected"]
        )
    assert result.report["wording"] == {
        "template": 3, "model": 0, "computed": 0, "template_share": 1.0
    }  # fmt: skip


def test_a_build_language_without_a_template_is_dropped_and_reported(tmp_path):
    result, items, _router = _build(
        tmp_path, lambda prompt: {"question": "x" * 10}, languages=["en", "sw"]
    )
    # No item is worded in English for a Swahili slot: the language is dropped, and said so.
    assert result.status == "complete" and len(items) == 3
    assert {i["metadata"]["language"] for i in items} == {"en"}
    assert (tmp_path / "out/rejects.jsonl").read_text() == ""
    notes = result.report["notes"]
    assert "capitals: language sw dropped: no question template in sw" in notes
    assert any("no sw template" in n for n in notes)
    spec = json.loads((tmp_path / "out/spec.json").read_text())
    assert spec["subtasks"][0]["languages"] == ["en"]
    assert "language sw dropped" in (tmp_path / "out/report.md").read_text()


def test_a_rewording_that_fails_a_check_is_replaced_by_the_template(tmp_path):
    result, items, _router = _build(
        tmp_path, lambda prompt: {"question": "The correct answer is the record's capital."}
    )
    assert result.status == "complete"
    for item in items:
        meta = item["metadata"]
        assert meta["wording"] == "template"
        assert item["input"] == meta["template"]
        assert item["input"].startswith("What is the capital of ")
        assert "meta_text" in meta["rewording_rejected"] or "entity" in meta["rewording_rejected"]
    assert result.report["wording"]["template_share"] == 1.0
    md = (tmp_path / "out/report.md").read_text()
    assert "wording: 3 from the template" in md
    assert "## Read these" in md


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.name)
def test_every_concept_template_passes_every_wording_check_in_its_language(concept):
    # Builds skip language identification for these constants (pick_templates): this is
    # where they are identified, with every other wording check, in each language.
    from benchsmith.agents.templates import SLOT, STAND_IN

    assert concept.templates, f"concept {concept.name} has no template"
    for lang, template in concept.templates.items():
        text = " ".join(SLOT.sub(STAND_IN, template.replace("{q}", "{name}")).split())
        entity = STAND_IN if "{q}" in template else None
        assert _problems(text, lang, entity) == [], (concept.name, lang, text)


def test_a_generic_template_is_still_identified_but_a_concept_constant_is_not(monkeypatch):
    import benchsmith.verify.reviewer as reviewer

    identified = []
    real = reviewer.check_language_id

    def spy(texts, language, mask=()):
        identified.append(next(iter(texts.values())))
        return real(texts, language, mask)

    monkeypatch.setattr("benchsmith.verify.wording.check_language_id", spy)
    subtask = Subtask(id="c", name="Capitals", description="d", languages=["en"])
    picked = pick_templates(
        None, subtask, WORLD, question_field="name", answer_field="capital", has_media=False
    )
    assert picked.source == "concept:capital" and identified == []
    # A field with no concept gets the generic template, built from the field's name: data.
    odd = card("odd", "Countries and their mottos", ["text"], [("name", "text"), ("motto", "text")])
    picked = pick_templates(
        None, subtask, odd, question_field="name", answer_field="motto", has_media=False
    )
    assert picked.source == "generic" and identified == ["What is the motto of Atlantis?"]


@pytest.mark.parametrize("reword", ["auto", "off"])
def test_the_embedded_model_is_not_asked_to_reword_and_a_plan_without_settings_calls_none(
    tmp_path, reword
):
    # The executor fakes' spec is the embedded model: with auto (or off) its orchestration
    # makes no call for a plan with no settings to choose, and items keep the template.
    catalog, _card = make_catalog(tmp_path)
    out = tmp_path / "out"
    config = RunConfig(
        concurrency=1,
        reword=reword,
        paths=RunPaths(catalog_dir=str(catalog.root), out_dir=str(out), run_dir=str(out / ".run")),
    )
    router = Router(SampleDecision=lambda p: {"question": "unused"}, JudgeVerdict=judge_yes)
    install(config, router)
    spec = make_spec([("capitals--capitals", "capitals", 3, len(COUNTRIES), {})])
    try:
        result = build_benchmark(spec=spec, out=out, config=config)
    finally:
        register_runtime(config, None)
    assert result.items == 3 and router.prompts["SampleDecision"] == []
    rows = [json.loads(line) for line in (out / "data/test.jsonl").open()]
    assert {r["metadata"]["wording"] for r in rows} == {"template"}
    assert {r["metadata"]["orchestration"]["source"] for r in rows} == {"template"}


def test_without_rewording_the_model_still_chooses_the_settings():
    from benchsmith.agents.orchestration import decision_schema, orchestrate
    from benchsmith.spec import Grounding, ParamRange, PlanStep

    ranges = {(0, "voice"): ParamRange(choices=["en-us", "en-gb"])}
    assert "question" not in decision_schema(ranges, reword=False).model_fields
    assert "question" in decision_schema(ranges).model_fields

    asked = []

    class Model:
        def structured(self, schema, messages):
            asked.append((set(schema.model_fields), messages[0][1]))
            return schema(s0_voice="en-gb")

    grounding = Grounding(
        id="g",
        subtask_id="c",
        dataset_id="world",
        answer_field="capital",
        question_field="name",
        question_templates={"en": "What is the capital of {name}?"},
        plan=[PlanStep(tool="synthesize_speech", ranges={"voice": ranges[(0, "voice")]})],
        available_records=10,
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
    )
    subtask = Subtask(id="c", name="Capitals", description="d")
    record = {"name": "Kenya", "capital": "Nairobi"}
    decision = orchestrate(
        Model(),
        {"id": "g#0", "language": "en"},
        subtask,
        grounding,
        record,
        seed=1,
        media_fields=set(),
        reword=False,
    )
    assert decision.question == "What is the capital of Kenya?"
    assert decision.params == {0: {"voice": "en-gb"}} and decision.source == "model"
    assert asked[0][0] == {"s0_voice"} and "You may reword" not in asked[0][1]


def test_the_generic_template_agrees_with_a_plural_answer_and_ends_with_its_qualifier():
    # "What is the bordering countries as ISO alpha-3 codes of Vietnam?" was accepted.
    def generic(field, semantics):
        [only] = candidates(question_field="name", answer_field=field, answer_semantics=semantics)
        return only.templates["en"]

    assert generic("borders", "bordering countries as ISO alpha-3 codes") == (
        "What are the bordering countries of {name}, as ISO alpha-3 codes?"
    )
    assert generic("calling_codes", "international calling codes") == (
        "What are the international calling codes of {name}?"
    )
    assert generic("status", "status") == "What is the status of {name}?"
    assert generic("leader", "head of state") == "What is the head of state of {name}?"


def test_a_topic_word_naming_the_records_does_not_pick_the_answer():
    # "which continent is a country in" was grounded in the bordering countries (both
    # fields carried one topic word; "country" describes every record, not the answer).
    world = WORLD.model_copy(deep=True)
    world.fields = [
        f.model_copy(update={"semantics": sem})
        for f, sem in zip(
            world.fields,
            ["English short name of the country", "capital city", "UN subregion", "continent"],
            strict=True,
        )
    ]
    world.fields.append(
        world.fields[0].model_copy(
            update={"path": "borders", "semantics": "bordering countries as codes"}
        )
    )
    world.output_fields = [*world.output_fields, "borders"]
    assert rank_answer_fields(world, topic_stems("which continent is a country in")) == [
        ("region", 1)
    ]
    # with nothing else to go on, the records' own word still counts
    assert "borders" in dict(rank_answer_fields(world, topic_stems("country facts")))


def test_a_country_template_never_fires_on_records_that_are_not_countries():
    from benchsmith.agents.templates import candidates

    def labels(about: str, answer: str) -> list[str]:
        return [
            c.label
            for c in candidates(question_field="name", answer_field=answer, records_about=about)
        ]

    assert "concept-capital" in labels("world-countries World countries name", "capital")
    assert "concept-capital" not in labels("us_states US states name", "capital_city")
    assert "concept-languages" not in labels("films Films title", "original_language")
    # The generic template still asks about the field, with no word about countries.
    assert labels("us_states US states name", "capital_city")

"""The languages an intent names become the languages of its items."""

from planner_fakes import COUNTRIES as COUNTRIES_CARD
from planner_fakes import FakeCatalog

import benchsmith.agents.sources as sources
from benchsmith.agents.alignment import languages_from_intent
from benchsmith.agents.design import design_node
from benchsmith.spec import Subtask


def test_languages_come_from_the_intent():
    assert languages_from_intent("questions about world capitals in German and Spanish") == (
        "de",
        "es",
    )
    assert languages_from_intent("capitals, in English, French or Italian, with noise") == (
        "en",
        "fr",
        "it",
    )
    assert languages_from_intent("spoken questions about world capitals") == ()
    assert languages_from_intent("questions about French cities") == ()
    assert languages_from_intent("what people eat in Tonga") == ()  # a country, not a language


def test_the_languages_an_intent_names_reach_its_subtasks(monkeypatch):
    # "questions about world capitals in German and Spanish" gave English items: the
    # languages of the intent never reached the plan.
    import benchsmith.agents.design as design
    import benchsmith.llm.registry as registry

    fake = FakeCatalog([COUNTRIES_CARD])
    monkeypatch.setattr(sources, "catalog_sources", lambda config: [fake])
    monkeypatch.setattr(registry, "get_model", lambda config, role: None)
    seen = {}

    def design_subtasks(model, **kw):
        seen.update(kw)
        return [Subtask(id="c", name="Capitals", description="d", languages=kw["languages"])], []

    monkeypatch.setattr(design, "design_subtasks", design_subtasks)
    intent = "questions about world capitals in German and Spanish"
    update = design_node({"intent": intent, "size": 8}, None)
    assert seen["languages"] == ["de", "es"]
    assert update["subtasks"][0].languages == ["de", "es"]

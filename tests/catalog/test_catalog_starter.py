"""The offline starter catalog, built into tmp_path with the network switched off."""

from __future__ import annotations

import importlib.util
import re
import socket
from pathlib import Path

import pytest

from benchsmith.catalog import Catalog, DatasetCard
from benchsmith.catalog import starter as starter_mod
from benchsmith.catalog.starter import STARTER_SOURCES, build_starter, build_starter_report


class NetworkUsed(AssertionError):
    pass


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The starter catalog, built once for the module with every socket connect refused."""
    root = tmp_path_factory.mktemp("starter") / "catalog"
    real_connect = socket.socket.connect

    def refuse(self, address):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        raise NetworkUsed(f"the starter catalog tried to connect to {address}")

    socket.socket.connect = refuse
    try:
        catalog = Catalog(root)
        outcome = build_starter_report(catalog)
    finally:
        socket.socket.connect = real_connect
    return catalog, outcome


def test_at_least_eight_datasets_offline(built):
    catalog, outcome = built
    assert len(outcome.cards) >= 8, outcome.skipped
    assert not [r for r in outcome.skipped.values() if "NetworkUsed" in r]
    kinds = {m for card in outcome.cards for m in card.modalities}
    assert {"text", "image", "table"} <= kinds
    assert catalog.ids() == sorted(c.id for c in outcome.cards)


def test_every_card_is_valid_and_every_loader_yields_records(built):
    catalog, outcome = built
    for card in outcome.cards:
        again = DatasetCard.model_validate_json((catalog.cards_dir / f"{card.id}.json").read_text())
        assert again == card
        assert card.description and card.license and card.license != "unknown"
        assert card.provenance.package and card.provenance.version
        assert card.input_fields and card.tasks and card.fields
        assert not Path(card.loader.path).is_absolute()  # the catalog folder can move
        rows = list(catalog.records(card.id))
        assert len(rows) == card.size > 0, card.id
        for info in card.media_fields():
            for row in rows:
                assert Path(row[info.path]).is_file(), (card.id, row[info.path])


def test_expected_sources_present(built):
    _, outcome = built
    ids = {c.id for c in outcome.cards}
    if importlib.util.find_spec("pycountry"):
        assert {"world-countries", "country-names-multilingual"} <= ids
    if importlib.util.find_spec("sklearn"):
        assert {"iris", "wine", "diabetes", "digits", "sklearn-sample-photos"} <= ids
    if importlib.util.find_spec("skimage"):
        assert "skimage-photos" in ids


def test_facts_and_language_diversity(built):
    catalog, outcome = built
    ids = {c.id for c in outcome.cards}
    if "world-countries" in ids:
        france = next(r for r in catalog.records("world-countries") if r["alpha_2"] == "FR")
        assert france["name"] == "France" and france["alpha_3"] == "FRA"
        if importlib.util.find_spec("countryinfo"):
            assert france["capital"] == "Paris" and france["currencies"] == ["EUR"]
            assert france["region"] == "Europe"
    if "country-names-multilingual" in ids:
        card = catalog.get("country-names-multilingual")
        assert len(card.languages) >= 50
        german = [
            r["name"]
            for r in catalog.records("country-names-multilingual")
            if r["alpha_2"] == "DE" and r["language"] == "de"
        ]
        assert german == ["Deutschland"]


@pytest.mark.skipif(not importlib.util.find_spec("countryinfo"), reason="countryinfo missing")
def test_country_names_read_as_a_sentence_needs_them_and_capitals_have_one_answer(built):
    # Reviewed items said "capital of Micronesia, Federated States of", named Western Sahara
    # in English in a French question, and gave Nur-Sultan for Kazakhstan and Plymouth (a
    # town abandoned in 1997) for Montserrat.
    catalog, _outcome = built
    rows = {r["alpha_2"]: r for r in catalog.records("world-countries")}
    assert rows["FM"]["name"] == "Federated States of Micronesia"
    assert rows["FM"]["iso_name"] == "Micronesia, Federated States of"
    assert rows["BO"]["name"] == "Bolivia" and rows["KR"]["name"] == "South Korea"
    assert rows["CD"]["name"] == "Democratic Republic of the Congo"
    assert rows["VG"]["name"] == "British Virgin Islands"
    assert not [r["name"] for r in rows.values() if re.search(r", .*\bof( the)?$", r["name"])]
    assert rows["EH"]["names"]["fr"] == "Sahara occidental"
    assert rows["UG"]["names"]["fr"] == "Ouganda" and rows["DE"]["names"]["de"] == "Deutschland"
    assert rows["FM"]["names"]["fr"] == "États fédérés de Micronésie"
    inverted = [n for r in rows.values() for n in r["names"].values() if re.search(r", \w+$", n)]
    assert not [n for n in inverted if n.split(", ")[-1] in ("de", "von", "of", "Îles", "Islas")]
    assert rows["KZ"]["capital"] == "Astana" and rows["GB"]["capital"] == "London"
    for code in ("MS", "TK", "BO", "ZA", "EH", "IL", "PS"):
        assert rows[code]["capital"] is None, code
    card = catalog.get("world-countries")
    name = next(f for f in card.fields if f.path == "name")
    assert name.translations["fr"] == "names.fr"
    assert {f.path for f in card.fields} >= {f"names.{c}" for c in name.translations}
    assert {"en", "fr", "de", "es"} <= set(card.languages)


@pytest.mark.skipif(not importlib.util.find_spec("babel"), reason="babel missing")
def test_capitals_have_their_cldr_names_so_other_languages_never_offer_english_ones(built):
    # A Spanish item asked "¿Cuál es la capital del siguiente país: México?" and offered
    # "Mexico City"; a German one "Copenhagen" and "Brussels".
    catalog, _outcome = built
    rows = {r["alpha_2"]: r for r in catalog.records("world-countries")}
    assert rows["MX"]["capital_names"]["es"] == "Ciudad de México"
    assert rows["AT"]["capital_names"] == {
        "de": "Wien", "es": "Viena", "fr": "Vienne", "it": "Vienna", "nl": "Wenen",
        "pt": "Viena",
    }  # fmt: skip
    assert rows["LY"]["capital_names"]["fr"] == "Tripoli"  # CLDR's "Tripoli (Libye)"
    assert "\u00ad" not in rows["IS"]["capital_names"]["de"]  # no soft hyphens
    assert rows["CN"]["capital_names"] == {}  # not a zone's city: no name to offer
    card = catalog.get("world-countries")
    capital = next(f for f in card.fields if f.path == "capital")
    assert capital.translations["de"] == "capital_names.de"


def test_images_open(built):
    from PIL import Image

    catalog, outcome = built
    for card in outcome.cards:
        for info in card.media_fields():
            for row in catalog.records(card.id, limit=3):
                with Image.open(row[info.path]) as image:
                    image.verify()


def test_search_over_the_starter(built):
    catalog, outcome = built
    ids = {c.id for c in outcome.cards}
    if "world-countries" in ids:
        assert catalog.search("capital city of a country")[0].id == "world-countries"
    image_ids = {h.id for h in catalog.search("", modality="image", limit=50)}
    assert image_ids == {c.id for c in outcome.cards if "image" in c.modalities}
    if "skimage-photos" in ids:
        assert catalog.search("cat photo caption")[0].id in (
            "skimage-photos",
            "sklearn-sample-photos",
        )
    if "country-names-multilingual" in ids:
        assert "country-names-multilingual" in [h.id for h in catalog.search("", language="sw")]


def test_rebuilding_is_idempotent(built):
    catalog, first = built
    before = {p.name: p.stat().st_mtime_ns for p in catalog.cards_dir.iterdir()}
    cards = build_starter(catalog)
    assert [c.id for c in cards] == [c.id for c in first.cards]
    after = {p.name: p.stat().st_mtime_ns for p in catalog.cards_dir.iterdir()}
    assert after == before


def test_missing_package_is_skipped_with_a_reason(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        starter_mod.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "vega_datasets" else real(name, *a),
    )
    outcome = build_starter_report(Catalog(tmp_path / "c"), only=["seattle-weather", "iris"])
    assert "not installed" in outcome.skipped["seattle-weather"]
    if real("sklearn"):
        assert [c.id for c in outcome.added] == ["iris"]


def test_broken_source_is_skipped_and_leaves_nothing(tmp_path, monkeypatch):
    def broken(folder):
        (folder / "half.jsonl").write_text("{}", encoding="utf-8")
        raise OSError("the data file is not in this wheel")

    source = starter_mod.StarterSource("broken-set", "pytest", "pytest", broken)
    monkeypatch.setattr(starter_mod, "STARTER_SOURCES", (source,))
    catalog = Catalog(tmp_path / "c")
    outcome = build_starter_report(catalog)
    assert "not in this wheel" in outcome.skipped["broken-set"]
    assert catalog.ids() == []
    assert not list((catalog.data_dir).iterdir())


def test_sources_are_unique():
    ids = [s.id for s in STARTER_SOURCES]
    assert len(ids) == len(set(ids)) >= 8


def test_every_source_has_a_card_entry_of_spec_fields():
    """starter_cards.json holds one entry per starter source, each of Spec fields (+ texts)."""
    import dataclasses

    cards = starter_mod._cards()
    assert set(cards) == {source.id for source in STARTER_SOURCES}
    spec_fields = {f.name for f in dataclasses.fields(starter_mod.Spec)}
    for dataset_id, entry in cards.items():
        assert set(entry) - {"texts"} <= spec_fields, dataset_id
        assert entry["name"] and entry["description"] and entry["tasks"], dataset_id

"""The catalog store: adding atomically, finding, searching, streaming, removing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from catalog_helpers import make_audio_folder, make_image_folder, write_jsonl

from benchsmith.catalog import Catalog, CatalogError, DatasetCard
from benchsmith.catalog.store import search_terms


@pytest.fixture
def image_folder(tmp_path):
    return make_image_folder(tmp_path)


@pytest.fixture
def audio_folder(tmp_path):
    return make_audio_folder(tmp_path)


def index_ids(catalog: Catalog) -> list[str]:
    with sqlite3.connect(catalog.index_path) as db:
        return sorted(r[0] for r in db.execute("SELECT id FROM cards"))


def fts_rows(catalog: Catalog) -> int:
    with sqlite3.connect(catalog.index_path) as db:
        return db.execute("SELECT count(*) FROM card_fts").fetchone()[0]


@pytest.fixture
def catalog(tmp_path) -> Catalog:
    return Catalog(tmp_path / "cat")


@pytest.fixture
def filled(tmp_path, catalog, image_folder, audio_folder) -> Catalog:
    """Three text sets, a table, an image folder and an audio folder."""
    write_jsonl(
        tmp_path / "src" / "capitals.jsonl",
        [
            {"question": f"What is the capital of land {i}?", "answer": f"City {i}"}
            for i in range(8)
        ],
    )
    write_jsonl(
        tmp_path / "src" / "reviews.jsonl",
        [
            {"text": f"Film review {i}: fine acting", "label": "pos" if i % 2 else "neg"}
            for i in range(8)
        ],
    )
    write_jsonl(
        tmp_path / "src" / "recipes_de.jsonl",
        [
            {"text": f"Rezept {i}: Mehl und Zucker mischen", "title": f"Kuchen {i}"}
            for i in range(4)
        ],
    )
    (tmp_path / "src" / "planets.csv").write_text(
        "planet,moons,gas_giant\nMercury,0,false\nJupiter,95,true\nSaturn,146,true\n"
        "Earth,1,false\n",
        encoding="utf-8",
    )
    catalog.add(
        tmp_path / "src" / "capitals.jsonl",
        name="World capitals quiz",
        description="Questions asking for the capital city of each country of the world.",
    )
    catalog.add(
        tmp_path / "src" / "reviews.jsonl",
        name="Film reviews",
        description="Short movie reviews labelled with sentiment; mentions capital letters once.",
    )
    card = catalog.add(tmp_path / "src" / "recipes_de.jsonl", name="German recipes")
    catalog.add_card(
        card.model_copy(update={"languages": ["de"], "domain": "cooking"}), replace=True
    )
    catalog.add(tmp_path / "src" / "planets.csv", description="Planets of the solar system.")
    catalog.add(image_folder, id="pets", description="Photos of cats and dogs.")
    catalog.add(audio_folder, id="speech", description="Spoken greetings with transcripts.")
    return catalog


# -- add / get / list -----------------------------------------------------------------------------
def test_add_get_list(filled):
    assert filled.ids() == ["capitals", "pets", "planets", "recipes_de", "reviews", "speech"]
    assert [c.id for c in filled.list()] == filled.ids()
    card = filled.get("capitals")
    assert card.name == "World capitals quiz" and card.size == 8
    stored = json.loads((filled.cards_dir / "capitals.json").read_text())
    assert DatasetCard.model_validate(stored) == card
    assert index_ids(filled) == filled.ids()
    assert "capitals" in filled and len(filled) == 6


def test_existing_id_needs_replace(filled, tmp_path):
    path = write_jsonl(tmp_path / "src" / "capitals.jsonl", [{"question": "q?", "answer": "a"}])
    with pytest.raises(CatalogError, match="already exists.*--replace"):
        filled.add(path)
    card = filled.add(path, replace=True)
    assert card.size == 1 and filled.get("capitals").size == 1
    assert index_ids(filled).count("capitals") == 1


def test_unknown_id_lists_close_ids(filled):
    with pytest.raises(CatalogError, match="no dataset 'capital'.*close ids: capitals"):
        filled.get("capital")


@pytest.mark.parametrize("bad", ["../etc/passwd", "Upper", "", "a" * 65, "-lead"])
def test_invalid_ids_are_refused(catalog, bad, tmp_path):
    with pytest.raises(CatalogError, match="not a valid dataset id"):
        catalog.get(bad)
    path = write_jsonl(tmp_path / "x.jsonl", [{"a": 1}])
    with pytest.raises(CatalogError, match="not a valid dataset id"):
        catalog.add(path, id=bad)


def test_default_catalog_location(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    assert Catalog.default().root == tmp_path / "home" / "catalog"
    monkeypatch.delenv("BENCHSMITH_HOME")
    assert Catalog.default().root == Path("~/.benchsmith/catalog").expanduser()


# -- atomicity ------------------------------------------------------------------------------------
def test_failing_add_leaves_no_card_and_no_index_row(filled, tmp_path):
    before = sorted(p.name for p in filled.cards_dir.iterdir())
    rows = fts_rows(filled)
    bad = write_jsonl(
        tmp_path / "broken.jsonl", [{"a": i} for i in range(20)], raw_lines={17: "{oops"}
    )
    with pytest.raises(CatalogError, match="line 17"):
        filled.add(bad)
    assert sorted(p.name for p in filled.cards_dir.iterdir()) == before
    assert "broken" not in index_ids(filled) and fts_rows(filled) == rows
    assert filled.search("broken") == []


def test_index_failure_rolls_back_the_card(filled, tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "fresh.jsonl", [{"text": "unique zebra words"}])

    def explode(db, card):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Catalog, "_insert_card", staticmethod(explode))
    with pytest.raises(sqlite3.OperationalError):
        filled.add(path)
    monkeypatch.undo()
    assert not (filled.cards_dir / "fresh.json").exists()
    assert "fresh" not in index_ids(filled)
    assert filled.search("zebra") == []
    assert not [p for p in filled.cards_dir.iterdir() if p.name.startswith(".")]


def test_failing_replace_keeps_the_old_card(filled, tmp_path, monkeypatch):
    old = filled.get("capitals")
    path = write_jsonl(tmp_path / "capitals.jsonl", [{"question": "q?", "answer": "a"}])
    monkeypatch.setattr(
        Catalog, "_insert_card", staticmethod(lambda db, card: (_ for _ in ()).throw(OSError("x")))
    )
    with pytest.raises(OSError):
        filled.add(path, replace=True)
    monkeypatch.undo()
    assert filled.get("capitals") == old
    assert filled.search("capital city")[0].id == "capitals"


# -- search ---------------------------------------------------------------------------------------
def test_search_ranks_name_and_description_matches(filled):
    hits = filled.search("capital city of a country")
    assert hits[0].id == "capitals"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits[0].score > hits[-1].score or len(hits) == 1
    assert filled.search("sentiment movie reviews")[0].id == "reviews"
    assert filled.search("planets solar system moons")[0].id == "planets"


def test_search_filters_in_sql(filled):
    assert [h.id for h in filled.search("", modality="image")] == ["pets"]
    assert [h.id for h in filled.search("", modality="audio")] == ["speech"]
    assert [h.id for h in filled.search("photos", modality="audio")] == []
    assert [h.id for h in filled.search("", task="image classification")] == ["pets"]
    assert "pets" in [h.id for h in filled.search("", task="classification")]
    assert [h.id for h in filled.search("", language="de")] == ["recipes_de"]
    assert [h.id for h in filled.search("kuchen", language="DE")] == ["recipes_de"]
    assert "planets" in [h.id for h in filled.search("", modality="table")]


def test_empty_query_lists_by_id_with_limit(filled):
    hits = filled.search("", limit=3)
    assert [h.id for h in hits] == ["capitals", "pets", "planets"]
    assert all(h.score == 0 for h in hits)


def test_search_query_syntax_is_text(filled):
    for query in ['"', "AND OR NOT", "capital*", "name:capitals", "(((", "NEAR(a b)", "-", "'"]:
        filled.search(query)  # never raises
    assert search_terms("what is the capital of") == "capital"
    assert search_terms("the of") == "the of"


def test_search_rejects_unknown_modality(filled):
    with pytest.raises(CatalogError, match="unknown modality 'video'"):
        filled.search("x", modality="video")


def test_index_is_rebuilt_when_missing_or_stale(filled):
    filled.index_path.unlink()
    assert filled.search("capital city")[0].id == "capitals"
    # a card written by hand (e.g. copied from another catalog) is picked up
    card = filled.get("planets").model_copy(update={"id": "moons", "name": "Moons galore"})
    (filled.cards_dir / "moons.json").write_text(card.model_dump_json(), encoding="utf-8")
    assert filled.search("galore")[0].id == "moons"
    (filled.cards_dir / "moons.json").unlink()
    assert filled.search("galore") == []
    # a corrupt index file is replaced
    filled.index_path.write_bytes(b"not a database")
    assert filled.search("capital city")[0].id == "capitals"


def test_invalid_card_file_is_skipped_in_list_and_named_in_get(filled):
    (filled.cards_dir / "junk.json").write_text('{"id": "junk"}', encoding="utf-8")
    assert "junk" not in [c.id for c in filled.list()]
    with pytest.raises(CatalogError, match=r"junk\.json: not a valid dataset card"):
        filled.get("junk")
    assert filled.search("capital")[0].id == "capitals"


# -- records --------------------------------------------------------------------------------------
def test_records_stream_with_limit_and_offset(filled):
    assert filled.count("capitals") == 8
    rows = list(filled.records("capitals", offset=6))
    assert [r["answer"] for r in rows] == ["City 6", "City 7"]
    assert len(list(filled.records("capitals", limit=3))) == 3
    assert list(filled.records("capitals", limit=0)) == []
    with pytest.raises(CatalogError, match="must not be negative"):
        list(filled.records("capitals", offset=-1))


def test_records_never_read_past_what_is_asked(catalog, tmp_path):
    path = write_jsonl(tmp_path / "big.jsonl", [{"n": i} for i in range(50)])
    catalog.add(path)
    with open(path, "a", encoding="utf-8") as handle:  # damage the end after adding
        handle.write("{broken\n")
    assert [r["n"] for r in catalog.records("big", limit=3)] == [0, 1, 2]
    with pytest.raises(CatalogError, match="line 51: bad JSON"):
        list(catalog.records("big"))


def test_media_records_have_absolute_existing_paths(filled):
    for dataset, field in (("pets", "image"), ("speech", "audio")):
        for record in filled.records(dataset):
            assert Path(record[field]).is_absolute() and Path(record[field]).is_file()


def test_missing_data_is_reported(filled, tmp_path):
    (tmp_path / "src" / "capitals.jsonl").unlink()
    with pytest.raises(CatalogError, match="its data .* is missing"):
        list(filled.records("capitals"))


# -- remove ---------------------------------------------------------------------------------------
def test_remove(filled):
    filled.remove("reviews")
    assert "reviews" not in filled.ids() and "reviews" not in index_ids(filled)
    assert all(h.id != "reviews" for h in filled.search("movie reviews"))
    with pytest.raises(CatalogError, match="no dataset 'reviews'"):
        filled.remove("reviews")


# -- references -----------------------------------------------------------------------------------
def test_markdown_reference(catalog, tmp_path):
    doc = tmp_path / "physics_notes.md"
    doc.write_text(
        "# Kinematics\n\nVelocity is the rate of change of position.\n\n"
        "## Acceleration\n\nAcceleration is the rate of change of velocity.\n\n"
        "It is measured in metres per second squared.\n\n```\n# not a heading\n```\n\n"
        "# Energy\n\nKinetic energy is one half m v squared.\n",
        encoding="utf-8",
    )
    card = catalog.add(doc)  # routed to add_reference
    assert card.id == "physics_notes" and card.name == "Kinematics"
    assert card.modalities == ["text"]
    assert card.tasks == ["reading comprehension", "reference"]
    assert card.loader.path == "data/physics_notes/passages.jsonl"
    rows = list(catalog.records("physics_notes"))
    assert [r["section"] for r in rows] == ["Kinematics", "Kinematics > Acceleration", "Energy"]
    assert "# not a heading" in rows[1]["text"]
    assert catalog.search("kinetic energy velocity")[0].id == "physics_notes"


def test_text_reference_and_failure_leaves_nothing(catalog, tmp_path):
    doc = tmp_path / "story.txt"
    doc.write_text("First paragraph.\n\nSecond paragraph.\n", encoding="utf-8")
    card = catalog.add_reference(doc, license="CC0-1.0")
    assert card.size == 1 and card.license == "CC0-1.0"
    empty = tmp_path / "empty.md"
    empty.write_text("   \n", encoding="utf-8")
    with pytest.raises(CatalogError, match="no text found"):
        catalog.add_reference(empty)
    assert "empty" not in catalog.ids()
    assert sorted(p.name for p in catalog.data_dir.iterdir()) == ["story"]


def _minimal_pdf(text: str) -> bytes:
    from benchsmith.testing.pdf import minimal_pdf

    return minimal_pdf(text)


def test_pdf_reference(catalog, tmp_path):
    pytest.importorskip("pypdf")
    doc = tmp_path / "manual.pdf"
    doc.write_bytes(_minimal_pdf("Press the red button to start the machine."))
    card = catalog.add(doc)
    rows = list(catalog.records(card.id))
    assert rows[0]["page"] == 1 and "red button" in rows[0]["text"]


def test_pdf_without_pypdf_is_a_clear_error(catalog, tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pypdf(name, *args, **kwargs):
        if name == "pypdf" or name.startswith("pypdf."):
            raise ImportError("No module named 'pypdf'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    doc = tmp_path / "manual.pdf"
    doc.write_bytes(_minimal_pdf("hello"))
    with pytest.raises(CatalogError, match="needs the optional package pypdf"):
        catalog.add(doc)
    assert catalog.ids() == []


def test_concurrent_adds_from_threads(catalog, tmp_path):
    import threading

    paths = [
        write_jsonl(tmp_path / f"set{i}.jsonl", [{"text": f"topic{i} words"}]) for i in range(6)
    ]
    errors = []

    def add(path):
        try:
            catalog.add(path)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(p,)) for p in paths]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert catalog.ids() == [f"set{i}" for i in range(6)] == index_ids(catalog)
    assert catalog.search("topic3")[0].id == "set3"


def test_hits_carry_their_card(filled):
    hit = filled.search("capital city")[0]
    assert hit.card == filled.get(hit.id)

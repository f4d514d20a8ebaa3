"""Profiling each format into a card, and the errors malformed input gives."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from catalog_helpers import (
    make_audio_folder,
    make_hf_saved,
    make_image_folder,
    make_qa_jsonl,
    write_arrow_stream,
    write_jsonl,
    write_png,
    write_wav,
)

from benchsmith.catalog import CatalogError, DatasetCard, enrich_description, profile_path
from benchsmith.catalog.loaders import iter_records


@pytest.fixture
def qa_jsonl(tmp_path):
    return make_qa_jsonl(tmp_path)


@pytest.fixture
def image_folder(tmp_path):
    return make_image_folder(tmp_path)


@pytest.fixture
def audio_folder(tmp_path):
    return make_audio_folder(tmp_path)


def by_path(card: DatasetCard) -> dict:
    return {f.path: f for f in card.fields}


# -- formats --------------------------------------------------------------------------------------
def test_jsonl_fields_modalities_roles_and_size(qa_jsonl):
    card = profile_path(qa_jsonl)
    assert card.id == "capitals_qa"
    assert card.size == 30 and card.profiled_rows == 30
    assert card.loader.kind == "jsonl" and Path(card.loader.path).is_absolute()
    fields = by_path(card)
    assert list(fields) == ["id", "question", "answer", "topic", "meta.difficulty", "meta.verified"]
    assert fields["id"].semantics.startswith("identifier")
    assert fields["question"].modality == "text" and fields["question"].n_unique == 30
    assert fields["topic"].modality == "category" and fields["topic"].n_unique == 3
    assert fields["meta.difficulty"].modality == "category"
    assert fields["meta.verified"].modality == "boolean"
    assert all(len(f.examples) <= 3 for f in card.fields)
    assert card.input_fields == ["question"] and card.output_fields == ["answer"]
    assert "question answering" in card.tasks
    assert card.modalities == ["text"]
    schema = card.record_schema()
    assert schema["properties"]["meta"]["properties"]["verified"]["type"] == "boolean"


def test_profiling_is_deterministic(qa_jsonl):
    assert profile_path(qa_jsonl) == profile_path(qa_jsonl)


def test_examples_are_truncated_and_capped(tmp_path):
    path = write_jsonl(
        tmp_path / "long.jsonl", [{"text": "word " * 200 + str(i)} for i in range(5)]
    )
    info = profile_path(path).fields[0]
    assert len(info.examples) == 3
    assert all(len(e) <= 120 for e in info.examples) and info.examples[0].endswith("…")


def test_profile_cap_keeps_exact_size(tmp_path):
    path = write_jsonl(tmp_path / "many.jsonl", [{"n": i, "c": "ab"[i % 2]} for i in range(500)])
    card = profile_path(path, max_profile_rows=50)
    assert card.size == 500 and card.profiled_rows == 50


def test_gzipped_jsonl(tmp_path):
    path = tmp_path / "z.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for i in range(7):
            handle.write(json.dumps({"text": f"line {i}", "label": "ab"[i % 2]}) + "\n")
    card = profile_path(path)
    assert card.id == "z" and card.size == 7
    assert [r["text"] for r in iter_records(card, limit=2, offset=5)] == ["line 5", "line 6"]


def test_json_list_and_object_with_list(tmp_path):
    rows = [{"city": f"C{i}", "pop": i * 1000} for i in range(6)]
    (tmp_path / "a.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps({"meta": {"v": 1}, "rows": rows}), encoding="utf-8")
    a, b = profile_path(tmp_path / "a.json"), profile_path(tmp_path / "b.json")
    assert a.size == b.size == 6
    assert b.loader.options == {} or b.loader.options.get("key") in (None, "rows")
    assert by_path(a)["pop"].modality == "number"
    assert list(iter_records(b))[5] == {"city": "C5", "pop": 5000}


def test_csv_types_leading_zeros_and_delimiters(tmp_path):
    path = tmp_path / "towns.csv"
    path.write_text(
        "name;zip;population;area;capital\n"
        "Alpha;02134;1000;1.5;true\nBeta;10001;2500;2;false\n"
        "Gamma;00501;;3.25;false\nDelta;94105;4000;4;true\n",
        encoding="utf-8",
    )
    card = profile_path(path)
    assert card.loader.options["delimiter"] == ";"
    assert card.loader.options["types"] == {
        "name": "str", "zip": "str", "population": "int", "area": "float", "capital": "bool",
    }  # fmt: skip
    assert "table" in card.modalities
    fields = by_path(card)
    assert fields["population"].modality == "number"
    assert "missing in 1 record" in fields["population"].semantics
    rows = list(iter_records(card))
    assert rows[0] == {"name": "Alpha", "zip": "02134", "population": 1000, "area": 1.5,
                       "capital": True}  # fmt: skip
    assert rows[2]["population"] is None


def test_tsv(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\n1\tx\n2\ty\n", encoding="utf-8")
    card = profile_path(path)
    assert card.loader.options["delimiter"] == "\t" and card.size == 2


def test_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"word": [f"w{i}" for i in range(40)], "count": list(range(40))})
    pq.write_table(table, tmp_path / "words.parquet", row_group_size=7)
    card = profile_path(tmp_path / "words.parquet", max_profile_rows=10)
    assert card.loader.kind == "parquet" and card.size == 40 and card.profiled_rows == 10
    assert "table" in card.modalities
    rows = list(iter_records(card, offset=20, limit=3))
    assert rows == [{"word": f"w{i}", "count": i} for i in (20, 21, 22)]


def test_hf_save_to_disk_folder(tmp_path):
    folder = make_hf_saved(tmp_path / "reviews")
    card = profile_path(folder)
    assert card.loader.kind == "hf"
    assert card.loader.options["format"] == "arrow"
    assert card.size == 6
    assert card.description == "Tiny movie reviews with sentiment labels."
    assert card.license == "cc-by-4.0"
    label = by_path(card)["label"]
    assert label.modality == "category" and "0=neg" in label.semantics
    assert card.loader.options["class_labels"] == {"label": ["neg", "pos"]}
    assert "classification" in card.tasks
    assert [r["label"] for r in iter_records(card, offset=3)] == [1, 0, 1]


def test_hf_dataset_dict_folder(tmp_path):
    root = tmp_path / "dd"
    make_hf_saved(root / "train", rows=4)
    make_hf_saved(root / "test", rows=2)
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    card = profile_path(root)
    assert card.size == 6
    assert card.loader.options["files"] == [
        "train/data-00000-of-00001.arrow",
        "test/data-00000-of-00001.arrow",
    ]
    assert len(list(iter_records(card, offset=3))) == 3


def test_hf_hub_folder_with_readme(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "hub-set"
    (root / "data").mkdir(parents=True)
    pq.write_table(
        pa.table({"question": ["2+2?", "3+3?"], "answer": ["4", "6"]}),
        root / "data" / "train-00000.parquet",
    )
    (root / "README.md").write_text(
        "---\nlicense: mit\npretty_name: Tiny Arithmetic\nlanguage:\n- en\n- fr\n"
        "task_categories:\n- question-answering\nconfigs:\n- config_name: default\n"
        "  data_files:\n  - split: train\n    path: data/train-*\n---\n\n# Tiny Arithmetic\n\n"
        "Two addition questions with their answers.\n",
        encoding="utf-8",
    )
    card = profile_path(root)
    assert card.name == "Tiny Arithmetic" and card.license == "mit"
    assert card.languages == ["en", "fr"]
    assert card.tasks == ["question answering"]
    assert card.description == "Two addition questions with their answers."
    assert card.loader.options["files"] == ["data/train-00000.parquet"]
    assert list(iter_records(card)) == [
        {"question": "2+2?", "answer": "4"},
        {"question": "3+3?", "answer": "6"},
    ]


def test_hf_embedded_image_bytes_are_materialized(tmp_path):
    import io

    import pyarrow as pa
    from PIL import Image

    blobs = []
    for color in ((255, 0, 0), (0, 255, 0)):
        buffer = io.BytesIO()
        Image.new("RGB", (4, 4), color).save(buffer, format="PNG")
        blobs.append(buffer.getvalue())
    table = pa.table(
        {
            "image": [{"bytes": b, "path": f"img{i}.png"} for i, b in enumerate(blobs)],
            "label": ["red", "green"],
        }
    )
    root = tmp_path / "hfimg"
    write_arrow_stream(root / "data-00000-of-00001.arrow", table)
    (root / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]})
    )
    (root / "dataset_info.json").write_text(
        json.dumps({"features": {"image": {"_type": "Image"}, "label": {"dtype": "string"}}})
    )
    card = profile_path(root)
    assert by_path(card)["image"].modality == "image"
    assert "image" in card.modalities
    rows = list(iter_records(card, cache_dir=tmp_path / "cache"))
    assert all(Path(r["image"]).is_file() for r in rows)
    assert Image.open(rows[1]["image"]).getpixel((0, 0)) == (0, 255, 0)


def test_image_folder_labels_from_subfolders(image_folder):
    card = profile_path(image_folder)
    assert card.loader.kind == "image_folder"
    assert card.size == 6 and card.modalities == ["image"]
    fields = by_path(card)
    assert fields["image"].modality == "image"
    assert fields["label"].modality == "category" and fields["label"].n_unique == 2
    assert card.input_fields == ["image"] and card.output_fields == ["label"]
    assert card.tasks == ["image classification"]
    rows = list(iter_records(card))
    assert rows[0]["label"] == "cat" and os.path.isabs(rows[0]["image"])
    assert all(Path(r["image"]).is_file() for r in rows)


def test_audio_folder_with_manifest(audio_folder):
    card = profile_path(audio_folder)
    assert card.loader.kind == "audio_folder"
    assert card.loader.options == {"manifest": "metadata.csv"}
    assert card.size == 4
    fields = by_path(card)
    assert fields["audio"].modality == "audio"
    assert fields["speaker"].modality == "category"
    assert set(card.modalities) >= {"audio", "text"}
    assert "transcription" in card.tasks
    rows = list(iter_records(card))
    assert rows[1]["transcript"] == "hello number 1"
    assert all(Path(r["audio"]).is_file() for r in rows)


def test_audio_folder_without_manifest(tmp_path):
    for i in range(2):
        write_wav(tmp_path / "sounds" / "beep" / f"{i}.wav")
    write_wav(tmp_path / "sounds" / "hum" / "0.wav", freq=100)
    card = profile_path(tmp_path / "sounds")
    assert card.loader.kind == "audio_folder" and card.size == 3
    assert [r["label"] for r in iter_records(card)] == ["beep", "beep", "hum"]


def test_jsonl_with_relative_image_paths(tmp_path):
    write_png(tmp_path / "set" / "img" / "a.png", (1, 2, 3))
    write_png(tmp_path / "set" / "img" / "b.png", (4, 5, 6))
    path = write_jsonl(
        tmp_path / "set" / "captions.jsonl",
        [
            {"image": "img/a.png", "caption": "a dark square"},
            {"image": "img/b.png", "caption": "x"},
        ],
    )
    card = profile_path(path)
    assert by_path(card)["image"].modality == "image"
    assert "captioning" in card.tasks
    rows = list(iter_records(card))
    assert rows[0]["image"] == str(tmp_path / "set" / "img" / "a.png")


def test_missing_media_files_are_not_called_images(tmp_path):
    path = write_jsonl(tmp_path / "m.jsonl", [{"pic": f"nowhere/{i}.png"} for i in range(3)])
    assert by_path(profile_path(path))["pic"].modality == "other"


# -- malformed input ------------------------------------------------------------------------------
def test_bad_json_names_the_line(tmp_path):
    rows = [{"a": i} for i in range(20)]
    path = write_jsonl(tmp_path / "bad.jsonl", rows, raw_lines={17: '{"a": 16,, }'})
    with pytest.raises(CatalogError, match=r"bad\.jsonl: line 17: bad JSON"):
        profile_path(path)


def test_non_object_json_line(tmp_path):
    path = write_jsonl(
        tmp_path / "arr.jsonl", [{"a": 1}, {"a": 2}, {"a": 3}], raw_lines={3: "[1, 2]"}
    )
    with pytest.raises(CatalogError, match=r"line 3: an array, not a JSON object"):
        profile_path(path)


def test_blank_lines_are_not_records(tmp_path):
    path = tmp_path / "gaps.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"a": 2}\n', encoding="utf-8")
    assert profile_path(path).size == 2


def test_csv_row_with_wrong_field_count(tmp_path):
    path = tmp_path / "short.csv"
    path.write_text("a,b,c,d\n1,2,3,4\n5,6,7,8\n9,10,11\n", encoding="utf-8")
    with pytest.raises(
        CatalogError, match=r"short\.csv: row 3 \(line 4\) has 3 fields where the header has 4"
    ):
        profile_path(path)


def test_csv_duplicate_header(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("a,b,a\n1,2,3\n", encoding="utf-8")
    with pytest.raises(CatalogError, match="repeated column name"):
        profile_path(path)


def test_json_non_object_element_names_its_line(tmp_path):
    path = tmp_path / "list.json"
    path.write_text('[\n  {"a": 1},\n  {"a": 2},\n  "oops"\n]\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"line 4: element 3 of the list is a string"):
        profile_path(path)


def test_bad_json_file_names_its_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[\n {"a": 1},\n {"a": 2\n]\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"broken\.json: line 4: bad JSON"):
        profile_path(path)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"a": "ok"}\n{"a": "caf\xe9"}\n')
    with pytest.raises(CatalogError, match="line 2: not valid UTF-8"):
        profile_path(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.jsonl", "", "holds no records"),
        ("empty.csv", "", "empty file"),
        ("notes.docx", "x", "unknown data format"),
        ("scalar.json", "42", "top level is a number"),
    ],
)
def test_other_bad_inputs(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CatalogError, match=message):
        profile_path(path)


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(CatalogError, match="no such file or folder"):
        profile_path(tmp_path / "nope.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogError, match="no data found"):
        profile_path(tmp_path / "empty")


def test_manifest_row_naming_a_missing_file(audio_folder):
    manifest = audio_folder / "metadata.csv"
    manifest.write_text(manifest.read_text() + "clips/gone.wav,bye,ann\n", encoding="utf-8")
    with pytest.raises(
        CatalogError, match=r"metadata\.csv: row 5: file 'clips/gone.wav' does not exist"
    ):
        profile_path(audio_folder)


# -- enrichment -----------------------------------------------------------------------------------
def test_enrich_description_replaces_only_the_description(qa_jsonl):
    card = profile_path(qa_jsonl)
    enriched = enrich_description(card, "Capital-city questions.\x07\u202e Ignore the rest!")
    assert enriched.description == "Capital-city questions. Ignore the rest!"
    assert enriched.model_dump(exclude={"description"}) == card.model_dump(exclude={"description"})
    assert card.description != enriched.description
    assert len(enrich_description(card, "x" * 9000).description) == 5000

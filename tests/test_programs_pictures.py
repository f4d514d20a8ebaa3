"""Programs over a table of pictures: the record's image is what the item shows.

A small table of drawn digits (PNG files made here, labels 0-3) stands in for the starter
digits. The reader turns picture intents into classify, count and compare programs that
carry the media field; the executor words them in seven languages and computes the answer
from the labels; the verifier recomputes it and rejects an item whose trace shows another
file; the media plan puts the grid and the degradations the intent asks for in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from benchsmith.agents.programs import media_plan
from benchsmith.catalog.cards import FieldInfo
from benchsmith.item import Item
from benchsmith.programs import ProgramError, build_table, execute, generate, plan
from benchsmith.programs.intent import Refusal
from benchsmith.programs.items import to_item
from benchsmith.programs.wording import WordsMissing
from benchsmith.spec import Condition, ProgramSpec, Subtask
from benchsmith.verify.programs import check_program

LANGUAGES = ("en", "fr", "de", "es", "it", "nl", "pt")
LABELS = [0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 1, 0, 3, 2, 1, 0]


@pytest.fixture
def pictures(tmp_path: Path):
    records = []
    for i, label in enumerate(LABELS):
        path = tmp_path / f"{i:04d}.png"
        img = Image.new("L", (32, 32), 255)
        ImageDraw.Draw(img).text((12, 10), str(label), fill=0)
        img.save(path)
        records.append({"image": str(path), "label": label})
    fields = [
        FieldInfo(path="image", modality="image"),
        FieldInfo(
            path="label",
            modality="number",
            labels={
                "en": "digit",
                "fr": "le chiffre",
                "de": "die Ziffer",
                "es": "el dígito",
                "it": "la cifra",
                "nl": "het cijfer",
                "pt": "o dígito",
            },
        ),  # fmt: skip
    ]
    table = build_table("digits", records, fields)
    return {"digits": table}


def test_the_table_keeps_the_image_as_media_not_as_a_column(pictures):
    table = pictures["digits"]
    assert table.media == {"image": "image"}
    assert list(table.columns) == ["label"]
    assert table.media_file(3, "image").endswith("0003.png")


@pytest.mark.parametrize(
    ("intent", "kind", "extra"),
    [
        ("Show a handwritten digit image and ask which digit it is.", "classify", {}),
        (
            "Put six of the digit images side by side and ask how many of them show a three.",
            "count",
            {"conditions": [Condition(field="label", op="==", value=3)], "rows_shown": 6},
        ),
        (
            "Two digit images next to each other: which of the two shows the smaller number?",
            "compare",
            {"direction": "min", "field": "label"},
        ),
        (
            "Zeig ein Bild einer Ziffer, nur Ziffern von 0 bis 2, mit drei Möglichkeiten.",
            "classify",
            {"conditions": [Condition(field="label", op="<=", value=2)]},
        ),
    ],
)
def test_the_reader_makes_a_program_over_the_pictures(pictures, intent, kind, extra):
    found = plan(intent, pictures, "digits")
    assert not isinstance(found, Refusal)
    spec = found[0].spec
    assert (spec.kind, spec.media_field) == (kind, "image")
    assert spec.book == ("open" if kind == "count" else "closed")
    for name, value in extra.items():
        assert getattr(spec, name) == value


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kind_is_worded_and_recomputed_in_every_language(pictures, language):
    table = pictures["digits"]
    specs = [
        ProgramSpec(kind="classify", table="digits", answer_field="label", media_field="image"),
        ProgramSpec(
            kind="count",
            book="open",
            table="digits",
            media_field="image",
            conditions=[Condition(field="label", op="==", value=2)],
            rows_shown=6,
            answer_format="numeric",
        ),
        ProgramSpec(
            kind="compare", table="digits", field="label", direction="max", media_field="image"
        ),
    ]
    for spec in specs:
        made = generate(spec, pictures, n=5, seed=3, language=language)
        assert len(made) == 5, spec.kind
        assert len({tuple(m.rows) for m in made}) == 5  # one question, five records
        for instance in made:
            assert instance.table_text == "" and instance.question.rstrip().endswith("?")
            labels = [LABELS[r] for r in instance.rows]
            if spec.kind == "classify":
                assert instance.answer == str(labels[0])
                assert str(labels[0]) not in instance.distractors
            elif spec.kind == "count":
                assert instance.answer == str(labels.count(2))
                assert "6" in instance.question and "2" in instance.question
            else:
                assert instance.answer == "AB"[labels.index(max(labels))]
            meta = {**instance.metadata(spec), "question": instance.question}
            assert execute(meta, pictures, language) == instance.answer
    assert table.media  # the fixture's table is untouched


def test_a_language_without_words_for_pictures_is_refused(pictures):
    spec = ProgramSpec(kind="classify", table="digits", answer_field="label", media_field="image")
    with pytest.raises(WordsMissing):
        generate(spec, pictures, n=1, seed=0, language="pl")


@pytest.mark.parametrize(
    ("update", "message"),
    [
        ({"media_field": "photo"}, "no image or sound field 'photo'"),
        ({"kind": "lookup", "key_field": "label"}, "programs over pictures ask"),
        ({"kind": "count", "book": "open"}, "one condition"),
        ({"book": "open"}, "closed-book"),
    ],
)
def test_a_program_over_pictures_it_cannot_ask_is_refused(pictures, update, message):
    spec = ProgramSpec(kind="classify", table="digits", answer_field="label", media_field="image")
    with pytest.raises(ProgramError, match=message):
        generate(spec.model_copy(update=update), pictures, n=1, seed=0)


def _item(instance, spec, files: list[str]) -> Item:
    item = to_item(
        instance,
        spec,
        item_id="x-0",
        language="en",
        seed=0,
        subtask=Subtask(id="s", name="s", description="d"),
    )
    item.metadata["trace"] = [{"step": 0, "tool": "image_grid", "inputs": files}]
    return item


def test_the_verifier_rejects_an_item_showing_other_pictures(pictures):
    table = pictures["digits"]
    spec = ProgramSpec(
        kind="compare", table="digits", field="label", direction="max", media_field="image"
    )
    (instance,) = generate(spec, pictures, n=1, seed=5)
    files = [Path(table.media_file(r, "image")).name for r in instance.rows]
    assert instance.rows and check_program(_item(instance, spec, files), pictures).ok
    swapped = _item(instance, spec, files[::-1])
    verdict = check_program(swapped, pictures)
    assert not verdict.ok and "not the records' image" in verdict.reason


def test_the_media_plan_grids_several_pictures_and_degrades_as_asked():
    subtask = Subtask(id="s", name="s", description="d", input_modalities=["image"])
    one = ProgramSpec(kind="classify", table="digits", answer_field="label", media_field="image")
    steps = media_plan(subtask, "blurred handwritten digits: which digit is it?", one)
    assert [(s.tool, s.input_field) for s in steps] == [
        ("image_resize", "image"),
        ("image_blur", None),
    ]
    assert media_plan(subtask, "which digit is it?", one) == []  # shown as it is
    two = one.model_copy(update={"kind": "compare", "field": "label", "answer_field": None})
    steps = media_plan(subtask, "two noisy digit images: which is larger?", two)
    assert [(s.tool, s.input_field) for s in steps] == [
        ("image_grid", "image"),
        ("image_noise", None),
    ]

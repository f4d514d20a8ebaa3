"""The Item model: Inspect-style fields and its helpers."""

import pytest
from pydantic import ValidationError

from benchsmith.item import Item


def test_multimodal_item_round_trips_and_exposes_text_media_and_answer():
    data = {
        "id": "capitals-0001",
        "input": [
            {"role": "system", "content": "Answer with the letter only."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Which city is the capital?"},
                    {"type": "audio", "audio": "media/q1.wav", "format": "wav"},
                    {"type": "image", "image": "media/map.png"},
                ],
            },
        ],
        "choices": ["Lyon", "Paris", "Nice"],
        "target": "B",
        "metadata": {"subtask": "capitals"},
    }
    item = Item.model_validate(data)
    assert item.model_dump(exclude_none=True) == data | {
        "input": [data["input"][0], {"role": "user", "content": data["input"][1]["content"]}]
    }
    assert item.input_text() == "Answer with the letter only.\nWhich city is the capital?"
    assert item.media_paths() == [("audio", "media/q1.wav"), ("image", "media/map.png")]
    assert item.answer_text() == "Paris"


def test_plain_text_item_and_unknown_fields():
    item = Item(id="x", input="2+2?", target="4")
    assert (item.input_text(), item.media_paths(), item.answer_text()) == ("2+2?", [], "4")
    with pytest.raises(ValidationError):
        Item.model_validate({"id": "x", "input": "q", "target": "a", "answer": "a"})
    with pytest.raises(ValidationError):
        Item.model_validate(
            {
                "id": "x",
                "input": [{"role": "user", "content": [{"type": "video", "video": "v.mp4"}]}],
                "target": "a",
            }
        )


def test_user_text_and_modalities():
    item = Item(
        id="x",
        input=[
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "audio", "audio": "media/x.wav"},
                    {"type": "text", "text": "Listen."},
                    {"type": "image", "image": "media/x.png"},
                ],
            },
        ],
        target="y",
    )
    assert item.user_text() == "Listen."  # the system turn is not the user's text
    assert item.input_text() == "Be brief.\nListen."
    assert item.modalities() == ["text", "image", "audio"]  # from the parts, in this order
    item.metadata["modalities"] = ["audio", "text"]
    assert item.modalities() == ["text", "audio"]  # declared ones win, in the same order
    plain = Item(id="p", input="Capital of France?", target="Paris")
    assert (plain.user_text(), plain.modalities()) == ("Capital of France?", ["text"])

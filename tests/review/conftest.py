"""The review tests' benchmark folder: text, image and audio items, one with hostile text."""

from __future__ import annotations

import os
import wave

import pytest
from PIL import Image

from benchsmith.item import Item

HOSTILE = "What is the capital of <script>alert(1)</script> France?"


def make_item(item_id, subtask, question, *, media=None, choices=("Paris", "Rome"), target="A"):
    """A multiple-choice item as a build writes it (media parts after the question's text)."""
    meta = {
        "subtask": subtask,
        "language": "en",
        "answer_format": "multiple_choice",
        "question": question,
        "wording": "template",
        "source": {"dataset": "nowhere", "record_index": 0},
        "verification": {
            "structural": [
                {"check": "schema", "ok": True, "reason": ""},
                {"check": "sentence", "ok": True, "reason": ""},
            ]
        },
    }
    content = [{"type": "text", "text": question}]
    if media:
        content += media
    return Item(
        id=item_id,
        input=[{"role": "user", "content": content}] if media else question,
        choices=list(choices),
        target=target,
        metadata=meta,
    )


@pytest.fixture
def hostile():
    """The question of ``txt-1``: it holds ``<script>``, which the page must show as text."""
    return HOSTILE


@pytest.fixture
def item_factory():
    """:func:`make_item`, for tests that add items to the ``bench`` folder."""
    return make_item


@pytest.fixture
def bench(tmp_path):
    folder = tmp_path / "bench"
    (folder / "data").mkdir(parents=True)
    (folder / "media").mkdir()
    Image.new("RGB", (16, 16), (200, 10, 10)).save(folder / "media" / "img-1.png")
    with wave.open(str(folder / "media" / "aud-1.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x01" * 800)
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", folder / "media" / "link.txt")
    items = [
        make_item("txt-1", "capitals", HOSTILE),
        make_item("txt-2", "capitals", "What is the capital of Italy?", target="B"),
        make_item(
            "img-1",
            "digits",
            "Which digit is written in the image?",
            media=[{"type": "image", "image": "media/img-1.png"}],
            choices=("1", "7"),
        ),
        make_item(
            "aud-1",
            "spoken",
            "Listen to the recording and answer the question it asks.",
            media=[{"type": "audio", "audio": "media/aud-1.wav", "format": "wav"}],
        ),
    ]
    (folder / "data" / "test.jsonl").write_text(
        "".join(i.model_dump_json() + "\n" for i in items), encoding="utf-8"
    )
    return folder

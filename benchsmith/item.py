"""One benchmark item, in the Inspect-style form ``data/test.jsonl`` holds.

``input`` is a string, or chat messages whose content parts point into ``media/``
(``{"type": "image", "image": "media/x.png"}``, ``{"type": "audio", "audio":
"media/x.wav", "format": "wav"}``). With ``choices``, ``target`` is the letter of the
correct choice (A, B, ...), as Inspect expects. ``metadata`` carries the subtask, skills,
difficulty, modality, the source record, the transformation trace and the verdicts.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NUMERIC_TOLERANCE = 0.01
"""Relative tolerance of a numeric answer when ``metadata["tolerance"]`` does not set one:
the one value the build, the exports, the card and ``benchsmith eval`` use."""


class TextPart(BaseModel):
    """A text content part."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["text"] = "text"
    text: str


class ImagePart(BaseModel):
    """An image content part (a path relative to the benchmark folder)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["image"] = "image"
    image: str


class AudioPart(BaseModel):
    """An audio content part (a path relative to the benchmark folder)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["audio"] = "audio"
    audio: str
    format: Literal["wav", "mp3"] = "wav"


ContentPart = TextPart | ImagePart | AudioPart


class Message(BaseModel):
    """A chat message of an item's input."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"] = "user"
    content: str | list[ContentPart]


class Item(BaseModel):
    """One benchmark item."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    input: str | list[Message]
    choices: list[str] | None = None
    target: str
    metadata: dict[str, Any] = Field(default_factory=dict)

    def input_text(self) -> str:
        """All text of the input (prompt text and text parts), joined."""
        if isinstance(self.input, str):
            return self.input
        out = []
        for message in self.input:
            if isinstance(message.content, str):
                out.append(message.content)
            else:
                out.extend(p.text for p in message.content if isinstance(p, TextPart))
        return "\n".join(out)

    def media_paths(self) -> list[tuple[str, str]]:
        """``(kind, path)`` of every image and audio part."""
        if isinstance(self.input, str):
            return []
        found: list[tuple[str, str]] = []
        for message in self.input:
            if isinstance(message.content, list):
                for p in message.content:
                    if isinstance(p, ImagePart):
                        found.append(("image", p.image))
                    elif isinstance(p, AudioPart):
                        found.append(("audio", p.audio))
        return found

    def user_text(self) -> str:
        """The text of the user's turns: the input string, or the user messages' text parts."""
        if isinstance(self.input, str):
            return self.input
        out = []
        for message in self.input:
            if message.role != "user":
                continue
            if isinstance(message.content, str):
                out.append(message.content)
            else:
                out.extend(p.text for p in message.content if isinstance(p, TextPart))
        return "\n".join(out)

    def modalities(self) -> list[str]:
        """The input's modalities, in the order text, image, audio.

        ``metadata.modalities`` when it declares them, else text plus the kinds of the
        input's media parts.
        """
        declared = self.metadata.get("modalities")
        if isinstance(declared, list) and declared and all(isinstance(m, str) for m in declared):
            return [m for m in ("text", "image", "audio") if m in declared] or list(declared)
        kinds = {kind for kind, _ in self.media_paths()}
        return ["text", *[m for m in ("image", "audio") if m in kinds]]

    def answer_text(self) -> str:
        """The correct answer as text (the chosen choice for multiple choice)."""
        if self.choices:
            index = LETTERS.index(self.target) if self.target in LETTERS else -1
            if 0 <= index < len(self.choices):
                return self.choices[index]
        return self.target


def item_for_judge(item: Item, question: str, answer_label: str = "answer") -> str:
    """The item as a judge reads it: question, choices, and the answer under ``answer_label``."""
    lines = [f"question: {question}"]
    if item.choices:
        lines.append(
            "choices: " + " ".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(item.choices))
        )
        lines.append(f"{answer_label}: {item.target}) {item.answer_text()}")
    else:
        lines.append(f"{answer_label}: {item.target}")
    return "\n".join(lines)

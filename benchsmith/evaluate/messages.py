"""The chat messages a model under evaluation gets for one item, as the Inspect task builds them.

``benchsmith eval`` and the exported ``inspect_task.py`` must give the same accuracy at
temperature 0, so the prompt here is the one Inspect sends:

- items with choices: Inspect's ``multiple_choice()`` single-answer template (its text is
  copied in :data:`MC_TEMPLATE`) replaces the text of the last user message, choices listed
  as ``A) ...`` lines; no system message is added;
- short-answer and numeric items: the one-line instruction of
  :data:`benchsmith.package.inspect_export.INSTRUCTIONS` as a system message before the
  input; open items get no instruction;
- a message whose content is only text becomes one string (text parts joined by a newline);
  images become ``image_url`` parts with a ``data:`` URI and audio ``input_audio`` parts
  (base64), the forms OpenAI-compatible endpoints (and Inspect's ``openai-api`` provider) use.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from benchsmith.item import LETTERS, AudioPart, ImagePart, Item, Message, TextPart
from benchsmith.package.inspect_export import INSTRUCTIONS

MC_TEMPLATE = (
    "Answer the following multiple choice question. The entire content of your response "
    "should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is "
    "one of {letters}.\n\n{question}\n\n{choices}"
)
"""Inspect AI's ``SINGLE_ANSWER_TEMPLATE`` (``inspect_ai.solver._multiple_choice``)."""


class MediaPathError(ValueError):
    """A media part of an item points outside the benchmark folder or to a missing file."""


def choice_prompt(question: str, choices: list[str]) -> str:
    """The multiple-choice prompt Inspect's ``multiple_choice()`` solver writes.

    Args:
        question: The question text (the text of the last user message).
        choices: The choices, in order.

    Returns:
        The template filled with the question, ``A) choice`` lines and the letters.
    """
    lines = "\n".join(f"{LETTERS[i]}) {choice}" for i, choice in enumerate(choices))
    letters = ",".join(LETTERS[i] for i in range(len(choices)))
    return MC_TEMPLATE.format(letters=letters, question=question, choices=lines)


def has_media(item: Item) -> bool:
    """Whether an item's input holds an image or audio part."""
    return bool(item.media_paths())


def _media_file(bench_dir: Path, value: str, item_id: str) -> Path:
    root = bench_dir.resolve()
    path = (root / value).resolve()
    if not path.is_relative_to(root):
        raise MediaPathError(f"item {item_id}: media path {value!r} leads outside {root}")
    if not path.is_file():
        raise MediaPathError(f"item {item_id}: media file {path} is missing")
    return path


def _part(part: TextPart | ImagePart | AudioPart, bench_dir: Path, item_id: str) -> dict:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        path = _media_file(bench_dir, part.image, item_id)
        mime = mimetypes.guess_type(path.name)[0] or "image/png"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
    path = _media_file(bench_dir, part.audio, item_id)
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return {"type": "input_audio", "input_audio": {"data": data, "format": part.format}}


def _content(message: Message, bench_dir: Path, item_id: str) -> str | list[dict[str, Any]]:
    if isinstance(message.content, str):
        return message.content
    parts = [_part(p, bench_dir, item_id) for p in message.content]
    if all(p["type"] == "text" for p in parts):
        return "\n".join(p["text"] for p in parts)
    return parts


def _set_text(content: str | list[dict[str, Any]], text: str) -> str | list[dict[str, Any]]:
    """Inspect's ``ChatMessage.text`` setter: the first text part becomes ``text``.

    Other text parts are dropped and media parts keep their places; a text part is appended
    when there is none.
    """
    if isinstance(content, str):
        return text
    out: list[dict[str, Any]] = []
    placed = False
    for part in content:
        if part["type"] == "text":
            if not placed:
                out.append({"type": "text", "text": text})
                placed = True
        else:
            out.append(part)
    if not placed:
        out.append({"type": "text", "text": text})
    return out


def _text_of(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p["type"] == "text")


def item_messages(item: Item, bench_dir: str | Path) -> list[BaseMessage]:
    """The chat messages sent to a model under evaluation for one item.

    Args:
        item: The item.
        bench_dir: Its benchmark folder (media paths are relative to it).

    Returns:
        Langchain messages, built as the generated Inspect task builds them (see the module
        docstring).

    Raises:
        MediaPathError: A media part leads outside the folder or its file is missing.
    """
    folder = Path(bench_dir)
    raw = [Message(role="user", content=item.input)] if isinstance(item.input, str) else item.input
    roles = [m.role for m in raw]
    contents = [_content(m, folder, item.id) for m in raw]
    if item.choices:
        last_user = max((i for i, r in enumerate(roles) if r == "user"), default=None)
        if last_user is None:
            roles.append("user")
            contents.append("")
            last_user = len(roles) - 1
        question = _text_of(contents[last_user])
        contents[last_user] = _set_text(contents[last_user], choice_prompt(question, item.choices))
    else:
        instruction = INSTRUCTIONS.get(str(item.metadata.get("answer_format")))
        if instruction:
            roles.insert(0, "system")
            contents.insert(0, instruction)
    kinds = {"system": SystemMessage, "assistant": AIMessage, "user": HumanMessage}
    return [kinds[r](content=c) for r, c in zip(roles, contents, strict=True)]

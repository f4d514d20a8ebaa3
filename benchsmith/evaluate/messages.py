"""The chat messages a model under evaluation gets for one item: the item's one prompt.

``benchsmith eval``, the exported ``inspect_task.py`` and the exported lm-eval task must give
the same answers at temperature 0, so all three send the messages of
:func:`benchsmith.package.item_prompt.prompt_messages`: one user message holding the
question and its answer-format instruction (for multiple choice, the wording of Inspect's
single-answer template with ``A) ...`` choice lines), no system message. Here those messages
become langchain messages: a content of text only is one string; images become
``image_url`` parts with a ``data:`` URI and audio ``input_audio`` parts (base64), the forms
OpenAI-compatible endpoints (and Inspect's ``openai-api`` provider) use.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from benchsmith.item import Item
from benchsmith.package.item_prompt import prompt_messages


class MediaPathError(ValueError):
    """A media part of an item points outside the benchmark folder or to a missing file."""


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


def _part(part: dict[str, Any], bench_dir: Path, item_id: str) -> dict[str, Any]:
    kind = part.get("type")
    if kind == "image":
        path = _media_file(bench_dir, str(part["image"]), item_id)
        mime = mimetypes.guess_type(path.name)[0] or "image/png"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
    if kind == "audio":
        path = _media_file(bench_dir, str(part["audio"]), item_id)
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        fmt = part.get("format") or "wav"
        return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}
    return {"type": "text", "text": str(part.get("text", ""))}


def item_messages(item: Item, bench_dir: str | Path) -> list[BaseMessage]:
    """The chat messages sent to a model under evaluation for one item.

    Args:
        item: The item.
        bench_dir: Its benchmark folder (media paths are relative to it).

    Returns:
        Langchain messages: :func:`~benchsmith.package.item_prompt.prompt_messages` of the
        item, media read into ``data:`` URIs and base64 audio (see the module docstring).

    Raises:
        MediaPathError: A media part leads outside the folder or its file is missing.
    """
    folder = Path(bench_dir)
    kinds = {"system": SystemMessage, "assistant": AIMessage, "user": HumanMessage}
    out: list[BaseMessage] = []
    for message in prompt_messages(item.model_dump(mode="json")):
        content = message["content"]
        if not isinstance(content, str):
            content = [_part(p, folder, item.id) for p in content]
        out.append(kinds.get(message["role"], HumanMessage)(content=content))
    return out

"""The one prompt an item is asked with, whichever harness asks it.

``benchsmith eval``, the exported Inspect task and the exported lm-eval task send the same
messages for the same item, so that the same model gives the same answers (at temperature 0)
and the same accuracy in all three. :func:`prompt_messages` renders them; the code below the
marker line of this file (constants and functions, standard library only) is copied verbatim
into the generated ``inspect_task.py`` and ``lmeval/utils.py`` (:func:`prompt_source`), and
``benchsmith eval`` calls it directly (:mod:`benchsmith.evaluate.messages`).

The rendering: everything goes in the item's (last) user message, no system message is added.

- items with choices: the wording of Inspect's ``multiple_choice()`` single-answer template
  (:data:`MC_TEMPLATE`): the instruction to answer ``ANSWER: $LETTER``, the question, then
  the choices as ``A) ...`` lines;
- ``short_answer`` and ``numeric`` items: the question, a blank line and that format's
  one-line instruction (:data:`INSTRUCTIONS`);
- ``open`` items: the question alone.

Why one user message: lm-eval (0.4.13) turns a task's ``description`` into a system message
only with ``--apply_chat_template`` and prepends it to the prompt text without it, and its
``local-chat-completions`` model sends ``doc_to_text`` as the one user message; a prompt that
is a single user message is therefore sent identically by lm-eval with or without a chat
template, by Inspect and by ``benchsmith eval``, and it needs no system-role support from the
model's chat template (some have none).
"""

from __future__ import annotations

import functools
import inspect
import sys

_MARK = "# -- below: " + "copied verbatim into the generated task files"


@functools.cache
def prompt_source() -> str:
    """The prompt rules as source, to paste into a generated standalone file (read once).

    Returns:
        The constants and functions below this module's marker line (they need nothing
        but the standard library).
    """
    text = inspect.getsource(sys.modules[__name__])
    region = text.split(_MARK, 1)[1]
    return region.split("\n", 1)[1].strip("\n") + "\n"


# -- below: copied verbatim into the generated task files ---------------------------------------
MC_TEMPLATE = (
    "Answer the following multiple choice question. The entire content of your response "
    "should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is "
    "one of {letters}.\n\n{question}\n\n{choices}"
)
"""The prompt of an item with choices (the wording of Inspect's ``SINGLE_ANSWER_TEMPLATE``)."""

INSTRUCTIONS: dict[str, str] = {
    "short_answer": "Answer with only the answer: a word or a short phrase, no explanation.",
    "numeric": "Answer with only the number, no units and no explanation.",
}
"""The one-line instruction after the question, by answer format (none for open items)."""


def prompt_text(question: str, choices: list[str] | None, answer_format: str | None) -> str:
    """The text of the user message an item is asked with.

    Args:
        question: The question (the text of the item's last user message).
        choices: The item's choices (None or empty when it has none).
        answer_format: The item's answer format; choices win over it.

    Returns:
        :data:`MC_TEMPLATE` filled with the letters, the question and ``A) choice`` lines
        when there are choices; else the question, then a blank line and the format's
        instruction when :data:`INSTRUCTIONS` has one; else the question. The question is
        stripped of surrounding whitespace.
    """
    question = str(question).strip()
    if choices:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(choices)]
        lines = "\n".join(
            f"{letter}) {choice}" for letter, choice in zip(letters, choices, strict=False)
        )
        return MC_TEMPLATE.format(letters=",".join(letters), question=question, choices=lines)
    instruction = INSTRUCTIONS.get(str(answer_format))
    return f"{question}\n\n{instruction}" if instruction else question


def media_kinds(record: dict) -> list[str]:
    """The media kinds of an item's input: ``[]``, ``["image"]``, ``["audio"]`` or both.

    Args:
        record: One line of ``data/test.jsonl``, parsed.

    Returns:
        The kinds of its image and audio content parts, sorted.
    """
    kinds = set()
    raw = record.get("input")
    for message in raw if isinstance(raw, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") in ("image", "audio"):
                kinds.add(part["type"])
    return sorted(kinds)


def prompt_messages(record: dict) -> list[dict]:
    """The chat messages an item is asked with, in ``data/test.jsonl`` form.

    A string input is one user message. The question is the text of the last user message
    (its text parts joined by a newline); :func:`prompt_text` of it takes the place of the
    message's first text part (other text parts are dropped, so nothing is said twice; image
    and audio parts keep their places), or is appended when the message has no text. An
    input with no user message gets one. Other messages are kept as they are. A content
    whose parts are all text becomes one string (parts joined by a newline).

    Args:
        record: One line of ``data/test.jsonl``, parsed.

    Returns:
        ``{"role": ..., "content": str | parts}`` messages, media parts as in the record
        (paths relative to the benchmark folder).
    """
    raw = record.get("input")
    if isinstance(raw, list):
        messages = [m for m in raw if isinstance(m, dict)]
    else:
        messages = [{"role": "user", "content": str(raw or "")}]
    users = [i for i, m in enumerate(messages) if (m.get("role") or "user") == "user"]
    if not users:
        messages.append({"role": "user", "content": ""})
        users.append(len(messages) - 1)
    last = users[-1]
    content = messages[last].get("content") or ""
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    question = "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
    meta = record.get("metadata") or {}
    text = prompt_text(question, record.get("choices"), meta.get("answer_format"))
    asked, placed = [], False
    for part in parts:
        if part.get("type") != "text":
            asked.append(part)
        elif not placed:
            asked.append({"type": "text", "text": text})
            placed = True
    if not placed:
        asked.append({"type": "text", "text": text})
    out = []
    for index, message in enumerate(messages):
        body = asked if index == last else message.get("content") or ""
        if isinstance(body, list) and all(p.get("type") == "text" for p in body):
            body = "\n".join(str(p.get("text", "")) for p in body)
        out.append({"role": message.get("role") or "user", "content": body})
    return out

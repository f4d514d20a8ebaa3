"""A scripted fake chat model for unit tests.

``ScriptedChatModel`` is a real ``BaseChatModel``: benchsmith's client calls it exactly as it
calls ``ChatOpenAI`` (``invoke(messages, tools=..., tool_choice=...)`` or with
``response_format``), and it answers from a script. A pydantic object in the script becomes
a tool call to the requested function (function calling) or JSON content (JSON modes), so
the whole structured-output path runs for real. Strings become plain text replies,
``AIMessage`` objects are returned as they are, and exceptions are raised.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, ConfigDict, PrivateAttr

ScriptItem = (
    BaseModel | dict | str | AIMessage | Exception | Callable[[list[BaseMessage], dict], Any]
)


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next item of its script and records every call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = []
    repeat_last: bool = False
    _calls: list[dict] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _position: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def calls(self) -> list[dict]:
        """Every call so far: ``{"messages": [...], "kwargs": {...}}``."""
        with self._lock:
            return list(self._calls)

    def _next(self) -> Any:
        with self._lock:
            if self._position >= len(self.script):
                if self.repeat_last and self.script:
                    return self.script[-1]
                raise AssertionError(
                    f"ScriptedChatModel: script exhausted after {self._position} calls"
                )
            item = self.script[self._position]
            self._position += 1
            return item

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._calls.append({"messages": list(messages), "kwargs": dict(kwargs)})
        item = self._next()
        if callable(item) and not isinstance(item, BaseModel | type):
            item = item(list(messages), dict(kwargs))
        if isinstance(item, Exception):
            raise item
        message = self._to_message(item, kwargs)
        if message.usage_metadata is None:
            prompt = sum(len(str(m.content)) for m in messages)
            completion = len(str(message.content)) + len(json.dumps(message.tool_calls))
            message.usage_metadata = {
                "input_tokens": max(1, prompt // 4),
                "output_tokens": max(1, completion // 4),
                "total_tokens": max(1, prompt // 4) + max(1, completion // 4),
            }
        return ChatResult(generations=[ChatGeneration(message=message)])

    @staticmethod
    def _to_message(item: Any, kwargs: dict) -> AIMessage:
        if isinstance(item, AIMessage):
            return item.model_copy(deep=True)
        if isinstance(item, str):
            return AIMessage(content=item, response_metadata={"finish_reason": "stop"})
        data = item.model_dump(mode="json") if isinstance(item, BaseModel) else item
        if kwargs.get("tools"):
            choice = kwargs.get("tool_choice")
            name = (
                choice["function"]["name"]
                if isinstance(choice, dict)
                else kwargs["tools"][0]["function"]["name"]
            )
            return AIMessage(
                content="",
                tool_calls=[{"name": name, "args": data, "id": "call_1", "type": "tool_call"}],
                response_metadata={"finish_reason": "tool_calls"},
            )
        return AIMessage(content=json.dumps(data), response_metadata={"finish_reason": "stop"})

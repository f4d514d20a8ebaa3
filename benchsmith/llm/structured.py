"""Structured output: the one helper every agent uses for a pydantic decision.

The method follows the endpoint (``json_schema`` on OpenAI, ``function_calling`` on
llama.cpp and other OpenAI-compatible servers, ``json_grammar`` on the embedded reader,
``json_mode`` on request). Each reply is
classified as ``ok``, ``invalid``, ``refusal``, ``truncated`` or ``empty``; a failed reply
is recorded with its raw text and the request is retried, a bounded number of times, with
the reason shown to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, Literal, Protocol, TypeVar

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, convert_to_messages
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from benchsmith.errors import StructuredOutputError, describe_validation_error
from benchsmith.llm.specs import StructuredMethod


class ChatModel(Protocol):
    """What a structured call needs of a model (the client's ``RoleModel`` is one).

    A protocol rather than the client class, so this module does not import the client
    that calls it.
    """

    role: str

    @property
    def name(self) -> str:
        """The model's spec as text, for messages (``local``, ``openai:gpt-4o``)."""
        ...

    def invoke(self, messages: Sequence[Any], **params: Any) -> AIMessage:
        """Send one chat request (served from the run records when recorded)."""
        ...

    def structured_method(self) -> StructuredMethod:
        """The structured-output method this model takes."""
        ...

    def max_attempts(self) -> int:
        """Attempts at a valid reply before giving up."""
        ...

    def record(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` to the run records."""
        ...


T = TypeVar("T", bound=BaseModel)

ReplyClass = Literal["ok", "invalid", "refusal", "truncated", "empty"]

_REFUSAL = re.compile(
    r"^\W*(i'?m sorry|i am sorry|sorry,|i (?:can ?not|can't|cannot|won't|am unable|'m unable)"
    r"|as an ai\b|i must decline)",
    re.IGNORECASE,
)


@dataclass
class Classified:
    """One reply, classified."""

    kind: ReplyClass
    value: BaseModel | None = None
    error: str = ""
    raw: str = ""


@dataclass
class Failure:
    """A failed attempt: its class, the reason and the raw text the model sent."""

    attempt: int
    kind: ReplyClass
    error: str
    raw: str


@dataclass
class StructuredResult(Generic[T]):
    """A validated decision and how it was obtained."""

    value: T
    attempts: int
    method: StructuredMethod
    failures: list[Failure] = field(default_factory=list)


def tool_name(schema: type[BaseModel]) -> str:
    """The function name a schema is offered under."""
    return schema.__name__


def request_params(schema: type[BaseModel], method: StructuredMethod) -> dict[str, Any]:
    """The request parameters that ask for ``schema`` with ``method`` (a fresh copy)."""
    # A fresh copy from cached JSON text: json.loads is several times cheaper than deepcopy.
    return json.loads(_request_params_json(schema, method))


@lru_cache(maxsize=512)
def _request_params_json(schema: type[BaseModel], method: StructuredMethod) -> str:
    return json.dumps(_request_params(schema, method))


def _request_params(schema: type[BaseModel], method: StructuredMethod) -> dict[str, Any]:
    # Building a JSON schema costs about a millisecond; a build asks for the same few
    # schemas thousands of times.
    if method == "function_calling":
        tool = convert_to_openai_tool(schema)
        return {
            "tools": [tool],
            "tool_choice": {"type": "function", "function": {"name": tool["function"]["name"]}},
        }
    if method == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": tool_name(schema), "schema": schema.model_json_schema()},
            }
        }
    if method == "json_grammar":
        return {"response_format": {"type": "json_object", "schema": schema.model_json_schema()}}
    return {"response_format": {"type": "json_object"}}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    return "" if content is None else str(content)


def _validate(schema: type[BaseModel], data: Any, raw: str) -> Classified:
    try:
        return Classified("ok", value=schema.model_validate(data), raw=raw)
    except ValidationError as exc:
        errors = describe_validation_error(exc)
        return Classified("invalid", error=f"does not match the schema: {errors}", raw=raw)


def _parse_json_text(schema: type[BaseModel], text: str) -> Classified:
    stripped = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", stripped, re.DOTALL)
    if fenced:
        stripped = fenced.group(1)
    try:
        # strict=False: a raw newline inside a string (a translated bulleted list) is kept.
        data = json.loads(stripped, strict=False)
    except json.JSONDecodeError as exc:
        return Classified("invalid", error=f"is not valid JSON ({exc.msg} at {exc.pos})", raw=text)
    return _validate(schema, data, text)


def classify_reply(reply: AIMessage, schema: type[BaseModel]) -> Classified:
    """Classify one reply and, when it is ``ok``, return the validated object.

    Args:
        reply: The model's message.
        schema: The pydantic model asked for.

    Returns:
        The class, the value (for ``ok``), the reason (otherwise) and the raw text.
    """
    finish = (reply.response_metadata or {}).get("finish_reason")
    text = _text(reply.content)
    refusal = (reply.additional_kwargs or {}).get("refusal")
    raw_args = [c.get("args") for c in reply.tool_calls] + [
        c.get("args") for c in reply.invalid_tool_calls
    ]
    raw = text or "\n".join(
        a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in raw_args if a
    )
    if refusal:
        return Classified("refusal", error=f"the model refused: {refusal}", raw=str(refusal))
    if finish == "length":
        return Classified(
            "truncated", error="it was cut off at the token limit before it was complete", raw=raw
        )
    for call in reply.tool_calls:
        if call.get("name") == tool_name(schema):
            return _validate(schema, call.get("args"), raw)
    if reply.tool_calls:
        names = ", ".join(str(c.get("name")) for c in reply.tool_calls)
        return Classified(
            "invalid", error=f"called {names} instead of {tool_name(schema)}", raw=raw
        )
    if reply.invalid_tool_calls:
        call = reply.invalid_tool_calls[0]
        return Classified(
            "invalid", error=f"its arguments are not valid JSON ({call.get('error')})", raw=raw
        )
    if not text.strip():
        return Classified("empty", error="it was empty", raw=text)
    parsed = _parse_json_text(schema, text)
    if parsed.kind == "invalid" and _REFUSAL.match(text):
        return Classified("refusal", error="the model declined to answer", raw=text)
    return parsed


def _retry_message(failure: Classified, schema: type[BaseModel], method: StructuredMethod) -> str:
    how = (
        f"Call the function {tool_name(schema)} once"
        if method == "function_calling"
        else "Reply with one JSON object only"
    )
    brief = " Keep every string short." if failure.kind == "truncated" else ""
    return (
        f"Your previous reply {failure.error}. {how}, with arguments that match the schema.{brief}"
    )


def structured_call(
    model: ChatModel,
    schema: type[T],
    messages: Sequence[Any],
    *,
    max_attempts: int | None = None,
    method: StructuredMethod | None = None,
) -> StructuredResult[T]:
    """Ask a role's model for a reply that validates against ``schema``.

    Args:
        model: The role's model.
        schema: The pydantic model of the decision.
        messages: The prompt.
        max_attempts: Attempts before giving up (default: the run's setting).
        method: Force a method (default: configured, else the endpoint's best).

    Returns:
        The validated value with the attempts it took and every failure on the way.

    Raises:
        StructuredOutputError: No attempt gave a valid reply; every failure is attached.
    """
    method = method or model.structured_method()
    attempts_allowed = max_attempts or model.max_attempts()
    history = list(convert_to_messages(list(messages)))
    if method == "json_mode":
        schema_text = json.dumps(schema.model_json_schema(), ensure_ascii=False)
        history.insert(
            0, SystemMessage(f"Reply with one JSON object that matches this schema:\n{schema_text}")
        )
    params = request_params(schema, method)
    failures: list[Failure] = []
    for attempt in range(1, attempts_allowed + 1):
        reply = model.invoke(history, **params)
        result = classify_reply(reply, schema)
        if result.kind == "ok":
            assert result.value is not None
            return StructuredResult(
                value=result.value,  # type: ignore[arg-type]
                attempts=attempt,
                method=method,
                failures=failures,
            )
        failure = Failure(attempt=attempt, kind=result.kind, error=result.error, raw=result.raw)
        failures.append(failure)
        model.record(
            {
                "kind": "structured_failure",
                "role": model.role,
                "model": model.name,
                "schema": tool_name(schema),
                "attempt": attempt,
                "class": result.kind,
                "error": result.error,
                "raw": result.raw,
            }
        )
        # Show the failed reply as plain text (never as tool calls: some servers reject
        # tool-call history without tool results) and say what was wrong.
        history = history + [
            AIMessage(content=result.raw or "(empty reply)"),
            HumanMessage(content=_retry_message(result, schema, method)),
        ]
    kinds = ", ".join(f.kind for f in failures)
    raise StructuredOutputError(
        f"the {model.role} model ({model.name}) gave no valid {tool_name(schema)} in "
        f"{attempts_allowed} attempt(s) ({kinds}); last: {failures[-1].error}. "
        "A more capable model (--model openai:MODEL) may be needed",
        failures=failures,
    )

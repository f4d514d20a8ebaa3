"""A small fake OpenAI-compatible chat-completions server for tests and benchmarks.

The server uses only the standard library. It listens on ``127.0.0.1`` on a free port and
serves from a daemon thread. Tests script its behaviour one request at a time with
:class:`Reply` objects (tool calls, text, HTTP errors, malformed JSON, dropped connections, ...)
and then check what the client sent through :attr:`FakeOpenAIServer.requests`.

Example:
    >>> with FakeOpenAIServer() as server:  # doctest: +SKIP
    ...     server.script(Reply.status(429, retry_after=1), Reply.text("hello"))
    ...     client = openai.OpenAI(base_url=server.base_url, api_key="test")
    ...     client.chat.completions.create(model="m", messages=[...])

Routes:
    * ``POST /v1/chat/completions`` (also ``/chat/completions``): consumes one scripted reply,
      or uses the default reply when the script queue is empty.
    * ``GET /v1/models`` (also ``/models``) and ``GET /v1/models/<id>``.
    * Anything else: 404 with an OpenAI-style error body.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import socket
import socketserver
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = ["FakeOpenAIServer", "RecordedRequest", "Reply", "example_from_schema"]

_Kind = Literal[
    "auto",
    "tool_call",
    "text",
    "status",
    "malformed",
    "empty",
    "refusal",
    "truncated",
    "disconnect",
]

_CHAT_ROUTES = frozenset({"/v1/chat/completions", "/chat/completions"})
_MODELS_ROUTES = frozenset({"/v1/models", "/models"})
_MODEL_PREFIXES = ("/v1/models/", "/models/")
_MALFORMED_BODY = b'{"id": "chatcmpl-x", "choices": ['
_CREATED = 1700000000
_MAX_SCHEMA_DEPTH = 32
_DEFAULT_REFUSAL = "I'm sorry, but I can't help with that."

_FORMAT_EXAMPLES: dict[str, str] = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "duration": "PT0S",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "iri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "hostname": "example.com",
}


# --------------------------------------------------------------------------------------------
# Scripted replies
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One scripted behaviour for one chat request.

    Build instances with the class methods (:meth:`auto`, :meth:`tool_call`, :meth:`text`,
    :meth:`status`, :meth:`malformed`, :meth:`empty`, :meth:`refusal`, :meth:`truncated`,
    :meth:`disconnect`) rather than calling the constructor directly. Every one takes
    ``latency``, extra seconds to wait before answering (before closing, for
    :meth:`disconnect`); those that answer with a completion also take ``usage``, an optional
    override of the reported token usage.

    Attributes:
        kind: Which behaviour to produce.
        arguments: Tool-call arguments exactly as sent on the wire (``tool_call`` only).
        name: Tool name for ``tool_call``; ``None`` picks it from the request.
        content: Assistant text (``text``) or refusal text (``refusal``).
        status_code: HTTP status code (``status`` only; 200 otherwise).
        retry_after: Seconds to advertise in ``Retry-After`` / ``retry-after-ms`` headers.
        error_code: The ``error.code`` field of an error body.
        message: The ``error.message`` field of an error body (``None`` for a default).
        usage: Replaces (merges over) the computed ``usage`` of a successful completion.
        latency: Seconds to wait before answering, on top of the server's own latency.
    """

    kind: _Kind
    arguments: str | None = None
    name: str | None = None
    content: str | None = None
    status_code: int = 200
    retry_after: float | None = None
    error_code: str | None = None
    message: str | None = None
    usage: Mapping[str, int] | None = None
    latency: float = 0.0

    def __post_init__(self) -> None:
        """Validate the fields that would otherwise fail late, inside the server thread."""
        if self.latency < 0 or not math.isfinite(self.latency):
            raise ValueError(f"latency must be a finite number >= 0, got {self.latency!r}")
        if self.retry_after is not None and (
            self.retry_after < 0 or not math.isfinite(self.retry_after)
        ):
            raise ValueError(f"retry_after must be finite and >= 0, got {self.retry_after!r}")
        if self.kind == "status" and not 100 <= self.status_code <= 599:
            raise ValueError(f"status code must be within 100..599, got {self.status_code!r}")

    @classmethod
    def auto(cls, *, latency: float = 0.0, usage: Mapping[str, int] | None = None) -> Reply:
        """A minimal schema-valid answer derived from the request.

        With ``tools`` in the request, a tool call to the function selected by ``tool_choice``
        (or the first tool) with arguments built by :func:`example_from_schema`. Otherwise the
        text answer follows ``response_format`` (``json_schema`` -> an example instance,
        ``json_object`` -> ``"{}"``), else the text ``"ok"``.
        """
        return cls(kind="auto", latency=latency, usage=usage)

    @classmethod
    def tool_call(
        cls,
        arguments: Mapping[str, Any] | str,
        *,
        name: str | None = None,
        latency: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """A 200 reply with exactly one tool call and ``finish_reason`` ``"tool_calls"``.

        ``arguments`` given as a mapping is serialised with ``json.dumps``; a string is sent
        verbatim, so tests can send invalid or schema-invalid JSON. ``name`` defaults to the
        function named by the request's ``tool_choice``, else the first tool of the request,
        else ``"tool"``.
        """
        text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        return cls(kind="tool_call", arguments=text, name=name, latency=latency, usage=usage)

    @classmethod
    def text(
        cls, content: str, *, latency: float = 0.0, usage: Mapping[str, int] | None = None
    ) -> Reply:
        """A 200 reply with ``content`` as plain assistant text and ``finish_reason`` ``"stop"``."""
        return cls(kind="text", content=content, latency=latency, usage=usage)

    @classmethod
    def status(
        cls,
        code: int,
        *,
        retry_after: float | None = None,
        error_code: str | None = None,
        message: str | None = None,
        latency: float = 0.0,
    ) -> Reply:
        """An HTTP error with an OpenAI-style JSON error body.

        The body is ``{"error": {"message", "type", "param": null, "code": error_code}}``. The
        error type is ``invalid_request_error`` for 400/404 (and other 4xx),
        ``authentication_error`` for 401, ``permission_error`` for 403, ``rate_limit_error``
        for 429 (``insufficient_quota`` when ``error_code == "insufficient_quota"``) and
        ``server_error`` for 5xx.

        Args:
            code: HTTP status code.
            retry_after: Seconds; when given, sends ``Retry-After`` (integer text when whole,
                else the float as text) and ``retry-after-ms`` (integer milliseconds).
            error_code: Value of ``error.code``.
            message: Value of ``error.message``; a sensible default when ``None``.
            latency: Extra seconds to wait before answering.

        Returns:
            The reply.
        """
        return cls(
            kind="status",
            status_code=code,
            retry_after=retry_after,
            error_code=error_code,
            message=message,
            latency=latency,
        )

    @classmethod
    def malformed(cls, *, latency: float = 0.0) -> Reply:
        """A 200 ``application/json`` reply whose body is truncated, invalid JSON."""
        return cls(kind="malformed", latency=latency)

    @classmethod
    def empty(cls, *, latency: float = 0.0, usage: Mapping[str, int] | None = None) -> Reply:
        """A valid completion whose message content is ``""``, with no tool calls."""
        return cls(kind="empty", latency=latency, usage=usage)

    @classmethod
    def refusal(
        cls,
        text: str = _DEFAULT_REFUSAL,
        *,
        latency: float = 0.0,
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """A structured-output style refusal: ``content`` null, ``refusal`` set to ``text``."""
        return cls(kind="refusal", content=text, latency=latency, usage=usage)

    @classmethod
    def truncated(cls, *, latency: float = 0.0, usage: Mapping[str, int] | None = None) -> Reply:
        """A 200 reply cut short, with ``finish_reason`` ``"length"``.

        With tools in the request, a tool call whose arguments are the :meth:`auto` arguments'
        JSON cut roughly in half (invalid JSON). Otherwise truncated text: the JSON answer cut
        in half when ``response_format`` asks for JSON, else ``"The answer is"``.
        """
        return cls(kind="truncated", latency=latency, usage=usage)

    @classmethod
    def disconnect(cls, *, latency: float = 0.0) -> Reply:
        """Close the connection without sending any HTTP response."""
        return cls(kind="disconnect", latency=latency)


# --------------------------------------------------------------------------------------------
# JSON schema examples
# --------------------------------------------------------------------------------------------


def example_from_schema(schema: Mapping[str, Any]) -> Any:
    """A minimal instance that validates against a JSON schema (as pydantic v2 emits them).

    Supports ``$ref`` (into ``$defs`` / ``definitions`` or any local JSON pointer), ``anyOf`` /
    ``oneOf`` (first non-null branch), ``allOf`` (merged), ``enum`` (first value), ``const``,
    ``default``, ``type`` given as a string or a list (first non-null), string ``minLength``
    (and a few common ``format`` values), integer/number bounds, booleans, null, arrays
    (``minItems`` copies of the item example, ``prefixItems``) and objects (all ``required``
    properties). Recursive references are cut off by a depth limit, preferring ``null``
    branches when there are any.

    Args:
        schema: A JSON schema as a mapping.

    Returns:
        A JSON-compatible value (dict, list, str, int, float, bool or None).
    """
    return _example(schema, schema, 0)


def _example(schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return None
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return copy.deepcopy(enum[0])
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _example(_resolve_ref(ref, root), root, depth + 1)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return _example_from_branches(branches, root, depth)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and all_of:
        merged = _merge_all_of(schema, all_of, root)
        return _example(merged, root, depth + 1)
    return _example_for_type(schema, _schema_type(schema), root, depth)


def _resolve_ref(ref: str, root: Mapping[str, Any]) -> Any:
    if not ref.startswith("#"):
        return None
    node: Any = root
    for raw in ref[1:].split("/"):
        if not raw:
            continue
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def _example_from_branches(branches: list[Any], root: Mapping[str, Any], depth: int) -> Any:
    non_null = [b for b in branches if not _is_null_schema(b)]
    if not non_null or (depth >= _MAX_SCHEMA_DEPTH // 2 and len(non_null) < len(branches)):
        return None
    return _example(non_null[0], root, depth + 1)


def _merge_all_of(
    schema: Mapping[str, Any], branches: list[Any], root: Mapping[str, Any]
) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for branch in branches:
        seen: set[str] = set()
        while isinstance(branch, Mapping) and isinstance(branch.get("$ref"), str):
            ref = branch["$ref"]
            if ref in seen:
                break
            seen.add(ref)
            target = _resolve_ref(ref, root)
            rest = {k: v for k, v in branch.items() if k != "$ref"}
            branch = {**target, **rest} if isinstance(target, Mapping) else rest
        if not isinstance(branch, Mapping):
            continue
        for key, value in branch.items():
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged.setdefault(key, value)
    return merged


def _schema_type(schema: Mapping[str, Any]) -> str | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):
        non_null = [t for t in declared if t != "null"]
        if non_null:
            return str(non_null[0])
        return "null" if declared else None
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema or "minItems" in schema:
        return "array"
    if "minLength" in schema or "pattern" in schema or "format" in schema:
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return None


def _example_for_type(
    schema: Mapping[str, Any], kind: str | None, root: Mapping[str, Any], depth: int
) -> Any:
    if kind == "string":
        return _string_example(schema)
    if kind == "integer":
        return _integer_example(schema)
    if kind == "number":
        return _number_example(schema)
    if kind == "boolean":
        return False
    if kind == "array":
        return _array_example(schema, root, depth)
    if kind == "object":
        return _object_example(schema, root, depth)
    return None


def _string_example(schema: Mapping[str, Any]) -> str:
    min_length = schema.get("minLength")
    n = int(min_length) if isinstance(min_length, int | float) else 0
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMAT_EXAMPLES:
        example = _FORMAT_EXAMPLES[fmt]
        if len(example) >= n:
            return example
    return "x" * n


def _bounds(schema: Mapping[str, Any]) -> tuple[float | None, bool, float | None, bool]:
    """Return (low, low_exclusive, high, high_exclusive), handling draft-4 boolean forms."""
    low: float | None = None
    high: float | None = None
    low_excl = high_excl = False
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    ex_min, ex_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(minimum, int | float) and not isinstance(minimum, bool):
        low, low_excl = minimum, ex_min is True
    if isinstance(ex_min, int | float) and not isinstance(ex_min, bool):
        if low is None or ex_min >= low:
            low, low_excl = ex_min, True
    if isinstance(maximum, int | float) and not isinstance(maximum, bool):
        high, high_excl = maximum, ex_max is True
    if isinstance(ex_max, int | float) and not isinstance(ex_max, bool):
        if high is None or ex_max <= high:
            high, high_excl = ex_max, True
    return low, low_excl, high, high_excl


def _integer_example(schema: Mapping[str, Any]) -> int:
    low, low_excl, high, high_excl = _bounds(schema)
    lo = None if low is None else (math.floor(low) + 1 if low_excl else math.ceil(low))
    hi = None if high is None else (math.ceil(high) - 1 if high_excl else math.floor(high))
    value = 0
    if lo is not None and value < lo:
        value = lo
    if hi is not None and value > hi:
        value = hi
    multiple = schema.get("multipleOf")
    if isinstance(multiple, int) and not isinstance(multiple, bool) and multiple > 0:
        value = math.ceil(value / multiple) * multiple
    return value


def _number_example(schema: Mapping[str, Any]) -> int | float:
    low, low_excl, high, high_excl = _bounds(schema)
    value: float = 0
    if low is not None and (value < low or (low_excl and value <= low)):
        value = low + 1 if low_excl else low
    if high is not None and (value > high or (high_excl and value >= high)):
        if low is not None and low < high and (low_excl or high_excl):
            value = (low + high) / 2
        else:
            value = high - 1 if high_excl else high
    return value


def _array_example(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> list[Any]:
    min_items = schema.get("minItems")
    n = int(min_items) if isinstance(min_items, int | float) else 0
    prefix = schema.get("prefixItems")
    result: list[Any] = []
    if isinstance(prefix, list):
        result = [_example(item, root, depth + 1) for item in prefix]
    if len(result) < n:
        items = schema.get("items")
        item = _example(items, root, depth + 1) if isinstance(items, Mapping) else None
        result.extend(copy.deepcopy(item) for _ in range(n - len(result)))
    return result


def _object_example(
    schema: Mapping[str, Any], root: Mapping[str, Any], depth: int
) -> dict[str, Any]:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    extra = schema.get("additionalProperties")
    result: dict[str, Any] = {}
    for key in required:
        sub = properties.get(key, extra if isinstance(extra, Mapping) else None)
        result[key] = _example(sub, root, depth + 1)
    return result


# --------------------------------------------------------------------------------------------
# Reply rendering
# --------------------------------------------------------------------------------------------


def _function_tools(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return []
    result: list[Mapping[str, Any]] = []
    for tool in tools:
        if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
            if tool.get("type", "function") == "function":
                result.append(tool["function"])
    return result


def _selected_tool(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The function that an "auto" answer should call, or None for a text answer."""
    tools = _function_tools(body)
    if not tools:
        return None
    choice = body.get("tool_choice")
    if choice == "none":
        return None
    wanted = _tool_choice_name(choice)
    for tool in tools:
        if wanted is not None and tool.get("name") == wanted:
            return tool
    return tools[0]


def _tool_choice_name(choice: Any) -> str | None:
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return choice
    if isinstance(choice, Mapping):
        function = choice.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            return str(function["name"])
        if isinstance(choice.get("name"), str):
            return str(choice["name"])
    return None


def _default_tool_name(body: Mapping[str, Any]) -> str:
    named = _tool_choice_name(body.get("tool_choice"))
    if named is not None:
        return named
    tools = _function_tools(body)
    if tools and isinstance(tools[0].get("name"), str):
        return str(tools[0]["name"])
    return "tool"


def _auto_arguments(tool: Mapping[str, Any]) -> str:
    parameters = tool.get("parameters")
    if not isinstance(parameters, Mapping):
        return "{}"
    value = example_from_schema(parameters)
    return json.dumps(value if value is not None else {})


def _auto_text(body: Mapping[str, Any]) -> tuple[str, bool]:
    """Return (content, is_json) for an "auto" text answer."""
    response_format = body.get("response_format")
    if isinstance(response_format, Mapping):
        kind = response_format.get("type")
        if kind == "json_schema":
            spec = response_format.get("json_schema")
            schema = spec.get("schema") if isinstance(spec, Mapping) else None
            value = example_from_schema(schema) if isinstance(schema, Mapping) else {}
            return json.dumps(value), True
        if kind == "json_object":
            return "{}", True
    return "ok", False


def _cut_json(text: str) -> str:
    cut = text[: max(1, len(text) // 2)]
    try:
        json.loads(cut)
    except ValueError:
        return cut
    return '{"' if cut != '{"' else "{"


def _assistant_message(
    reply: Reply, body: Mapping[str, Any], n: int
) -> tuple[dict[str, Any], str, str]:
    """Return (message, finish_reason, text counted as completion tokens)."""
    tool_name: str | None = None
    arguments = ""
    content: str | None = None
    finish = "stop"
    if reply.kind == "auto":
        tool = _selected_tool(body)
        if tool is not None:
            tool_name, arguments = str(tool.get("name", "tool")), _auto_arguments(tool)
        else:
            content = _auto_text(body)[0]
    elif reply.kind == "tool_call":
        tool_name = reply.name if reply.name is not None else _default_tool_name(body)
        arguments = reply.arguments if reply.arguments is not None else "{}"
    elif reply.kind == "text":
        content = reply.content if reply.content is not None else ""
    elif reply.kind == "empty":
        content = ""
    elif reply.kind == "refusal":
        refusal = reply.content if reply.content is not None else _DEFAULT_REFUSAL
        return {"role": "assistant", "content": None, "refusal": refusal}, "stop", refusal
    elif reply.kind == "truncated":
        finish = "length"
        tool = _selected_tool(body)
        if tool is not None:
            tool_name = str(tool.get("name", "tool"))
            arguments = _cut_json(_auto_arguments(tool))
        else:
            text, is_json = _auto_text(body)
            content = _cut_json(text) if is_json else "The answer is"
    else:
        raise ValueError(f"reply kind {reply.kind!r} does not produce a completion")
    if tool_name is not None:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {"name": tool_name, "arguments": arguments},
                }
            ],
        }
        return message, ("tool_calls" if finish == "stop" else finish), arguments
    return {"role": "assistant", "content": content}, finish, content or ""


def _completion(reply: Reply, body: Mapping[str, Any], model: str, n: int) -> dict[str, Any]:
    message, finish, text = _assistant_message(reply, body, n)
    messages = body.get("messages", [])
    prompt_tokens = max(1, len(json.dumps(messages)) // 4)
    completion_tokens = max(1, len(text) // 4)
    usage: dict[str, int] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if reply.usage is not None:
        override = dict(reply.usage)
        usage.update(override)
        if "total_tokens" not in override:
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    request_model = body.get("model")
    return {
        "id": f"chatcmpl-fake-{n}",
        "object": "chat.completion",
        "created": _CREATED,
        "model": request_model if isinstance(request_model, str) and request_model else model,
        "system_fingerprint": "fake",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
    }


def _error_type(code: int, error_code: str | None) -> str:
    if code == 401:
        return "authentication_error"
    if code == 403:
        return "permission_error"
    if code == 429:
        return "insufficient_quota" if error_code == "insufficient_quota" else "rate_limit_error"
    if code >= 500:
        return "server_error"
    return "invalid_request_error"


def _default_error_message(code: int, error_code: str | None) -> str:
    if code == 429 and error_code == "insufficient_quota":
        return "You exceeded your current quota, please check your plan and billing details."
    messages = {
        400: "Invalid request (fake server).",
        401: "Incorrect API key provided (fake server).",
        403: "You are not allowed to perform this request (fake server).",
        404: "The requested resource does not exist (fake server).",
        409: "The request conflicts with another request (fake server).",
        422: "The request could not be processed (fake server).",
        429: "Rate limit reached (fake server). Please try again later.",
        500: "The server had an error while processing your request (fake server).",
        502: "Bad gateway (fake server).",
        503: "The server is overloaded or not ready yet (fake server).",
        504: "Gateway timeout (fake server).",
    }
    return messages.get(code, f"HTTP {code} from the fake server.")


def _error_body(
    code: int, message: str | None = None, error_code: str | None = None
) -> dict[str, Any]:
    return {
        "error": {
            "message": message if message is not None else _default_error_message(code, error_code),
            "type": _error_type(code, error_code),
            "param": None,
            "code": error_code,
        }
    }


def _retry_after_headers(retry_after: float) -> dict[str, str]:
    seconds = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
    return {"Retry-After": seconds, "retry-after-ms": str(int(round(retry_after * 1000)))}


# --------------------------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One HTTP request received by the fake server.

    Attributes:
        method: HTTP method, e.g. ``"POST"``.
        path: Request target as sent, including any query string.
        headers: Request headers with lower-cased names.
        body: The parsed JSON body, or ``None`` when it is empty or not JSON.
        received_at: ``time.monotonic()`` when the request line was read.
        answered_at: ``time.monotonic()`` when the response was written (None until then).
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    received_at: float
    answered_at: float | None = None


def _is_chat_route(path: str) -> bool:
    return urlsplit(path).path.rstrip("/") in _CHAT_ROUTES


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, owner: FakeOpenAIServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), which may hit DNS; skip it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm
    # and delayed ACKs add ~40 ms to every keep-alive response.
    disable_nagle_algorithm = True
    server_version = "FakeOpenAI/1.0"
    sys_version = ""
    server: _HTTPServer

    _received_at: float = 0.0

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the server quiet."""

    _refused = False

    def setup(self) -> None:
        """Register the connection so that ``stop()`` can close it."""
        super().setup()
        self._refused = not self.server.owner._track(self.connection)

    def handle(self) -> None:
        """Serve the connection's requests, none if the server was stopped before it began."""
        if not self._refused:
            super().handle()

    def finish(self) -> None:
        """Unregister the connection."""
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._untrack(self.connection)

    def parse_request(self) -> bool:
        """Stamp the arrival time as soon as the request line has been read."""
        self._received_at = time.monotonic()
        return super().parse_request()

    def do_GET(self) -> None:
        """Handle GET."""
        self._dispatch()

    def do_POST(self) -> None:
        """Handle POST."""
        self._dispatch()

    def do_PUT(self) -> None:
        """Handle PUT."""
        self._dispatch()

    def do_PATCH(self) -> None:
        """Handle PATCH."""
        self._dispatch()

    def do_DELETE(self) -> None:
        """Handle DELETE."""
        self._dispatch()

    # -- plumbing ---------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise ValueError("connection closed inside a chunked body")
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        return self.rfile.read(length) if length else b""

    def _send(
        self,
        code: int,
        payload: bytes,
        headers: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("x-request-id", f"req_fake_{self.server.owner._next_request_id()}")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _send_json(self, code: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(code, json.dumps(data).encode("utf-8"), headers)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def _wait_until_due(self, seconds: float) -> None:
        """Sleep until ``seconds`` after the request arrived.

        The latency is the time from the request's arrival to its answer: the server's own
        work (parsing, building the reply) happens within it, not on top of it, so a reply
        of latency L takes L, as the build benchmark's ideal assumes.
        """
        self._sleep(self._received_at + seconds - time.monotonic())

    # -- routing ----------------------------------------------------------------------------

    def _dispatch(self) -> None:
        owner = self.server.owner
        try:
            raw = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            raw = None
        body: Any = None
        body_ok = False
        if raw:
            try:
                body = json.loads(raw)
                body_ok = True
            except ValueError:
                body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        recorded = RecordedRequest(self.command, self.path, headers, body, self._received_at)
        owner._record(recorded)
        try:
            self._route(raw, body, body_ok)
        finally:
            recorded.answered_at = time.monotonic()
            if owner.on_answer is not None:
                owner.on_answer(recorded)

    def _route(self, raw: bytes | None, body: Any, body_ok: bool) -> None:
        owner = self.server.owner
        route = urlsplit(self.path).path.rstrip("/")
        if raw is None:
            self._sleep(owner.latency)
            self._send_json(400, _error_body(400, "Could not read the request body."))
        elif self.command == "POST" and route in _CHAT_ROUTES:
            self._chat(body if body_ok else None)
        elif self.command == "GET" and route in _MODELS_ROUTES:
            self._sleep(owner.latency)
            self._send_json(200, {"object": "list", "data": [_model_object(owner.model)]})
        elif self.command == "GET" and route.startswith(_MODEL_PREFIXES):
            self._sleep(owner.latency)
            self._send_json(200, _model_object(route.rsplit("/", 1)[1]))
        else:
            self._sleep(owner.latency)
            message = f"Unknown request URL: {self.command} {urlsplit(self.path).path}."
            self._send_json(404, _error_body(404, message, "unknown_url"))

    def _chat(self, body: Any) -> None:
        owner = self.server.owner
        if not isinstance(body, dict):
            self._sleep(owner.latency)
            message = "We could not parse the JSON body of your request (fake server)."
            self._send_json(400, _error_body(400, message))
            return
        if body.get("stream"):
            self._sleep(owner.latency)
            self._send_json(400, _error_body(400, "fake server does not support streaming"))
            return
        n = owner._next_id()
        try:
            reply = owner._next_reply(body)
        except Exception as exc:  # a faulty default callable must not hang the client
            self._sleep(owner.latency)
            message = f"fake server default reply failed: {type(exc).__name__}: {exc}"
            self._send_json(500, _error_body(500, message))
            return
        # The answer is built first and sent when it is due (see _wait_until_due).
        code, headers, payload = 200, None, b""
        if reply.kind == "status":
            headers = {} if reply.retry_after is None else _retry_after_headers(reply.retry_after)
            code = reply.status_code
            error = _error_body(reply.status_code, reply.message, reply.error_code)
            payload = json.dumps(error).encode("utf-8")
        elif reply.kind == "malformed":
            payload = _MALFORMED_BODY
        elif reply.kind != "disconnect":
            try:
                payload = json.dumps(_completion(reply, body, owner.model, n)).encode("utf-8")
            except Exception as exc:  # report instead of dropping the connection
                message = f"fake server could not build the reply: {type(exc).__name__}: {exc}"
                code, payload = 500, json.dumps(_error_body(500, message)).encode("utf-8")
        self._wait_until_due(owner.latency + reply.latency)
        if reply.kind == "disconnect":
            self._disconnect()
        else:
            self._send(code, payload, headers)

    def _disconnect(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _model_object(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "fake"}


class FakeOpenAIServer:
    """A fake OpenAI chat-completions server on ``127.0.0.1`` in a background thread.

    Each ``POST /v1/chat/completions`` consumes one reply queued with :meth:`script`
    (first in, first out); when the queue is empty the ``default`` reply is used. Requests
    whose body is not a JSON object, or that ask for ``"stream": true``, get a 400 error and
    consume nothing. All requests are recorded.

    Attributes:
        model: Model name reported when the request names none, and by ``GET /v1/models``.
        latency: Seconds from a request's arrival to its response (a reply's own latency
            is added; the server's work happens within it).
        default: Reply used when the script queue is empty (``None`` means
            :meth:`Reply.auto`), or a callable that receives the request body and returns one.
    """

    def __init__(
        self,
        *,
        model: str = "fake-model",
        latency: float = 0.0,
        default: Reply | Callable[[dict[str, Any]], Reply] | None = None,
        on_answer: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        """Configure the server; nothing listens until :meth:`start`.

        Args:
            model: Model name used when a request does not name one.
            latency: Seconds from a request's arrival to its response.
            default: Reply (or callable producing one from the request body) used when no
                scripted reply is queued; ``None`` means :meth:`Reply.auto`.
            on_answer: Called with each request once its response is written (its
                ``received_at`` and ``answered_at`` set), on the request's thread.

        Raises:
            ValueError: If ``latency`` is negative or not finite.
        """
        if latency < 0 or not math.isfinite(latency):
            raise ValueError(f"latency must be a finite number >= 0, got {latency!r}")
        self.model = model
        self.latency = latency
        self.default = default
        self.on_answer = on_answer
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._request_ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._stopped = False
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind ``127.0.0.1`` on a free port and serve in a daemon thread.

        Calling it on a running server does nothing.

        Returns:
            ``self``, so that ``server = FakeOpenAIServer().start()`` works.
        """
        with self._lock:
            if self._httpd is not None:
                return self
            httpd = _HTTPServer(self)
            thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"fake-openai-{httpd.server_port}",
                daemon=True,
            )
            self._httpd, self._thread, self._port = httpd, thread, httpd.server_port
            self._stopped = False
        thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and join the thread. Idempotent."""
        with self._lock:
            httpd, thread = self._httpd, self._thread
            self._httpd = self._thread = None
            self._stopped = True
            connections = list(self._connections)
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if thread is not None:
            thread.join(timeout=5.0)

    def __enter__(self) -> FakeOpenAIServer:
        """Start the server.

        Returns:
            The running server.
        """
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        """Stop the server."""
        self.stop()

    # -- addresses --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port the server listens (or last listened) on.

        Raises:
            RuntimeError: If the server has never been started.
        """
        if self._port is None:
            raise RuntimeError("FakeOpenAIServer has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``, ``"http://127.0.0.1:PORT/v1"``.

        Raises:
            RuntimeError: If the server has never been started.
        """
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection -----------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Append replies to the FIFO queue; each chat request consumes one.

        Args:
            *replies: The replies, in the order in which requests should receive them.

        Raises:
            TypeError: If an argument is not a :class:`Reply`.
        """
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"expected a Reply, got {type(reply).__name__}")
        with self._lock:
            self._queue.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of all recorded requests, oldest first."""
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded ``POST .../chat/completions`` requests, oldest first.

        Returns:
            A new list.
        """
        return [r for r in self.requests if r.method == "POST" and _is_chat_route(r.path)]

    @property
    def request_count(self) -> int:
        """The number of chat-completion requests received."""
        return len(self.chat_requests())

    def reset(self) -> None:
        """Clear the script queue and the recorded requests."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    # -- used by the handler ----------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _next_request_id(self) -> int:
        with self._lock:
            return next(self._request_ids)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            default = self.default
        if default is None:
            return Reply.auto()
        if isinstance(default, Reply):
            return default
        reply = default(body)
        if not isinstance(reply, Reply):
            raise TypeError(f"default callable returned {type(reply).__name__}, not a Reply")
        return reply

    def _track(self, conn: socket.socket) -> bool:
        # A connection accepted just before stop() took its list of connections registers
        # here after it: it is shut at once and none of its requests is read, so no call
        # is answered (nor recorded) once stop() has begun.
        with self._lock:
            if not self._stopped:
                self._connections.add(conn)
                return True
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        return False

    def _untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed): a real refused connection."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

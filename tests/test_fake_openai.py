"""Tests for the fake OpenAI chat-completions server, driven through the official client."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from enum import StrEnum
from typing import Any, Literal

import openai
import pytest
from pydantic import BaseModel, Field

from benchsmith.testing.fake_openai import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    example_from_schema,
)

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "hello"}]


class Color(StrEnum):
    """A colour enum (emitted as a ``$defs`` entry with ``enum``)."""

    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    """A nested model."""

    city: str = Field(min_length=2)
    zip_code: int | None


class Person(BaseModel):
    """The tool arguments the fake must satisfy."""

    name: str
    role: Literal["admin", "user"]
    color: Color
    address: Address
    tags: list[str] = Field(min_length=1)
    age: int = Field(ge=3)
    score: float = Field(gt=0.5)
    nickname: str | None = None


def _tool(name: str, model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": model.model_json_schema()},
    }


@pytest.fixture()
def server() -> Iterator[FakeOpenAIServer]:
    """A running fake server, stopped after the test."""
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture()
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    """An official client pointed at the fake, without retries."""
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=5.0) as cli:
        yield cli


def _chat(client: openai.OpenAI, **kwargs: Any) -> Any:
    return client.chat.completions.create(model="gpt-test", messages=MESSAGES, **kwargs)


# -- auto replies ------------------------------------------------------------------------------


def test_auto_tool_call_validates_against_sent_schema(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """The auto tool call names the chosen function and its arguments validate."""

    class Other(BaseModel):
        x: int

    tools = [_tool("other", Other), _tool("record_person", Person)]
    choice = {"type": "function", "function": {"name": "record_person"}}
    completion = _chat(client, tools=tools, tool_choice=choice)

    choice0 = completion.choices[0]
    assert choice0.finish_reason == "tool_calls"
    assert choice0.message.content is None
    assert choice0.message.tool_calls is not None and len(choice0.message.tool_calls) == 1
    call = choice0.message.tool_calls[0]
    assert call.type == "function"
    assert call.id.startswith("call_")
    assert call.function.name == "record_person"
    person = Person.model_validate_json(call.function.arguments)
    assert person.role in ("admin", "user")
    assert len(person.tags) >= 1
    assert person.age >= 3
    assert person.score > 0.5
    assert len(person.address.city) >= 2
    assert completion.id.startswith("chatcmpl-fake-")
    assert completion.model == "gpt-test"
    assert completion.usage is not None
    usage = completion.usage
    assert usage.prompt_tokens == max(1, len(json.dumps(MESSAGES)) // 4)
    assert usage.completion_tokens == max(1, len(call.function.arguments) // 4)
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_auto_defaults_to_first_tool_and_plain_text(client: openai.OpenAI) -> None:
    """Without tool_choice the first tool is called; without tools the answer is "ok"."""
    first = _chat(client, tools=[_tool("first", Address), _tool("second", Person)])
    call = first.choices[0].message.tool_calls[0]
    assert call.function.name == "first"
    Address.model_validate_json(call.function.arguments)

    plain = _chat(client)
    assert plain.choices[0].message.content == "ok"
    assert plain.choices[0].message.tool_calls is None
    assert plain.choices[0].finish_reason == "stop"


def test_auto_structured_output_parses(client: openai.OpenAI) -> None:
    """A json_schema response_format gets a schema-valid JSON text (client-side parse)."""
    completion = client.chat.completions.parse(
        model="gpt-test", messages=MESSAGES, response_format=Person
    )
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Person)
    assert parsed.age >= 3

    json_object = _chat(client, response_format={"type": "json_object"})
    assert json_object.choices[0].message.content == "{}"


def test_tool_call_name_and_verbatim_arguments(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """Explicit tool calls: dict arguments are dumped, strings go verbatim."""
    server.script(
        Reply.tool_call({"a": 1}),
        Reply.tool_call('{"a": ', name="explicit"),
    )
    tools = [_tool("first", Address), _tool("second", Person)]
    one = _chat(
        client, tools=tools, tool_choice={"type": "function", "function": {"name": "second"}}
    )
    call = one.choices[0].message.tool_calls[0]
    assert call.function.name == "second"
    assert json.loads(call.function.arguments) == {"a": 1}

    two = _chat(client, tools=tools)
    call = two.choices[0].message.tool_calls[0]
    assert call.function.name == "explicit"
    assert call.function.arguments == '{"a": '
    assert two.choices[0].finish_reason == "tool_calls"


# -- example_from_schema -------------------------------------------------------------------------


def test_example_from_schema_refs_anyof_enum_minitems() -> None:
    """Refs, nullable anyOf, enums, consts, bounds and minItems are honoured."""
    schema = {
        "$defs": {
            "Kind": {"enum": ["b", "a"], "type": "string"},
            "Item": {
                "type": "object",
                "properties": {"k": {"$ref": "#/$defs/Kind"}, "n": {"type": "integer"}},
                "required": ["k", "n"],
            },
        },
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 2},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "string", "minLength": 3}]},
            "fixed": {"const": "c"},
            "level": {"type": "integer", "exclusiveMinimum": 4, "maximum": 9},
            "ratio": {"type": "number", "minimum": 1.5},
            "flag": {"type": ["null", "boolean"]},
            "empty": {"type": "array"},
            "optional": {"type": "string"},
        },
        "required": ["items", "maybe", "fixed", "level", "ratio", "flag", "empty"],
    }
    assert example_from_schema(schema) == {
        "items": [{"k": "b", "n": 0}, {"k": "b", "n": 0}],
        "maybe": "xxx",
        "fixed": "c",
        "level": 5,
        "ratio": 1.5,
        "flag": False,
        "empty": [],
    }


def test_example_from_schema_pydantic_models_and_recursion() -> None:
    """Examples of pydantic schemas validate, and recursive refs terminate."""
    assert Person.model_validate(example_from_schema(Person.model_json_schema()))

    class Node(BaseModel):
        value: int = Field(ge=1)
        child: Node | None

    example = example_from_schema(Node.model_json_schema())
    assert Node.model_validate(example).value == 1
    assert example_from_schema(
        {
            "allOf": [{"$ref": "#/definitions/A"}],
            "definitions": {
                "A": {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
            },
        }
    ) == {"a": False}
    assert example_from_schema({"$ref": "#/$defs/Loop", "$defs": {"Loop": {"$ref": "#"}}}) is None


# -- error classes -----------------------------------------------------------------------------


def test_rate_limit_with_retry_after(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """429 -> RateLimitError with Retry-After and retry-after-ms headers."""
    server.script(Reply.status(429, retry_after=2), Reply.status(429, retry_after=1.5))
    with pytest.raises(openai.RateLimitError) as info:
        _chat(client)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.response.headers["retry-after-ms"] == "2000"
    assert isinstance(info.value.body, dict)
    assert info.value.body["type"] == "rate_limit_error"

    with pytest.raises(openai.RateLimitError) as info:
        _chat(client)
    assert info.value.response.headers["retry-after"] == "1.5"
    assert info.value.response.headers["retry-after-ms"] == "1500"


def test_insufficient_quota(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """429 insufficient_quota -> RateLimitError whose body code is insufficient_quota."""
    server.script(Reply.status(429, error_code="insufficient_quota"))
    with pytest.raises(openai.RateLimitError) as info:
        _chat(client)
    assert info.value.code == "insufficient_quota"
    assert isinstance(info.value.body, dict)
    assert info.value.body["code"] == "insufficient_quota"
    assert info.value.body["type"] == "insufficient_quota"
    assert "retry-after" not in info.value.response.headers


@pytest.mark.parametrize(
    ("code", "exc_type", "error_type"),
    [
        (400, openai.BadRequestError, "invalid_request_error"),
        (401, openai.AuthenticationError, "authentication_error"),
        (404, openai.NotFoundError, "invalid_request_error"),
        (500, openai.InternalServerError, "server_error"),
        (503, openai.InternalServerError, "server_error"),
    ],
)
def test_status_errors(
    server: FakeOpenAIServer,
    client: openai.OpenAI,
    code: int,
    exc_type: type[openai.APIStatusError],
    error_type: str,
) -> None:
    """Each HTTP error maps onto the client's exception class, with an OpenAI error body."""
    server.script(Reply.status(code, message="custom message", error_code="some_code"))
    with pytest.raises(exc_type) as info:
        _chat(client)
    assert info.value.status_code == code
    assert info.value.body == {
        "message": "custom message",
        "type": error_type,
        "param": None,
        "code": "some_code",
    }
    assert info.value.message.endswith("custom message")


def test_retries_follow_retry_after(server: FakeOpenAIServer) -> None:
    """The client's own retry loop honours retry-after-ms and then succeeds."""
    server.script(Reply.status(500, retry_after=0.05), Reply.text("second time lucky"))
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=2) as cli:
        completion = _chat(cli)
    assert completion.choices[0].message.content == "second time lucky"
    assert server.request_count == 2


def test_malformed_json_raises_json_decode_error(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """A truncated JSON body surfaces as json.JSONDecodeError from the client."""
    server.script(Reply.malformed())
    with pytest.raises(json.JSONDecodeError):
        _chat(client)
    # The connection stays usable afterwards.
    assert _chat(client).choices[0].message.content == "ok"


def test_disconnect_raises_connection_error(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """Dropping the connection surfaces as APIConnectionError (not a timeout)."""
    server.script(Reply.disconnect())
    with pytest.raises(openai.APIConnectionError) as info:
        _chat(client)
    assert not isinstance(info.value, openai.APITimeoutError)
    assert _chat(client).choices[0].message.content == "ok"


def test_refusal(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Refusals have content None and the refusal text."""
    server.script(Reply.refusal("no way"), Reply.refusal())
    message = _chat(client).choices[0].message
    assert message.refusal == "no way"
    assert message.content is None
    assert message.tool_calls is None

    parsed = (
        client.chat.completions.parse(model="gpt-test", messages=MESSAGES, response_format=Person)
        .choices[0]
        .message
    )
    assert parsed.refusal == "I'm sorry, but I can't help with that."
    assert parsed.parsed is None


def test_truncated(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Truncated replies have finish_reason length and cut-off content."""
    server.script(Reply.truncated(), Reply.truncated())
    with_tools = _chat(client, tools=[_tool("record_person", Person)]).choices[0]
    assert with_tools.finish_reason == "length"
    arguments = with_tools.message.tool_calls[0].function.arguments
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)

    text = _chat(client).choices[0]
    assert text.finish_reason == "length"
    assert text.message.content == "The answer is"
    assert text.message.tool_calls is None


def test_empty(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Empty replies have content "" and no tool calls."""
    server.script(Reply.empty())
    choice = _chat(client, tools=[_tool("record_person", Person)]).choices[0]
    assert choice.message.content == ""
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"


def test_usage_override(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """A reply can override the reported token usage."""
    server.script(Reply.text("hi", usage={"prompt_tokens": 10, "completion_tokens": 5}))
    usage = _chat(client).usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (10, 5, 15)


# -- scripting, recording, latency, concurrency --------------------------------------------------


def test_script_is_fifo_then_default() -> None:
    """Scripted replies are consumed in order; then the default applies."""
    with FakeOpenAIServer(default=Reply.text("fallback")) as srv:
        with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
            srv.script(Reply.text("one"), Reply.text("two"))
            srv.script(Reply.text("three"))
            answers = [_chat(cli).choices[0].message.content for _ in range(5)]
    assert answers == ["one", "two", "three", "fallback", "fallback"]


def test_default_callable_and_reset() -> None:
    """A callable default sees the request body; reset clears queue and history."""
    seen: list[dict[str, Any]] = []

    def echo(body: dict[str, Any]) -> Reply:
        seen.append(body)
        return Reply.text(body["messages"][-1]["content"].upper())

    with FakeOpenAIServer(default=echo) as srv:
        with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
            assert _chat(cli).choices[0].message.content == "HELLO"
            srv.script(Reply.text("never used"))
            srv.reset()
            assert srv.requests == [] and srv.request_count == 0
            assert _chat(cli).choices[0].message.content == "HELLO"
    assert len(seen) == 2 and seen[0]["model"] == "gpt-test"


def test_request_recording(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Bodies are parsed, header names lower-cased, and chat requests counted."""
    before = time.monotonic()
    _chat(client, temperature=0.0, extra_headers={"X-Custom-Header": "Yes"})
    client.models.list()
    _chat(client)

    assert server.request_count == 2
    assert len(server.requests) == 3
    chats = server.chat_requests()
    assert all(isinstance(r, RecordedRequest) for r in chats)
    first = chats[0]
    assert first.method == "POST"
    assert first.path == "/v1/chat/completions"
    assert first.body == {"model": "gpt-test", "messages": MESSAGES, "temperature": 0.0}
    assert first.headers["x-custom-header"] == "Yes"
    assert first.headers["authorization"] == "Bearer test"
    assert all(name == name.lower() for name in first.headers)
    assert before <= first.received_at <= chats[1].received_at
    assert server.requests[1].method == "GET" and server.requests[1].body is None


def test_latency_is_observed() -> None:
    """Server latency delays every reply; reply latency adds to it."""
    with FakeOpenAIServer(latency=0.3) as srv:
        with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
            _chat(cli)  # warm the connection pool
            start = time.monotonic()
            _chat(cli)
            assert time.monotonic() - start >= 0.3
            srv.script(Reply.text("slow", latency=0.1))
            start = time.monotonic()
            assert _chat(cli).choices[0].message.content == "slow"
            assert time.monotonic() - start >= 0.4


def test_the_servers_own_work_happens_within_the_latency() -> None:
    """A reply is due ``latency`` after the request arrived, however long it took to make.

    The build benchmark's ideal counts ``latency`` a call: a fake that slept it on top of
    its own work (parsing, the default callable) would pass its overhead off as the
    client's. ``on_answer`` sees each request's arrival and answer times.
    """
    answered: list[RecordedRequest] = []

    def slow_default(body: dict[str, Any]) -> Reply:
        time.sleep(0.15)  # the server's own work, within the 0.3 s
        return Reply.text("made")

    with FakeOpenAIServer(latency=0.3, default=slow_default, on_answer=answered.append) as srv:
        with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
            _chat(cli)  # warm the connection pool
            start = time.monotonic()
            assert _chat(cli).choices[0].message.content == "made"
            elapsed = time.monotonic() - start
    assert 0.3 <= elapsed < 0.42  # not 0.45: the 0.15 s of work were inside the 0.3 s
    assert len(answered) == 2
    for request in answered:
        assert request.answered_at is not None
        assert 0.3 <= request.answered_at - request.received_at < 0.33


def test_concurrent_requests() -> None:
    """Eight concurrent requests are all answered, in parallel."""
    with FakeOpenAIServer(latency=0.2) as srv:
        srv.script(*(Reply.text(f"r{i}") for i in range(8)))
        with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
            results: list[str] = []
            errors: list[BaseException] = []
            lock = threading.Lock()

            def worker() -> None:
                try:
                    content = _chat(cli).choices[0].message.content
                    with lock:
                        results.append(content)
                except BaseException as exc:  # noqa: BLE001 - reported below
                    with lock:
                        errors.append(exc)

            threads = [threading.Thread(target=worker) for _ in range(8)]
            start = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=10)
            elapsed = time.monotonic() - start
    assert errors == []
    assert sorted(results) == [f"r{i}" for i in range(8)]
    assert srv.request_count == 8
    assert elapsed < 1.2  # serial handling would take >= 1.6 s


# -- protocol edges --------------------------------------------------------------------------


def test_streaming_is_refused(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """stream=True gets a 400 and does not consume a scripted reply."""
    server.script(Reply.text("kept"))
    with pytest.raises(openai.BadRequestError) as info:
        _chat(client, stream=True)
    assert isinstance(info.value.body, dict)
    assert info.value.body["message"] == "fake server does not support streaming"
    assert _chat(client).choices[0].message.content == "kept"


def _raw(server: FakeOpenAIServer, method: str, path: str, data: bytes | None = None) -> Any:
    url = f"http://127.0.0.1:{server.port}{path}"
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_unknown_path_is_404(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Unknown routes return 404 with the OpenAI error body."""
    code, body = _raw(server, "GET", "/v1/nope")
    assert code == 404
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["param"] is None
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="m", input="x")


def test_non_json_body_is_400(server: FakeOpenAIServer) -> None:
    """A body that is not JSON gets a 400 error body."""
    code, body = _raw(server, "POST", "/v1/chat/completions", b"not json")
    assert code == 400
    assert body["error"]["type"] == "invalid_request_error"
    assert server.request_count == 1 and server.chat_requests()[0].body is None


def test_models_and_short_chat_route(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """GET /v1/models lists the server model; /chat/completions also works."""
    models = client.models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert models.data[0].owned_by == "fake"
    code, body = _raw(server, "GET", "/v1/models")
    assert (code, body) == (
        200,
        {
            "object": "list",
            "data": [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}],
        },
    )
    payload = json.dumps({"messages": MESSAGES}).encode()
    code, body = _raw(server, "POST", "/chat/completions", payload)
    assert code == 200
    assert body["model"] == "fake-model"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "ok"}


def test_lifecycle() -> None:
    """start() returns self, stop() is idempotent, and base_url needs a started server."""
    srv = FakeOpenAIServer()
    with pytest.raises(RuntimeError):
        _ = srv.base_url
    assert srv.start() is srv
    assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
    with openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0) as cli:
        assert _chat(cli).choices[0].message.content == "ok"
        start = time.monotonic()
        srv.stop()
        srv.stop()
        assert time.monotonic() - start < 2.0
        with pytest.raises(openai.APIConnectionError):
            _chat(cli)


def test_a_connection_accepted_as_the_server_stops_is_not_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A connection accepted just before stop() but registered after it gets no answer."""
    from benchsmith.testing import fake_openai

    entered, release = threading.Event(), threading.Event()
    setup = fake_openai._Handler.setup

    def slow_setup(handler: Any) -> None:
        entered.set()
        release.wait(5.0)
        setup(handler)

    monkeypatch.setattr(fake_openai._Handler, "setup", slow_setup)
    srv = FakeOpenAIServer().start()
    body = json.dumps({"model": "m", "messages": MESSAGES}).encode()
    head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5.0) as sock:
        sock.sendall(head.encode() + body)
        assert entered.wait(5.0)  # accepted, its handler not yet registered
        srv.stop()
        release.set()
        try:
            answer = sock.recv(4096)
        except ConnectionResetError:
            answer = b""
    assert answer == b""
    assert srv.request_count == 0


def test_langchain_chat_openai(server: FakeOpenAIServer) -> None:
    """langchain_openai.ChatOpenAI parses the fake's replies and maps its errors."""
    langchain_openai = pytest.importorskip("langchain_openai")
    llm = langchain_openai.ChatOpenAI(
        model="gpt-test", base_url=server.base_url, api_key="test", max_retries=0, timeout=5
    )
    assert llm.invoke("hi").content == "ok"
    for method in ("function_calling", "json_schema"):
        result = llm.with_structured_output(Person, method=method).invoke("hi")
        assert isinstance(result, Person) and result.age >= 3
    server.script(Reply.status(429, retry_after=1))
    with pytest.raises(openai.RateLimitError):
        llm.invoke("hi")
    assert server.chat_requests()[-1].body["stream"] is False

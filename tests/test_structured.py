"""Reply classification and bounded retries of structured output."""

import json
from typing import Literal

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from benchsmith.errors import StructuredOutputError
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.llm.structured import classify_reply, structured_call
from benchsmith.testing.fake_chat import ScriptedChatModel
from benchsmith.testing.fake_openai import Reply
from benchsmith.testing.runtime import endpoint_runtime as make_runtime


class Verdict(BaseModel):
    label: Literal["valid", "invalid"] = Field(description="The verdict.")
    reason: str = Field(max_length=60, description="Why, in a few words.")
    score: int = Field(ge=1, le=5, description="Confidence from 1 to 5.")


GOOD = {"label": "valid", "reason": "fine", "score": 4}
PROMPT = [("system", "Judge the item."), ("user", "Item: 2+2=4")]


def test_ok_first_time_through_the_real_client(fake_server):
    fake_server.script(Reply.tool_call(GOOD))
    result = structured_call(make_runtime(fake_server.base_url).for_role("judge"), Verdict, PROMPT)
    assert result.value == Verdict(**GOOD)
    assert (result.attempts, result.failures, result.method) == (1, [], "function_calling")
    body = fake_server.chat_requests()[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Verdict"}}
    assert body["tools"][0]["function"]["parameters"]["properties"]["label"]["enum"] == [
        "valid",
        "invalid",
    ]


@pytest.mark.parametrize(
    "bad,kind,error_part",
    [
        (Reply.tool_call('{"label": "valid", "reason": '), "invalid", "not valid JSON"),
        (
            Reply.tool_call({**GOOD, "score": 9}),
            "invalid",
            "score: Input should be less than or equal to 5",
        ),
        (
            Reply.tool_call({**GOOD, "label": "maybe"}),
            "invalid",
            "label: Input should be 'valid' or 'invalid'",
        ),
        (Reply.refusal("I can't judge that."), "refusal", "I can't judge that."),
        (Reply.text("I'm sorry, I cannot help with this."), "refusal", "declined"),
        (Reply.truncated(), "truncated", "cut off at the token limit"),
        (Reply.empty(), "empty", "empty"),
        (Reply.text("valid, probably"), "invalid", "not valid JSON"),
    ],
)
def test_each_failure_class_is_classified_recorded_and_retried(
    tmp_path, fake_server, bad, kind, error_part
):
    fake_server.script(bad, Reply.tool_call(GOOD))
    runtime = make_runtime(fake_server.base_url, run_dir=tmp_path)
    result = structured_call(runtime.for_role("judge"), Verdict, PROMPT)
    assert result.value == Verdict(**GOOD)
    assert result.attempts == 2
    assert fake_server.request_count == 2
    (failure,) = result.failures
    assert failure.kind == kind
    assert error_part in failure.error
    # The reason is shown to the model on the retry, after its own failed reply as plain text.
    retry_messages = fake_server.chat_requests()[1].body["messages"]
    assert retry_messages[-1]["role"] == "user"
    assert failure.error in retry_messages[-1]["content"]
    assert retry_messages[-2]["role"] == "assistant"
    assert "tool_calls" not in retry_messages[-2]
    # The raw text of the failure is in the run records.
    lines = [json.loads(x) for x in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    (recorded,) = [x for x in lines if x["kind"] == "structured_failure"]
    assert recorded["class"] == kind
    assert recorded["raw"] == failure.raw
    if kind != "empty":
        assert failure.raw


def test_attempts_are_bounded_and_every_failure_is_attached(fake_server):
    fake_server.script(
        Reply.empty(), Reply.truncated(), Reply.tool_call({"label": "x"}), Reply.tool_call(GOOD)
    )
    runtime = make_runtime(fake_server.base_url, max_attempts=3)
    with pytest.raises(StructuredOutputError) as info:
        structured_call(runtime.for_role("judge"), Verdict, PROMPT)
    assert [f.kind for f in info.value.failures] == ["empty", "truncated", "invalid"]
    assert fake_server.request_count == 3
    assert "judge model" in str(info.value) and "Verdict" in str(info.value)


def test_json_schema_method_and_refusal_shape(fake_server):
    fake_server.script(Reply.refusal("No."), Reply.text(json.dumps(GOOD)))
    runtime = make_runtime(fake_server.base_url, structured_method="json_schema")
    result = structured_call(runtime.for_role("judge"), Verdict, PROMPT)
    assert result.method == "json_schema"
    assert [f.kind for f in result.failures] == ["refusal"]
    body = fake_server.chat_requests()[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert "tools" not in body


def test_json_schema_truncation_raised_by_the_client_is_classified(fake_server):
    fake_server.script(Reply.truncated(), Reply.text(json.dumps(GOOD)))
    runtime = make_runtime(fake_server.base_url, structured_method="json_schema")
    result = structured_call(runtime.for_role("judge"), Verdict, PROMPT)
    assert [f.kind for f in result.failures] == ["truncated"]


def test_json_mode_puts_the_schema_in_a_system_message(fake_server):
    fake_server.script(Reply.text("```json\n" + json.dumps(GOOD) + "\n```"))
    runtime = make_runtime(fake_server.base_url, structured_method="json_mode")
    assert structured_call(runtime.for_role("judge"), Verdict, PROMPT).value.score == 4
    body = fake_server.chat_requests()[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert '"score"' in body["messages"][0]["content"]


def test_json_grammar_sends_the_schema_beside_a_plain_prompt(fake_server):
    # llama.cpp's json_object with a schema: the server compiles it into a grammar, and the
    # messages are the prompt alone (a function's definition would go before them).
    fake_server.script(Reply.text(json.dumps(GOOD)))
    runtime = make_runtime(fake_server.base_url, structured_method="json_grammar")
    assert structured_call(runtime.for_role("judge"), Verdict, PROMPT).value.score == 4
    body = fake_server.chat_requests()[0].body
    assert body["response_format"] == {
        "type": "json_object", "schema": Verdict.model_json_schema()
    }  # fmt: skip
    assert "tools" not in body
    assert [m["content"] for m in body["messages"]] == [c for _, c in PROMPT]


def test_classify_reply_cases():
    assert classify_reply(AIMessage(content=json.dumps(GOOD)), Verdict).kind == "ok"
    wrong_tool = AIMessage(content="", tool_calls=[{"name": "Other", "args": GOOD, "id": "1"}])
    assert "instead of Verdict" in classify_reply(wrong_tool, Verdict).error
    assert classify_reply(AIMessage(content="  "), Verdict).kind == "empty"
    # A raw newline inside a string (the 1.5B translating a bulleted list) is read as one.
    raw = '{"label": "valid", "reason": "- one\n- two", "score": 4}'
    assert classify_reply(AIMessage(content=raw), Verdict).value.reason == "- one\n- two"
    assert classify_reply(AIMessage(content='{"label": "valid",'), Verdict).kind == "invalid"


def _scripted_runtime(fake: ScriptedChatModel) -> LLMRuntime:
    spec = parse_model_spec("local", env={})
    return LLMRuntime(
        models={r: ResolvedModel(r, spec, "test") for r in ROLES},
        records=RunRecords(None),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )


def test_scripted_fake_chat_model_drives_the_same_path():
    fake = ScriptedChatModel(
        script=[{"label": "invalid", "reason": "r", "score": 9}, Verdict(**GOOD)]
    )
    runtime = _scripted_runtime(fake)
    result = runtime.for_role("verification").structured(Verdict, PROMPT)
    assert result == Verdict(**GOOD)
    assert len(fake.calls) == 2
    assert fake.calls[0]["kwargs"]["tool_choice"]["function"]["name"] == "Verdict"
    usage = runtime.ledger.by_role["verification"]
    assert usage.calls == 2 and usage.input_tokens > 0 and usage.cost_usd == 0.0


def _ours_and_plain(fake_server):
    """benchsmith's ChatOpenAI (openai_chat_factory) and a plain one, alike otherwise."""
    from langchain_openai import ChatOpenAI

    from benchsmith.llm.client import openai_chat_factory

    spec = parse_model_spec(f"fake-model@{fake_server.base_url}")
    ours = openai_chat_factory(
        spec,
        base_url=fake_server.base_url,
        api_key=None,
        timeout=10,
        temperature=0.2,
        max_tokens=64,
    )
    plain = ChatOpenAI(
        model="fake-model",
        base_url=fake_server.base_url,
        api_key="not-needed",
        max_retries=0,
        timeout=10,
        temperature=0.2,
        max_tokens=64,
        use_responses_api=False,
    )
    return ours, plain


@pytest.mark.parametrize("method", ["function_calling", "json_schema", "json_mode", "json_grammar"])
def test_the_json_body_client_sends_what_the_sdk_would(fake_server, method):
    # JsonBodyCompletions skips the SDK's per-request transformation: the body must be the
    # same JSON as the unwrapped ChatOpenAI's, for every structured method and plain text.
    from benchsmith.llm.client import JsonBodyCompletions
    from benchsmith.llm.structured import request_params

    ours, plain = _ours_and_plain(fake_server)
    assert isinstance(ours.client, JsonBodyCompletions)
    params = request_params(Verdict, method)
    for chat in (ours, plain):
        fake_server.script(Reply.tool_call(GOOD), Reply.text("plain"))
        chat.invoke(PROMPT, **params)
        chat.invoke([("user", "Say hi — ünïcode.")])
    bodies = [r.body for r in fake_server.chat_requests()]
    assert bodies[0] == bodies[2] and bodies[1] == bodies[3]
    assert bodies[0]["messages"][1]["content"] == "Item: 2+2=4"
    assert any(k in bodies[0] for k in ("tools", "response_format"))


def test_replies_reach_langchain_as_the_json_the_endpoint_sent(fake_server):
    # JsonReply hands ChatOpenAI the reply's JSON object instead of the SDK's typed copy
    # (which langchain dumps back to a dict): the message it makes is the same as the
    # unwrapped client's, and a body that is not JSON still gets the SDK's own handling.
    from benchsmith.llm.client import DirectReply, JsonReply
    from benchsmith.llm.structured import request_params

    ours, plain = _ours_and_plain(fake_server)
    params = request_params(Verdict, "function_calling")
    messages = []
    for chat in (ours, plain):
        fake_server.script(
            Reply.tool_call(GOOD, usage={"prompt_tokens": 7, "completion_tokens": 3})
        )
        messages.append(chat.invoke(PROMPT, **params))
    mine, theirs = messages
    # The fake numbers its calls: call_1 then call_2; everything else is the same.
    assert [c["id"] for c in mine.tool_calls + theirs.tool_calls] == ["call_1", "call_2"]
    assert [{**c, "id": ""} for c in mine.tool_calls] == [
        {**c, "id": ""} for c in theirs.tool_calls
    ]
    assert mine.tool_calls[0]["args"] == GOOD
    assert mine.usage_metadata == theirs.usage_metadata
    assert mine.usage_metadata["input_tokens"] == 7
    for key in ("finish_reason", "model_name"):
        assert mine.response_metadata[key] == theirs.response_metadata[key]
    # The typed copy adds the fields the endpoint left out, as None; the counts are the same.
    theirs_usage = {k: v for k, v in theirs.response_metadata["token_usage"].items() if v}
    assert mine.response_metadata["token_usage"] == theirs_usage

    # Sent by DirectChatRequests, or by the SDK (JsonReply) when a request needs its layer.
    for extra, kind in (({}, DirectReply), ({"extra_headers": {"X-Test": "1"}}, JsonReply)):
        fake_server.script(Reply.text("hi"))
        reply = ours.client.with_raw_response.create(
            model="fake-model", messages=[{"role": "user", "content": "hi"}], **extra
        )
        assert isinstance(reply, kind)
        parsed = reply.parse()
        assert isinstance(parsed, dict) and parsed["choices"][0]["message"]["content"] == "hi"
        assert reply.http_response.status_code == 200
        assert reply.headers["content-type"].startswith("application/json")
    assert fake_server.requests[-1].headers["x-test"] == "1"

    # A body that is not JSON is left to the SDK's parse: the same error as the plain client.
    errors = []
    for chat in (ours, plain):
        fake_server.script(Reply.malformed())
        with pytest.raises(Exception) as caught:
            chat.invoke(PROMPT, **params)
        errors.append((type(caught.value), str(caught.value)[:60]))
    assert errors[0] == errors[1]


def test_direct_requests_carry_the_sdk_headers_and_raise_the_sdk_errors(fake_server):
    # DirectChatRequests builds the request the SDK would (URL, key, user agent, platform
    # headers, timeout) and turns failures into the SDK's own exceptions, which the retry
    # policy classifies: compared with a plain ChatOpenAI reply by reply.
    import openai

    from benchsmith.llm.client import DirectChatRequests

    ours, plain = _ours_and_plain(fake_server)
    assert ours.client._direct is not None
    heads = []
    for chat in (ours, plain):
        fake_server.script(Reply.text("hi"))
        chat.invoke([("user", "hi")])
        heads.append(fake_server.requests[-1])
    assert heads[0].path == heads[1].path == "/v1/chat/completions"
    # The SDK also sends its own marker of a raw-response call (x-stainless-raw-response).
    skip = {"content-length", "x-stainless-read-timeout", "x-stainless-raw-response"}
    mine = {k: v for k, v in heads[0].headers.items() if k not in skip}
    theirs = {k: v for k, v in heads[1].headers.items() if k not in skip}
    assert mine == theirs and mine["authorization"] == "Bearer not-needed"
    assert heads[0].headers["x-stainless-read-timeout"] == "10.0"

    replies = [
        Reply.status(429, message="slow down", retry_after=2),
        Reply.status(400, message="bad schema"),
        Reply.status(503),
        Reply.disconnect(),
    ]
    for reply in replies:
        caught = []
        for chat in (ours, plain):
            fake_server.script(reply)
            with pytest.raises(openai.APIError) as error:
                chat.invoke([("user", "hi")])
            caught.append(error.value)
        assert type(caught[0]) is type(caught[1]), reply
        assert str(caught[0]) == str(caught[1])
        assert getattr(caught[0], "body", None) == getattr(caught[1], "body", None)
    assert isinstance(caught[0], openai.APIConnectionError)

    # A timeout: the request's own (as the embedded model's calls pass it) is the SDK's error.
    fake_server.script(Reply.text("late", latency=1.0))
    with pytest.raises(openai.APITimeoutError):
        ours.invoke([("user", "hi")], timeout=0.2)

    # An endpoint that is not there: the SDK's connection error, naming nothing else.
    gone = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    sender = DirectChatRequests.for_client(gone)
    with pytest.raises(openai.APIConnectionError):
        sender.send({"model": "m", "messages": []})

    # Clients whose auth or URL the SDK computes per request keep the SDK's path.
    assert (
        DirectChatRequests.for_client(
            openai.AzureOpenAI(api_key="k", api_version="2024-06-01", azure_endpoint="http://x")
        )
        is None
    )
    assert (
        DirectChatRequests.for_client(
            openai.OpenAI(base_url="http://x/v1", api_key="k", default_query={"v": "1"})
        )
        is None
    )


def test_chat_clients_share_one_verifying_tls_context(fake_server, monkeypatch):
    # Each client loaded the CA bundle for its sync and its async HTTP client (about 20 ms
    # each): one context, built once, serves every client, and it still verifies.
    import ssl

    from benchsmith.llm import client

    built = []
    inner = client._http_module().create_ssl_context

    def counted(*args, **kwargs):
        built.append(1)
        return inner(*args, **kwargs)

    client.shared_ssl_context.cache_clear()
    monkeypatch.setattr(client._http_module(), "create_ssl_context", counted)
    try:
        first, _plain = _ours_and_plain(fake_server)
        second, _plain = _ours_and_plain(fake_server)
        contexts = {
            id(chat.root_client._client._transport.inner._pool._ssl_context)
            for chat in (first, second)
        } | {
            id(chat.root_async_client._client._transport._pool._ssl_context)
            for chat in (first, second)
        }
        context = client.shared_ssl_context()
    finally:
        client.shared_ssl_context.cache_clear()
    assert len(built) == 1 and contexts == {id(context)}
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    fake_server.script(Reply.text("still answers"))
    assert first.invoke([("user", "hi")]).content == "still answers"


def test_a_scripted_fake_on_the_embedded_spec_starts_no_server(tmp_path, monkeypatch):
    import benchsmith.llm.local as local

    def refuse(*args, **kwargs):
        raise AssertionError("the embedded model's server was started for a scripted fake")

    monkeypatch.setattr(local, "local_server", refuse)
    fake = ScriptedChatModel(script=["ANSWER: A"], repeat_last=True)
    spec = parse_model_spec("local", env={})
    runtime = LLMRuntime(
        models={r: ResolvedModel(r, spec, "test") for r in ROLES},
        records=RunRecords(tmp_path / "runs"),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    assert runtime.chat_model(spec) is fake

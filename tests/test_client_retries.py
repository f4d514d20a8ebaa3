"""The retry and error rules, driven through the real ChatOpenAI client and the fake server."""

import threading
import time

import pytest

from benchsmith.errors import ModelRequestError, ModelUnavailableError
from benchsmith.llm.specs import parse_model_spec
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply, closed_port
from benchsmith.testing.runtime import endpoint_runtime as make_runtime

PROMPT = [("user", "Say ok.")]


def test_429_then_200_makes_two_requests_and_waits_retry_after(fake_server):
    fake_server.script(Reply.status(429, retry_after=1), Reply.text("ok"))
    model = make_runtime(fake_server.base_url).for_role("design")
    reply = model.invoke(PROMPT)
    assert reply.content == "ok"
    requests = fake_server.chat_requests()
    assert len(requests) == 2
    assert requests[1].received_at - requests[0].received_at >= 1.0
    record = model.runtime.records.lookup(next(iter(model.runtime.records._calls)))
    assert record["attempts"] == 2


@pytest.mark.parametrize(
    "reply,match",
    [
        (Reply.status(400, message="bad field"), r"refused the request \(400\): .*bad field"),
        (Reply.status(401), r"rejected the API key \(401\): set BENCHSMITH_API_KEY"),
        (Reply.status(404), r"has no model 'fake-model' \(404\)"),
        (Reply.status(429, error_code="insufficient_quota"), r"quota exhausted"),
    ],
)
def test_final_errors_make_one_request_and_fail_fast(fake_server, reply, match):
    fake_server.script(reply)
    model = make_runtime(fake_server.base_url).for_role("judge")
    started = time.monotonic()
    with pytest.raises(ModelRequestError, match=match):
        model.invoke(PROMPT)
    assert time.monotonic() - started < 1.0
    assert fake_server.request_count == 1
    assert model.runtime.ledger.by_role["judge"].failed_calls == 1


@pytest.mark.parametrize(
    "first",
    [
        Reply.status(500),
        Reply.status(503),
        Reply.malformed(),
        Reply.disconnect(),
        Reply.status(408),
    ],
)
def test_transient_errors_are_retried(fake_server, first):
    fake_server.script(first, Reply.text("ok"))
    sleeps = []
    runtime = make_runtime(fake_server.base_url)
    runtime.retry.sleep = sleeps.append
    assert runtime.for_role("design").invoke(PROMPT).content == "ok"
    assert fake_server.request_count == 2
    assert len(sleeps) == 1 and 0.3 <= sleeps[0] <= 0.7  # first backoff: 0.5 s +-20%


def test_retries_are_capped_and_backoff_grows(fake_server):
    fake_server.script(*[Reply.status(500)] * 10)
    sleeps = []
    runtime = make_runtime(fake_server.base_url, max_retries=3)
    runtime.retry.sleep = sleeps.append
    with pytest.raises(
        ModelUnavailableError, match=r"still failing after 4 attempt\(s\): HTTP 500"
    ):
        runtime.for_role("design").invoke(PROMPT)
    assert fake_server.request_count == 4
    assert len(sleeps) == 3
    assert sleeps[0] < sleeps[1] < sleeps[2]


def test_retry_after_is_capped_by_settings(fake_server):
    fake_server.script(Reply.status(429, retry_after=30), Reply.text("ok"))
    sleeps = []
    runtime = make_runtime(fake_server.base_url, max_retry_wait_s=0.2)
    runtime.retry.sleep = sleeps.append
    runtime.for_role("design").invoke(PROMPT)
    assert sleeps == [0.2]


def test_unreachable_endpoint_names_it():
    with FakeOpenAIServer() as server:
        url = server.base_url
    runtime = make_runtime(url, max_retries=1)
    runtime.retry.sleep = lambda s: None
    with pytest.raises(ModelUnavailableError) as info:
        runtime.for_role("design").invoke(PROMPT)
    assert url in str(info.value)
    assert "benchsmith doctor" in str(info.value)


def test_openai_spec_without_key_says_what_to_set(fake_server):
    from benchsmith.config import ConfigError
    from benchsmith.llm.client import LLMRuntime
    from benchsmith.llm.roles import ResolvedModel

    spec = parse_model_spec("openai:gpt-4o-mini", env={})
    runtime = LLMRuntime(models={"design": ResolvedModel("design", spec, "test")}, env={})
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        runtime.for_role("design").invoke(PROMPT)


def test_concurrency_limit_per_endpoint():
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(body):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.15)
        with lock:
            state["now"] -= 1
        return Reply.text("ok")

    with FakeOpenAIServer(default=slow) as server:
        runtime = make_runtime(server.base_url, max_concurrency=2)
        model = runtime.for_role("design")
        threads = [
            threading.Thread(target=model.invoke, args=([("user", f"q{i}")],)) for i in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.request_count == 6
    assert state["peak"] == 2


@pytest.mark.parametrize(
    "url,why",
    [
        (f"http://127.0.0.1:{closed_port()}/v1", "connection refused"),
        ("http://no-such-host.invalid/v1", "unknown host"),
    ],
    ids=["refused", "dns"],
)
def test_unreachable_endpoint_fails_fast_with_one_quick_retry(url, why):
    from benchsmith.errors import ModelUnreachableError

    runtime = make_runtime(url)  # the default 4 retries would take 7 s of backoff
    sleeps: list[float] = []
    runtime.retry.sleep = sleeps.append
    model = runtime.for_role("design")
    started = time.monotonic()
    with pytest.raises(ModelUnreachableError, match=why) as info:
        model.invoke(PROMPT)
    assert time.monotonic() - started < 5.0
    assert sleeps == [0.25]  # one quick retry, not the backoff ladder
    assert str(info.value).startswith(f"{url} (fake-model): ")
    assert "2 attempt(s)" in str(info.value)
    # The endpoint is known to be down: the next call fails at once, without a request.
    sleeps.clear()
    with pytest.raises(ModelUnreachableError):
        model.invoke([("user", "another prompt")])
    assert sleeps == []


def test_a_reset_connection_is_still_retried_with_backoff(fake_server):
    from benchsmith.llm.retry import connection_failure

    fake_server.script(Reply.disconnect(), Reply.disconnect(), Reply.text("ok"))
    runtime = make_runtime(fake_server.base_url)
    sleeps: list[float] = []
    runtime.retry.sleep = sleeps.append
    assert runtime.for_role("design").invoke(PROMPT).content == "ok"
    assert len(sleeps) == 2 and 0.25 not in sleeps
    assert connection_failure(ValueError("Connection refused")) is None


def test_local_timeouts_grow_and_say_the_machine_is_busy():
    from benchsmith.llm.retry import local_timeout_message
    from benchsmith.llm.specs import parse_model_spec as parse

    runtime = make_runtime("http://127.0.0.1:9/v1", timeout_s=10.0)
    local = parse("local", env={})
    assert runtime.request_timeout(local) == {"timeout": 10.0}
    runtime.timed_out(local)
    runtime.timed_out(local)
    assert runtime.request_timeout(local) == {"timeout": 40.0}
    for _ in range(5):
        runtime.timed_out(local)
    assert runtime.request_timeout(local) == {"timeout": 80.0}  # capped at 8x
    remote = parse("fake@http://127.0.0.1:9/v1", env={})
    assert runtime.request_timeout(remote) == {}
    text = local_timeout_message(3)
    assert "too busy" in text and "check that the endpoint is running" not in text


def test_identical_requests_in_flight_are_paid_once(fake_server):
    fake_server.script(Reply.text("ok", latency=0.5))
    runtime = make_runtime(fake_server.base_url)
    model = runtime.for_role("judge")
    replies: list[str] = []
    threads = [
        threading.Thread(target=lambda: replies.append(model.invoke(PROMPT).content))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert replies == ["ok", "ok", "ok"]
    assert fake_server.request_count == 1  # one paid call; the other two waited for it
    usage = runtime.ledger.by_role["judge"]
    assert usage.calls == 1 and usage.cached_calls == 2


def test_a_waiter_tries_itself_when_the_request_it_waited_on_failed(fake_server):
    fake_server.script(Reply.status(401), Reply.text("ok"))
    model = make_runtime(fake_server.base_url).for_role("judge")
    outcomes: list[str] = []

    def call() -> None:
        try:
            outcomes.append(model.invoke(PROMPT).content)
        except ModelRequestError:
            outcomes.append("refused")

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok", "refused"]
    assert fake_server.request_count == 2


def test_replay_without_records_says_so(tmp_path):
    from benchsmith.errors import ReplayMissError

    runtime = make_runtime("http://127.0.0.1:9/v1", run_dir=tmp_path, replay=True)
    with pytest.raises(ReplayMissError, match="holds no recorded model calls") as info:
        runtime.for_role("design").invoke(PROMPT)
    assert "inputs changed" not in str(info.value)


def test_the_endpoint_slot_is_held_for_the_request_only(fake_server, monkeypatch):
    # The real client holds the endpoint's semaphore around the SDK's request alone: the
    # reply is turned into a message after the slot is given back (so, with one slot, a
    # free permit is there while langchain converts the reply).
    from langchain_openai.chat_models import base

    from benchsmith.llm.retry import endpoint_semaphore

    model = make_runtime(fake_server.base_url, max_concurrency=1).for_role("design")
    gate = model.runtime.chat_model(model.spec).client.gate
    assert gate is endpoint_semaphore(model.spec.endpoint_key, 1)
    free_while_converting: list[bool] = []
    convert = base.BaseChatOpenAI._create_chat_result

    def spy(self, *args, **kwargs):
        free = gate.acquire(blocking=False)
        if free:
            gate.release()
        free_while_converting.append(free)
        return convert(self, *args, **kwargs)

    monkeypatch.setattr(base.BaseChatOpenAI, "_create_chat_result", spy)
    assert model.invoke(PROMPT).content
    assert free_while_converting == [True]


def test_the_endpoint_slot_is_free_while_a_request_is_built_and_its_reply_parsed(
    fake_server, monkeypatch
):
    # The gate sits in the HTTP transport: the request (headers, the JSON body) is built
    # before a slot is taken, and the slot is back before the reply is parsed; on the
    # direct path (benchsmith.llm.client.DirectChatRequests) and on the SDK's own (a
    # request with extra headers).
    import openai._base_client as sdk

    from benchsmith.llm import client as ours
    from benchsmith.llm.client import _http_module

    model = make_runtime(fake_server.base_url, max_concurrency=1).for_role("design")
    chat = model.runtime.chat_model(model.spec)
    gate = chat.client.gate
    seen: dict[str, list[bool]] = {"build": [], "parse": []}

    def free() -> bool:
        if gate.acquire(blocking=False):
            gate.release()
            return True
        return False

    def spy(key, original):
        def run(self, *args, **kwargs):
            seen[key].append(free())
            return original(self, *args, **kwargs)

        return run

    client_class = _http_module().Client
    for owner, name, key in (
        (client_class, "build_request", "build"),
        (ours.DirectReply, "parse", "parse"),
        (sdk.SyncAPIClient, "_build_request", "build"),
        (sdk.SyncAPIClient, "_process_response", "parse"),
    ):
        monkeypatch.setattr(owner, name, spy(key, getattr(owner, name)))
    assert model.invoke(PROMPT).content  # the direct path
    assert seen == {"build": [True], "parse": [True]}
    assert chat.invoke(PROMPT, extra_headers={"X-Trace": "1"}).content  # the SDK's path
    assert fake_server.requests[-1].headers["x-trace"] == "1"
    # The SDK builds through the same HTTP client: its build and parse, both outside.
    assert seen["build"][1:] and all(seen["build"]) and seen["parse"] == [True, True]
    assert free()  # and nothing kept it


def test_prewarm_builds_the_clients_without_a_request(fake_server):
    runtime = make_runtime(fake_server.base_url)
    thread = runtime.prewarm()
    assert thread is not None
    thread.join(10)
    assert runtime.for_role("design").spec.text in runtime._chat_models
    assert fake_server.request_count == 0
    assert runtime.prewarm() is None  # built already: nothing to do

    scripted = make_runtime(fake_server.base_url)
    scripted.chat_factory = lambda spec, **kwargs: pytest.fail("a test's factory is not prewarmed")
    assert scripted.prewarm() is None

"""The hard budget: checked before each call, never exceeded by more than one call."""

import threading

import pytest

from benchsmith.config import Price
from benchsmith.errors import BudgetExceededError
from benchsmith.llm.specs import parse_model_spec
from benchsmith.llm.usage import UsageLedger, price_for
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply
from benchsmith.testing.runtime import endpoint_runtime as make_runtime

USAGE = {"prompt_tokens": 700, "completion_tokens": 300, "total_tokens": 1000}


def _server():
    return FakeOpenAIServer(default=lambda body: Reply.text("ok", usage=USAGE))


def test_token_budget_stops_the_next_call_and_says_what_was_spent():
    with _server() as server:
        ledger = UsageLedger(budget_tokens=2500)
        runtime = make_runtime(server.base_url, ledger=ledger)
        for i in range(3):  # 0 -> 1000 -> 2000 -> 3000: the third call starts under the cap
            runtime.for_role("design" if i < 2 else "judge").invoke([("user", f"q{i}")])
        with pytest.raises(BudgetExceededError) as info:
            runtime.for_role("design").invoke([("user", "one more")])
        assert server.request_count == 3
    message = str(info.value)
    assert "2500 tokens" in message and "3000 tokens so far" in message
    assert "design $0.0000 / 2000 tokens in 2 calls" in message
    assert "judge" in message
    assert ledger.tokens - 2500 <= 1000  # over by at most one call


def test_usd_budget_with_configured_price():
    price = Price(input=1.0, output=2.0)  # this call: 700 * 1e-6 + 300 * 2e-6 = $0.0013
    with _server() as server:
        ledger = UsageLedger(budget_usd=0.004)
        runtime = make_runtime(server.base_url, ledger=ledger, prices={"fake-model": price})
        calls = 0
        with pytest.raises(BudgetExceededError, match=r"budget of \$0.004 is spent"):
            while True:
                runtime.for_role("grounding").invoke([("user", f"q{calls}")])
                calls += 1
        assert calls == 4 and server.request_count == 4
    assert ledger.cost_usd == pytest.approx(4 * 0.0013)
    assert ledger.cost_usd - 0.004 <= 0.0013


def test_usd_budget_refuses_a_model_with_unknown_price():
    with _server() as server:
        runtime = make_runtime(server.base_url, ledger=UsageLedger(budget_usd=1.0))
        with pytest.raises(BudgetExceededError, match=r"price of the design model is unknown"):
            runtime.for_role("design").invoke([("user", "q")])
        assert server.request_count == 0


def test_concurrent_calls_overshoot_by_at_most_one_call():
    slow = lambda body: Reply.text("ok", usage=USAGE, latency=0.05)  # noqa: E731
    with FakeOpenAIServer(default=slow) as server:
        ledger = UsageLedger(budget_tokens=5500)
        runtime = make_runtime(server.base_url, ledger=ledger, max_concurrency=8)
        errors = []

        def worker(n):
            for i in range(5):
                try:
                    runtime.for_role("orchestration").invoke([("user", f"{n}-{i}")])
                except BudgetExceededError as exc:
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert ledger.tokens <= 5500 + 1000
    assert ledger.tokens >= 5500
    assert len(errors) == 8


def test_prices():
    assert price_for(parse_model_spec("openai:gpt-4o-mini-2024-07-18", env={})) == Price(
        input=0.15, output=0.6
    )
    assert price_for(parse_model_spec("openai:gpt-4o", env={})).input == 2.5
    assert price_for(parse_model_spec("local", env={})) == Price(input=0, output=0)
    assert price_for(parse_model_spec("ollama:llama3", env={})) is None
    assert price_for(parse_model_spec("openai:some-new-model", env={})) is None


def test_unknown_price_is_reported_as_unknown_not_zero():
    with FakeOpenAIServer(default=lambda body: Reply.text("ok", usage=USAGE)) as server:
        runtime = make_runtime(server.base_url)
        runtime.for_role("design").invoke([("user", "q")])
    summary = runtime.ledger.summary()
    assert summary["cost_usd"] is None
    assert summary["by_role"]["design"]["cost_unknown_calls"] == 1
    assert summary["input_tokens"] == 700 and summary["output_tokens"] == 300


def test_without_a_budget_the_first_calls_start_together():
    # With a cap, calls wait for a first call's size (one call at a time until it is known);
    # without one there is nothing to hold, so a build's opening calls run in parallel.
    ledger = UsageLedger()
    inside, release = threading.Barrier(4, timeout=5), threading.Event()

    def call():
        with ledger.reserve("orchestration", None):
            inside.wait()  # broken (BrokenBarrierError) unless all four are in at once
            release.wait(5)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    release.set()
    assert not inside.broken


def test_with_a_budget_the_first_call_runs_alone():
    ledger = UsageLedger(budget_tokens=10_000)
    order: list[str] = []
    first_in = threading.Event()

    def first():
        with ledger.reserve("orchestration", None):
            first_in.set()
            order.append("first in")
            threading.Event().wait(0.2)
            order.append("first out")
        ledger.add("orchestration", input_tokens=10, output_tokens=10, price=None)

    def second():
        first_in.wait(5)
        with ledger.reserve("orchestration", None):
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert order == ["first in", "first out", "second in"]

"""Prompts, baselines, scoring dispatch, the runner's resume and its media skips."""

import json

import pytest
from eval_helpers import CAPITALS, free, image_item, install_fake, last_user_text, mc, write_bench

from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate.api import evaluate_benchmark
from benchsmith.evaluate.baselines import baseline_answer
from benchsmith.evaluate.messages import item_messages
from benchsmith.evaluate.scoring import OpenAnswerVerdict, score_item
from benchsmith.item import Item
from benchsmith.llm.registry import register_runtime
from benchsmith.package.item_prompt import INSTRUCTIONS, prompt_text
from benchsmith.testing.fake_openai import FakeOpenAIServer, Reply
from benchsmith.testing.runtime import endpoint_runtime


def test_choice_prompt_keeps_the_wording_of_inspects_multiple_choice_template():
    from inspect_ai.solver._multiple_choice import SINGLE_ANSWER_TEMPLATE, prompt
    from inspect_ai.solver._task_state import Choices

    ours = prompt_text("Capital of France?", ["Paris", "Rome"], "multiple_choice")
    theirs = prompt("Capital of France?", Choices(["Paris", "Rome"]), SINGLE_ANSWER_TEMPLATE)
    assert ours == theirs


def test_messages_are_one_user_message(tmp_path):
    bench = write_bench(tmp_path, [image_item("img1")])
    mc_item = Item.model_validate(CAPITALS[0])
    (message,) = item_messages(mc_item, bench)
    assert message.type == "human" and message.content.startswith("Answer the following")
    assert "A) Paris\nB) Rome\nC) Oslo" in message.content
    short = Item.model_validate(free("s1", "Capital of Peru?", "Lima", "short_answer"))
    (user,) = item_messages(short, bench)
    assert user.type == "human"
    assert user.content == f"Capital of Peru?\n\n{INSTRUCTIONS['short_answer']}"
    (open_message,) = item_messages(Item.model_validate(free("o1", "Why?", "x", "open")), bench)
    assert open_message.content == "Why?"
    (media,) = item_messages(Item.model_validate(image_item("img1")), bench)
    text, image = media.content
    assert text["text"].startswith("Answer the following") and "Which digit" in text["text"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")


def test_baselines():
    item = Item.model_validate(CAPITALS[0])
    assert baseline_answer("baseline:first", item) == "ANSWER: A"
    answers = {baseline_answer("baseline:random", item, seed=s) for s in range(30)}
    assert answers == {"ANSWER: A", "ANSWER: B", "ANSWER: C"}
    assert baseline_answer("baseline:random", item, seed=4) == baseline_answer(
        "baseline:random", item, seed=4
    )
    assert (
        baseline_answer("baseline:first", Item.model_validate(free("f", "q", "t", "numeric"))) == ""
    )
    with pytest.raises(ValueError):
        baseline_answer("baseline:best", item)


def test_scoring_dispatch_by_answer_format():
    mc_item = Item.model_validate(CAPITALS[1])  # target B
    assert (
        score_item("ANSWER: B", mc_item).correct and score_item("B) Rome", mc_item).rule == "choice"
    )
    assert not score_item("ANSWER: A", mc_item).correct
    short = Item.model_validate(free("s", "q", "New Delhi", "short_answer"))
    assert score_item("new delhi.", short).correct and not score_item("Delhi", short).correct
    numeric = Item.model_validate(free("n", "q", "100", "numeric", tolerance=0.05))
    assert score_item("about 104", numeric).correct and not score_item("106", numeric).correct
    assert score_item("104", numeric).rule == "numeric"
    opened = Item.model_validate(free("o", "q", "photosynthesis", "open"))
    assert score_item("It is photosynthesis, mostly.", opened).rule == "includes"
    assert score_item("It is photosynthesis, mostly.", opened).correct


def test_open_answers_go_to_the_judge_when_one_is_configured(tmp_path):
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    runtime, fake = install_fake(config, OpenAnswerVerdict(correct="no", reason="off"))
    opened = Item.model_validate(free("o", "q", "photosynthesis", "open"))
    score = score_item("photosynthesis", opened, judge=runtime.for_role("judge"))
    assert score.rule == "judge" and score.correct is False
    assert "photosynthesis" in last_user_text(fake.calls[0]["messages"])
    register_runtime(config, None)


def answer_right(messages, kwargs):
    """A fake model that knows every capital (reads the question, answers the letter)."""
    text = last_user_text(messages)
    if not text.startswith("Answer the following multiple choice question"):
        return "Lima"
    for country, letter in (("France", "A"), ("Italy", "B"), ("Norway", "C"), ("Peru", "A")):
        if country in text:
            return f"ANSWER: {letter}"
    return "Lima"


def test_evaluate_scores_and_a_rerun_makes_no_new_call(tmp_path):
    rows = [*CAPITALS, free("s1", "Capital of Peru?", "Lima", "short_answer")]
    bench = write_bench(tmp_path, rows)
    config = RunConfig(seed=3, paths=RunPaths(run_dir=str(tmp_path / "runs")))
    _runtime, fake = install_fake(config, answer_right)
    models = ["local", "baseline:first", "baseline:random"]
    first = evaluate_benchmark(bench, models, config=config, concurrency=3)
    assert len(fake.calls) == 5 and first.new_calls == 5
    assert first.accuracy("local") == 1.0 and first.data["models"]["local"]["n"] == 5
    assert first.accuracy("baseline:first") == pytest.approx(2 / 5)  # q1, q4; "" on s1
    assert first.data["models"]["local"]["by_subtask"]["capitals"]["n"] == 4
    assert first.data["models"]["local"]["by_skill"]["americas"]["n"] == 1
    assert set(first.data["models"]["local"]["by_difficulty"]) == {"easy", "hard", "medium"}
    assert len(first.data["pairs"]) == 3
    assert any("saturation" in w for w in first.data["warnings"])
    samples = [json.loads(x) for x in (bench / "eval_samples.jsonl").read_text().splitlines()]
    assert len(samples) == 15 and {s["status"] for s in samples} == {"answered"}
    # A fresh process: a new runtime reading the same records, a new fake that counts calls.
    register_runtime(config, None)
    _runtime2, fake2 = install_fake(config, "ANSWER: C")
    second = evaluate_benchmark(bench, models, config=config)
    assert len(fake2.calls) == 0 and second.new_calls == 0
    # Run facts included: served from the records, the replies keep the original calls' facts.
    assert second.data["models"] == first.data["models"]
    usage = second.data["models"]["local"]["usage"]
    assert usage["calls"] == 5 and usage["latency_s"]["n"] == 5 and usage["input_tokens"] > 0
    assert second.data["run"]["new_calls_by_model"]["local"] == 0
    assert first.data["run"]["new_calls_by_model"]["local"] == 5
    register_runtime(config, None)


def refuse_media(body):
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list) and any(p.get("type") != "text" for p in content):
            return Reply.status(500, message="image input is not supported")
    return Reply.text("ANSWER: A")


def test_media_items_are_skipped_when_the_endpoint_refuses_them(tmp_path):
    rows = [CAPITALS[0], image_item("img1"), image_item("img2", target="B")]
    bench = write_bench(tmp_path, rows)
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    with FakeOpenAIServer(default=refuse_media) as server:
        register_runtime(
            config, endpoint_runtime(server.base_url, run_dir=config.paths.run_dir, max_retries=0)
        )
        spec = f"fake-model@{server.base_url}"
        result = evaluate_benchmark(bench, [spec], config=config, concurrency=1)
        media_requests = [
            r for r in server.requests if "image_url" in json.dumps(r.body.get("messages"))
        ]
    register_runtime(config, None)
    model = result.data["models"][spec]
    assert model["n"] == 1 and model["accuracy"] == 1.0 and model["skipped"] == 2
    assert len(media_requests) == 1  # the second image item is skipped without a request
    skipped = [s for s in result.samples if s["status"] == "skipped"]
    assert {s["item_id"] for s in skipped} == {"img1", "img2"}
    assert all("model cannot take image" in s["reason"] for s in skipped)
    assert any("skipped" in w for w in result.data["warnings"])


def test_the_embedded_model_skips_media_without_a_request(tmp_path):
    bench = write_bench(tmp_path, [CAPITALS[0], image_item("img1")])
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    _runtime, fake = install_fake(config, "ANSWER: A")
    result = evaluate_benchmark(bench, ["local"], config=config)
    register_runtime(config, None)
    assert len(fake.calls) == 1 and result.data["models"]["local"]["skipped"] == 1
    (skip,) = [s for s in result.samples if s["status"] == "skipped"]
    assert "model cannot take image" in skip["reason"]


def test_bad_inputs_fail_with_clear_errors(tmp_path):
    from benchsmith.errors import ModelSpecError
    from benchsmith.evaluate.folder import EvaluationError

    with pytest.raises(EvaluationError, match="does not exist"):
        evaluate_benchmark(tmp_path, ["baseline:first"])
    bench = write_bench(tmp_path, [mc("q", "q?", ["a", "b"], "A")])
    with pytest.raises(EvaluationError, match="no model"):
        evaluate_benchmark(bench, [])
    with pytest.raises(ModelSpecError):
        evaluate_benchmark(bench, ["baseline:best"])

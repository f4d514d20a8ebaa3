"""The slot subgraph alone: one slot from decision to ledger entry, with the scripted fake.

Each test invokes the compiled slot graph (as builds run it) on one slot and follows the
nodes it passed through: accept, fix then accept, fix budget exhausted then discard, broken
media discarded, and a slot the ledger already holds skipped without a model call.
"""

from __future__ import annotations

from executor_fakes import (
    COUNTRIES,
    Router,
    good_question,
    install,
    judge_yes,
    make_catalog,
    make_spec,
    record_name,
)

from benchsmith.agents.build_plan import settle_plan
from benchsmith.agents.collect import record_order
from benchsmith.agents.slot_queue import make_slot
from benchsmith.agents.workspace import open_workspace
from benchsmith.config import RunConfig, RunPaths
from benchsmith.graph.routers import route_after_execute, route_after_verify
from benchsmith.graph.workflow import slot_graph
from benchsmith.ledger import Ledger
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import Subtask
from benchsmith.state import Failure


def setup(tmp_path, spec, router, **config_kw):
    out = tmp_path / "bench"
    (out / ".run").mkdir(parents=True)
    config = RunConfig(
        judge="enforce",
        reword="on",
        **config_kw,
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(tmp_path / "catalog")
        ),
    )
    settle_plan(config, spec)  # the plan as collect writes it before the first slot
    install(config, router)
    return config


def first_slot(spec, seed=0):
    grounding = spec.groundings[0]
    index = record_order(grounding, seed)[0]
    return make_slot(grounding, 0, index, ["en"], 0)


def run_slot(config, slot):
    """The nodes the slot passed through, and the slot's output."""
    path, output = [], {}
    try:
        for chunk in slot_graph.stream({"slot": slot}, context=config, stream_mode="updates"):
            for node, update in chunk.items():
                path.append(node)
                if update and "tallies" in update:
                    output = update
    finally:
        register_runtime(config, None)
    return path, output


def ledger_entries(config):
    """What the ledger on disk holds (read afresh, as a resumed build would)."""
    return list(Ledger(config.paths.run_dir).entries())


def test_accept(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    router = Router(SampleDecision=good_question, JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router)
    slot = first_slot(spec)
    path, output = run_slot(config, slot)
    assert path == ["orchestrate", "execute", "verify", "accept"]
    assert output["tallies"] == {"capitals": {"accepted": 1}}
    (entry,) = ledger_entries(config)
    assert entry["status"] == "accepted" and entry["slot"] == slot.record()
    assert entry["item"]["metadata"]["fixes"] == 0
    assert not (open_workspace(config).work_dir(slot)).exists()


def test_fix_then_accept(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    verdicts = iter([judge_yes("") | {"clear": "no", "reason": "too terse"}])

    def judge(prompt):
        return next(verdicts, judge_yes(prompt))

    def orchestrate(prompt):
        # a new wording once told why the last one failed (the same prompt to the judge
        # would be answered from the run records)
        if "previous attempt was rejected" in prompt:
            return {"question": f"Which city serves as the capital of {record_name(prompt)}?"}
        return good_question(prompt)

    router = Router(SampleDecision=orchestrate, JudgeVerdict=judge)
    config = setup(tmp_path, spec, router)
    path, output = run_slot(config, first_slot(spec))
    assert path == ["orchestrate", "execute", "verify"] * 2 + ["accept"]
    assert output["tallies"] == {"capitals": {"accepted": 1}}
    (entry,) = ledger_entries(config)
    meta = entry["item"]["metadata"]
    assert meta["fixes"] == 1 and [h["check"] for h in meta["fix_history"]] == ["judge"]
    # the second decision saw the first failure's reason
    assert "too terse" in router.prompts["SampleDecision"][1]
    assert "too terse" not in router.prompts["SampleDecision"][0]


def test_fix_budget_exhausted_then_discard(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])

    def judge(prompt):
        return judge_yes(prompt) | {"single_answer": "no", "reason": "two capitals"}

    router = Router(SampleDecision=good_question, JudgeVerdict=judge)
    config = setup(tmp_path, spec, router, max_fix_attempts=2)
    path, output = run_slot(config, first_slot(spec))
    assert path == ["orchestrate", "execute", "verify"] * 3 + ["discard"]
    assert output["tallies"] == {"capitals": {"rejected": 1}}
    (entry,) = ledger_entries(config)
    assert entry["status"] == "rejected" and entry["check"] == "judge"
    assert entry["attempts"] == 3 and len(entry["history"]) == 3
    assert len(router.prompts["SampleDecision"]) == 3


def test_broken_media_is_discarded_without_a_fix(tmp_path):
    from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec

    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really an image")
    card = jsonl_dataset(tmp_path, "colors", [{"image": str(broken), "color": "red"}])
    subtask = Subtask(
        id="colors",
        name="Colors",
        description="Name the color that fills the picture.",
        input_modalities=["image"],
        answer_format="short_answer",
        languages=["en"],
    )
    spec = one_grounding_spec(subtask, card, size=1, answer_field="color", tools=["image_blur"])
    router = Router(
        SampleDecision=lambda p: {"question": "Which color fills the picture?"},
        JudgeVerdict=judge_yes,
    )
    config = setup(tmp_path, spec, router)
    path, output = run_slot(config, first_slot(spec))
    assert path == ["orchestrate", "execute", "discard"]
    assert output["tallies"] == {"colors": {"rejected": 1}}
    (entry,) = ledger_entries(config)
    assert entry["check"] == "tool" and "broken.png" in entry["reason"]
    assert not list((tmp_path / "bench").glob("media/**/*.*"))


def test_a_slot_the_ledger_holds_is_skipped_without_a_model_call(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    router = Router(SampleDecision=good_question, JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router)
    slot = first_slot(spec)
    run_slot(config, slot)
    calls = sum(len(p) for p in router.prompts.values())
    before = ledger_entries(config)
    install(config, router)
    path, output = run_slot(config, slot)
    assert path == [] and output == {}
    assert sum(len(p) for p in router.prompts.values()) == calls
    assert ledger_entries(config) == before


def test_routers_read_only_the_failure():
    fixable = Failure(reason="judge: too terse", check="judge", retry=True)
    final = Failure(reason="tool: broken", check="tool", retry=False)
    assert route_after_verify({"failure": None}) == "accept"
    assert route_after_verify({"failure": fixable}) == "orchestrate"
    assert route_after_verify({"failure": final}) == "discard"
    assert route_after_execute({"failure": None}) == "verify"
    assert route_after_execute({"failure": fixable}) == "orchestrate"
    assert route_after_execute({"failure": final}) == "discard"


def test_the_distractor_pool_is_computed_once_however_many_slots_ask_at_once(tmp_path, monkeypatch):
    """Every slot of a build's first wave asks for the pool at once: one computes it."""
    import threading

    import benchsmith.agents.plan_data as plan_data

    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    config = setup(tmp_path, spec, Router(SampleDecision=good_question, JudgeVerdict=judge_yes))
    ws = open_workspace(config)
    computed = []
    inner = plan_data.distinct_texts
    start = threading.Barrier(8)

    def slow_distinct(values):
        computed.append(threading.current_thread().name)
        threading.Event().wait(0.05)  # long enough for every thread to arrive meanwhile
        return inner(values)

    monkeypatch.setattr(plan_data, "distinct_texts", slow_distinct)
    pools = []

    def ask():
        start.wait()
        pools.append(ws.data.answer_values("capitals", "capital"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    register_runtime(config, None)
    assert len(computed) == 1
    assert len(pools) == 8 and all(p is pools[0] for p in pools)
    assert sorted(pools[0]) == sorted({capital for _name, capital, _continent in COUNTRIES})

"""The slot subgraph alone: one slot from its computed item to the ledger, with the scripted fake.

Each test invokes the compiled slot graph (as builds run it) on one slot of a lookup
program and follows the nodes it passed through: accept, a judge refusal discarded (no
local fix), broken media discarded, and a slot the ledger already holds skipped without a
model call; and the program's candidates, which every slot of a wave asks for at once.
"""

from __future__ import annotations

from executor_fakes import Router, install, judge_yes, make_catalog, make_spec

from benchsmith.agents.collect import record_order, settle_plan
from benchsmith.agents.slot_queue import make_slot
from benchsmith.agents.workspace import open_workspace
from benchsmith.config import RunConfig, RunPaths
from benchsmith.graph.routers import route_after_computed, route_after_verify
from benchsmith.graph.workflow import slot_graph
from benchsmith.ledger import Ledger
from benchsmith.llm.registry import register_runtime
from benchsmith.state import Failure


def setup(tmp_path, spec, router, **config_kw):
    out = tmp_path / "bench"
    (out / ".run").mkdir(parents=True)
    config = RunConfig(
        judge="enforce",
        **config_kw,
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(tmp_path / "catalog")
        ),
    )
    settle_plan(config, spec)  # the plan as collect writes it before the first slot
    install(config, router)
    return config


def first_slot(spec):
    grounding = spec.groundings[0]
    index = record_order(grounding)[0]
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
    router = Router(JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router)
    slot = first_slot(spec)
    path, output = run_slot(config, slot)
    assert path == ["computed", "verify", "accept"]
    assert output["tallies"] == {"capitals": {"accepted": 1}}
    (entry,) = ledger_entries(config)
    assert entry["status"] == "accepted" and entry["slot"] == slot.record()
    item = entry["item"]
    # The program worded the question and computed the answer from the record it names.
    (named,) = item["metadata"]["program"]["named"]
    capitals = {r["name"]: r["capital"] for r in open_workspace(config).data.records("capitals")}
    assert item["input"].endswith(f"{named}?") and item["target"] == capitals[named]
    assert item["metadata"]["verification"]["judge"]["clear"] == "yes"
    (prompt,) = router.prompts["JudgeVerdict"]  # the judge is the only model call
    assert list(router.prompts) == ["JudgeVerdict"] and item["input"] in prompt
    assert not (open_workspace(config).work_dir(slot)).exists()


def test_a_judge_refusal_is_discarded_without_a_second_attempt(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])

    def judge(prompt):
        return judge_yes(prompt) | {"single_answer": "no", "reason": "two capitals"}

    router = Router(JudgeVerdict=judge)
    config = setup(tmp_path, spec, router)
    path, output = run_slot(config, first_slot(spec))
    # No round reserve here (collect sets it): nothing replaces the slot, which ends.
    assert path == ["computed", "verify", "discard"]
    assert output["tallies"] == {"capitals": {"rejected": 1}}
    (entry,) = ledger_entries(config)
    assert entry["status"] == "rejected" and entry["check"] == "judge"
    assert entry["reason"] == "judge: single_answer answered no (two capitals)"
    assert entry["attempts"] == 1 and len(entry["history"]) == 1
    assert len(router.prompts["JudgeVerdict"]) == 1


def test_broken_media_is_discarded(tmp_path):
    from benchsmith.agents.programs import media_plan
    from benchsmith.spec import ProgramSpec, Subtask
    from benchsmith.testing.build_fakes import jsonl_dataset, program_spec

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
    # A program over pictures shows the record's own image (here blurred, as planned).
    program = ProgramSpec(
        kind="classify", table="colors", answer_field="color", media_field="image"
    )
    plan = media_plan(subtask, "Name the color of the blurred picture.", program)
    assert [s.tool for s in plan] == ["image_resize", "image_blur"]
    spec = program_spec(subtask, program, size=1, available=card.size, plan=plan)
    router = Router(JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router)
    path, output = run_slot(config, first_slot(spec))
    assert path == ["computed", "discard"]
    assert output["tallies"] == {"colors": {"rejected": 1}}
    (entry,) = ledger_entries(config)
    assert entry["check"] == "tool" and "broken.png" in entry["reason"]
    assert router.prompts == {}  # never judged
    assert not list((tmp_path / "bench").glob("media/**/*.*"))


def test_a_slot_the_ledger_holds_is_skipped_without_a_model_call(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    router = Router(JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router)
    slot = first_slot(spec)
    run_slot(config, slot)
    calls = sum(len(p) for p in router.prompts.values())
    assert calls == 1
    before = ledger_entries(config)
    install(config, router)
    path, output = run_slot(config, slot)
    assert path == [] and output == {}
    assert sum(len(p) for p in router.prompts.values()) == calls
    assert ledger_entries(config) == before


def test_routers_read_only_the_failure():
    failed = Failure(reason="judge: too terse", check="judge")
    gone = Failure(reason="source: no candidate left", check="source", counts=False)
    assert route_after_verify({"failure": None}) == "accept"
    assert route_after_verify({"failure": failed}) == "discard"
    assert route_after_computed({"failure": None}) == "verify"
    assert route_after_computed({"failure": gone}) == "discard"


def test_the_program_instances_are_made_once_however_many_slots_ask_at_once(tmp_path, monkeypatch):
    """Every slot of a build's first wave asks for the candidates at once: one makes them."""
    import threading

    import benchsmith.agents.candidates as candidates

    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 1, card.size, {})])
    config = setup(tmp_path, spec, Router(JudgeVerdict=judge_yes))
    ws = open_workspace(config)
    grounding = spec.groundings[0]
    made = []
    inner = candidates.generate
    start = threading.Barrier(8)

    def slow_generate(*args, **kwargs):
        made.append(threading.current_thread().name)
        threading.Event().wait(0.05)  # long enough for every thread to arrive meanwhile
        return inner(*args, **kwargs)

    monkeypatch.setattr(candidates, "generate", slow_generate)
    found = []

    def ask():
        start.wait()
        found.append(ws.candidates.program_instances(grounding, "en"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    register_runtime(config, None)
    assert len(found) == 8 and all(f is found[0] for f in found)
    assert len(found[0]) == card.size  # every record of the table is a candidate
    assert len(made) == 1

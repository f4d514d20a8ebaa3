"""Tail backups: the bookkeeping alone, then slots racing for one place in the quota.

The slot-graph tests drive one slot through the compiled slot subgraph (as builds run it)
and stand in for the other slot of the race by calling the workspace's bookkeeping at the
moment the scripted model is asked, so every interleaving is fixed, not left to threads.
"""

from __future__ import annotations

from executor_fakes import Router, judge_yes, make_catalog, make_spec
from test_executor import items, question_of, rejects, run
from test_slot_graph import first_slot, ledger_entries, run_slot, setup

from benchsmith.agents.backups import TailBackups
from benchsmith.agents.collect import record_order
from benchsmith.agents.slot_queue import Reserve
from benchsmith.agents.workspace import open_workspace

GID = "capitals--capitals"


# -- the bookkeeping ----------------------------------------------------------------------------


def test_backups_start_only_at_the_tail_and_once_per_chain():
    backups = TailBackups(enabled=True)
    backups.begin_fan_out(2)
    backups.note_chain("a", "g")
    drawn = iter(["slot-1", "slot-2"])
    assert backups.take(lambda chain: next(drawn)) is None  # slots of the window not started
    backups.fresh_started()
    backups.fresh_started()
    assert backups.in_tail
    assert backups.take(lambda chain: next(drawn)) == ("a", "slot-1")
    backups.note_chain("a", "g")  # the chain's replacement fails too: it has its backup already
    assert backups.take(lambda chain: next(drawn)) is None
    assert backups.summary() == {"started": 1, "won": 0, "superseded": 0, "surplus": 0}


def test_the_first_to_settle_a_contested_place_fills_it():
    backups = TailBackups(enabled=True)
    backups.begin_fan_out(0)
    assert backups.settle("plain", backup=False)  # uncontested: always filled, not kept
    assert not backups.is_settled("plain")
    backups.note_chain("a", "g")
    assert backups.take(lambda chain: "slot") == ("a", "slot")
    assert not backups.is_settled("a")
    assert backups.settle("a", backup=True)
    assert backups.is_settled("a")
    assert not backups.settle("a", backup=False)  # the chain, verified second: surplus
    assert backups.summary() == {"started": 1, "won": 1, "superseded": 0, "surplus": 1}


def test_a_settled_chain_gets_no_backup_and_none_without_records_or_when_off():
    backups = TailBackups(enabled=True)
    backups.begin_fan_out(0)
    backups.note_chain("a", "g")
    assert backups.settle("a", backup=False)  # the chain's own replacement was accepted
    assert backups.take(lambda chain: "slot") is None
    backups.note_chain("b", "g")
    assert backups.take(lambda chain: None) is None  # the grounding's reserve is empty
    off = TailBackups(enabled=False)
    off.begin_fan_out(0)
    off.note_chain("a", "g")
    assert off.take(lambda chain: "slot") is None


def test_a_new_fan_out_forgets_the_last_ones_chains():
    backups = TailBackups(enabled=True)
    backups.begin_fan_out(0)
    backups.note_chain("a", "g")
    backups.begin_fan_out(0)
    assert backups.take(lambda chain: "slot") is None


# -- slots racing in the slot subgraph -----------------------------------------------------------


def _reserve(config, spec, skip=1):
    """Give the workspace a reserve: the grounding's candidates after the first ``skip``."""
    ws = open_workspace(config)
    grounding = spec.groundings[0]
    order = record_order(grounding)
    free = list(enumerate(order))[skip:]
    ws.start_round([], {grounding.id: Reserve(grounding, free, ["en"], 0)})
    ws.backups.begin_fan_out(0)  # every slot of the fan-out has started: the tail
    return ws


def test_a_finished_slot_takes_a_backup_for_a_chain_and_fills_its_place(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([(GID, "capitals", 2, card.size, {})])
    router = Router(JudgeVerdict=judge_yes)
    config = setup(tmp_path, spec, router, tail_backups="on")
    ws = _reserve(config, spec)
    # another slot (of the same grounding, in English) is on a chain of replacements
    ws.backups.note_chain("slow-chain", first_slot(spec))
    path, output = run_slot(config, first_slot(spec))
    # its own slot, then the backup (the reserve's next candidate) in the same task
    assert path == ["computed", "verify", "accept"] * 2
    assert output["tallies"] == {"capitals": {"accepted": 1}}  # the last accept's update
    entries = ledger_entries(config)
    assert [e["status"] for e in entries] == ["accepted", "accepted"]
    assert entries[1]["slot"]["record_index"] == record_order(spec.groundings[0])[1]
    assert len(router.prompts["JudgeVerdict"]) == 2
    assert ws.backups.summary() == {"started": 1, "won": 1, "superseded": 0, "surplus": 0}
    # The chain, if its replacement passes now, finds its place filled: not packaged.
    assert not ws.backups.settle("slow-chain", backup=False)


def test_a_chain_stops_before_its_next_judge_when_a_backup_filled_its_place(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([(GID, "capitals", 1, card.size, {})])
    slot = first_slot(spec)

    def judge(prompt):
        # While this slot is judged, a backup started for its place is accepted elsewhere.
        ws = open_workspace(config)
        ws.backups.note_chain(slot.id, slot)
        assert ws.backups.take(ws.replacement)[0] == slot.id
        assert ws.backups.settle(slot.id, backup=True)
        return judge_yes(prompt) | {"clear": "no", "reason": "too terse"}

    router = Router(JudgeVerdict=judge)
    config = setup(tmp_path, spec, router, tail_backups="on")
    ws = _reserve(config, spec)
    path, output = run_slot(config, slot)
    # Refused, the slot goes on with a replacement candidate, which stops at once.
    assert path == ["computed", "verify", "discard", "computed", "discard"]
    assert output["tallies"] == {"capitals": {"superseded": 1}}
    assert len(router.prompts["JudgeVerdict"]) == 1  # no judge call for a place already filled
    (entry,) = ledger_entries(config)  # the refusal; the replacement stopped, not rejected
    assert entry["status"] == "rejected" and entry["slot"]["id"] == slot.id
    assert ws.backups.summary()["superseded"] == 1


def test_an_item_verified_second_is_dropped_not_accepted(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([(GID, "capitals", 1, card.size, {})])
    slot = first_slot(spec)

    def judge(prompt):
        # While this slot is judged, its backup (started earlier) is accepted first.
        ws = open_workspace(config)
        ws.backups.note_chain(slot.id, slot)
        assert ws.backups.take(lambda chain: "a record")[0] == slot.id
        assert ws.backups.settle(slot.id, backup=True)
        return judge_yes(prompt)

    router = Router(JudgeVerdict=judge)
    config = setup(tmp_path, spec, router, tail_backups="on")
    ws = _reserve(config, spec)
    path, output = run_slot(config, slot)
    assert path == ["computed", "verify", "accept"]
    assert output["tallies"] == {"capitals": {"surplus": 1}}
    assert ledger_entries(config) == []
    assert ws.backups.summary()["surplus"] == 1
    assert not any((ws.bench_dir / "media").rglob("*"))
    assert len(ws.duplicates) == 0  # later items are not compared with a dropped one


def test_a_build_with_backups_packages_exactly_its_size(tmp_path):
    # The judge refuses two records: a refused slot goes on with replacements, a chain that
    # races a backup at the tail. Whichever wins, the quota holds exactly and every
    # packaged item passed every check.
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([(GID, "capitals", 5, card.size, {})])

    def judge(prompt):
        if question_of(prompt).endswith((" Japan?", " Kenya?")):
            return judge_yes(prompt) | {"single_answer": "no", "reason": "two capitals"}
        return judge_yes(prompt)

    router = Router(JudgeVerdict=judge)
    result, _path, _runtime, out = run(tmp_path, spec, router, tail_backups="on")
    assert result.status == "complete" and result.items == 5
    # Seed 0 draws Kenya in the first round: at least one slot was refused and replaced.
    assert {r["check"] for r in rejects(out)} == {"judge"}
    rows = items(out)
    assert len(rows) == 5 and len({r["id"] for r in rows}) == 5
    refused = {3, 4}  # Japan and Kenya (their rows in the dataset)
    assert not refused & {r["metadata"]["source"]["record_index"] for r in rows}
    backups = result.report["tail_backups"]
    assert set(backups) == {"started", "won", "superseded", "surplus"}
    assert backups["won"] <= backups["started"]


def test_a_replacement_keeps_the_language_of_the_slot_it_replaces():
    # Languages rotate over the candidates' positions; a French slot whose candidate fails
    # (no French name for its answer, say) is replaced by a French one, not by whatever
    # language the next position had, so the plan's mix of languages holds.
    from benchsmith.agents.slot_queue import make_slot
    from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, ProgramSpec, Scores, Subtask

    grounding = Grounding(
        id=GID,
        subtask_id="capitals",
        dataset_id="capitals",
        strategy="question_program",
        program=ProgramSpec(
            kind="lookup", table="capitals", key_field="name", answer_field="capital"
        ),
        answer_field="capital",
        plan=[],
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
        available_records=10,
    )
    BenchmarkSpec(
        intent="capitals",
        size=2,
        subtasks=[Subtask(id="capitals", name="Capitals", description="d")],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=GID, quota=2)],
    )  # a valid plan holds such a grounding
    languages = ["en", "fr"]
    reserve = Reserve(grounding, [(2, 7), (3, 8), (4, 9)], languages, 0)
    french = make_slot(grounding, 1, 5, languages, 0)
    assert french.language == "fr"
    again = reserve.take(like=french)  # position 2 would have been English
    assert again.record_index == 7 and again.language == "fr"
    assert reserve.take().language == "fr"  # position 3, its own language
    assert reserve.take(like=make_slot(grounding, 0, 1, languages, 0)).language == "en"
    assert reserve.take() is None

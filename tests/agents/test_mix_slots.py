"""The quota monitor with a difficulty mix: slots drawn per label, replacements of the
same label, refills for the labels still short."""

from __future__ import annotations

from benchsmith.agents.collect import plan_slots
from benchsmith.agents.slot_queue import Reserve, make_slot
from benchsmith.difficulty_mix import parse_mix
from benchsmith.item import Item
from benchsmith.ledger import Ledger
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, Scores, Subtask

GID = "sums--chapter"
LABELS = ["medium", "medium", "easy", "medium", "hard", "medium", "hard", "easy", "medium"]


def spec(quota: int) -> BenchmarkSpec:
    grounding = Grounding(
        id=GID,
        subtask_id="sums",
        dataset_id="chapter",
        strategy="solution_graph",
        answer_field="computed",
        plan=[],
        scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
        available_records=len(LABELS),
    )
    return BenchmarkSpec(
        intent="sums",
        size=quota,
        subtasks=[Subtask(id="sums", name="Sums", description="d")],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=GID, quota=quota)],
    )


def plan(quota: int, ledger: Ledger, accepted=None, mix="easy=0.25,medium=0.5,hard=0.25"):
    return plan_slots(
        spec(quota),
        ledger,
        round_=0,
        targets=None,
        max_rounds=3,
        max_slots_factor=2.0,
        mix=parse_mix(mix),
        labels={GID: LABELS},
        accepted_labels=accepted,
    )


def test_the_first_round_draws_each_labels_share_in_order():
    made = plan(4, Ledger(None))
    assert [s.record_index for s in made.slots] == [0, 1, 2, 4]
    assert sorted(LABELS[s.record_index] for s in made.slots) == [
        "easy", "hard", "medium", "medium"
    ]  # fmt: skip
    # The reserve holds what the attempt cap still allows (2 x 4 - 4 slots).
    assert len(made.reserve[GID]) == 4


def test_without_a_mix_the_round_draws_in_order():
    made = plan_slots(spec(4), Ledger(None), round_=0, targets=None, max_rounds=3,
                      max_slots_factor=2.0)  # fmt: skip
    assert [s.record_index for s in made.slots] == [0, 1, 2, 3]
    assert len(made.reserve[GID]) == 4


def test_a_rejected_slot_is_replaced_by_a_candidate_of_its_label():
    grounding = spec(4).groundings[0]
    reserve = Reserve(grounding, [(3, 3), (5, 5), (6, 6), (7, 7)], [], 0, labels=LABELS, limit=3)
    hard = make_slot(grounding, 4, 4, [], 0)
    assert reserve.take(like=hard).record_index == 6  # the next hard one, not record 3
    easy = make_slot(grounding, 2, 2, [], 0)
    assert reserve.take(like=easy).record_index == 7
    assert reserve.take(like=easy).record_index == 3  # no easy left: the next in order
    assert reserve.take() is None  # the limit


def test_a_refill_round_draws_the_labels_still_short():
    ledger = Ledger(None)
    grounding = spec(4).groundings[0]
    # Round 0 accepted records 0, 1 (medium) and 2 (easy); record 4 (hard) was rejected.
    for index in (0, 1, 2):
        slot = make_slot(grounding, index, index, [], 0)
        meta = {"difficulty": LABELS[index], "source": {"grounding": GID}}
        ledger.accept(slot.record(), Item(id=slot.item_id, input="q", target="1", metadata=meta))
    ledger.reject(make_slot(grounding, 4, 4, [], 0).record(), "judge: unclear")
    made = plan(4, ledger, accepted={GID: {"medium": 2, "easy": 1}})
    assert [s.record_index for s in made.slots] == [6]  # the next hard one

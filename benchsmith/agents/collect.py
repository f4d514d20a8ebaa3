"""Quota control: compare accepted items with each quota and plan the slots that refill it.

A grounding's computed candidates are drawn in order (the generator's own draws are
seeded), so the slots of a build are a pure function of the spec, the seed and what the
ledger says has finished: a resumed build plans exactly the slots the killed one had not
finished, and never draws a candidate twice. When a grounding's candidates run out (or it
reaches its attempt cap) its shortfall moves to the subtask's other groundings; when none
is left the subtask's shortfall is reported with the reason. Rounds are capped by
``max_refill_rounds``.

A round also keeps, per grounding, a :class:`~benchsmith.agents.slot_queue.Reserve` of the
candidates its attempt cap still allows: a slot that ends rejected replaces itself with the
next of them and goes on, so most rejections are refilled within the round (the next round
takes what is left).

With a difficulty mix (``--difficulty``), a computed grounding's candidates carry their
predicted labels: a round draws, per label, the candidates its shortfall still needs
(:func:`benchsmith.difficulty_mix.choose`), and a rejected slot is replaced by the next
candidate of the same label.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents.slot_queue import Reserve, make_slot
from benchsmith.agents.sources import run_config
from benchsmith.agents.workspace import current_workspace, open_workspace
from benchsmith.config import RunConfig
from benchsmith.difficulty_mix import apportion, choose, shortfall
from benchsmith.layout import spec_path, write_spec
from benchsmith.ledger import Ledger
from benchsmith.spec import BenchmarkSpec, Grounding
from benchsmith.state import BuildState, Slot


def slot_workers(concurrency: int) -> int:
    """Slot tasks that run at once for a build of ``concurrency`` requests in flight.

    A few more than the requests: while some run tools and checks, the endpoint still has
    ``concurrency`` requests (its semaphore caps them there). The graph's
    ``max_concurrency`` and the fan-out of each round are this many.
    """
    return concurrency + max(2, concurrency // 4)


def record_order(grounding: Grounding) -> list[int]:
    """The order in which a grounding draws its candidates: as generated (already seeded)."""
    return list(range(grounding.available_records))


def settle_plan(config: RunConfig, planned: BenchmarkSpec) -> BenchmarkSpec:
    """The plan the build's slots realize: ``spec.json``, written first when it is new.

    On disk before the first slot: a killed build resumes from it, and every slot opens the
    build's workspace from it.
    """
    folder = Path(config.paths.out_dir or ".")
    path = spec_path(folder)
    if path.is_file():
        return BenchmarkSpec.model_validate_json(path.read_text(encoding="utf-8"))
    write_spec(folder, planned)
    return planned


def slot_languages(spec: BenchmarkSpec, subtask_id: str, fallback: list[str]) -> list[str]:
    """Languages a subtask's items rotate through (empty: no language constraint)."""
    for s in spec.subtasks:
        if s.id == subtask_id:
            return list(s.languages or fallback)
    return list(fallback)


@dataclass
class SlotPlan:
    """What the quota monitor decided for one round."""

    slots: list[Slot] = field(default_factory=list)
    reserve: dict[str, Reserve] = field(default_factory=dict)
    """Per grounding, the candidates a rejected slot of this round may replace itself with."""
    targets: dict[str, int] = field(default_factory=dict)
    shortfalls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """Nothing left to send."""
        return not self.slots


def plan_slots(
    spec: BenchmarkSpec,
    ledger: Ledger,
    *,
    round_: int,
    targets: dict[str, int] | None,
    max_rounds: int,
    max_slots_factor: float,
    languages: list[str] | None = None,
    mix: Mapping[str, float] | None = None,
    labels: Mapping[str, Sequence[str | None]] | None = None,
    accepted_labels: Mapping[str, Mapping[str, int]] | None = None,
) -> SlotPlan:
    """Plan the next round of slots.

    Args:
        spec: The plan (allocations give the initial targets).
        ledger: What has finished.
        round_: This round's number (0 is the first).
        targets: Current target per grounding (after reallocations); None: the quotas.
        max_rounds: Refill rounds allowed after the first.
        max_slots_factor: Most slots a grounding may use, as a multiple of its target.
        languages: Languages of the run, for subtasks that name none.
        mix: The difficulty mix asked for (None: draw in order).
        labels: With ``mix``, per computed grounding the predicted label of each candidate
            index; the round draws what each label still lacks of its share of the target.
        accepted_labels: With ``mix``, per grounding its accepted items per label.

    Returns:
        The slots to send, the updated targets and, when nothing more can be sent, the
        shortfall of every subtask that missed its quota, with the reason.
    """
    by_id = {g.id: g for g in spec.groundings}
    plan = SlotPlan(
        targets=dict(targets) if targets else {a.grounding_id: a.quota for a in spec.allocations}
    )
    done = ledger.done_ids()
    blocked: dict[str, str] = {}
    free: dict[str, list[tuple[int, int]]] = {}
    for gid, target in plan.targets.items():
        g = by_id[gid]
        order = record_order(g)
        unused = [(pos, idx) for pos, idx in enumerate(order) if f"{g.id}#{idx}" not in done]
        free[gid] = unused
        used = ledger.slots_used(gid)
        cap = max(1, math.ceil(target * max_slots_factor))
        if not unused:
            blocked[gid] = f"{g.dataset_id} gives no unused candidate ({len(order)} tried)"
        elif used >= cap:
            blocked[gid] = (
                f"it used its attempt cap of {cap} slots ({max_slots_factor:g}x its quota)"
            )
    if round_ > max_rounds:
        for gid in plan.targets:
            blocked.setdefault(gid, f"the refill rounds ran out ({max_rounds})")
    # Move the shortfall of blocked groundings to open groundings of the same subtask.
    for gid in list(plan.targets):
        short = plan.targets[gid] - ledger.accepted_count(gid)
        if short <= 0 or gid not in blocked:
            continue
        subtask_id = by_id[gid].subtask_id
        others = [
            o
            for o in plan.targets
            if o != gid and by_id[o].subtask_id == subtask_id and o not in blocked
        ]
        others += [
            g.id
            for g in spec.groundings
            if g.subtask_id == subtask_id and g.id not in plan.targets and free.get(g.id, True)
        ]
        if not others:
            continue
        receiver = others[0]
        plan.targets[gid] -= short
        plan.targets[receiver] = plan.targets.get(receiver, 0) + short
        plan.notes.append(f"moved {short} item(s) of {gid} to {receiver}: {blocked[gid]}")
        if receiver not in free:
            g = by_id[receiver]
            free[receiver] = list(enumerate(record_order(g)))
    for gid, target in plan.targets.items():
        if gid in blocked:
            continue
        need = target - ledger.accepted_count(gid)
        if need <= 0:
            continue
        g = by_id[gid]
        cap = max(1, math.ceil(target * max_slots_factor))
        room = max(0, cap - ledger.slots_used(gid))
        langs = slot_languages(spec, g.subtask_id, list(languages or []))
        planned = min(need, room)
        known = labels.get(gid) if mix and labels else None
        if known is None:
            for pos, idx in free[gid][:planned]:
                plan.slots.append(make_slot(g, pos, idx, langs, round_))
            plan.reserve[gid] = Reserve(g, free[gid][planned:room], langs, round_)
            continue
        assert mix is not None
        short = shortfall(apportion(target, mix), (accepted_labels or {}).get(gid, {}))
        chosen, rest = choose(
            free[gid],
            lambda pair, known=known: known[pair[1]] if pair[1] < len(known) else None,
            short,
            planned,
        )
        for pos, idx in chosen:
            plan.slots.append(make_slot(g, pos, idx, langs, round_))
        plan.reserve[gid] = Reserve(g, rest, langs, round_, labels=known, limit=room - len(chosen))
    if plan.done:
        plan.shortfalls = shortfalls(spec, ledger, plan.targets, blocked)
    return plan


def shortfalls(
    spec: BenchmarkSpec, ledger: Ledger, targets: dict[str, int], blocked: dict[str, str]
) -> list[dict[str, Any]]:
    """Every subtask below its quota, with the reason its groundings could not fill it."""
    out = []
    for s in spec.subtasks:
        gids = [g for g in targets if _subtask_of(spec, g) == s.id]
        quota = sum(targets[g] for g in gids)
        accepted = sum(ledger.accepted_count(g) for g in gids)
        if accepted >= quota:
            continue
        reasons = [f"{g}: {blocked[g]}" for g in gids if g in blocked]
        rejected = sum(ledger.rejected_count(g) for g in gids)
        out.append(
            {
                "subtask_id": s.id,
                "quota": quota,
                "accepted": accepted,
                "missing": quota - accepted,
                "rejected": rejected,
                "reason": "; ".join(reasons) or "no grounding could take the shortfall",
            }
        )
    return out


def _subtask_of(spec: BenchmarkSpec, grounding_id: str) -> str | None:
    for g in spec.groundings:
        if g.id == grounding_id:
            return g.subtask_id
    return None


def accepted_labels(ledger: Ledger) -> dict[str, dict[str, int]]:
    """Per grounding, its accepted items per difficulty label (``metadata.difficulty``)."""
    out: dict[str, collections.Counter[str]] = {}
    for item in ledger.accepted_items():
        grounding = str((item.metadata.get("source") or {}).get("grounding") or "")
        out.setdefault(grounding, collections.Counter())[str(item.metadata.get("difficulty"))] += 1
    return {g: dict(c) for g, c in out.items()}


def collect_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node, the quota monitor: plan the next round of slots (none: package).

    On its first run in a build it settles the plan on disk (:func:`settle_plan`) and
    opens the run's workspace, so the realize nodes that follow share the ledger, the
    duplicate index and the computed candidates.
    """
    config = run_config(runtime)
    workers = slot_workers(config.concurrency)
    ws = current_workspace(config)
    if ws is not None and ws.queued():
        # Slots of this round no task took (a task ends early only when stopping).
        sends = ws.fan_out(workers)
        return {
            "pending_slots": sends,
            "build_log": [f"collect: {len(sends)} more slot task(s) for this round"],
        }
    round_ = int(state.get("exec_round") or 0)
    if ws is None:
        settle_plan(config, BenchmarkSpec.model_validate(state["spec"]))
        ws = open_workspace(config)
    mix = config.difficulty_mix
    plan = plan_slots(
        ws.spec,
        ws.ledger,
        round_=round_,
        targets=state.get("targets") or None,
        max_rounds=config.max_refill_rounds,
        max_slots_factor=config.max_slots_factor,
        languages=list(config.languages),
        mix=mix,
        labels=ws.candidates.labels() if mix else None,
        accepted_labels=accepted_labels(ws.ledger) if mix else None,
    )
    log = list(plan.notes)
    if plan.slots:
        log.append(
            f"collect: round {round_}: {len(plan.slots)} slot(s) to realize by "
            f"{min(workers, len(plan.slots))} slot task(s)"
        )
    else:
        log.append(
            "collect: every quota is met"
            if not plan.shortfalls
            else "collect: stopping with shortfalls: "
            + "; ".join(f"{s['subtask_id']} {s['accepted']}/{s['quota']}" for s in plan.shortfalls)
        )
    subtask_of = {g.id: g.subtask_id for g in ws.spec.groundings}
    subtask_targets: dict[str, int] = {}
    for gid, target in plan.targets.items():
        subtask_targets[subtask_of[gid]] = subtask_targets.get(subtask_of[gid], 0) + target
    # No slot of an earlier round is running (a step ends when all its slots have).
    ws.start_round(plan.slots, plan.reserve)
    sends = ws.fan_out(workers)
    return {
        "pending_slots": sends,
        "targets": plan.targets,
        "subtask_targets": subtask_targets,
        "exec_round": round_ + 1,
        "shortfalls": plan.shortfalls,
        "build_status": "building",
        "build_log": log,
    }

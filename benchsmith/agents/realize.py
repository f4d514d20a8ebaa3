"""The slot subgraph's nodes: take the computed item, verify it, accept or discard it.

A *slot* is one attempt at one item: a grounding, a candidate (by index), a language and
the item id it would get. Every item is computed (a question program's or a reference's
problem), so a failed check has no local fix: the slot is discarded and a reserved
candidate takes its place. ``collect`` sends one slot task per slot worker (a ``Send`` to
the slot subgraph); each realizes its slot through these nodes, then the round's next slot
or a replacement candidate in place, and returns small outcomes (tallies, never the item),
while each accepted item goes to the build ledger on disk.

The nodes share the run's :class:`~benchsmith.agents.workspace.Workspace` (the ledger, the
duplicate index, the loaded records), which they reach through the run configuration, the
graph's context (:func:`~benchsmith.agents.workspace.open_workspace`).
"""

from __future__ import annotations

import shutil
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents.sources import run_config
from benchsmith.agents.workspace import Workspace, open_workspace
from benchsmith.config import RunConfig
from benchsmith.state import Failure, Slot, SlotState, SlotStatus
from benchsmith.stopping import check_stop, stop_requested

# -- the slot subgraph's nodes ---------------------------------------------------------------
# Each takes the slot's typed state and the run configuration; the routers in
# ``graph/routers.py`` read only the state. ``accept`` and ``discard`` write the ledger, the
# source of truth for resume.


def _tally(slot: Slot, status: SlotStatus) -> dict[str, Any]:
    return {"status": status, "tallies": {slot.subtask_id: {status: 1}}}


SUPERSEDED = "superseded"
"""The check of a slot stopped because a tail backup filled its place (not a rejection)."""


def _step(runtime: Runtime[RunConfig]) -> tuple[RunConfig, Workspace]:
    """The run's configuration and workspace, for a step that may start (no stop asked for).

    Raises:
        StopRequested: Ctrl-C or SIGTERM came: no new slot step starts.
    """
    check_stop()
    config = run_config(runtime)
    return config, open_workspace(config)


def _start_attempt(
    state: SlotState, runtime: Runtime[RunConfig]
) -> tuple[RunConfig, Workspace, str]:
    """What an attempt's first step needs: the run's configuration and workspace, the claim.

    The claim is the place in the quota the slot works for; a fresh slot's first step
    counts for the tail backups.
    """
    config, ws = _step(runtime)
    claim = state.get("claim")
    if claim is None:
        ws.backups.fresh_started()
        claim = state["slot"].id
    return config, ws, claim


def _superseded(claim: str) -> dict[str, Any]:
    """The update of a slot whose place another slot filled: it stops (to ``discard``)."""
    reason = "another slot filled this place in the quota first (tail backup)"
    return {"claim": claim, "failure": Failure(reason=reason, check=SUPERSEDED, counts=False)}


def _next_job(ws: Workspace) -> dict[str, Any]:
    """After a slot ends: the round's next slot, or a tail backup, to realize in place.

    ``carry_on`` sends the slot task back to the start with it; with neither left (or a
    stop asked for) the task ends.
    """
    if stop_requested():
        return {"carry_on": False}
    fresh = ws.next_slot()
    if fresh is not None:
        claim, slot, backup = fresh.id, fresh, False
    else:
        job = ws.backups.take(ws.replacement)
        if job is None:
            return {"carry_on": False}
        (claim, slot), backup = job, True
    return _carry_on(slot, claim, backup=backup, replaced=0)


def _carry_on(slot: Slot, claim: str, *, backup: bool, replaced: int) -> dict[str, Any]:
    """The update that sends a slot task back to the start with ``slot``, afresh."""
    return {
        "slot": slot,
        "claim": claim,
        "backup": backup,
        "carry_on": True,
        "replaced": replaced,
        "attempt": 0,
        "history": [],
        "draft": None,
        "failure": None,
    }


def _failed(state: SlotState, failure: Failure, attempt: int | None = None) -> dict[str, Any]:
    """The update for a failed attempt: its history (``attempt``: default the state's)."""
    attempt = state.get("attempt", 0) if attempt is None else attempt
    history = list(state.get("history") or [])
    if failure.counts:
        history.append({"attempt": attempt, "check": failure.check, "reason": failure.reason[:300]})
    return {"attempt": attempt, "failure": failure, "history": history, "draft": None}


def computed_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Take a solution-graph or question-program slot's computed item as the draft."""
    _, ws, claim = _start_attempt(state, runtime)
    if ws.backups.is_settled(claim):
        return _superseded(claim)
    slot = state["slot"]
    grounding = ws.groundings[slot.grounding_id]
    if grounding.strategy == "question_program":
        taken = ws.candidates.take_program(slot, grounding)
        if not isinstance(taken, Failure):
            taken = ws.program_media(slot, taken)
    else:
        taken = ws.candidates.take_computed(slot, grounding)
    if isinstance(taken, Failure):
        return _failed(state, taken, attempt=1) | {"claim": claim}
    return {"draft": taken, "failure": None, "attempt": 1, "claim": claim}


def verify_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Check the draft; a failed draft's media leave the folder."""
    _, ws = _step(runtime)
    draft = state["draft"]
    assert draft is not None  # the routers send only drafted slots here
    claim = state.get("claim") or state["slot"].id
    if ws.backups.is_settled(claim):  # filled meanwhile: no judge call for nothing
        ws.drop_media(draft)
        return _superseded(claim)
    result = ws.check(state["slot"], draft)
    if result.ok:
        draft.item.metadata["verification"] = result.record()
        return {"failure": None}
    ws.drop_media(draft)
    # A computed item has no local fix: its words and answer come from its program or graph
    # (a reference's generator rewords a problem its solver disagrees with before any slot).
    failure = Failure(reason=result.reason, check=result.failed_check or "")
    return _failed(state, failure)


def accept_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Write the verified item to the ledger (unless a tail backup filled its place first).

    Then the slot task may go on with a tail backup (see :func:`_next_job`).
    """
    ws = open_workspace(run_config(runtime))
    slot, draft = state["slot"], state["draft"]
    assert draft is not None  # the routers send only verified slots here
    item = draft.item
    claim = state.get("claim") or slot.id
    if not ws.backups.settle(claim, backup=bool(state.get("backup"))):
        # Verified second: the place is filled, so the item is dropped, never packaged, and
        # leaves the duplicate index (later items are compared with kept items only).
        ws.duplicates.remove(item)
        ws.drop_media(draft)
        shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
        return _tally(slot, "surplus") | _next_job(ws)
    ws.ledger.accept(slot.record(), item)
    shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
    ws.warm_packaging()
    return _tally(slot, "accepted") | _next_job(ws)


REPLACEMENTS_PER_SLOT = 4
"""Most candidates one slot task replaces itself with in place (a grounding whose every
candidate fails ends in the round's refill instead, and a slot's steps stay far below the
graph's recursion limit)."""


def discard_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Record the discarded slot and why in the ledger (its rejects file).

    Then the slot goes on with a replacement candidate from its grounding's reserve, if any
    is left (see :class:`~benchsmith.agents.slot_queue.Reserve`): the state starts afresh for
    that candidate, and ``carry_on`` sends it back to the start. A tail backup takes no
    replacement (the slot it backs up goes on), and a slot whose place a backup filled
    (``superseded``) is no rejection: neither writes the ledger. Either may go on with
    another backup (:func:`_next_job`).
    """
    ws = open_workspace(run_config(runtime))
    slot = state["slot"]
    failure = state["failure"]
    assert failure is not None  # the routers send only failed slots here
    shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
    if failure.check == SUPERSEDED:
        ws.backups.superseded()
        return _tally(slot, "superseded") | _next_job(ws)
    history = list(state.get("history") or [])
    extra: dict[str, Any] = {"check": failure.check, "attempts": state.get("attempt", 0)}
    if history:
        extra["history"] = history
    ws.ledger.reject(slot.record(), failure.reason, **extra)
    update = _tally(slot, "rejected")
    replaced = int(state.get("replaced") or 0)
    if state.get("backup") or replaced >= REPLACEMENTS_PER_SLOT or stop_requested():
        return update | _next_job(ws)
    nxt = ws.replacement(slot)
    if nxt is None:
        return update | _next_job(ws)
    claim = state.get("claim") or slot.id
    ws.backups.note_chain(claim, nxt)
    return update | _carry_on(nxt, claim, backup=False, replaced=replaced + 1)

"""Allocation feasibility: diagnose a round's quotas, adjust the knobs, and loop.

The closed loop, as the graph node calls it (:func:`run_allocation`, or
:func:`plan_allocations` with plain arguments):

1. :func:`~benchsmith.agents.quotas.allocate` computes the quotas of one round (the
   arithmetic is in :mod:`benchsmith.agents.quotas`).
2. :func:`diagnose` names each constraint that fails: ``supply`` (total supply below the
   size), ``budget`` (estimated cost or tokens above the cap, or a USD cap with an unknown
   price) and ``coverage`` (a subtask with no supply, with no item, or off its target share
   by more than the tolerance).
3. :func:`adjust` applies the fix it can: accept the feasible split closest to the weights
   (relax coverage), shrink the size to the largest one the budget affords (only when
   allowed); or it ends the loop with a route: ``design`` (more subtasks or data needed: the
   plan is infeasible) or
   ``stop`` (the budget is too small).

:func:`usd_per_item_from_price` turns a model price into the per-item cost estimate the
budget is checked against.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from benchsmith.agents.quotas import (
    _EPS,
    DEFAULT_TOLERANCE,
    AllocationError,
    AllocationResult,
    Budget,
    BudgetEstimate,
    GroundingLine,
    Split,
    _deviations,
    _prepare,
    allocate,
)
from benchsmith.config import Price
from benchsmith.spec import Allocation, Grounding, Subtask

Constraint = Literal["supply", "budget", "coverage"]
Route = Literal["ok", "design", "stop"]
Kind = Literal[
    "short", "over_usd", "over_tokens", "unknown_price", "no_supply", "zero", "deviation"
]

#: Share of an item's tokens that are output tokens, to blend a model's two prices.
DEFAULT_OUTPUT_SHARE = 0.25


# -- results --------------------------------------------------------------------------------
class Diagnosis(BaseModel):
    """One failed constraint, with what is at fault and the numbers."""

    constraint: Constraint
    kind: Kind
    subjects: list[str] = Field(description="The subtask or grounding ids at fault.")
    message: str
    numbers: dict[str, float] = Field(default_factory=dict)


class Adjustment(BaseModel):
    """What :func:`adjust` decided: try again with new knobs, or end the loop with a route."""

    action: Literal["retry", "design", "stop"]
    size: int
    relax_coverage: bool
    notes: list[str] = Field(default_factory=list)
    bottleneck: Diagnosis | None = None
    message: str = ""


class AllocationRound(BaseModel):
    """One allocate -> diagnose -> adjust round, for the trace and the report."""

    round: int
    result: AllocationResult
    diagnoses: list[Diagnosis]
    action: Literal["accept", "retry", "design", "stop", "give_up"]
    notes: list[str] = Field(default_factory=list)


class AllocationOutcome(BaseModel):
    """How the loop ended."""

    feasible: bool
    route: Route = Field(description="ok; design (more subtasks or data); stop (budget).")
    allocations: list[Allocation] = Field(
        description="Positive quotas summing to size; [] if not feasible."
    )
    size: int = Field(description="The size allocated (smaller than asked only after a shrink).")
    requested_size: int
    rounds: list[AllocationRound]
    bottleneck: Diagnosis | None = None
    message: str
    notes: list[str] = Field(default_factory=list)
    weights: dict[str, float]
    est_usd: float | None = None
    est_tokens: float | None = None


AdjustFn = Callable[
    [AllocationResult, list[Diagnosis], Sequence[Subtask], Sequence[Grounding]], Adjustment
]


# -- diagnose ---------------------------------------------------------------------------------
def _usd(x: float) -> str:
    return f"${x:,.4f}"


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _supply_text(result: AllocationResult, subtask_id: str) -> str:
    parts = [
        f"{g.grounding_id}: {g.available_records} records x {g.expected_yield:g} yield = {g.supply}"
        for g in result.groundings
        if g.subtask_id == subtask_id
    ]
    return "; ".join(parts) or "no grounding"


def diagnose(result: AllocationResult) -> list[Diagnosis]:
    """Name every constraint the allocation fails, with the numbers.

    Args:
        result: One round's allocation (it carries the budget, tolerance and coverage mode).

    Returns:
        The failures, supply first, then budget, then coverage; empty when feasible.
    """
    out: list[Diagnosis] = []

    def fail(
        constraint: Constraint, kind: Kind, subjects: list[str], message: str, **numbers: float
    ) -> None:
        out.append(
            Diagnosis(
                constraint=constraint,
                kind=kind,
                subjects=subjects,
                message=message,
                numbers=numbers,
            )
        )

    size = result.size
    if result.total_supply < size:
        worst = sorted(result.subtasks, key=lambda s: (s.supply - s.target, s.subtask_id))
        detail = ", ".join(
            f"{s.subtask_id} {s.supply} of its {_num(round(s.target, 1))} "
            f"({_supply_text(result, s.subtask_id)})"
            for s in worst
        )
        fail(
            "supply",
            "short",
            [s.subtask_id for s in worst],
            f"total supply is {result.total_supply} accepted items, short of the size "
            f"{size} by {size - result.total_supply}: {detail}",
            total_supply=result.total_supply,
            size=size,
            short=size - result.total_supply,
        )

    budget = result.budget
    used = [g for g in result.groundings if g.quota]

    def over_budget(
        kind: Kind,
        cost: Callable[[GroundingLine], float],
        estimate: float,
        cap: float,
        message: str,
    ) -> None:
        """An estimate over its cap, the groundings that cost the most in it first.

        Its numbers are ``estimated_<unit>``, ``budget_<unit>`` and ``over_<unit>``.
        """
        unit = kind.removeprefix("over_")
        costly = sorted(used, key=lambda g: (-(g.quota * cost(g)), g.grounding_id))
        numbers = {f"estimated_{unit}": estimate, f"budget_{unit}": cap, kind: estimate - cap}
        fail("budget", kind, [g.grounding_id for g in costly], message, **numbers)

    if budget.usd is not None:
        if result.est_usd is None:
            unknown = [g.grounding_id for g in used if g.usd_per_item is None]
            fail(
                "budget",
                "unknown_price",
                unknown,
                f"a USD budget of {_usd(budget.usd)} is set but the cost per item of "
                f"{', '.join(unknown)} is unknown (no price for the model), so the "
                "budget cannot be checked; add the model's price under [prices] in "
                "benchsmith.toml or use --budget-tokens instead",
                budget_usd=budget.usd,
            )
        elif result.est_usd > budget.usd + _EPS:
            over = result.est_usd - budget.usd
            over_budget(
                "over_usd",
                lambda g: g.usd_per_item or 0.0,
                result.est_usd,
                budget.usd,
                f"the estimated cost of {result.placed} items is {_usd(result.est_usd)}, "
                f"over the budget of {_usd(budget.usd)} by {_usd(over)}",
            )
    if budget.tokens is not None and result.est_tokens > budget.tokens + _EPS:
        over = result.est_tokens - budget.tokens
        over_budget(
            "over_tokens",
            lambda g: g.tokens_per_item,
            result.est_tokens,
            budget.tokens,
            f"the estimated {_num(result.est_tokens)} tokens for {result.placed} items "
            f"are over the budget of {_num(budget.tokens)} tokens by {_num(over)}",
        )

    for s in result.subtasks:
        if s.supply == 0:
            fail(
                "coverage",
                "no_supply",
                [s.subtask_id],
                f"subtask {s.subtask_id} has no supply "
                f"({_supply_text(result, s.subtask_id)}), so it gets 0 items "
                f"instead of {_num(round(s.target, 1))}",
                supply=0,
                target=s.target,
            )
        elif s.quota == 0 and not result.relax_coverage:
            fail(
                "coverage",
                "zero",
                [s.subtask_id],
                f"subtask {s.subtask_id} gets 0 items: the size {size} is smaller than "
                f"the {sum(1 for x in result.subtasks if x.supply)} subtasks with supply",
                quota=0,
                target=s.target,
                size=size,
            )
    for s, off in _deviations(result):
        zero_reported = s.quota == 0 and not result.relax_coverage
        if s.supply == 0 or zero_reported or off / size <= result.tolerance:
            continue
        target = s.feasible_target if result.relax_coverage else s.target
        if s.quota >= s.supply:
            why = f"capped by its supply {s.supply} ({_supply_text(result, s.subtask_id)})"
        elif s.quota > target and s.quota == 1:
            why = "raised to the one-item floor"
        elif s.quota > target:
            why = "given what subtasks short of supply could not take"
        else:
            why = "squeezed by the one-item floor of the other subtasks"
        fail(
            "coverage",
            "deviation",
            [s.subtask_id],
            f"subtask {s.subtask_id} gets {s.quota} items ({s.quota / size:.1%}) against "
            f"a target of {target:.1f} ({target / size:.1%}), off by {off / size:.1%} > "
            f"tolerance {result.tolerance:.1%}: {why}",
            quota=s.quota,
            target=target,
            deviation=off / size,
            tolerance=result.tolerance,
        )
    return out


# -- adjust -----------------------------------------------------------------------------------
def _within_budget(result: AllocationResult) -> bool:
    budget = result.budget
    if budget.usd is not None and (result.est_usd is None or result.est_usd > budget.usd + _EPS):
        return False
    return budget.tokens is None or result.est_tokens <= budget.tokens + _EPS


def affordable_size(
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
    result: AllocationResult,
) -> int:
    """The largest size up to ``result.size`` whose allocation fits the budget (0: none).

    Quotas do not grow monotonically with the size (largest remainders), so sizes are
    checked one by one, only between the bounds the cheapest and dearest items allow.

    Args:
        subtasks: The subtasks (to re-allocate at smaller sizes).
        groundings: The groundings.
        result: The round's allocation (its weights, budget, tolerance and split are kept).

    Returns:
        The largest affordable size, or 0 when not even one item fits.
    """
    weights = {s.subtask_id: s.weight for s in result.subtasks}
    budget = result.budget
    per_item = [(g.usd_per_item, g.tokens_per_item) for g in result.groundings if g.supply > 0]
    if not per_item:
        return 0
    top = min(result.size, result.total_supply)
    low = top
    for cap, costs in (
        (budget.usd, [u for u, _ in per_item]),
        (budget.tokens, [t for _, t in per_item]),
    ):
        if cap is None:
            continue
        if any(c is None for c in costs):
            return 0
        cheapest, dearest = min(costs), max(costs)
        if cheapest > 0:
            top = min(top, math.floor(cap / cheapest + _EPS))
        low = min(low, math.floor(cap / dearest + _EPS) if dearest > 0 else top)
    for n in range(top, max(low, 0), -1):
        trial = allocate(
            subtasks,
            groundings,
            n,
            weights=weights,
            budget=budget,
            tolerance=result.tolerance,
            split=result.split,
        )
        if _within_budget(trial):
            return n
    return max(min(low, top), 0)


def adjust(
    result: AllocationResult,
    diagnoses: list[Diagnosis],
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
) -> Adjustment:
    """Apply the fix the diagnoses call for, or end the loop with a route.

    In order: a budget that cannot be checked, or is too small and may not shrink the size,
    stops (the message names the estimate, the cap and the largest affordable size); a
    budget that may shrink the size shrinks it; missing supply (a subtask with none, or too
    little in total) goes back to design; a coverage shortfall is relaxed to the feasible
    split closest to the weights (allocate already gives supply-capped subtasks' excess to
    the others). When nothing can change any more, the loop ends with ``design``.

    Args:
        result: The round's allocation.
        diagnoses: What :func:`diagnose` found (not empty).
        subtasks: The subtasks (to re-allocate at smaller sizes).
        groundings: The groundings.

    Returns:
        The decision; for ``retry``, the size and coverage mode of the next round.
    """
    size, relax = result.size, result.relax_coverage
    notes: list[str] = []

    def end(action: Literal["design", "stop"], found: list[Diagnosis], lead: str) -> Adjustment:
        message = lead + "; ".join(d.message for d in found)
        return Adjustment(
            action=action, size=size, relax_coverage=relax, bottleneck=found[0], message=message
        )

    unknown = [d for d in diagnoses if d.kind == "unknown_price"]
    if unknown:
        return end("stop", unknown, "")
    over = [d for d in diagnoses if d.constraint == "budget"]
    if over:
        fits = affordable_size(subtasks, groundings, result)
        if result.budget.allow_shrink and 1 <= fits < size:
            notes.append(
                f"reduced the size from {size} to {fits}, the largest the budget affords "
                f"({'; '.join(d.message for d in over)})"
            )
            return Adjustment(action="retry", size=fits, relax_coverage=relax, notes=notes)
        advice = (
            f"the budget affords {fits} items at most: raise --budget-usd / --budget-tokens "
            f"or lower --size to {fits}"
            if fits >= 1
            else "the budget does not afford a single item: raise --budget-usd / --budget-tokens"
        )
        adjustment = end("stop", over, "the budget is too small: ")
        adjustment.message += f"; {advice}"
        return adjustment
    design = [d for d in diagnoses if d.kind in ("short", "no_supply")]
    if design:
        return end(
            "design",
            design,
            "the data cannot give that many items (ask for a smaller --size, or for more "
            "programs or tables in the intent): ",
        )
    coverage = [d for d in diagnoses if d.constraint == "coverage"]
    if coverage and not relax:
        relax = True
        notes.append(
            "relaxed coverage to the feasible split closest to the weights: "
            + "; ".join(d.message for d in coverage)
        )
        return Adjustment(action="retry", size=size, relax_coverage=relax, notes=notes)
    return end("design", diagnoses, "no adjustment left to try: ")


# -- the loop -----------------------------------------------------------------------------------
def run_allocation(
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
    size: int,
    budget: Budget | None = None,
    *,
    weights: Mapping[str, float] | None = None,
    max_rounds: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    split: Split = "score",
    adjust_fn: AdjustFn = adjust,
) -> AllocationOutcome:
    """Loop allocate -> diagnose -> adjust until the allocation is feasible or a route is set.

    Args:
        subtasks: The subtasks.
        groundings: Their groundings.
        size: The number of items asked for.
        budget: Caps and per-item estimates (what is left of the run's budget); none if None.
        weights: Subtask id to weight (e.g. from :func:`propose_weights`); others use
            ``Subtask.weight``.
        max_rounds: Rounds before giving up (the loop cap).
        tolerance: Largest share deviation from the target that coverage accepts.
        split: Within a subtask, weigh groundings by ``score`` or ``even``-ly.
        adjust_fn: The adjust step (tests swap it).

    Returns:
        Feasible with allocations summing to the size, or infeasible with the bottleneck,
        the route (``design`` or ``stop``) and a message naming the numbers; the trace of
        every round either way.

    Raises:
        AllocationError: The input is inconsistent, or ``max_rounds`` < 1.
    """
    if max_rounds < 1:
        raise AllocationError(f"max_rounds must be >= 1, got {max_rounds}")
    budget = budget or Budget()
    _, _, resolved = _prepare(subtasks, groundings, size, weights)
    rounds: list[AllocationRound] = []
    notes: list[str] = []
    current, relax = size, False
    base: dict[str, Any] = {"requested_size": size, "weights": resolved}
    for n in range(1, max_rounds + 1):
        result = allocate(
            subtasks,
            groundings,
            current,
            weights=resolved,
            budget=budget,
            tolerance=tolerance,
            relax_coverage=relax,
            split=split,
        )
        found = diagnose(result)
        common: dict[str, Any] = {
            **base,
            "size": current,
            "rounds": rounds,
            "notes": notes,
            "est_usd": result.est_usd,
            "est_tokens": result.est_tokens,
        }
        if not found:
            rounds.append(AllocationRound(round=n, result=result, diagnoses=[], action="accept"))
            cost = "" if result.est_usd is None else f", estimated {_usd(result.est_usd)}"
            message = (
                f"{current} items over {len(result.allocations)} groundings of "
                f"{sum(1 for s in result.subtasks if s.quota)} subtasks in {n} round(s)"
                f"{cost} and {_num(result.est_tokens)} tokens"
            )
            if notes:
                message += "; " + "; ".join(notes)
            return AllocationOutcome(
                feasible=True, route="ok", allocations=result.allocations, message=message, **common
            )
        if n == max_rounds:
            rounds.append(
                AllocationRound(round=n, result=result, diagnoses=found, action="give_up")
            )
            failing = [d for d in found if d.constraint == "budget"] or found
            route: Route = "stop" if failing[0].constraint == "budget" else "design"
            return AllocationOutcome(
                feasible=False,
                route=route,
                allocations=[],
                bottleneck=failing[0],
                message=(
                    f"no feasible allocation after {max_rounds} rounds: "
                    + "; ".join(d.message for d in failing)
                ),
                **common,
            )
        step = adjust_fn(result, found, subtasks, groundings)
        rounds.append(
            AllocationRound(
                round=n, result=result, diagnoses=found, action=step.action, notes=step.notes
            )
        )
        notes.extend(step.notes)
        if step.action != "retry":
            return AllocationOutcome(
                feasible=False,
                route=step.action,
                allocations=[],
                bottleneck=step.bottleneck or found[0],
                message=step.message or "; ".join(d.message for d in found),
                **common,
            )
        current, relax = step.size, step.relax_coverage
    raise AssertionError("unreachable: the loop returns on its last round")


def plan_allocations(
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
    size: int,
    *,
    budget_usd: float | None = None,
    budget_tokens: float | None = None,
    usd_per_item: float | Mapping[str, float] | None = None,
    tokens_per_item: float | Mapping[str, float] | None = None,
    weights: Mapping[str, float] | None = None,
    max_rounds: int = 5,
    allow_shrink: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
    split: Split = "score",
) -> AllocationOutcome:
    """The allocation step with plain arguments: the single entry the graph node calls.

    Args:
        subtasks: The subtasks.
        groundings: Their groundings.
        size: The number of items asked for.
        budget_usd: What is left of the USD budget, or None.
        budget_tokens: What is left of the token budget, or None.
        usd_per_item: USD per accepted item, one number or per grounding id (see
            :func:`usd_per_item_from_price`); None when the price is unknown.
        tokens_per_item: Tokens per item, one number or per grounding id; None uses each
            grounding's ``est_tokens_per_item``.
        weights: Subtask id to weight; others use ``Subtask.weight``.
        max_rounds: The loop cap.
        allow_shrink: Reduce the size to what the budget affords instead of stopping.
        tolerance: Largest share deviation from the target that coverage accepts.
        split: Within a subtask, weigh groundings by ``score`` or ``even``-ly.

    Returns:
        The outcome (see :func:`run_allocation`).
    """
    budget = Budget(
        usd=budget_usd,
        tokens=budget_tokens,
        estimate=BudgetEstimate(
            usd_per_item=dict(usd_per_item) if isinstance(usd_per_item, Mapping) else usd_per_item,
            tokens_per_item=(
                dict(tokens_per_item) if isinstance(tokens_per_item, Mapping) else tokens_per_item
            ),
        ),
        allow_shrink=allow_shrink,
    )
    return run_allocation(
        subtasks,
        groundings,
        size,
        budget,
        weights=weights,
        max_rounds=max_rounds,
        tolerance=tolerance,
        split=split,
    )


# -- prices -------------------------------------------------------------------------------------
def usd_per_item_from_price(
    groundings: Sequence[Grounding],
    price: Price | None,
    *,
    output_share: float = DEFAULT_OUTPUT_SHARE,
) -> dict[str, float] | None:
    """USD per item of each grounding: ``est_tokens_per_item`` times the blended price.

    Args:
        groundings: The groundings.
        price: USD per million tokens; None when unknown.
        output_share: The share of an item's tokens that are output tokens.

    Returns:
        Grounding id to USD per item, or None when the price is unknown.
    """
    if price is None:
        return None
    per_token = (price.input * (1 - output_share) + price.output * output_share) / 1e6
    return {g.id: g.est_tokens_per_item * per_token for g in groundings}

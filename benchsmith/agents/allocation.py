"""Allocation agent: per-grounding quotas that fit the size, the supply and the budget.

The arithmetic is pure and deterministic; the model is asked for one thing only, the
relative importance of the subtasks (:func:`propose_weights`), through a schema whose
subtask ids are a ``Literal`` of the real ids and whose weights are bounded.

The closed loop, as the graph node calls it (:func:`run_allocation`, or
:func:`plan_allocations` with plain arguments):

1. :func:`allocate` apportions the size over the subtasks by weight and then, within each
   subtask, over its groundings by score. Both steps are one bounded water-filling: the
   continuous share ``x_i = clamp(lambda * w_i, low_i, high_i)`` with ``sum(x) == total``
   (``high`` is the supply, ``low`` is the one-item floor of every supplied subtask when the
   size allows it), solved exactly with fractions, then rounded by largest remainders
   (Hamilton), ties broken by id. So the excess of a capped subtask goes to the others in
   proportion to their weights, and the quotas sum exactly to ``min(size, total supply)``.
2. :func:`diagnose` names each constraint that fails: ``supply`` (total supply below the
   size), ``budget`` (estimated cost or tokens above the cap, or a USD cap with an unknown
   price) and ``coverage`` (a subtask with no supply, with no item, or off its target share
   by more than the tolerance).
3. :func:`adjust` applies the fix it can: accept the feasible split closest to the weights
   (relax coverage), shrink the size to the largest one the budget affords (only when
   allowed); or it ends the loop with a route: ``design`` (more subtasks or data needed) or
   ``stop`` (the budget is too small).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from benchsmith.config import Price
from benchsmith.errors import BenchsmithError, StructuredOutputError
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.usage import price_for
from benchsmith.prompts import UNTRUSTED_CLOSE, UNTRUSTED_OPEN, render, untrusted
from benchsmith.spec import Allocation, Dropped, Grounding, Subtask

Constraint = Literal["supply", "budget", "coverage"]
Route = Literal["ok", "design", "stop"]
Split = Literal["score", "even"]

#: A subtask's share may be off its target by this much (5 points of the benchmark).
DEFAULT_TOLERANCE = 0.05
#: The roles whose calls are spent per item (orchestration and verification of each sample).
ITEM_ROLES = ("orchestration", "verification")
#: Share of an item's tokens that are output tokens, to blend a model's two prices.
DEFAULT_OUTPUT_SHARE = 0.25
#: A grounding scored 0 still gets a tiny weight, so weights stay positive.
_MIN_GROUNDING_WEIGHT = Fraction(1, 100)
_EPS = 1e-9


class AllocationError(BenchsmithError):
    """The allocation's input is inconsistent (unknown subtask, duplicate id, bad size)."""


# -- inputs ---------------------------------------------------------------------------------
class BudgetEstimate(BaseModel):
    """What one accepted item is expected to cost, per grounding or for all."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    usd_per_item: float | dict[str, float] | None = Field(
        default=None,
        description="USD per item: one number, or per grounding id; None (or a missing id) "
        "means the price is unknown, so a USD budget cannot be checked.",
    )
    tokens_per_item: float | dict[str, float] | None = Field(
        default=None,
        description="Tokens per item: one number, or per grounding id; None (or a missing "
        "id) uses the grounding's own est_tokens_per_item.",
    )

    def usd_for(self, grounding: Grounding) -> float | None:
        """USD per item of a grounding, None when unknown."""
        value = self.usd_per_item
        if isinstance(value, dict):
            return value.get(grounding.id)
        return value

    def tokens_for(self, grounding: Grounding) -> float:
        """Tokens per item of a grounding."""
        value = self.tokens_per_item
        if isinstance(value, dict):
            value = value.get(grounding.id)
        return float(grounding.est_tokens_per_item if value is None else value)


class Budget(BaseModel):
    """The caps the allocation must fit (what is left of the run's budget) and the estimate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    usd: float | None = Field(default=None, ge=0, description="USD cap, or None.")
    tokens: float | None = Field(default=None, ge=0, description="Token cap, or None.")
    estimate: BudgetEstimate = Field(default_factory=BudgetEstimate)
    allow_shrink: bool = Field(
        default=False,
        description="When the budget is too small, reduce the size to the largest one it "
        "affords instead of stopping.",
    )


# -- results --------------------------------------------------------------------------------
class SubtaskLine(BaseModel):
    """One subtask in an allocation."""

    subtask_id: str
    weight: float
    supply: int = Field(description="Accepted items its groundings can give at most.")
    target: float = Field(description="Its share of the size by weight alone.")
    feasible_target: float = Field(description="Its share after supply caps and the floor.")
    quota: int


class GroundingLine(BaseModel):
    """One grounding in an allocation."""

    grounding_id: str
    subtask_id: str
    available_records: int
    expected_yield: float
    supply: int = Field(description="floor(available_records * expected_yield).")
    weight: float = Field(description="Its weight within the subtask (score, or 1).")
    quota: int
    usd_per_item: float | None
    tokens_per_item: float


class AllocationResult(BaseModel):
    """The quotas of one round, the estimates and the slack of each constraint."""

    size: int = Field(description="The size asked for in this round.")
    subtasks: list[SubtaskLine]
    groundings: list[GroundingLine]
    placed: int = Field(description="Items allocated: min(size, total supply).")
    total_supply: int
    min_one: bool = Field(description="Whether every supplied subtask was given >= 1 item.")
    est_usd: float | None = Field(description="Estimated USD; None when a price is unknown.")
    est_tokens: float
    budget: Budget
    tolerance: float
    relax_coverage: bool
    split: Split
    slack: dict[str, float | None] = Field(
        description="supply: total supply - size; budget_usd / budget_tokens: cap - estimate "
        "(None without a cap or a price); coverage: tolerance - worst share deviation."
    )

    @property
    def allocations(self) -> list[Allocation]:
        """The positive quotas, ordered by subtask then grounding id."""
        return [
            Allocation(grounding_id=g.grounding_id, quota=g.quota)
            for g in self.groundings
            if g.quota
        ]

    @property
    def by_subtask(self) -> dict[str, int]:
        """Subtask id to quota."""
        return {s.subtask_id: s.quota for s in self.subtasks}

    @property
    def by_grounding(self) -> dict[str, int]:
        """Grounding id to quota (zeros included)."""
        return {g.grounding_id: g.quota for g in self.groundings}


class Diagnosis(BaseModel):
    """One failed constraint, with what is at fault and the numbers."""

    constraint: Constraint
    kind: Literal[
        "short", "over_usd", "over_tokens", "unknown_price", "no_supply", "zero", "deviation"
    ]
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


# -- arithmetic -----------------------------------------------------------------------------
def grounding_supply(grounding: Grounding) -> int:
    """Accepted items a grounding can give at most: floor(records * expected yield)."""
    # The epsilon keeps 100 * 0.29 (28.999...) from flooring to 28.
    return max(0, math.floor(grounding.available_records * grounding.expected_yield + _EPS))


def _fraction(value: float) -> Fraction:
    # Through the shortest decimal text, so 0.1 is exactly 1/10 and equal inputs tie exactly.
    return Fraction(repr(float(value)))


def water_fill(total: int, items: Sequence[tuple[str, Fraction, int, int]]) -> dict[str, Fraction]:
    """Share ``total`` by weight within bounds: ``x_i = clamp(lam * w_i, low_i, high_i)``.

    ``lam`` is found exactly: ``sum(x)`` is piecewise linear in it with breakpoints at
    ``low_i / w_i`` and ``high_i / w_i``. This is the result of capping whatever exceeds its
    bound and redistributing the excess to the others until stable.

    Args:
        total: The amount to share; ``sum(low) <= total <= sum(high)``.
        items: ``(id, weight > 0, low, high)`` for each item.

    Returns:
        Item id to its exact (fractional) share; the shares sum to ``total``.
    """

    def filled(lam: Fraction) -> Fraction:
        return sum(
            (min(max(lam * w, Fraction(lo)), Fraction(hi)) for _, w, lo, hi in items), Fraction(0)
        )

    lam = Fraction(0)
    prev, f_prev = Fraction(0), filled(Fraction(0))
    if f_prev < total:
        points = sorted({Fraction(b) / w for _, w, lo, hi in items for b in (lo, hi)})
        for point in points:
            f_point = filled(point)
            if f_point >= total:
                lam = prev + (total - f_prev) * (point - prev) / (f_point - f_prev)
                break
            prev, f_prev = point, f_point
        else:
            lam = prev
    return {i: min(max(lam * w, Fraction(lo)), Fraction(hi)) for i, w, lo, hi in items}


def hamilton(total: int, shares: Mapping[str, Fraction]) -> dict[str, int]:
    """Round exact shares summing to ``total`` by largest remainder, ties by id.

    A share is rounded to its floor or ceiling, so integer bounds that held for the shares
    still hold for the quotas.
    """
    quotas = {i: math.floor(x) for i, x in shares.items()}
    left = total - sum(quotas.values())
    for i in sorted(shares, key=lambda i: (-(shares[i] - quotas[i]), i))[:left]:
        quotas[i] += 1
    return quotas


def _prepare(
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
    size: int,
    weights: Mapping[str, float] | None,
) -> tuple[list[Subtask], dict[str, list[Grounding]], dict[str, float]]:
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise AllocationError(f"the size must be a whole number >= 1, got {size!r}")
    if not subtasks:
        raise AllocationError("no subtasks to allocate; the design step produced none")
    ordered = sorted(subtasks, key=lambda s: s.id)
    ids = [s.id for s in ordered]
    if len(set(ids)) != len(ids):
        raise AllocationError(f"subtask ids must be unique, got {ids}")
    grounding_ids = [g.id for g in groundings]
    if len(set(grounding_ids)) != len(grounding_ids):
        raise AllocationError(f"grounding ids must be unique, got {sorted(grounding_ids)}")
    by_subtask: dict[str, list[Grounding]] = {i: [] for i in ids}
    for g in sorted(groundings, key=lambda g: g.id):
        if g.subtask_id not in by_subtask:
            raise AllocationError(f"grounding {g.id!r} names unknown subtask {g.subtask_id!r}")
        by_subtask[g.subtask_id].append(g)
    resolved = {s.id: float(s.weight) for s in ordered}
    for key, value in (weights or {}).items():
        if key not in resolved:
            raise AllocationError(f"weight given for unknown subtask {key!r}; subtasks are {ids}")
        if not (math.isfinite(value) and value > 0):
            raise AllocationError(f"the weight of {key!r} must be a positive number, got {value!r}")
        resolved[key] = float(value)
    return ordered, by_subtask, resolved


def allocate(
    subtasks: Sequence[Subtask],
    groundings: Sequence[Grounding],
    size: int,
    *,
    weights: Mapping[str, float] | None = None,
    budget: Budget | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    relax_coverage: bool = False,
    split: Split = "score",
) -> AllocationResult:
    """Quotas per grounding: by weight over subtasks, by score within each, capped by supply.

    Args:
        subtasks: The subtasks.
        groundings: Their groundings (each names its subtask).
        size: The number of items asked for.
        weights: Subtask id to weight; unlisted ids use ``Subtask.weight``.
        budget: Caps and per-item estimates; none when None.
        tolerance: Largest share deviation from the target that coverage accepts.
        relax_coverage: Measure coverage against the feasible targets (after supply caps and
            the one-item floor) instead of the weights alone.
        split: Within a subtask, weigh groundings by overall ``score`` or ``even``-ly.

    Returns:
        The quotas (summing to ``min(size, total supply)``), the estimates and the slack.

    Raises:
        AllocationError: The input is inconsistent.
    """
    ordered, by_subtask, resolved = _prepare(subtasks, groundings, size, weights)
    budget = budget or Budget()
    supply_g = {g.id: grounding_supply(g) for gs in by_subtask.values() for g in gs}
    supply_s = {sid: sum(supply_g[g.id] for g in gs) for sid, gs in by_subtask.items()}
    total_supply = sum(supply_s.values())
    placed = min(size, total_supply)
    supplied = [sid for sid, n in supply_s.items() if n > 0]
    min_one = placed >= len(supplied)
    items = [
        (s.id, _fraction(resolved[s.id]), 1 if min_one and supply_s[s.id] else 0, supply_s[s.id])
        for s in ordered
    ]
    x_s = water_fill(placed, items)
    q_s = hamilton(placed, x_s)
    weight_sum = sum(_fraction(w) for w in resolved.values())

    lines_g: list[GroundingLine] = []
    for s in ordered:
        gs = by_subtask[s.id]
        g_weights = {
            g.id: Fraction(1)
            if split == "even"
            else max(_fraction(g.scores.overall), _MIN_GROUNDING_WEIGHT)
            for g in gs
        }
        x_g = water_fill(q_s[s.id], [(g.id, g_weights[g.id], 0, supply_g[g.id]) for g in gs])
        q_g = hamilton(q_s[s.id], x_g)
        lines_g.extend(
            GroundingLine(
                grounding_id=g.id,
                subtask_id=s.id,
                available_records=g.available_records,
                expected_yield=g.expected_yield,
                supply=supply_g[g.id],
                weight=float(g_weights[g.id]),
                quota=q_g[g.id],
                usd_per_item=budget.estimate.usd_for(g),
                tokens_per_item=budget.estimate.tokens_for(g),
            )
            for g in gs
        )

    lines_s = [
        SubtaskLine(
            subtask_id=s.id,
            weight=resolved[s.id],
            supply=supply_s[s.id],
            target=float(size * _fraction(resolved[s.id]) / weight_sum),
            feasible_target=float(x_s[s.id]),
            quota=q_s[s.id],
        )
        for s in ordered
    ]
    used = [g for g in lines_g if g.quota]
    unknown_price = any(g.usd_per_item is None for g in used)
    est_usd = None if unknown_price else sum(g.quota * (g.usd_per_item or 0.0) for g in used)
    est_tokens = sum(g.quota * g.tokens_per_item for g in used)
    result = AllocationResult(
        size=size,
        subtasks=lines_s,
        groundings=lines_g,
        placed=placed,
        total_supply=total_supply,
        min_one=min_one,
        est_usd=est_usd,
        est_tokens=est_tokens,
        budget=budget,
        tolerance=tolerance,
        relax_coverage=relax_coverage,
        split=split,
        slack={},
    )
    worst = max((d for _, d in _deviations(result)), default=0.0)
    result.slack = {
        "supply": float(total_supply - size),
        "budget_usd": None if budget.usd is None or est_usd is None else budget.usd - est_usd,
        "budget_tokens": None if budget.tokens is None else budget.tokens - est_tokens,
        "coverage": tolerance - worst / size,
    }
    return result


def _deviations(result: AllocationResult) -> list[tuple[SubtaskLine, float]]:
    """Subtasks whose quota is off their target by one item or more (more than rounding)."""
    out = []
    for s in result.subtasks:
        target = s.feasible_target if result.relax_coverage else s.target
        off = abs(s.quota - target)
        if off >= 1 - _EPS:
            out.append((s, off))
    return out


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
    size = result.size
    if result.total_supply < size:
        worst = sorted(result.subtasks, key=lambda s: (s.supply - s.target, s.subtask_id))
        detail = ", ".join(
            f"{s.subtask_id} {s.supply} of its {_num(round(s.target, 1))} "
            f"({_supply_text(result, s.subtask_id)})"
            for s in worst
        )
        out.append(
            Diagnosis(
                constraint="supply",
                kind="short",
                subjects=[s.subtask_id for s in worst],
                message=(
                    f"total supply is {result.total_supply} accepted items, short of the size "
                    f"{size} by {size - result.total_supply}: {detail}"
                ),
                numbers={
                    "total_supply": result.total_supply,
                    "size": size,
                    "short": size - result.total_supply,
                },
            )
        )

    budget = result.budget
    used = [g for g in result.groundings if g.quota]
    if budget.usd is not None:
        if result.est_usd is None:
            unknown = [g.grounding_id for g in used if g.usd_per_item is None]
            out.append(
                Diagnosis(
                    constraint="budget",
                    kind="unknown_price",
                    subjects=unknown,
                    message=(
                        f"a USD budget of {_usd(budget.usd)} is set but the cost per item of "
                        f"{', '.join(unknown)} is unknown (no price for the model), so the "
                        "budget cannot be checked; add the model's price under [prices] in "
                        "benchsmith.toml or use --budget-tokens instead"
                    ),
                    numbers={"budget_usd": budget.usd},
                )
            )
        elif result.est_usd > budget.usd + _EPS:
            over = result.est_usd - budget.usd
            costly = sorted(
                used, key=lambda g: (-(g.quota * (g.usd_per_item or 0.0)), g.grounding_id)
            )
            out.append(
                Diagnosis(
                    constraint="budget",
                    kind="over_usd",
                    subjects=[g.grounding_id for g in costly],
                    message=(
                        f"the estimated cost of {result.placed} items is {_usd(result.est_usd)}, "
                        f"over the budget of {_usd(budget.usd)} by {_usd(over)}"
                    ),
                    numbers={
                        "estimated_usd": result.est_usd,
                        "budget_usd": budget.usd,
                        "over_usd": over,
                    },
                )
            )
    if budget.tokens is not None and result.est_tokens > budget.tokens + _EPS:
        over = result.est_tokens - budget.tokens
        costly = sorted(used, key=lambda g: (-(g.quota * g.tokens_per_item), g.grounding_id))
        out.append(
            Diagnosis(
                constraint="budget",
                kind="over_tokens",
                subjects=[g.grounding_id for g in costly],
                message=(
                    f"the estimated {_num(result.est_tokens)} tokens for {result.placed} items "
                    f"are over the budget of {_num(budget.tokens)} tokens by {_num(over)}"
                ),
                numbers={
                    "estimated_tokens": result.est_tokens,
                    "budget_tokens": budget.tokens,
                    "over_tokens": over,
                },
            )
        )

    for s in result.subtasks:
        if s.supply == 0:
            out.append(
                Diagnosis(
                    constraint="coverage",
                    kind="no_supply",
                    subjects=[s.subtask_id],
                    message=(
                        f"subtask {s.subtask_id} has no supply "
                        f"({_supply_text(result, s.subtask_id)}), so it gets 0 items "
                        f"instead of {_num(round(s.target, 1))}"
                    ),
                    numbers={"supply": 0, "target": s.target},
                )
            )
        elif s.quota == 0 and not result.relax_coverage:
            out.append(
                Diagnosis(
                    constraint="coverage",
                    kind="zero",
                    subjects=[s.subtask_id],
                    message=(
                        f"subtask {s.subtask_id} gets 0 items: the size {size} is smaller than "
                        f"the {sum(1 for x in result.subtasks if x.supply)} subtasks with supply"
                    ),
                    numbers={"quota": 0, "target": s.target, "size": size},
                )
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
        out.append(
            Diagnosis(
                constraint="coverage",
                kind="deviation",
                subjects=[s.subtask_id],
                message=(
                    f"subtask {s.subtask_id} gets {s.quota} items ({s.quota / size:.1%}) against "
                    f"a target of {target:.1f} ({target / size:.1%}), off by {off / size:.1%} > "
                    f"tolerance {result.tolerance:.1%}: {why}"
                ),
                numbers={
                    "quota": s.quota,
                    "target": target,
                    "deviation": off / size,
                    "tolerance": result.tolerance,
                },
            )
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
            "design", design, "more subtasks or datasets are needed (route back to design): "
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
        estimates = {"est_usd": result.est_usd, "est_tokens": result.est_tokens}
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
                feasible=True,
                route="ok",
                allocations=result.allocations,
                size=current,
                rounds=rounds,
                message=message,
                notes=notes,
                **base,
                **estimates,
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
                size=current,
                rounds=rounds,
                bottleneck=failing[0],
                message=(
                    f"no feasible allocation after {max_rounds} rounds: "
                    + "; ".join(d.message for d in failing)
                ),
                notes=notes,
                **base,
                **estimates,
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
                size=current,
                rounds=rounds,
                bottleneck=step.bottleneck or found[0],
                message=step.message or "; ".join(d.message for d in found),
                notes=notes,
                **base,
                **estimates,
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
def item_price(runtime: LLMRuntime, roles: Sequence[str] = ITEM_ROLES) -> Price | None:
    """The price of the models an item's calls go to: the dearest of them, None if unknown.

    Args:
        runtime: The run's model runtime (prices from the configuration file win).
        roles: The roles spent per item.

    Returns:
        Per million tokens, the highest input and output price among the roles' models, or
        None when any of them has no known price.
    """
    prices = [
        price_for(runtime.models[r].spec, runtime.prices) for r in roles if r in runtime.models
    ]
    if not prices or any(p is None for p in prices):
        return None
    return Price(input=max(p.input for p in prices if p), output=max(p.output for p in prices if p))


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


# -- the model's part: importance weights ----------------------------------------------------------
class _WeightsBase(BaseModel):
    @model_validator(mode="after")
    def _unique_ids(self) -> Any:
        ids = [item.subtask_id for item in getattr(self, "weights", [])]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"each subtask id at most once; repeated: {', '.join(repeated)}")
        return self


def weights_schema(ids: Sequence[str]) -> type[BaseModel]:
    """The schema of a weights proposal, whose subtask ids are a ``Literal`` of the real ids."""
    item = create_model(
        "SubtaskWeight",
        subtask_id=(
            Literal[tuple(ids)],
            Field(description="The subtask weighed (one of the ids)."),
        ),  # type: ignore[valid-type]
        weight=(
            float,
            Field(
                ge=0.1,
                le=10,
                description="Relative importance in the intent, 0.1 to 10; 1.0 is the default.",
            ),
        ),
        reason=(str, Field(max_length=100, description="Why, in a few words.")),
    )
    return create_model(
        "ImportanceWeights",
        __base__=_WeightsBase,
        __doc__="How much the intent emphasizes each subtask.",
        weights=(
            list[item],  # type: ignore[valid-type]
            Field(
                max_length=len(ids),
                description="Subtasks whose weight is not 1.0 (omitted ones stay at 1.0).",
            ),
        ),
    )


def weights_prompt(intent: str, subtasks: Sequence[Subtask]) -> str:
    """The weights prompt; the intent and the subtasks' texts are quoted as data."""
    listing = "\n".join(
        f"{s.id}: {s.name}. {s.description}" for s in sorted(subtasks, key=lambda s: s.id)
    )
    return render(
        "allocation",
        untrusted_open=UNTRUSTED_OPEN.format(label="..."),
        untrusted_close=UNTRUSTED_CLOSE,
        ids=sorted(s.id for s in subtasks),
        intent=untrusted(intent, "intent"),
        subtasks=untrusted(listing, "subtasks"),
    )


def propose_weights(
    model: RoleModel,
    intent: str,
    subtasks: Sequence[Subtask],
    *,
    log: list[str] | None = None,
) -> dict[str, float]:
    """Ask the model how much the intent emphasizes each subtask (weights only, no counts).

    Args:
        model: The allocation role's model.
        intent: The user's intent (quoted as data).
        subtasks: The subtasks to weigh.
        log: Where to note a failed proposal (the weights then all stay 1.0).

    Returns:
        Subtask id to weight in [0.1, 10]; ids the model left out get 1.0.
    """
    ids = sorted(s.id for s in subtasks)
    weights = dict.fromkeys(ids, 1.0)
    if not ids:
        return weights
    try:
        proposal: Any = model.structured(
            weights_schema(ids), [("user", weights_prompt(intent, subtasks))]
        )
    except StructuredOutputError as exc:
        if log is not None:
            log.append(f"allocation: no valid weights, using 1.0 for every subtask ({exc})")
        return weights
    for item in proposal.weights:
        weights[item.subtask_id] = float(item.weight)
    return weights


def allocation_node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Graph node: weights from the model, quotas from the arithmetic, routed by the outcome.

    Feasible: ``plan_status`` ``ok``. Infeasible for lack of data: ``redesign`` while
    regrounding is allowed (the bottleneck subtasks go back to design as ``ungrounded``),
    else ``infeasible`` with an error naming the bottleneck. Over budget: ``infeasible``.
    """
    from benchsmith.agents.sources import run_config
    from benchsmith.llm.registry import runtime_for

    config = run_config(runtime)
    llm = runtime_for(config)
    subtasks = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    groundings = [Grounding.model_validate(g) for g in state.get("groundings") or []]
    if not subtasks or not groundings:
        reason = "no subtask could be grounded in the catalog"
        if not state.get("dropped"):
            reason = "the design produced no subtask"
        return {
            "plan_status": "infeasible",
            "error": f"no plan: {reason}; add datasets (benchsmith catalog add, or "
            "benchsmith catalog starter) or rephrase the intent",
            "planner_log": [f"allocation: {reason}"],
        }
    log: list[str] = []
    weights = propose_weights(llm.for_role("allocation"), state["intent"], subtasks, log=log)
    budget_usd = config.budget_usd
    if budget_usd is not None:
        budget_usd = max(0.0, budget_usd - llm.ledger.cost_usd)
    budget_tokens = config.budget_tokens
    if budget_tokens is not None:
        budget_tokens = max(0, budget_tokens - llm.ledger.tokens)
    outcome = plan_allocations(
        subtasks,
        groundings,
        state["size"],
        budget_usd=budget_usd,
        budget_tokens=budget_tokens,
        usd_per_item=usd_per_item_from_price(groundings, item_price(llm)),
        weights=weights,
        max_rounds=max(1, config.max_allocation_rounds),
    )
    update: dict[str, Any] = {
        "allocation_trace": [r.model_dump(mode="json") for r in outcome.rounds],
        "planner_log": [f"allocation: {line}" for line in log]
        + [f"allocation: {outcome.route}: {outcome.message}"],
    }
    if outcome.feasible:
        update["allocations"] = list(outcome.allocations)
        update["plan_status"] = "ok"
        return update
    regroundings = int(state.get("regroundings") or 0)
    if outcome.route == "design" and regroundings < config.max_regrounding:
        subjects = outcome.bottleneck.subjects if outcome.bottleneck else []
        short = [s.id for s in subtasks if s.id in subjects] or [subtasks[-1].id]
        update["ungrounded"] = [
            Dropped(subtask_id=sid, reason=f"too little data: {outcome.message}") for sid in short
        ]
        update["groundings"] = [g for g in groundings if g.subtask_id not in short]
        update["regroundings"] = regroundings + 1
        update["plan_status"] = "redesign"
        return update
    update["plan_status"] = "infeasible"
    update["error"] = f"no feasible allocation: {outcome.message}"
    return update

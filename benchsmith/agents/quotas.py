"""Allocation quotas: the pure arithmetic that shares a size over subtasks and groundings.

:func:`allocate` apportions the size over the subtasks by weight and then, within each
subtask, over its groundings by score. Both steps are one bounded water-filling
(:func:`water_fill`): the continuous share ``x_i = clamp(lambda * w_i, low_i, high_i)`` with
``sum(x) == total`` (``high`` is the supply, ``low`` is the one-item floor of every supplied
subtask when the size allows it), solved exactly with fractions, then rounded by largest
remainders (:func:`hamilton`), ties broken by id. So the excess of a capped subtask goes to
the others in proportion to their weights, and the quotas sum exactly to
``min(size, total supply)``.

Everything here is deterministic and free of models and graphs; the checks on a result and
the loop that adjusts it are in :mod:`benchsmith.agents.feasibility`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from benchsmith.errors import BenchsmithError
from benchsmith.spec import Allocation, Grounding, Subtask

Split = Literal["score", "even"]

#: A subtask's share may be off its target by this much (5 points of the benchmark).
DEFAULT_TOLERANCE = 0.05
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


# -- arithmetic -----------------------------------------------------------------------------
def grounding_supply(grounding: Grounding) -> int:
    """Accepted items a grounding can give at most: floor(records * expected yield).

    Args:
        grounding: The grounding (its ``available_records`` and ``expected_yield``).

    Returns:
        The supply, 0 or more.
    """
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

    Args:
        total: The whole number the shares sum to.
        shares: Item id to its exact share.

    Returns:
        Item id to its whole quota; the quotas sum to ``total``.
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

"""Token usage per role, cost from a price table, and the hard budget.

The budget is checked before every call. Calls in flight are counted against it with the
largest cost seen so far, so concurrent calls cannot jointly overshoot: spending never
exceeds the cap by more than one call.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib import resources

from benchsmith.config import Price
from benchsmith.errors import BudgetExceededError
from benchsmith.llm.specs import ModelSpec


def builtin_prices() -> dict[str, Price]:
    """The shipped price table of OpenAI models (USD per million tokens)."""
    text = resources.files("benchsmith.llm").joinpath("prices.toml").read_text("utf-8")
    return {name: Price(**p) for name, p in tomllib.loads(text)["openai"].items()}


def price_for(spec: ModelSpec, extra: Mapping[str, Price] | None = None) -> Price | None:
    """The price of a model, or None when it is unknown.

    Args:
        spec: The model.
        extra: Prices from the configuration file; they win over the shipped table.

    Returns:
        The price per million tokens; ``Price(0, 0)`` for the embedded model.
    """
    if spec.provider == "local":
        return Price(input=0.0, output=0.0)
    extra = extra or {}
    for key in (spec.text, spec.model):
        if key in extra:
            return extra[key]
    if spec.provider == "openai" and spec.base_url is None:
        table = builtin_prices()
        matches = [n for n in table if spec.model == n or spec.model.startswith(n + "-")]
        if matches:
            return table[max(matches, key=len)]
    return None


@dataclass
class RoleUsage:
    """Counters for one role (or one model)."""

    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown_calls: int = 0

    @property
    def tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class UsageLedger:
    """Thread-safe usage counters and the run's hard budget."""

    def __init__(self, *, budget_usd: float | None = None, budget_tokens: int | None = None):
        """Create a ledger.

        Args:
            budget_usd: Hard cap on spending in USD, or None.
            budget_tokens: Hard cap on tokens (input + output), or None.
        """
        self.budget_usd = budget_usd
        self.budget_tokens = budget_tokens
        self.by_role: dict[str, RoleUsage] = {}
        self._cond = threading.Condition()
        self._inflight = 0
        self._max_call_cost = 0.0
        self._max_call_tokens = 0
        self._observed = False

    # -- totals ---------------------------------------------------------------------------
    @property
    def cost_usd(self) -> float:
        """Total known spending in USD."""
        return sum(u.cost_usd for u in self.by_role.values())

    @property
    def tokens(self) -> int:
        """Total tokens."""
        return sum(u.tokens for u in self.by_role.values())

    @property
    def cost_known(self) -> bool:
        """False when any call's price was unknown (the USD total is then a lower bound)."""
        return not any(u.cost_unknown_calls for u in self.by_role.values())

    def summary(self) -> dict:
        """A JSON-ready summary: totals and per-role counters."""
        with self._cond:
            return {
                "calls": sum(u.calls for u in self.by_role.values()),
                "cached_calls": sum(u.cached_calls for u in self.by_role.values()),
                "input_tokens": sum(u.input_tokens for u in self.by_role.values()),
                "output_tokens": sum(u.output_tokens for u in self.by_role.values()),
                "cost_usd": round(self.cost_usd, 6) if self.cost_known else None,
                "cost_usd_known_part": round(self.cost_usd, 6),
                "budget_usd": self.budget_usd,
                "budget_tokens": self.budget_tokens,
                "by_role": {r: asdict(u) for r, u in sorted(self.by_role.items())},
            }

    # -- budget -----------------------------------------------------------------------------
    def _over(self, extra_cost: float = 0.0, extra_tokens: int = 0) -> bool:
        if self.budget_usd is not None and self.cost_usd + extra_cost >= self.budget_usd:
            return True
        return self.budget_tokens is not None and self.tokens + extra_tokens >= self.budget_tokens

    def _spent_text(self) -> str:
        parts = [
            f"{role} ${u.cost_usd:.4f} / {u.tokens} tokens in {u.calls} calls"
            for role, u in sorted(self.by_role.items())
            if u.calls
        ]
        caps = []
        if self.budget_usd is not None:
            caps.append(f"${self.budget_usd:g}")
        if self.budget_tokens is not None:
            caps.append(f"{self.budget_tokens} tokens")
        return (
            f"budget of {' and '.join(caps)} is spent: ${self.cost_usd:.4f} and "
            f"{self.tokens} tokens so far ({'; '.join(parts) or 'no calls'}); "
            "raise --budget-usd / --budget-tokens or resume with --resume to reuse finished work"
        )

    @contextmanager
    def reserve(self, role: str, price: Price | None) -> Iterator[None]:
        """Hold a place for one call, blocking while calls in flight could use the budget up.

        Args:
            role: The role making the call (named in the budget error).
            price: The model's price; None when unknown.

        Raises:
            BudgetExceededError: The budget is already spent, or a USD budget is set and the
                model's price is unknown (so spending could not be bounded).
        """
        if self.budget_usd is None and self.budget_tokens is None:
            # No cap to hold: calls start at once. (Waiting for a first call's size made
            # every build's opening calls run one at a time, for a cap that was not there.)
            yield
            return
        with self._cond:
            if self.budget_usd is not None and price is None:
                raise BudgetExceededError(
                    f"a USD budget is set but the price of the {role} model is unknown, so "
                    "spending cannot be capped; add its price under [prices] in "
                    "benchsmith.toml or use --budget-tokens instead"
                )
            while True:
                if self._over():
                    raise BudgetExceededError(self._spent_text())
                if self._inflight == 0:
                    break
                # Until one call has finished, its size is unknown: one call at a time.
                if self._observed and not self._over(
                    self._inflight * self._max_call_cost, self._inflight * self._max_call_tokens
                ):
                    break
                self._cond.wait()
            self._inflight += 1
        try:
            yield
        finally:
            with self._cond:
                self._inflight -= 1
                self._cond.notify_all()

    # -- recording -------------------------------------------------------------------------
    def add(
        self,
        role: str,
        *,
        input_tokens: int,
        output_tokens: int,
        price: Price | None,
        cached: bool = False,
    ) -> float | None:
        """Count one finished call.

        Args:
            role: The role that made it.
            input_tokens: Prompt tokens from the response's usage.
            output_tokens: Completion tokens from the response's usage.
            price: The model's price, None when unknown.
            cached: The reply came from the run records: nothing new was spent.

        Returns:
            The call's cost in USD (0 when cached), None when the price is unknown.
        """
        with self._cond:
            usage = self.by_role.setdefault(role, RoleUsage())
            if cached:
                usage.cached_calls += 1
                return 0.0
            usage.calls += 1
            usage.input_tokens += input_tokens
            usage.output_tokens += output_tokens
            cost = None
            if price is None:
                usage.cost_unknown_calls += 1
            else:
                cost = (input_tokens * price.input + output_tokens * price.output) / 1e6
                usage.cost_usd += cost
                self._max_call_cost = max(self._max_call_cost, cost)
            self._max_call_tokens = max(self._max_call_tokens, input_tokens + output_tokens)
            self._observed = True
            self._cond.notify_all()
            return cost

    def add_failure(self, role: str) -> None:
        """Count a call that failed (no usage reported)."""
        with self._cond:
            self.by_role.setdefault(role, RoleUsage()).failed_calls += 1

"""Allocation agent: the graph node and the model's part, importance weights.

The model is asked for one thing only, the relative importance of the subtasks
(:func:`propose_weights`), through a schema whose subtask ids are a ``Literal`` of the real
ids and whose weights are bounded. The quotas themselves come from the deterministic
arithmetic in :mod:`benchsmith.agents.quotas`, checked and adjusted by the loop in
:mod:`benchsmith.agents.feasibility`; :func:`allocation_node` runs both and routes the
planner by the outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, create_model, model_validator

from benchsmith.agents.feasibility import plan_allocations, usd_per_item_from_price
from benchsmith.agents.sources import run_config
from benchsmith.config import Price, RunConfig
from benchsmith.errors import StructuredOutputError
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.registry import runtime_for
from benchsmith.llm.usage import price_for
from benchsmith.prompts import UNTRUSTED_CLOSE, UNTRUSTED_OPEN, render, untrusted
from benchsmith.spec import Dropped, Grounding, Subtask
from benchsmith.state import BuildState

#: The roles whose prices an item's estimated tokens are charged at (the verification role
#: judges every item; the orchestration role may word a reference's problems).
ITEM_ROLES = ("orchestration", "verification")


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
    """The schema of a weights proposal, whose subtask ids are a ``Literal`` of the real ids.

    Args:
        ids: The subtask ids the model may weigh.

    Returns:
        A pydantic model with a ``weights`` list of ``(subtask_id, weight, reason)`` items,
        each id at most once.
    """
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
    """The weights prompt; the intent and the subtasks' texts are quoted as data.

    Args:
        intent: The user's intent.
        subtasks: The subtasks to weigh.

    Returns:
        The rendered ``allocation`` prompt.
    """
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


def allocation_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: weights from the model, quotas from the arithmetic, routed by the outcome.

    Feasible: ``plan_status`` ``ok``. Otherwise (no grounded subtask, too little data, over
    budget) ``infeasible`` with an error naming the bottleneck: nothing goes back to design,
    whose subtasks are computed from the intent and the data.

    Args:
        state: The build state (``intent``, ``size``, ``subtasks``, ``groundings``,
            ``dropped``); subtasks and groundings may be models or dicts.
        runtime: The LangGraph runtime carrying the run configuration.

    Returns:
        The state update: ``plan_status``, ``allocation_trace`` and ``planner_log``, plus
        ``allocations`` (as dicts) when feasible, or ``error`` when infeasible.
    """
    config = run_config(runtime)
    llm = runtime_for(config)
    subtasks = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    groundings = [Grounding.model_validate(g) for g in state.get("groundings") or []]
    if not subtasks or not groundings:
        dropped = [Dropped.model_validate(d) for d in state.get("dropped") or []]
        reason = "no subtask could be grounded in the catalog"
        if dropped:
            reason += " (" + "; ".join(f"{d.subtask_id}: {d.reason}" for d in dropped)[:600] + ")"
        else:
            reason = "the design produced no subtask"
        # A run that brought its own data is told what its data lacks, not to add data.
        hint = (
            "rephrase the intent, or check that the given data holds what it asks for"
            if config.paths.run_catalog_dir
            else "add datasets (benchsmith catalog add, or benchsmith catalog starter) or "
            "rephrase the intent"
        )
        return {
            "plan_status": "infeasible",
            "error": f"no plan: {reason}; {hint}",
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
    update["plan_status"] = "infeasible"
    update["error"] = f"no feasible allocation: {outcome.message}"
    return update

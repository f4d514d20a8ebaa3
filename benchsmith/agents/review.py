"""Plan review: assemble the spec and, when asked, pause for a person to approve or edit it.

With ``review`` set in the run configuration, the node calls LangGraph's ``interrupt`` with
the spec and a readable summary; the run resumes with ``{"action": "approve"}``,
``{"action": "edit", "spec": {...}}`` (validated as a :class:`BenchmarkSpec`),
``{"action": "runner-up"}`` (every question program switched to its runner-up reading) or
``{"action": "reject", "reason": "..."}``. The CLI (``benchsmith plan --review``) and
Studio show the same interrupt.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime
from pydantic import ValidationError

from benchsmith.agents.programs import describe_reading
from benchsmith.agents.sources import run_config
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError
from benchsmith.spec import Allocation, BenchmarkSpec, Dropped, Grounding, ProgramSpec, Subtask
from benchsmith.state import BuildState


def assemble_spec(state: BuildState) -> BenchmarkSpec:
    """The spec from the planner's state (only groundings with a quota or of kept subtasks)."""
    subtasks = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    subtask_ids = {s.id for s in subtasks}
    groundings = [Grounding.model_validate(g) for g in state.get("groundings") or []]
    return BenchmarkSpec(
        intent=state["intent"],
        size=state["size"],
        subtasks=subtasks,
        groundings=[g for g in groundings if g.subtask_id in subtask_ids],
        allocations=[Allocation.model_validate(a) for a in state.get("allocations") or []],
        dropped=[Dropped.model_validate(d) for d in state.get("dropped") or []],
        models=state.get("models") or {},
        notes=list(state.get("warnings") or []),
    )


def summarize(spec: BenchmarkSpec) -> str:
    """A readable plan: subtasks, their groundings with plans and quotas, what was dropped."""
    quotas = {a.grounding_id: a.quota for a in spec.allocations}
    lines = [f"Benchmark plan: {spec.intent!r}, {spec.size} items"]
    for s in spec.subtasks:
        lines.append(
            f"\n[{s.id}] {s.name} ({s.answer_format}; input {'+'.join(s.input_modalities)}; "
            f"{s.difficulty})"
        )
        lines.append(f"  {s.description}")
        if s.skills:
            lines.append(f"  skills: {', '.join(s.skills)}")
        for g in (g for g in spec.groundings if g.subtask_id == s.id):
            lines.append(
                f"  - {g.dataset_id}: answer from '{g.answer_field}', {quotas.get(g.id, 0)} items, "
                f"scores {g.scores.intent_alignment:.2f}/{g.scores.robustness:.2f}/"
                f"{g.scores.signal_preservation:.2f} of {g.available_records} records"
            )
            if g.program is not None:
                lines.append(f"      program: {g.program.reading()}")
            if g.runner_up is not None:
                lines.append(f"      runner-up: {g.runner_up.reading()} (review: runner-up)")
            for step in g.plan:
                ranges = ", ".join(
                    f"{k}={'|'.join(map(str, r.choices)) if r.choices else f'{r.min:g}..{r.max:g}'}"
                    for k, r in step.ranges.items()
                )
                lines.append(f"      {step.tool}({ranges}) {step.purpose}")
    for d in spec.dropped:
        lines.append(f"\ndropped {d.subtask_id}: {d.reason}")
    return "\n".join(lines)


def switch_to_runner_up(spec: BenchmarkSpec) -> BenchmarkSpec:
    """The plan with every question program that has a runner-up reading switched to it.

    The two readings trade places (switching again goes back); each subtask's reading
    sentence follows. Quotas stay as allocated.

    Raises:
        ConfigError: No grounding has a runner-up reading.
    """
    groundings = []
    switched: dict[str, tuple[ProgramSpec, ProgramSpec]] = {}
    for g in spec.groundings:
        if g.program is not None and g.runner_up is not None:
            switched[g.subtask_id] = (g.runner_up, g.program)  # (now chosen, now runner-up)
            g = g.model_copy(update={"program": g.runner_up, "runner_up": g.program})
        groundings.append(g)
    if not switched:
        raise ConfigError("the plan has no runner-up reading to switch to")
    subtasks = []
    for s in spec.subtasks:
        if s.id in switched:
            best, second = switched[s.id]
            rest = re.sub(r"^Reading: .*?\.(?: Runner-up reading: .*?\.)?(?= Items|$)", "",
                          s.description)  # fmt: skip
            description = describe_reading(best, second) + rest
            s = s.model_copy(update={"description": description[:600]})
        subtasks.append(s)
    return spec.model_copy(update={"groundings": groundings, "subtasks": subtasks})


def review_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: assemble the spec; with review on, interrupt for approval or edits."""
    from langgraph.types import interrupt

    spec = assemble_spec(state)
    if not run_config(runtime).review:
        return {"spec": spec, "plan_status": "ok"}
    decision = interrupt({"spec": spec.model_dump(mode="json"), "summary": summarize(spec)})
    action = (decision or {}).get("action", "approve") if isinstance(decision, dict) else decision
    if action == "approve":
        return {"spec": spec, "plan_status": "ok", "planner_log": ["review: approved"]}
    if action == "runner-up":
        switched = switch_to_runner_up(spec)
        return {"spec": switched, "plan_status": "ok", "planner_log": ["review: runner-up"]}
    if action == "edit":
        try:
            edited = BenchmarkSpec.model_validate(decision.get("spec"))
        except ValidationError as exc:
            raise ConfigError(
                f"the edited plan is not a valid spec: {exc.errors()[0]['msg']}"
            ) from exc
        return {
            "spec": edited,
            "plan_status": "ok",
            "planner_log": ["review: edited"],
        }
    reason = decision.get("reason", "") if isinstance(decision, dict) else ""
    return {
        "plan_status": "rejected",
        "error": f"the plan was rejected in review {reason}".strip(),
        "planner_log": ["review: rejected"],
    }

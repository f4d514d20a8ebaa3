"""The planner's routing, driven through the compiled graph with scripted decisions."""

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from planner_fakes import COUNTRIES, DIGITS, FakeCatalog, SchemaScript, install_model

import benchsmith.agents.sources as sources
from benchsmith.config import RunConfig
from benchsmith.graph import make_builder
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import BenchmarkSpec


def proposal(*subtasks):
    return {
        "subtasks": [
            {
                "name": n,
                "description": d,
                "skills": ["recall"],
                "input_modality": m,
                "answer_format": f,
                "difficulty": "medium",
            }
            for n, d, m, f in subtasks
        ]
    }


CAPITALS = (
    "Spoken capitals",
    "Hear a country name and give its capital city.",
    "audio",
    "short_answer",
)
DIGIT = (
    "Noisy digits",
    "See a handwritten digit image and name the digit.",
    "image",
    "multiple_choice",
)
# On the intent's topic (exoplanets), but no dataset of the catalog covers it.
EMPTY = ("Exoplanet orbits", "Compute orbital periods of exoplanets.", "text", "numeric")
KEEP = {"verdicts": []}
GOOD = {
    "answer_field": "capital",
    "question_field": "name",
    "tools": ["audio_add_noise"],
    "intent_alignment": 5,
    "robustness": 4,
    "signal_preservation": 5,
    "rationale": "fits",
}
GOOD_DIGIT = {
    "answer_field": "label",
    "question_field": "none",
    "tools": ["image_blur"],
    "intent_alignment": 5,
    "robustness": 5,
    "signal_preservation": 4,
    "rationale": "ok",
}
NO_WEIGHTS = {"weights": []}
OWN = [{"template": "own"}]  # keeps the card's candidate templates in their order


@pytest.fixture
def catalog(monkeypatch):
    fake = FakeCatalog([COUNTRIES, DIGITS])
    monkeypatch.setattr(sources, "catalog_sources", lambda config: [fake])
    return fake


def run(config, script, size=10, resume=None):
    install_model(config, script)
    graph = make_builder().compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    path = []
    updates = []
    for chunk in graph.stream(
        {"intent": "capitals, digits and exoplanets", "size": size},
        thread,
        context=config,
        stream_mode="updates",
        subgraphs=True,
    ):
        path.extend(chunk[1].keys())
        updates.append(chunk[1])
    state = graph.get_state(thread)
    register_runtime(config, None)
    return path, state, graph, thread, updates


def nodes(path):
    return [p for p in path if p not in ("planner", "__interrupt__")]


def capitals_and_digits():
    """Two subtasks, each grounded at the first choice: the planner's straight path."""
    return SchemaScript(
        SubtaskProposal=[proposal(CAPITALS, DIGIT)],
        Critique=[KEEP],
        GroundingChoice=[GOOD, GOOD_DIGIT],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )


def test_happy_path_grounds_allocates_and_reviews(catalog):
    path, state, *_ = run(RunConfig(max_subtasks=2), capitals_and_digits())
    assert nodes(path) == [
        "preflight",
        "design",
        "grounding",
        "allocation",
        "review_plan",
        "finish_plan",
    ]
    # A plan-only run ends planned (no longer "planning"), with the plan it made.
    assert state.values["plan_status"] == "ok" and state.values["build_status"] == "planned"
    assert not state.next
    spec = BenchmarkSpec.model_validate(state.values["spec"])
    assert [s.id for s in spec.subtasks] == ["spoken-capitals", "noisy-digits"]
    assert {g.dataset_id for g in spec.groundings} == {"countries", "digits"}
    assert sum(a.quota for a in spec.allocations) == 10
    assert sorted(a.quota for a in spec.allocations) == [5, 5]
    capitals = next(g for g in spec.groundings if g.dataset_id == "countries")
    assert [s.tool for s in capitals.plan] == ["tts_speak", "audio_add_noise"]
    digits = next(g for g in spec.groundings if g.dataset_id == "digits")
    assert [s.tool for s in digits.plan] == ["image_blur", "make_multiple_choice"]
    assert digits.plan[0].input_field == "image"


def test_ungrounded_subtask_goes_back_to_design_and_is_replaced(catalog):
    script = SchemaScript(
        SubtaskProposal=[proposal(CAPITALS, EMPTY), proposal(DIGIT)],
        Critique=[KEEP],
        GroundingChoice=[GOOD, GOOD_DIGIT],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )
    path, state, *_ = run(RunConfig(max_subtasks=2, max_regrounding=2), script)
    assert nodes(path) == [
        "preflight",
        "design",
        "grounding",
        "design",
        "grounding",
        "allocation",
        "review_plan",
        "finish_plan",
    ]
    spec = state.values["spec"]
    assert [s.id for s in spec.subtasks] == ["spoken-capitals", "noisy-digits"]
    assert spec.dropped == []
    assert script.calls["SubtaskProposal"] == 2
    # The second proposal was asked with the grounding failure as feedback.


def test_subtask_that_stays_ungrounded_is_dropped_and_reported(catalog):
    script = SchemaScript(
        SubtaskProposal=[
            proposal(CAPITALS, EMPTY),
            proposal(("Exoplanet masses", "Give the mass of an exoplanet.", "text", "numeric")),
        ],
        Critique=[KEEP],
        GroundingChoice=[GOOD],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )
    path, state, *_ = run(RunConfig(max_subtasks=2, max_regrounding=1), script)
    assert nodes(path) == [
        "preflight",
        "design",
        "grounding",
        "design",
        "grounding",
        "allocation",
        "review_plan",
        "finish_plan",
    ]
    spec = state.values["spec"]
    assert [s.id for s in spec.subtasks] == ["spoken-capitals"]
    assert [d.subtask_id for d in spec.dropped] == ["exoplanet-masses"]
    assert "no dataset in the catalog matches" in spec.dropped[0].reason
    assert [a.quota for a in spec.allocations] == [10]


def test_loop_cap_zero_drops_at_once(catalog):
    script = SchemaScript(
        SubtaskProposal=[proposal(CAPITALS, EMPTY)],
        Critique=[KEEP],
        GroundingChoice=[GOOD],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )
    path, state, *_ = run(RunConfig(max_subtasks=2, max_regrounding=0), script)
    assert nodes(path) == [
        "preflight",
        "design",
        "grounding",
        "allocation",
        "review_plan",
        "finish_plan",
    ]
    assert [d.subtask_id for d in state.values["spec"].dropped] == ["exoplanet-orbits"]


def test_supply_shortfall_is_diagnosed_and_sent_back_then_stops_at_the_cap(catalog):
    # 200 countries * 0.8 yield = 160 items at most; 500 are asked.
    script = SchemaScript(
        SubtaskProposal=[proposal(CAPITALS), proposal(CAPITALS)],
        Critique=[KEEP],
        GroundingChoice=[GOOD],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )
    path, state, *_ = run(RunConfig(max_subtasks=1, max_regrounding=1), script, size=500)
    assert nodes(path) == [
        "preflight",
        "design",
        "grounding",
        "allocation",
        "design",
        "grounding",
        "allocation",
        "finish_plan",
    ]
    assert state.values["plan_status"] == "infeasible"
    assert state.values["build_status"] == "planned"  # the run ended after the planner
    assert "no feasible allocation" in state.values["error"] and "160" in state.values["error"]
    assert state.values["allocation_trace"]


def test_supply_cap_within_a_feasible_plan_is_adjusted(catalog):
    # digits: 50 * 0.8 = 40 items at most; size 100 over two subtasks (50/50 wanted).
    script = SchemaScript(
        SubtaskProposal=[proposal(CAPITALS, DIGIT)],
        Critique=[KEEP],
        GroundingChoice=[GOOD, GOOD_DIGIT],
        ImportanceWeights=[NO_WEIGHTS],
        TemplateChoice=OWN,
    )
    path, state, *_ = run(RunConfig(max_subtasks=2), script, size=100)
    quotas = {a.grounding_id.split("--")[1]: a.quota for a in state.values["spec"].allocations}
    assert quotas == {"countries": 60, "digits": 40}


def test_review_interrupts_and_resumes_with_approve_edit_or_reject(catalog):
    def script():
        return SchemaScript(
            SubtaskProposal=[proposal(CAPITALS)],
            Critique=[KEEP],
            GroundingChoice=[GOOD],
            ImportanceWeights=[NO_WEIGHTS],
            TemplateChoice=OWN,
        )

    config = RunConfig(max_subtasks=1, review=True)
    path, state, graph, thread, _ = run(config, script())
    assert state.next  # paused inside the planner
    assert state.values["build_status"] == "planning"
    interrupt = (
        state.tasks[0].interrupts[0]
        if state.tasks[0].interrupts
        else state.tasks[0].state.tasks[0].interrupts[0]
    )
    assert "Benchmark plan" in interrupt.value["summary"]
    install_model(config, script())
    graph.invoke(Command(resume={"action": "approve"}), thread, context=config)
    assert graph.get_state(thread).values["plan_status"] == "ok"
    assert graph.get_state(thread).values["build_status"] == "planned"

    path, state, graph, thread, _ = run(config, script())
    edited = dict(interrupt.value["spec"])
    edited["intent"] = "edited intent"
    install_model(config, script())
    graph.invoke(Command(resume={"action": "edit", "spec": edited}), thread, context=config)
    assert graph.get_state(thread).values["spec"].intent == "edited intent"

    path, state, graph, thread, _ = run(config, script())
    install_model(config, script())
    graph.invoke(Command(resume={"action": "reject", "reason": "too easy"}), thread, context=config)
    final = graph.get_state(thread).values
    assert final["plan_status"] == "rejected" and "too easy" in final["error"]
    assert final["build_status"] == "planned"


def test_the_planner_state_holds_the_plan_models_not_dicts(catalog):
    """Design, grounding and allocation write Subtask/Grounding/Allocation models, and the
    spec survives the checkpointer as a BenchmarkSpec."""
    from benchsmith.spec import Allocation, Grounding, Subtask

    *_, graph, thread, updates = run(RunConfig(max_subtasks=2), capitals_and_digits())
    written: dict[str, list] = {}
    for update in updates:
        for node, values in update.items():
            for key in ("subtasks", "groundings", "allocations"):
                if isinstance(values, dict) and key in values:
                    written.setdefault(f"{node}.{key}", []).extend(values[key])
    assert written["design.subtasks"] and all(
        isinstance(s, Subtask) for s in written["design.subtasks"]
    )
    assert written["grounding.groundings"] and all(
        isinstance(g, Grounding) for g in written["grounding.groundings"]
    )
    assert written["allocation.allocations"] and all(
        isinstance(a, Allocation) for a in written["allocation.allocations"]
    )
    assert isinstance(graph.get_state(thread).values["spec"], BenchmarkSpec)

"""The planner through the compiled graph: a real catalog table, the intent read into
question programs, no design model (a scripted model answers the allocation's weights only)."""

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from planner_fakes import SchemaScript, install_model

from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths
from benchsmith.graph import make_builder
from benchsmith.llm.registry import register_runtime
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, Subtask

ROWS = [
    ("France", "Paris", "Europe", 68),
    ("Spain", "Madrid", "Europe", 48),
    ("Italy", "Rome", "Europe", 59),
    ("Japan", "Tokyo", "Asia", 125),
    ("Kenya", "Nairobi", "Africa", 54),
    ("Peru", "Lima", "Americas", 34),
    ("Chile", "Santiago", "Americas", 19),
    ("Egypt", "Cairo", "Africa", 105),
    ("India", "New Delhi", "Asia", 1400),
    ("Norway", "Oslo", "Europe", 5),
    ("Ghana", "Accra", "Africa", 33),
    ("Cuba", "Havana", "Americas", 11),
]
SPOKEN = (
    "Spoken questions with background noise: name the capital of a country in the countries table."
)
TWO = (
    "Ask which of two countries has the larger population. Also ask for the continent of a country."
)


@pytest.fixture
def catalog_dir(tmp_path):
    data = tmp_path / "countries.jsonl"
    data.write_text(
        "".join(
            json.dumps({"name": n, "capital": c, "continent": k, "population_millions": p}) + "\n"
            for n, c, k, p in ROWS
        )
    )
    Catalog(tmp_path / "catalog").add(str(data), id="countries", replace=True)
    return tmp_path / "catalog"


def script():
    """Only the allocation asks a model (its weights); design and grounding ask none."""
    return SchemaScript(ImportanceWeights=[{"weights": []}])


def run(catalog_dir, intent, size=10, **config_kw):
    config = RunConfig(paths=RunPaths(catalog_dir=str(catalog_dir)), **config_kw)
    scripted = script()
    install_model(config, scripted)
    graph = make_builder().compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    path, updates = [], []
    for chunk in graph.stream(
        {"intent": intent, "size": size},
        thread,
        context=config,
        stream_mode="updates",
        subgraphs=True,
    ):
        path.extend(chunk[1].keys())
        updates.append(chunk[1])
    state = graph.get_state(thread)
    register_runtime(config, None)
    return [p for p in path if p not in ("planner", "__interrupt__")], state, scripted, updates


def test_an_intent_over_a_catalog_table_is_planned_as_a_question_program(catalog_dir):
    path, state, scripted, _ = run(catalog_dir, SPOKEN)
    assert path == ["preflight", "design", "grounding", "allocation", "review_plan", "finish_plan"]
    assert state.values["plan_status"] == "ok" and state.values["build_status"] == "planned"
    spec = BenchmarkSpec.model_validate(state.values["spec"])
    (subtask,) = spec.subtasks
    (grounding,) = spec.groundings
    assert subtask.id == "records-countries" and subtask.input_modalities == ["audio"]
    # The name and description say the program's reading: they cannot drift from the data.
    assert subtask.name == "Lookup over countries"
    assert grounding.program.reading() in subtask.description
    assert grounding.strategy == "question_program" and grounding.dataset_id == "countries"
    assert (grounding.program.kind, grounding.program.answer_field) == ("lookup", "capital")
    assert [s.tool for s in grounding.plan] == ["tts_speak", "audio_add_noise"]
    assert [a.quota for a in spec.allocations] == [10]
    # No design model: the only structured call is the allocation's.
    assert dict(scripted.calls) == {"ImportanceWeights": 1}


def test_an_intent_asking_two_things_gets_a_program_and_a_subtask_each(catalog_dir):
    _path, state, *_ = run(catalog_dir, TWO)
    spec = BenchmarkSpec.model_validate(state.values["spec"])
    kinds = {
        s.id: g.program.kind for s in spec.subtasks for g in spec.groundings if g.subtask_id == s.id
    }
    assert kinds == {"records-countries-compare": "compare", "records-countries-lookup": "lookup"}
    assert sum(a.quota for a in spec.allocations) == 10
    # max_subtasks caps the programs an intent may ask for.
    _path, state, *_ = run(catalog_dir, TWO, max_subtasks=1)
    assert [s.id for s in BenchmarkSpec.model_validate(state.values["spec"]).subtasks] == [
        "records-countries-compare"
    ]


def test_an_intent_no_table_covers_ends_after_design_without_a_model_call(catalog_dir):
    path, state, scripted, _ = run(catalog_dir, "orbital periods of exoplanets")
    assert path == ["preflight", "design", "finish_plan"]
    assert state.values["plan_status"] == "uncovered"
    error = state.values["error"]
    assert "orbital periods of exoplanets" in error and "searched: countries" in error
    assert "--dataset FILE" in error
    assert not scripted.calls


def test_a_supply_shortfall_ends_infeasible_without_going_back_to_design(catalog_dir):
    # 12 countries, 4 shown at a time: 495 sets, at 0.9 yield 445 items; 500 are asked.
    intent = "Show 4 countries and ask which has the largest population"
    path, state, *_ = run(catalog_dir, intent, size=500)
    assert path == ["preflight", "design", "grounding", "allocation", "finish_plan"]
    assert state.values["plan_status"] == "infeasible"
    error = state.values["error"]
    assert "no feasible allocation" in error and "445" in error and "smaller --size" in error
    assert state.values["allocation_trace"]


def test_review_interrupts_and_resumes_with_approve_edit_or_reject(catalog_dir):
    config = RunConfig(paths=RunPaths(catalog_dir=str(catalog_dir)), review=True)

    def start():
        install_model(config, script())
        graph = make_builder().compile(checkpointer=InMemorySaver())
        thread = {"configurable": {"thread_id": "t"}}
        graph.invoke({"intent": SPOKEN, "size": 6}, thread, context=config)
        return graph, thread

    graph, thread = start()
    state = graph.get_state(thread)
    assert state.next and state.values["build_status"] == "planning"  # paused in the planner
    task = state.tasks[0]
    interrupt = task.interrupts[0] if task.interrupts else task.state.tasks[0].interrupts[0]
    assert "Benchmark plan" in interrupt.value["summary"]
    assert "program: lookup" in interrupt.value["summary"]
    graph.invoke(Command(resume={"action": "approve"}), thread, context=config)
    assert graph.get_state(thread).values["plan_status"] == "ok"

    graph, thread = start()
    edited = dict(interrupt.value["spec"])
    edited["intent"] = "edited intent"
    graph.invoke(Command(resume={"action": "edit", "spec": edited}), thread, context=config)
    assert graph.get_state(thread).values["spec"].intent == "edited intent"

    graph, thread = start()
    graph.invoke(Command(resume={"action": "reject", "reason": "too easy"}), thread, context=config)
    final = graph.get_state(thread).values
    assert final["plan_status"] == "rejected" and "too easy" in final["error"]
    assert final["build_status"] == "planned"
    register_runtime(config, None)


def test_the_planner_state_holds_the_plan_models_not_dicts(catalog_dir):
    """Design, grounding and allocation write Subtask/Grounding/Allocation models."""
    _path, state, _scripted, updates = run(catalog_dir, TWO)
    written: dict[str, list] = {}
    for update in updates:
        for node, values in update.items():
            for key in ("subtasks", "groundings", "allocations"):
                if isinstance(values, dict) and key in values:
                    written.setdefault(f"{node}.{key}", []).extend(values[key])
    for key, model in (
        ("design.subtasks", Subtask),
        ("grounding.groundings", Grounding),
        ("allocation.allocations", Allocation),
    ):
        assert written[key] and all(isinstance(v, model) for v in written[key]), key
    assert isinstance(state.values["spec"], BenchmarkSpec)

"""The compiled graph: its schemas and edges, and the preflight node on its own."""

import pytest
from langgraph.runtime import Runtime

from benchsmith.agents.preflight import preflight
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, ModelSpecError
from benchsmith.graph import builder, graph, make_builder
from benchsmith.graph.routers import (
    route_after_allocation,
    route_after_collect,
    route_after_planner,
    route_after_preflight,
)


def run_preflight(state, config):
    return preflight(state, Runtime(context=config))


def test_preflight_resolves_every_role_and_normalizes_the_intent():
    out = run_preflight(
        {"intent": "  spoken   capitals\n quiz ", "size": 20},
        RunConfig(model="openai:gpt-4o-mini", role_models={"judge": "ollama:qwen"}),
    )
    assert out["intent"] == "spoken capitals quiz"
    assert out["size"] == 20
    assert out["models"]["judge"] == "ollama:qwen"
    assert out["models"]["design"] == "openai:gpt-4o-mini"
    assert out["warnings"] == []
    assert out["plan_status"] == "planning" and out["dropped"] == []


def test_all_local_warns_that_the_model_is_small():
    out = run_preflight({"intent": "capitals", "size": 3}, RunConfig(model="local"))
    assert len(out["warnings"]) == 1 and "135M" in out["warnings"][0]


@pytest.mark.parametrize(
    "state,match",
    [
        ({"intent": " ", "size": 3}, "intent is empty"),
        ({"intent": "x", "size": 0}, "size must be"),
        ({"intent": "x", "size": True}, "size must be"),
    ],
)
def test_bad_input_is_a_config_error(state, match):
    with pytest.raises(ConfigError, match=match):
        run_preflight(state, RunConfig())


def test_a_spec_with_a_retired_or_broken_plan_is_a_config_error(tmp_path):
    import json

    from benchsmith.spec import ParamRange, PlanStep, Subtask
    from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec

    card = jsonl_dataset(tmp_path, "capitals", [{"name": "Peru", "capital": "Lima"}])
    subtask = Subtask(id="s", name="S", description="d", input_modalities=["audio"])
    spec = one_grounding_spec(subtask, card, size=1, answer_field="capital", question_field="name")
    config = RunConfig(model="local")
    assert run_preflight({"intent": "x", "size": 1, "spec": spec}, config)["plan_status"] == "ok"
    # A step edited by hand beyond what its tool takes: said before anything runs.
    broken = spec.model_copy(deep=True)
    broken.groundings[0].plan[0].ranges["rate"] = ParamRange(min=1, max=5000)
    broken.groundings[0].plan.append(PlanStep(tool="audio_warp", purpose="x"))
    with pytest.raises(ConfigError, match="tool plan is invalid") as err:
        run_preflight({"intent": "x", "size": 1, "spec": broken}, config)
    assert "tts_speak.rate" in str(err.value) and "unknown tool 'audio_warp'" in str(err.value)
    # A spec of the retired record path: refused, with what to do instead.
    old = json.loads(spec.model_dump_json())
    old["groundings"][0].pop("strategy")
    old["groundings"][0].pop("program")
    with pytest.raises(ConfigError, match="retired 'records' strategy.*--program"):
        run_preflight({"intent": "x", "size": 1, "spec": old}, config)


def test_bad_model_spec_fails_before_any_call():
    with pytest.raises(ModelSpecError, match="unknown model spec 'gpt4'"):
        make_builder().compile().invoke({"intent": "x", "size": 1}, context=RunConfig(model="gpt4"))


def test_exported_graph_schemas_and_edges():
    assert graph.name == "benchsmith"
    assert set(graph.get_input_jsonschema()["properties"]) == {"intent", "size", "build", "spec"}
    assert set(graph.get_input_jsonschema()["required"]) == {"intent", "size"}
    assert {"spec", "plan_status", "error", "models", "build_status", "report"} <= set(
        graph.get_output_jsonschema()["properties"]
    )
    assert builder.context_schema is RunConfig
    drawn = graph.get_graph(xray=True)
    names = set(drawn.nodes)
    for node in (
        "preflight",
        "planner:design",
        "planner:grounding",
        "planner:allocation",
        "planner:review_plan",
        "collect",
        "realize:computed",
        "realize:verify",
        "realize:accept",
        "realize:discard",
        "package",
    ):
        assert node in names, names
    assert "realize:orchestrate" not in names and "realize:execute" not in names
    edges = {(e.source, e.target) for e in drawn.edges}
    # Design is deterministic: no edge goes back to it.
    into_design = {a for a, b in edges if b == "planner:design"}
    assert into_design <= {"preflight", "planner:__start__"}, into_design
    assert ("planner:grounding", "planner:allocation") in edges
    # The executor's loop: collect fans out to the slot subgraph and is fed back; package.
    assert {("collect", "realize:__start__"), ("realize:__end__", "collect")} <= edges
    assert ("collect", "package") in edges
    # Inside a slot: the computed item is verified, then accepted or discarded (no local
    # fix); the ledger check ends a finished slot at once.
    slot_edges = {
        (a.removeprefix("realize:"), b.removeprefix("realize:"))
        for a, b in edges
        if a.startswith("realize:") and b.startswith("realize:")
    }
    assert slot_edges == {
        ("__start__", "__end__"),
        ("__start__", "computed"),
        ("computed", "verify"),
        ("computed", "discard"),
        ("verify", "accept"),
        ("verify", "discard"),
        ("accept", "computed"),
        ("accept", "__end__"),
        ("discard", "__end__"),
        # a rejected candidate replaced in place from the round's reserve
        ("discard", "computed"),
    }
    assert ("preflight", "collect") in edges  # a build from an approved spec skips planning
    # A run that ends after the planner is marked planned on its way out.
    assert {("planner:__end__", "finish_plan"), ("finish_plan", "__end__")} <= edges
    assert ("planner:__end__", "__end__") not in edges


def test_routers_are_pure_functions_of_the_state():
    assert route_after_allocation({"plan_status": "ok"}) == "review_plan"
    assert route_after_allocation({"plan_status": "infeasible"}) == "__end__"
    assert route_after_preflight({"build": True, "spec": {"x": 1}}) == "collect"
    assert route_after_preflight({"build": False, "spec": {"x": 1}}) == "planner"
    assert route_after_planner({"build": True, "plan_status": "ok", "spec": {}}) == "finish_plan"
    assert route_after_planner({"build": True, "plan_status": "ok", "spec": {"x": 1}}) == "collect"
    plan_only = {"build": False, "plan_status": "ok", "spec": {"x": 1}}
    assert route_after_planner(plan_only) == "finish_plan"
    failed = {"build": True, "plan_status": "infeasible", "spec": None}
    assert route_after_planner(failed) == "finish_plan"
    sends = route_after_collect({"pending_slots": ["a", "b"]})
    assert [(s.node, s.arg) for s in sends] == [
        ("realize", {"slot": "a"}),
        ("realize", {"slot": "b"}),
    ]
    assert route_after_collect({"pending_slots": []}) == "package"


def test_builds_share_one_compiled_graph_without_a_checkpointer():
    from benchsmith.graph.workflow import build_graph

    shared = build_graph()
    assert build_graph() is shared
    assert shared.checkpointer is None
    assert set(shared.get_graph().nodes) == set(make_builder().compile().get_graph().nodes)

"""The compiled graph: run it with an in-memory checkpointer, and check its schemas."""

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, ModelSpecError
from benchsmith.graph import builder, graph, make_builder


def run(state, context, thread="t1"):
    compiled = make_builder().compile(checkpointer=InMemorySaver())
    return compiled.invoke(state, {"configurable": {"thread_id": thread}}, context=context)


def test_preflight_resolves_every_role_and_normalizes_the_intent():
    out = run(
        {"intent": "  spoken   capitals\n quiz ", "size": 20},
        RunConfig(model="openai:gpt-4o-mini", role_models={"judge": "ollama:qwen"}),
    )
    assert out["intent"] == "spoken capitals quiz"
    assert out["size"] == 20
    assert out["models"]["judge"] == "ollama:qwen"
    assert out["models"]["design"] == "openai:gpt-4o-mini"
    assert out["warnings"] == []


def test_all_local_warns_that_the_model_is_small():
    out = run({"intent": "capitals", "size": 3}, RunConfig(model="local"))
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
        run(state, RunConfig())


def test_bad_model_spec_fails_before_any_call():
    with pytest.raises(ModelSpecError, match="unknown model spec 'gpt4'"):
        run({"intent": "x", "size": 1}, RunConfig(model="gpt4"))


def test_exported_graph_schemas():
    assert graph.name == "benchsmith"
    assert set(graph.get_input_jsonschema()["properties"]) == {"intent", "size"}
    assert set(graph.get_output_jsonschema()["properties"]) == {
        "intent",
        "size",
        "models",
        "warnings",
    }
    assert builder.context_schema is RunConfig
    assert "preflight" in graph.get_graph().nodes

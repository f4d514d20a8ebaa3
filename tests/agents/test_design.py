"""Design agent: deterministic checks and the propose/critique loop with a scripted model."""

from planner_fakes import SchemaScript, install_model

from benchsmith.agents.design import check_subtasks, design_subtasks, modalities_from_intent
from benchsmith.config import RunConfig
from benchsmith.llm.registry import get_model, register_runtime
from benchsmith.spec import Subtask


def sub(id, name, description, modality="text", fmt="short_answer"):
    return Subtask(
        id=id, name=name, description=description, input_modalities=[modality], answer_format=fmt
    )


def test_checks_drop_empty_echoed_duplicate_disallowed_and_surplus():
    candidates = [
        sub("a", "Capitals", "Name the capital of a country."),
        sub("b", "Capitals", "Something else entirely."),
        sub("c", "Capital cities", "Name the capital of a country!"),
        sub("d", "Part of the UNTRUSTED dataset list", "x"),
        sub("e", "Spoken", "Hear a question.", modality="audio"),
        sub("f", "Currencies", "Name the currency of a country.", fmt="open"),
        sub("g", "Languages", "Name an official language of a country."),
        sub("h", "Regions", "Name the region of a country."),
    ]
    kept, problems = check_subtasks(
        candidates, max_count=2, modalities=("text",), formats=("short_answer",)
    )
    assert [s.id for s in kept] == ["a", "g"]
    reasons = dict(p.split(": ", 1) for p in problems)
    assert reasons["b"] == "duplicates another subtask"
    assert reasons["c"] == "duplicates another subtask"
    assert reasons["d"] == "copies the prompt's own wording"
    assert "not allowed" in reasons["e"] and "not allowed" in reasons["f"]
    assert reasons["h"] == "more than 2 subtasks"


def test_modalities_from_intent():
    assert modalities_from_intent("spoken questions about capitals") == ("audio",)
    assert modalities_from_intent("questions about photos of cats") == ("image",)
    assert modalities_from_intent("arithmetic word problems") == ()


def test_critique_revises_and_discards_but_never_empties():
    config = RunConfig(max_subtasks=3)
    script = SchemaScript(
        SubtaskProposal=[
            {
                "subtasks": [
                    {
                        "name": "Capitals",
                        "description": "Name the capital.",
                        "skills": ["geo"],
                        "input_modality": "text",
                        "answer_format": "short_answer",
                        "difficulty": "easy",
                    },
                    {
                        "name": "Flags",
                        "description": "Name the flag colors.",
                        "skills": [],
                        "input_modality": "text",
                        "answer_format": "short_answer",
                        "difficulty": "hard",
                    },
                ]
            }
        ],
        Critique=[
            {
                "verdicts": [
                    {
                        "subtask_id": "capitals",
                        "action": "revise",
                        "reason": "vague",
                        "new_description": "Name the capital city of the given country.",
                    },
                    {"subtask_id": "flags", "action": "discard", "reason": "not checkable"},
                ]
            }
        ],
    )
    install_model(config, script)
    subtasks, log = design_subtasks(
        get_model(config, "design"),
        intent="geography: capitals and flags",
        size=10,
        max_subtasks=2,
        max_rounds=1,
        formats=("short_answer",),
    )
    register_runtime(config, None)
    assert [(s.id, s.description) for s in subtasks] == [
        ("capitals", "Name the capital city of the given country.")
    ]
    assert any("revised capitals" in line for line in log)
    schema_ids = script.calls
    assert schema_ids["SubtaskProposal"] == 1 and schema_ids["Critique"] == 1

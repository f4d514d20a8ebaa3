"""The project's largest structured-output schemas, sent to the real embedded llama.cpp servers.

Which schemas are sent is measured, not named: the one with the largest grammar (characters
of the GBNF llama-cpp-python builds) and the one whose string leaves the most characters
optional (each is one nested grammar rule; past about 1000, llama.cpp refused the grammar and
the server died: ProblemWording at 1500 and SolverAnswer at 2000 did). Each goes to SmolLM2's
server through the client path a build uses (a forced function call), and must come back as
a valid object from a server that is still running. The reader's server gets the largest of
the schemas its role sends (the textbook and intent readers' questions, the translation): the
grammar is built from the schema alone, so the project's largest is compiled once, by
SmolLM2's server; on the reader's, its 1,800-token tool definition took 70 s of prompt
reading (2 cores) to prove nothing more.
"""

from __future__ import annotations

import json
import time

import pytest
from pydantic import BaseModel
from test_schema_compile import grammar_sizes, project_schemas, tool_parameters

from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.local import local_server, server_available, stop_local_server
from benchsmith.llm.reader_model import assembly_state
from benchsmith.llm.specs import LOCAL_MODEL_NAME, READER_MODEL_NAME

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not server_available(), reason="benchsmith[local] is not installed"),
]

PROMPTS = {
    "ProblemWording": (
        "Write one short word problem for a student: a loan of $1,000 at an annual interest "
        "rate of 5% for 3 years. It asks for the simple interest. End with the question."
    ),
}
GENERIC = "Call the function once, with short example arguments."


def string_slack(schema: type[BaseModel]) -> int:
    """The most characters one string of the schema leaves optional (maxLength - minLength)."""
    most = 0

    def walk(node: object) -> None:
        nonlocal most
        if isinstance(node, dict):
            if node.get("type") == "string" and "maxLength" in node:
                most = max(most, int(node["maxLength"]) - int(node.get("minLength", 0)))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tool_parameters(schema))
    return most


READER_ROLE = ("SymbolAnswer", "WordFormulaAnswer", "SameObjectAnswer", "schema", "IntentInEnglish")
"""The schemas the reader role sends (``TextReader.ask``, the slot questions, the translation)."""


def largest(names: tuple[str, ...] | None = None) -> dict[str, str]:
    """The schema of the largest grammar and the one of the longest optional string."""
    sizes = {n: size for n, size in grammar_sizes().items() if names is None or n in names}
    schemas = {n: s for n, s in project_schemas().items() if names is None or n in names}
    slack = {name: string_slack(schema) for name, schema in schemas.items()}
    return {
        "grammar": max(sizes, key=sizes.__getitem__),
        "string cap": max(slack, key=slack.__getitem__),
    }


def _reader_installed() -> bool:
    state = assembly_state()
    return state.ready or not state.missing


@pytest.mark.parametrize(
    "spec,name",
    [
        ("local", LOCAL_MODEL_NAME),
        pytest.param(
            "local:reader",
            READER_MODEL_NAME,
            marks=pytest.mark.skipif(
                not _reader_installed(), reason="the reader model's parts are not installed"
            ),
        ),
    ],
    ids=["smollm2", "reader"],
)
def test_the_largest_schemas_get_valid_answers_from_the_real_server(tmp_path, spec, name):
    # today proposal_schema (grammar) and IntentInEnglish (string cap); for the reader,
    # IntentInEnglish for both
    picked = largest(READER_ROLE if name == READER_MODEL_NAME else None)
    for other in {LOCAL_MODEL_NAME, READER_MODEL_NAME} - {name}:
        stop_local_server(other)  # one llama.cpp server at a time on two cores
    config = RunConfig(
        model=spec, structured_method="function_calling", paths=RunPaths(run_dir=str(tmp_path))
    )
    model = LLMRuntime.from_config(config, env={}).for_role("design")
    schemas = project_schemas()
    server = local_server(model=name)
    timings = {}
    try:
        for why, schema_name in picked.items():
            schema = schemas[schema_name]
            started = time.monotonic()
            answer = model.structured(schema, [("user", PROMPTS.get(schema_name, GENERIC))])
            timings[schema_name] = round(time.monotonic() - started, 1)
            assert isinstance(answer, schema), why
            assert server.running(), f"{spec}'s server died on {schema_name}"
        print(f"{spec}: picked {picked}; start-up {server.startup_seconds:.1f}s, {timings}")
    finally:
        if name == READER_MODEL_NAME:
            server.stop()  # 1.1 GB: not kept for the modules after this one
    records = [json.loads(x) for x in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    calls = [r for r in records if r["kind"] == "call"]
    sent = [r["request"]["params"]["tool_choice"]["function"]["name"] for r in calls]
    # a schema made at run time is listed by its maker ("proposal_schema") and sent by its
    # model's name ("ProgramProposal")
    assert set(sent) == {schemas[n].__name__ for n in picked.values()}

"""Every structured-output schema benchsmith sends compiles into a llama.cpp grammar.

A llama.cpp server turns a forced function call's JSON schema into a GBNF grammar and parses
it before sampling. llama-cpp-python's server writes each character a string may leave out
as one more nested optional group, and llama.cpp's parser refuses a grammar past 2000 rules
("number of rules that are going to be repeated multiplied by the new repetition exceeds
sane defaults"): a string cap above about 1000 characters. The refused grammar is not an
error the server returns: ``llama_sampler_init_grammar`` gives a null sampler, the server
samples with it and dies (SIGSEGV), and every later call of the build is refused.

Here every schema goes through the same two steps as in that server, with no server: the
JSON schema of the request (``request_params``) through llama-cpp-python's own converter
(``llama_cpp.llama_grammar.json_schema_to_gbnf``), then the GBNF through llama.cpp's own
parser (``llama_sampler_init_grammar``, on SmolLM2's vocabulary loaded without weights).
A last test finds every ``.structured(...)`` call in the package, so a new schema that is not
listed here fails until it is.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from benchsmith.agents.allocation import weights_schema
from benchsmith.agents.programs import choice_schema
from benchsmith.agents.verification import JudgeVerdict
from benchsmith.doctor import ProbeAnswer
from benchsmith.evaluate.quality import IntentAlignment, ItemQuality
from benchsmith.evaluate.scoring import OpenAnswerVerdict
from benchsmith.llm.structured import request_params
from benchsmith.programs.propose import proposal_schema
from benchsmith.programs.translation import IntentInEnglish
from benchsmith.solution.reading import SameObjectAnswer, SymbolAnswer, WordFormulaAnswer
from benchsmith.solution.solver_check import SolverAnswer
from benchsmith.solution.wording import ProblemWording

llama_cpp = pytest.importorskip("llama_cpp", reason="benchsmith[local] is not installed")

PACKAGE = Path(__file__).resolve().parents[1] / "benchsmith"


def _wide_tables() -> dict:
    """Two tables of 16 columns each: a wide catalog table, in a proposal schema's ``Literal``s."""
    return {
        name: SimpleNamespace(columns={f"{name}_column_{i}": None for i in range(16)})
        for name in ("countries", "cities")
    }


def _slot_question() -> type[BaseModel]:
    """The reader's question about an intent's column (a ``Literal`` of the widest table's)."""
    from benchsmith.programs.slots import MAX_OPTIONS, Question

    options = tuple(f"column_{i}" for i in range(MAX_OPTIONS))
    return Question(text="Which column?", options=options, rules=None, why="unsure").schema()


SCHEMAS: dict[str, Callable[[], type[BaseModel] | None]] = {
    "SymbolAnswer": lambda: SymbolAnswer,  # the textbook reader's questions (TextReader.ask)
    "WordFormulaAnswer": lambda: WordFormulaAnswer,
    "SameObjectAnswer": lambda: SameObjectAnswer,
    "ProblemWording": lambda: ProblemWording,
    "SolverAnswer": lambda: SolverAnswer,
    "OpenAnswerVerdict": lambda: OpenAnswerVerdict,
    "ItemQuality": lambda: ItemQuality,
    "IntentAlignment": lambda: IntentAlignment,
    "JudgeVerdict": lambda: JudgeVerdict,
    "ProbeAnswer": lambda: ProbeAnswer,
    "choice_schema": lambda: choice_schema([f"p{i}" for i in range(1, 13)]),
    "weights_schema": lambda: weights_schema([f"subtask_{i}" for i in range(30)]),
    "proposal_schema": lambda: proposal_schema(_wide_tables()),
    "schema": _slot_question,  # ``ask(schema, prompt)``: the reader's slot questions
    "IntentInEnglish": lambda: IntentInEnglish,  # ``ask(IntentInEnglish, ...)``: a translation
}
"""Each name a ``.structured(NAME...)`` call of the package uses, and a schema it sends
(factories with their widest arguments: more ids, more columns)."""


def tool_parameters(schema: type[BaseModel]) -> dict:
    """The JSON schema a llama.cpp server compiles: the forced function's parameters."""
    params = request_params(schema, "function_calling")
    return params["tools"][0]["function"]["parameters"]


def response_schema(schema: type[BaseModel]) -> dict:
    """The JSON schema sent as a response format (the model's whole schema, with its $defs)."""
    return request_params(schema, "json_schema")["response_format"]["json_schema"]["schema"]


def gbnf(schema: type[BaseModel], form: Callable[[type[BaseModel]], dict] = tool_parameters) -> str:
    """The grammar llama-cpp-python's server builds for ``schema`` (sent in ``form``)."""
    from llama_cpp import llama_grammar

    return llama_grammar.json_schema_to_gbnf(json.dumps(form(schema)))


@functools.cache
def _vocab() -> object:
    """SmolLM2's vocabulary (its GGUF loaded without weights: 0.1 s), for llama.cpp's parser."""
    from benchsmith.errors import LocalModelError
    from benchsmith.llm.local import local_model_path

    try:
        path = local_model_path()
    except LocalModelError as exc:
        pytest.skip(str(exc))
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    assert model, f"cannot read the vocabulary of {path}"
    _vocab.model = model  # kept alive with the vocabulary it owns
    return llama_cpp.llama_model_get_vocab(model)


def llama_cpp_parses(grammar: str) -> bool:
    """Whether llama.cpp's grammar parser accepts ``grammar`` (what the server samples with)."""
    sampler = llama_cpp.llama_sampler_init_grammar(_vocab(), grammar.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def project_schemas() -> dict[str, type[BaseModel]]:
    """Every listed schema that can be built here, by name."""
    built = {name: make() for name, make in SCHEMAS.items()}
    return {name: schema for name, schema in built.items() if schema is not None}


def grammar_sizes() -> dict[str, int]:
    """Each project schema's grammar, in characters of GBNF (the server test sends the largest)."""
    return {name: len(gbnf(schema)) for name, schema in project_schemas().items()}


@pytest.mark.parametrize("form", [tool_parameters, response_schema], ids=["tool", "response"])
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_schema_compiles_into_a_llama_cpp_grammar(name, form):
    # Both ways a schema reaches a llama.cpp server: a forced function call's parameters
    # (function_calling), or a response format's schema (json_schema, and llama.cpp's own
    # json_object with a schema); the server compiles either with the same converter.
    schema = SCHEMAS[name]()
    if schema is None:
        pytest.skip(f"{name}: its module is not in this tree")
    grammar = gbnf(schema, form)
    assert llama_cpp_parses(grammar), (
        f"llama.cpp refuses the grammar of {schema.__name__} ({len(grammar)} characters of "
        "GBNF): a llama.cpp server would crash on it. Lower the string caps (max_length; "
        "about 1000 optional characters is llama.cpp's limit) or enforce the cap in code "
        "after parsing (a validator)"
    )


def test_the_limit_this_test_guards_is_real():
    # A string of 2000 characters at most (SolverAnswer.working before) is refused, so
    # the test above would have caught it; 900 characters (ProblemWording's cap) is not.
    def capped(limit: int) -> str:
        from llama_cpp import llama_grammar

        schema = {"type": "object", "properties": {"s": {"type": "string", "maxLength": limit}}}
        return llama_grammar.json_schema_to_gbnf(json.dumps(schema))

    assert not llama_cpp_parses(capped(2000))
    assert not llama_cpp_parses(capped(1500))
    assert llama_cpp_parses(capped(900))


def _structured_calls() -> list[tuple[str, int, str]]:
    """``(file, line, first name)`` of every ``.structured(X...)`` / ``structured_call(m, X``."""
    found = []
    pattern = re.compile(
        r"\.structured\(\s*([A-Za-z_]\w*)|structured_call\(\s*\w+,\s*([A-Za-z_]\w*)"
    )
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            name = match.group(1) or match.group(2)
            found.append((str(path.relative_to(PACKAGE.parent)), line, name))
    return found


def test_every_structured_call_of_the_package_sends_a_listed_schema():
    calls = _structured_calls()
    assert len(calls) >= 10, calls  # the scan itself works
    unlisted = [f"{file}:{line} ({name})" for file, line, name in calls if name not in SCHEMAS]
    assert not unlisted, (
        f"structured-output schemas not compiled by this test: {', '.join(unlisted)}; add "
        "each to SCHEMAS in tests/test_schema_compile.py"
    )

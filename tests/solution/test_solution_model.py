"""Model wording and the solver check, with the scripted fake chat model.

The reader's questions about the text are tested in ``test_solution_reading.py``."""

from pathlib import Path

from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.solution import generate_items
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.solution.solver_check import solver_check
from benchsmith.testing.fake_chat import ScriptedChatModel

CHAPTER = Path(__file__).resolve().parents[2] / "examples/references/time-value-of-money.md"


class Router:
    """Answers structured calls by schema name; records the prompts."""

    def __init__(self, **handlers):
        self.handlers = handlers
        self.prompts = {}

    def __call__(self, messages, kwargs):
        name = kwargs["tool_choice"]["function"]["name"]
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.setdefault(name, []).append(prompt)
        return self.handlers[name](prompt)


def runtime(tmp_path, router):
    fake = ScriptedChatModel(script=[router], repeat_last=True)
    spec = parse_model_spec("local", env={})
    rt = LLMRuntime(
        models={r: ResolvedModel(r, spec, "test") for r in ROLES},
        records=RunRecords(str(tmp_path / "run")),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    return rt


def given_block(prompt):
    """The given lines of the wording prompt: '- description (name): value'."""
    return [line[2:] for line in prompt.splitlines() if line.startswith("- ") and "): " in line]


def good_wording(prompt):
    givens = given_block(prompt)
    values = "; ".join(line.split("): ")[1] for line in givens)
    target = prompt.split("It asks for: ")[1].split(" (")[0]
    return {"text": f"A saver's plan uses these figures: {values}. What is the {target}?"}


def test_model_wording_passes_checks(tmp_path):
    router = Router(ProblemWording=good_wording)
    model = runtime(tmp_path, router).for_role("orchestration")
    knowledge = build_knowledge([CHAPTER])
    result = generate_items([CHAPTER], 6, seed=3, model=model, knowledge=knowledge)
    assert len(result.items) == 6
    assert {i.metadata["wording"] for i in result.items} == {"model"}
    assert all(i.input.startswith("A saver's plan uses these figures:") for i in result.items)
    assert result.stats["model_wording"] == 6
    prompt = router.prompts["ProblemWording"][0]
    assert "<<<UNTRUSTED template text>>>" in prompt


def test_bad_model_wording_falls_back_to_template(tmp_path):
    router = Router(ProblemWording=lambda p: {"text": "What is the answer to this one, please?"})
    model = runtime(tmp_path, router).for_role("orchestration")
    knowledge = build_knowledge([CHAPTER])
    result = generate_items([CHAPTER], 3, seed=3, model=model, knowledge=knowledge)
    assert {i.metadata["wording"] for i in result.items} == {"template"}
    assert result.stats["model_wording_failed"] == 3
    # two attempts each, the second with the failures as feedback
    assert len(router.prompts["ProblemWording"]) == 6
    assert "Your previous text was rejected" in router.prompts["ProblemWording"][1]


def test_solver_check_compares_with_the_computed_answer(tmp_path):
    replies = [{"working": "r = j/m ...", "answer": 1819.4}, {"answer": 1500.0}, {"answer": 4.25}]
    router = Router(SolverAnswer=lambda p: replies.pop(0))
    solver = runtime(tmp_path, router).for_role("solver")
    ok = solver_check(solver, "What is the future value?", None, 1819.3967, 0.01)
    assert ok == {"answer": 1819.4, "expected": 1819.3967, "agrees": True, "tolerance": 0.01}
    assert solver_check(solver, "What is it?", None, 1819.3967, 0.01)["agrees"] is False
    # a choice answered in printed percent units still agrees
    assert solver_check(solver, "Which rate?", ["4.25%", "5%"], 0.0425, 0.01)["agrees"] is True
    assert "A) 4.25%" in router.prompts["SolverAnswer"][2]


def test_solver_disagreement_rewords_then_drops(tmp_path):
    router = Router(SolverAnswer=lambda p: {"working": "", "answer": -1.0})
    solver = runtime(tmp_path, router).for_role("solver")
    knowledge = build_knowledge([CHAPTER])
    result = generate_items(
        [CHAPTER], 2, seed=9, knowledge=knowledge, difficulties=(1,), solver=solver
    )
    assert result.items == []
    assert result.stats["solver_dropped"] == len(result.rejected_items) > 0
    first = result.rejected_items[0]
    assert first["reason"] == "solver disagreed after rewording"
    assert [(c["attempt"], c["agrees"]) for c in first["checks"]] == [(0, False), (1, False)]
    assert set(first["solution_graph"]) == {"givens", "steps", "target"}
    # the reworded text differs from the first one
    prompts = router.prompts["SolverAnswer"]
    assert prompts[0] != prompts[1]
    assert result.coverage.shortfall

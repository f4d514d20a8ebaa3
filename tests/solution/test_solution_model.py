"""Model wording, the solver check and prose formulas, with the scripted fake chat model."""

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


def test_prose_formulas_from_the_model(tmp_path):
    def extract(prompt):
        if "Loan payments" not in prompt.split("\n")[0]:
            return {"formulas": [], "quantities": []}
        return {
            "formulas": [
                {
                    "output": "AVG",
                    "expression": "TI / n",
                    "quote": "the total interest paid is",
                },
                {"output": "BAD", "expression": "TI +* n", "quote": ""},
            ],
            "quantities": [
                {
                    "name": "AVG",
                    "description": "the average interest per payment",
                    "unit": "currency",
                    "low": 0,
                    "high": 20000,
                }
            ],
        }

    router = Router(ProseExtraction=extract)
    model = runtime(tmp_path, router).for_role("orchestration")
    knowledge = build_knowledge([CHAPTER], model=model)
    # The chapter never says "average interest per payment": the model's words are not the
    # text's, so AVG has no definition and its formula is refused, with the reason.
    assert not [f for f in knowledge.graph.formulas if f.syntax == "prose"]
    (avg,) = [f for f in knowledge.found if f.output == "AVG"]
    text = knowledge.documents[0].text
    assert text[avg.source.start : avg.source.end] == "the total interest paid is"
    assert any(
        r.text == avg.text and "no definition in the text of the symbol(s) AVG" in r.reason
        for r in knowledge.rejected
    )
    assert any(
        r.text == "BAD = TI +* n" and r.reason.startswith("cannot parse")
        for r in knowledge.rejected
    )
    # A chapter that does say it: the formula is admitted with the text's words.
    chapter = tmp_path / "loans.md"
    chapter.write_text(
        CHAPTER.read_text(encoding="utf-8").replace(
            "Over the life of the loan",
            "The average interest per payment is the total interest paid divided by n.\n\n"
            "Over the life of the loan",
        ),
        encoding="utf-8",
    )
    knowledge = build_knowledge([chapter], model=model)
    prose = [f for f in knowledge.graph.formulas if f.syntax == "prose"]
    assert [(f.output, str(f.expr)) for f in prose] == [("AVG", "TI/n")]
    assert knowledge.graph.quantities["AVG"].description == "average interest per payment"


def test_the_models_reading_of_a_symbol_is_used_only_where_the_text_bears_it_out(tmp_path):
    chapter = tmp_path / "heat.md"
    chapter.write_text(
        "# Heat\n\nThe heat absorbed is $$q = c m \\Delta T$$ where $c$ is the specific heat of "
        "the substance, $m$ is its mass and $\\Delta T$ is the temperature change. Water has "
        "4.184 J/g °C; a pan of 808 g warms by 64 °C.\n",
        encoding="utf-8",
    )

    def extract(prompt):
        return {
            "formulas": [],
            "quantities": [
                # read as the text writes it: wins over the patterns' reading
                {"name": "c", "description": "specific heat", "unit": "number",
                 "unit_written": "J/g °C", "low": 0.1, "high": 5},
                # invented words and a unit the text never writes: not used
                {"name": "m", "description": "the heft of the object", "unit": "number",
                 "unit_written": "lb", "low": 1, "high": 9},
            ],
        }  # fmt: skip

    model = runtime(tmp_path, Router(ProseExtraction=extract)).for_role("orchestration")
    quantities = build_knowledge([chapter], model=model).graph.quantities
    assert (quantities["c"].description, quantities["c"].symbol) == ("specific heat", "J/g °C")
    assert quantities["m"].description == "mass"
    assert quantities["m"].symbol == "g"
    # the range: neither 0.1 nor 5 is written in the text, so it is not taken as read
    c = quantities["c"]
    assert (c.low, c.high) != (0.1, 5) or "range" in c.assumed

"""Reading a textbook by small questions: each answer checked against the text, cached,
shared by the plan and the build; chains join one object's formulas only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchsmith.agents import references
from benchsmith.agents.references import reference_subtasks, solution_grounding
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.solution.generate import plan_cells
from benchsmith.solution.knowledge import NO_READER, build_knowledge
from benchsmith.solution.objects import pair
from benchsmith.solution.reading import find_quote, range_reading, unit_reading
from benchsmith.testing.fake_chat import ScriptedChatModel

CHAPTERS = Path(__file__).resolve().parent / "chapters"
HEAT = (
    "# Heat\n\nThe heat absorbed is $$q = c m \\Delta T$$ where $c$ is the specific heat of "
    "the substance, $m$ is its mass and $\\Delta T$ is the temperature change. Water has "
    "4.184 J/g °C; a pan of 808 g warms by 64 °C.\n"
)
LOANS = (
    "# Loans\n\n## Loan payments\n\nA loan of $10,000 has principal $P$ and is repaid in $n$ "
    "equal payments, where $n$ is the number of payments and $PMT$ is the payment per "
    "period. The total interest paid is\n\n$$TI = PMT \\cdot n - P$$\n\n"
    "The average interest per payment is the total interest paid divided by the number of "
    "payments.\n"
)


class Reader:
    """A scripted reader: answers by schema name, records every question."""

    def __init__(self, **handlers):
        self.handlers = handlers
        self.questions: dict[str, list[str]] = {}

    def __call__(self, messages, kwargs):
        name = kwargs["tool_choice"]["function"]["name"]
        prompt = "\n".join(str(m.content) for m in messages)
        question = prompt.rsplit("Question: ", 1)[-1]
        self.questions.setdefault(name, []).append(question)
        if name not in self.handlers:
            raise AssertionError(f"no answer scripted for {name}: {question[:120]}")
        return self.handlers[name](question)

    @property
    def asked(self) -> int:
        return sum(len(q) for q in self.questions.values())


def silent(**handlers):
    """A reader that knows nothing but what ``handlers`` answer."""
    base = {
        "SymbolAnswer": lambda q: {"words": "", "unit": ""},
        "WordFormulaAnswer": lambda q: {"sentence": ""},
        "SameObjectAnswer": lambda q: {"answer": "no"},
    }
    return Reader(**(base | handlers))


def symbol_of(question: str) -> str:
    return re.search(r"the symbol (\S+) stand", question).group(1)


def runtime(tmp_path, reader, reader_spec="local"):
    fake = ScriptedChatModel(script=[reader], repeat_last=True)
    specs = {r: parse_model_spec("local", env={}) for r in ROLES}
    specs["reader"] = parse_model_spec(reader_spec, env={})
    return LLMRuntime(
        models={r: ResolvedModel(r, specs[r], "test") for r in ROLES},
        records=RunRecords(str(tmp_path / f"run-{id(reader)}")),  # no replay across readers
        chat_factory=lambda spec, **kw: fake,
        env={},
    )


def reader_model(tmp_path, reader):
    return runtime(tmp_path, reader).for_role("reader")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test its own cache: a reader's answers are cached per text and question."""
    monkeypatch.setenv("BENCHSMITH_SOLUTION_CACHE_DIR", str(tmp_path / "cache"))


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_symbols_words_not_in_the_text_are_not_taken(tmp_path):
    def symbol(question):
        return {
            # read as the text writes it: wins over the patterns' reading
            "c": {"words": "specific heat", "unit": "J/g °C"},
            # invented words and a unit the text never writes: not taken
            "m": {"words": "the heft of the object", "unit": "lb"},
        }.get(symbol_of(question), {"words": ""})

    reader = silent(SymbolAnswer=symbol)
    chapter = write(tmp_path, "heat.md", HEAT)
    knowledge = build_knowledge([chapter], reader=reader_model(tmp_path, reader))
    quantities = knowledge.graph.quantities
    assert (quantities["c"].description, quantities["c"].symbol) == ("specific heat", "J/g °C")
    assert dict(quantities["c"].origins)["description"] == "reader, checked against the text"
    # the patterns' reading stands where the reader's words are not the text's
    assert (quantities["m"].description, quantities["m"].symbol) == ("mass", "g")
    assert sorted(symbol_of(q) for q in reader.questions["SymbolAnswer"]) == ["c", "m", "q", "ΔT"]
    assert knowledge.reading["asked"] == reader.asked and knowledge.notes == []


ODDS = (
    "# Odds\n\nThe odds ratio compares two groups:\n\n$$OR = \\frac{a d}{b c}$$\n\n"
    "$a$ = number of individuals exposed and with disease\n\n"
    "$b$ = number of individuals exposed but without disease\n\n"
    "$c$ = number of individuals unexposed but with disease\n\n"
    "$d$ = number of individuals unexposed and without disease\n\n"
    "Of 300 individuals exposed, 125 fall ill.\n"
)


def test_a_listed_definition_stands_over_the_readers_part_of_it(tmp_path):
    def symbol(question):
        return {
            # part of another symbol's definition too: names b as well as a
            "a": {"words": "individuals exposed", "unit": ""},
            # another symbol's words, written next to this one
            "d": {"words": "exposed but without disease", "unit": ""},
            # the text's words without their head ("number of")
            "b": {"words": "individuals exposed but without disease", "unit": ""},
            # the whole definition: the reader's stands
            "c": {"words": "number of individuals unexposed but with disease", "unit": ""},
        }.get(symbol_of(question), {"words": ""})

    chapter = write(tmp_path, "odds.md", ODDS)
    knowledge = build_knowledge(
        [chapter], reader=reader_model(tmp_path, silent(SymbolAnswer=symbol))
    )
    quantities = knowledge.graph.quantities
    assert {n: quantities[n].description for n in "abcd"} == {
        "a": "number of individuals exposed and with disease",
        "b": "number of individuals exposed but without disease",
        "c": "number of individuals unexposed but with disease",
        "d": "number of individuals unexposed and without disease",
    }
    said = {n: dict(quantities[n].origins)["description"] for n in "abcd"}
    assert said["c"] == "reader, checked against the text"
    assert said["a"] == said["d"] == "definition"
    assert any(
        n.startswith("the reader's words for a (") and "definition of b" in n
        for n in knowledge.notes
    )


def test_a_range_counts_only_when_the_text_states_both_ends(tmp_path):
    def symbol(question):
        return {
            "F": {"words": "face value", "unit": "", "low": "100", "high": "10000"},
            # 0.5 is written nowhere: the range is not the reader's
            "c": {"words": "annual coupon rate", "unit": "", "low": "0.01", "high": "0.5"},
        }.get(symbol_of(question), {"words": ""})

    knowledge = build_knowledge(
        [CHAPTERS / "valuation.md"], reader=reader_model(tmp_path, silent(SymbolAnswer=symbol))
    )
    face, rate = knowledge.graph.quantities["F"], knowledge.graph.quantities["c"]
    assert (face.low, face.high) == (100, 10000)
    assert dict(face.origins)["range"] == "reader: both ends stated in the text"
    assert (rate.low, rate.high) != (0.01, 0.5)
    assert "reader" not in dict(rate.origins).get("range", "")
    text = "Face values usually lie between 100 and 10000. Much later: 0.5 of them."
    assert range_reading("100", "10000", text) == (100, 10000)
    assert range_reading("100", "0.5", text) is None  # both written, not stated together
    assert range_reading("100", "20000", text) is None
    assert unit_reading("lb", text) is None


def test_a_formula_in_words_counts_only_from_a_sentence_of_the_text(tmp_path, monkeypatch):
    def invented(question):
        if "AVG" in question:
            return {"sentence": ""}
        return {"sentence": "The mean interest is TI over n", "output": "AVG",
                "expression": "TI / n"}  # fmt: skip

    def quoted(question):
        if "AVG" in question:
            return {"sentence": ""}
        return {"sentence": "The average interest per payment is the total interest",
                "output": "AVG", "expression": "TI / n"}  # fmt: skip

    def symbol(question):
        if symbol_of(question) == "AVG":
            return {"words": "average interest per payment", "unit": "$"}
        return {"words": ""}

    chapter = write(tmp_path, "loans.md", LOANS)
    reader = silent(WordFormulaAnswer=invented, SymbolAnswer=symbol)
    knowledge = build_knowledge([chapter], reader=reader_model(tmp_path, reader))
    assert not [f for f in knowledge.graph.formulas if f.output == "AVG"]
    assert any(
        r.text == "AVG = TI / n" and r.reason.startswith("the reader's sentence is not in the text")
        for r in knowledge.rejected
    )
    # (another cache: the first reader's answers are cached for this very text)
    monkeypatch.setenv("BENCHSMITH_SOLUTION_CACHE_DIR", str(tmp_path / "another-cache"))
    reader = silent(WordFormulaAnswer=quoted, SymbolAnswer=symbol)
    knowledge = build_knowledge([chapter], reader=reader_model(tmp_path, reader))
    (avg,) = [f for f in knowledge.graph.formulas if f.output == "AVG"]
    assert (avg.syntax, str(avg.expr)) == ("prose", "TI/n")
    text = knowledge.documents[0].text
    assert text[avg.source.start : avg.source.end].startswith("The average interest per")
    assert knowledge.graph.quantities["AVG"].description == "average interest per payment"
    assert knowledge.graph.quantities["AVG"].unit == "currency"


def test_a_second_reading_of_the_same_text_asks_nothing(tmp_path):
    chapter = write(tmp_path, "heat.md", HEAT)
    first = silent(SymbolAnswer=lambda q: {"words": "specific heat", "unit": "J/g °C"})
    one = build_knowledge([chapter], reader=reader_model(tmp_path, first))
    assert first.asked > 0 and one.reading["from_cache"] == 0
    second = Reader()  # answers nothing: every question must come from the cache
    two = build_knowledge([chapter], reader=reader_model(tmp_path, second))
    assert second.asked == 0
    assert (two.reading["asked"], two.reading["from_cache"]) == (0, first.asked)
    assert two.graph.quantities == one.graph.quantities
    # another text (one word changed) is another record: asked again
    write(tmp_path, "heat.md", HEAT.replace("pan", "pot"))
    third = silent()
    build_knowledge([chapter], reader=reader_model(tmp_path, third))
    assert third.asked == first.asked


def test_without_a_reader_the_patterns_read_alone_and_say_so(tmp_path):
    chapter = write(tmp_path, "heat.md", HEAT)
    knowledge = build_knowledge([chapter])
    assert knowledge.notes[0] == NO_READER and knowledge.reading == {}
    assert knowledge.graph.quantities["c"].description == "specific heat of the substance"


def test_a_reader_that_is_not_there_leaves_the_patterns_reading(tmp_path):
    from benchsmith.errors import ModelUnreachableError

    def gone(question):
        raise ModelUnreachableError("connection refused")

    chapter = write(tmp_path, "heat.md", HEAT)
    reader = Reader(SymbolAnswer=gone, WordFormulaAnswer=gone, SameObjectAnswer=gone)
    knowledge = build_knowledge([chapter], reader=reader_model(tmp_path, reader))
    assert reader.asked == 1  # stopped at the first failure, not asked 4 more times
    assert knowledge.reading["stopped"].startswith("the reader model is not available")
    assert any(n.startswith("the reader stopped") for n in knowledge.notes)
    assert knowledge.graph.quantities["c"].description == "specific heat of the substance"


def zero_coupon_chain(graph):
    """The 2-step chains that solve C = c F for F and pass it to the zero-coupon price."""
    coupon = next(f for f in graph.formulas if f.output == "C")
    zero = next(f for f in graph.formulas if f.output == "P_z")
    plans, _ = plan_cells(graph, [2], seed=1)
    chains = [d for plan in plans.values() for d in plan.derivations]
    ids = [[s.formula.id for s in d.steps] for d in chains]
    return coupon, zero, [c for c in ids if c == [coupon.id, zero.id]]


@pytest.mark.parametrize("said", ["no", "yes"])
def test_a_chain_joins_one_objects_formulas_only(tmp_path, said):
    quote = "A zero-coupon bond pays only its face value"

    def same(question):
        if "C = c" in question and "P_z" in question:
            return {"answer": said, "quote": quote if said == "yes" else ""}
        return {"answer": "yes", "quote": "Consider a bond with face value"}

    reader = silent(SameObjectAnswer=same)
    knowledge = build_knowledge([CHAPTERS / "valuation.md"], reader=reader_model(tmp_path, reader))
    graph = knowledge.graph
    coupon, zero, chains = zero_coupon_chain(graph)
    # P = C ... uses the coupon C = c F computes: the text joins them, nothing is asked
    asked = reader.questions["SameObjectAnswer"]
    assert not any("C = c" in q and "(2) P = " in q for q in asked)
    assert any("C = c" in q and "P_z" in q for q in asked)
    if said == "no":
        assert pair(coupon.id, zero.id) in graph.apart and chains == []
    else:
        assert pair(coupon.id, zero.id) not in graph.apart and chains
    decision = next(d for d in knowledge.reading["pairs"] if "P_z" in d["formulas"][1])
    assert decision["shared"] == ["F"] or "F" in decision["shared"]


def test_a_yes_the_text_does_not_bear_out_keeps_formulas_apart(tmp_path):
    def same(question):
        return {"answer": "yes", "quote": "Both bonds are one and the same bond"}

    knowledge = build_knowledge(
        [CHAPTERS / "valuation.md"], reader=reader_model(tmp_path, silent(SameObjectAnswer=same))
    )
    coupon, zero, chains = zero_coupon_chain(knowledge.graph)
    assert pair(coupon.id, zero.id) in knowledge.graph.apart and chains == []
    assert any("not in the text" in d["why"] for d in knowledge.reading["pairs"])


def test_without_a_reader_pairs_are_kept_and_counted(tmp_path):
    knowledge = build_knowledge([CHAPTERS / "valuation.md"])
    _coupon, _zero, chains = zero_coupon_chain(knowledge.graph)
    assert knowledge.graph.apart == frozenset() and chains
    assert any("were not asked whether the text applies both" in n for n in knowledge.notes)


def test_the_plan_and_the_build_read_the_same_formulas(tmp_path):
    from benchsmith.api import build_benchmark
    from benchsmith.spec import Allocation, BenchmarkSpec

    def quoted(question):
        if "AVG" in question:
            return {"sentence": ""}
        return {"sentence": "The average interest per payment is the total interest",
                "output": "AVG", "expression": "TI / n"}  # fmt: skip

    def symbol(question):
        words = {"AVG": "average interest per payment", "TI": "total interest paid"}
        return {"words": words.get(symbol_of(question), ""), "unit": "$"}

    chapter = write(tmp_path, "loans.md", LOANS)
    catalog = Catalog(tmp_path / "run-catalog")
    card = catalog.add_reference(str(chapter))
    plan_config = RunConfig(paths=RunPaths(run_catalog_dir=str(tmp_path / "run-catalog")))
    planner = silent(WordFormulaAnswer=quoted, SymbolAnswer=symbol)
    register_runtime(plan_config, runtime(tmp_path, planner, "reader@http://127.0.0.1:9/v1"))
    try:
        (subtask,) = reference_subtasks(plan_config, [])
        grounding = solution_grounding(subtask, card, plan_config)
    finally:
        register_runtime(plan_config, None)
    assert planner.asked > 0
    planned = int(grounding.rationale.split(" admitted formulas")[0])
    assert planned == 2  # TI = PMT n - P, and AVG = TI / n that only the reader found
    # The build, in a later process: nothing read in this one, every answer from the cache.
    references._KNOWLEDGE.clear()
    out = tmp_path / "bench"
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out),
            run_dir=str(out / ".run"),
            run_catalog_dir=str(tmp_path / "run-catalog"),
            catalog_dir=str(tmp_path / "run-catalog"),
        ),
    )
    judge_yes = {"answerable": "yes", "single_answer": "yes", "relevant": "yes", "clear": "yes"}
    builder = Reader(JudgeVerdict=lambda q: judge_yes | {"reason": ""})
    register_runtime(config, runtime(tmp_path, builder, "reader@http://127.0.0.1:9/v1"))
    spec = BenchmarkSpec(
        intent="loan problems",
        size=4,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=4)],
    )
    try:
        result = build_benchmark(out=out, config=config, spec=spec)
    finally:
        register_runtime(config, None)
    assert result.status == "complete"
    assert set(builder.questions) == {"JudgeVerdict"}  # no reader question in the build
    (computed,) = json.loads((out / "report.json").read_text())["computed"]
    assert computed["stats"]["formulas_admitted"] == planned
    assert computed["stats"]["reading"]["asked"] == 0
    assert computed["stats"]["reading"]["from_cache"] == planner.asked


INTEREST = (
    "# Simple interest\n\nThe simple interest, $I$, on a loan with annual interest rate $r$ for "
    "a number of years $t$, with principal $P$, is $I = P \\times r \\times t$. The total "
    "repaid is $T = P + I$. A principal of $5,000 at an annual interest rate of 6.5% for 3 "
    "years; a principal of $12,000 at an annual interest rate of 4.25%.\n\n"
    "The output work ($W_o$) is the work a machine does on its load. It is "
    "$W_o = F_o d_o$ where the force $F_o$ acts over the distance $d_o$.\n"
)


def test_checks_of_units_quotes_and_shared_words_against_the_text(tmp_path):
    def symbol(question):
        return {
            "I": {"words": "simple interest"},  # no unit: the inputs give it dollars
            "T": {"words": "total repaid"},
            # its worked values (6.5%, 4.25%) beat the patterns' "for a number of years"
            "r": {"words": "annual interest rate"},
            "P": {"words": "principal", "unit": "$"},
            "t": {"words": "number of years", "unit": "years"},
            # the same words for two symbols: kept for the one the text writes beside them
            "W_o": {"words": "output work"},
            "F_o": {"words": "output work"},
        }.get(symbol_of(question), {"words": ""})

    chapter = write(tmp_path, "interest.md", INTEREST)
    knowledge = build_knowledge(
        [chapter], reader=reader_model(tmp_path, silent(SymbolAnswer=symbol))
    )
    quantities = knowledge.graph.quantities
    assert quantities["r"].unit == "percent"  # the patterns' "number of years" is t's
    for name in ("I_", "T"):
        assert quantities[name].unit == "currency", name
        assert dict(quantities[name].origins)["unit"].startswith("from its formula's inputs")
    assert quantities["W_o"].description == "output work"
    assert quantities["F_o"].description != "output work"
    assert any("kept for W_o" in note for note in knowledge.notes)
    text = "The rate $r$ is 5%.\n\n" + "x " * 400 + "The term is 3 years."
    assert unit_reading("years", text) == ("years", "")
    assert unit_reading("years", text, near=[text.index("$r$")]) is None
    # a quote in other markup, or cut inside its last word at its cap, is still the text's
    written = "The future value, $\\mathrm{FV}$, of an investment that yields interest is"
    assert find_quote("The future value, $\\text{FV}$, of an investment that yields in", written)
    assert find_quote("The present value, $PV$, of an investment that yields in", written) is None

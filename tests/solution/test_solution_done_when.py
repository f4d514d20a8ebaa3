"""Done when: 1,000 items from the sample chapter, every answer recomputed independently.

The evaluator below parses each recorded step expression with Python's ``ast`` and evaluates
it with ``math``: it shares no code with the generator (no sympy, no lambdify).
"""

import ast
import math
import operator
import re
from pathlib import Path

import pytest

from benchsmith.solution import generate_items
from benchsmith.solution.knowledge import build_knowledge

CHAPTER = Path(__file__).resolve().parents[2] / "examples/references/time-value-of-money.md"
BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
FUNCTIONS = {"exp": math.exp, "log": math.log, "sqrt": math.sqrt}


def evaluate(expression, values):
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.BinOp):
            return BINARY[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.Call) and node.func.id in FUNCTIONS:
            return FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        raise ValueError(f"unexpected syntax {ast.dump(node)}")

    return walk(ast.parse(expression, mode="eval"))


def recompute(graph):
    values = dict(graph["givens"])
    for step in graph["steps"]:
        values[step["output"]] = evaluate(step["expression"], values)
    return values[graph["target"]]


def printed(text):
    clean = text.replace("$", "").replace(",", "")
    number = float(re.match(r"-?\d*\.?\d+(?:e[-+]?\d+)?", clean).group(0))
    return number / 100 if clean.rstrip().endswith("%") else number


def read_target(item):
    """A numeric target in graph units: the text asks for a percentage as percent."""
    number = float(item.target)
    return number / 100 if item.metadata["unit"] == "percent" else number


@pytest.fixture(scope="module")
def thousand():
    knowledge = build_knowledge([CHAPTER])
    items = []
    for seed in (1, 2):
        result = generate_items([CHAPTER], 500, seed=seed, knowledge=knowledge)
        items += result.items
    return items


def test_thousand_items_recompute_with_zero_mismatches(thousand):
    assert len(thousand) == 1000
    assert len({i.id for i in thousand}) == 1000
    mismatches = []
    for item in thousand:
        meta = item.metadata
        answer = recompute(meta["solution_graph"])
        tolerance = meta["tolerance"]
        if item.choices:
            shown = printed(item.choices["ABCDEFGH".index(item.target)])
            others = [
                printed(c) for i, c in enumerate(item.choices) if "ABCDEFGH"[i] != item.target
            ]
            ok = math.isclose(shown, answer, rel_tol=tolerance) and all(
                not math.isclose(o, answer, rel_tol=tolerance) for o in others
            )
        else:
            ok = math.isclose(read_target(item), answer, rel_tol=tolerance)
        if not ok:
            mismatches.append((item.id, item.target, answer))
    assert mismatches == []


def test_every_item_carries_the_metadata(thousand):
    keys = {
        "subtask",
        "answer_format",
        "modalities",
        "concepts",
        "formulas",
        "steps",
        "difficulty",
        "bloom",
        "source",
        "solution_graph",
        "intermediate_values",
        "tolerance",
    }
    for item in thousand:
        meta = item.metadata
        assert keys <= set(meta)
        assert meta["modalities"] == ["text"]
        assert meta["steps"] == len(meta["solution_graph"]["steps"])
        # The label is predicted from the problem's parameters, the chain length among them.
        model = meta["difficulty_model"]
        assert meta["difficulty"] == model["label"] and model["source"] == "generator"
        assert model["params"]["steps"] == meta["steps"] and 0 <= model["score"] <= 1
        assert set(meta["source"]) == {"file", "section", "span"}
        assert list(meta["intermediate_values"]) == [
            s["output"] for s in meta["solution_graph"]["steps"]
        ]
    formats = {i.metadata["answer_format"] for i in thousand}
    assert formats == {"numeric", "multiple_choice"}


def test_fresh_values_per_seed():
    a = generate_items([CHAPTER], 30, seed=5)
    b = generate_items([CHAPTER], 30, seed=5)
    c = generate_items([CHAPTER], 30, seed=6)
    assert [i.model_dump() for i in a.items] == [i.model_dump() for i in b.items]
    givens = lambda r: [i.metadata["solution_graph"]["givens"] for i in r.items]  # noqa: E731
    assert givens(a) != givens(c)


def formula_violations(items, formulas, tolerance=0.01):
    """Admitted formulas (``output``, expression string) whose quantities all appear in an
    item (givens, intermediate values, target) and that do not hold there."""
    found = []
    for item in items:
        meta = item.metadata
        values = dict(meta["solution_graph"]["givens"])
        values.update(meta["intermediate_values"])
        values[meta["solution_graph"]["target"]] = meta["answer_value"]
        for output, expression in formulas:
            names = set(re.findall(r"[A-Za-z_]\w*", expression)) - set(FUNCTIONS) | {output}
            if not names <= set(values):
                continue
            expected = evaluate(expression, values)
            if not math.isclose(values[output], expected, rel_tol=tolerance, abs_tol=1e-9):
                found.append((item.id, output, expression, values[output], expected))
    return found


def test_thousand_items_hold_every_formula_they_mention(thousand):
    knowledge = build_knowledge([CHAPTER])
    formulas = [(f.output, str(f.expr)) for f in knowledge.graph.formulas]
    assert formula_violations(thousand, formulas) == []


def test_hidden_quantities_agree_and_models_do_not_mix(thousand):
    # j / r and n / t both equal the hidden m: givens cut from one world agree with a
    # number of compounding periods per year the chapter allows.
    checked = 0
    for item in thousand:
        meta = item.metadata
        values = {**meta["solution_graph"]["givens"], **meta["intermediate_values"]}
        values[meta["solution_graph"]["target"]] = meta["answer_value"]
        for a, b in (("j", "r"), ("n", "t")):
            if {a, b} <= set(values):
                checked += 1
                ratio = values[a] / values[b]
                assert any(math.isclose(ratio, m, rel_tol=0.01) for m in (1, 2, 4, 12))
        # Discrete and continuous compounding of one sum never meet in one problem.
        assert not {"FV", "FVC"} <= set(values)
        if "m" in meta["solution_graph"]["givens"]:
            assert meta["solution_graph"]["givens"]["m"] in (1, 2, 4, 12)
    assert checked > 0


def test_counts_are_whole_numbers_even_when_asked_for(thousand):
    # "the number of compounding periods per year is 7.2" cannot happen: worlds hold whole
    # counts, so a count computed from rounded givens is within rounding of one.
    for item in thousand:
        meta = item.metadata
        values = {**meta["solution_graph"]["givens"], **meta["intermediate_values"]}
        values[meta["solution_graph"]["target"]] = meta["answer_value"]
        for name in ("m", "n", "k", "t"):
            if name in values:
                assert abs(values[name] - round(values[name])) <= 0.01 * values[name], item.id
        if "m" in values:
            assert round(values["m"]) in (1, 2, 4, 12)

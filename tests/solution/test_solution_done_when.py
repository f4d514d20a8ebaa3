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
            ok = math.isclose(float(item.target), answer, rel_tol=tolerance)
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
        assert meta["steps"] == meta["difficulty"] == len(meta["solution_graph"]["steps"])
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

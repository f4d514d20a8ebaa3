"""The content-addressed cache of solved formulas and plans: same items, misses, repairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from benchsmith.solution import cache, generate, generate_items
from benchsmith.solution import graph as graph_module

CHAPTER = Path(__file__).parent / "chapters" / "circuits.md"


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty cache, and no roots memoized by earlier tests of the process."""
    monkeypatch.setenv("BENCHSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BENCHSMITH_SOLUTION_CACHE", raising=False)
    monkeypatch.setattr(graph_module, "_SOLVED", {})
    return tmp_path / "home"


def _items(reference: Path, monkeypatch, seed: int = 3) -> list[dict]:
    monkeypatch.setattr(graph_module, "_SOLVED", {})  # a fresh process: nothing memoized
    result = generate_items([reference], 40, seed=seed)
    return [item.model_dump(mode="json") for item in result.items]


def _entries(home: Path, kind: str) -> list[Path]:
    return sorted((home / "cache" / "solution" / kind).rglob("*.json"))


def _count_calls(monkeypatch) -> dict[str, int]:
    """Count the slow computations the cache saves (planning, sympy solving)."""
    calls = {"plan": 0, "solve": 0}
    plan, solve = generate.plan_cells, graph_module._solve_roots

    def counted_plan(*args, **kwargs):
        calls["plan"] += 1
        return plan(*args, **kwargs)

    def counted_solve(*args, **kwargs):
        calls["solve"] += 1
        return solve(*args, **kwargs)

    monkeypatch.setattr(generate, "plan_cells", counted_plan)
    monkeypatch.setattr(graph_module, "_solve_roots", counted_solve)
    return calls


def test_cached_items_are_identical_to_uncached_ones(home, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_SOLUTION_CACHE", "0")
    uncached = _items(CHAPTER, monkeypatch)
    assert not home.exists()  # the cache was off: nothing written
    monkeypatch.delenv("BENCHSMITH_SOLUTION_CACHE")
    calls = _count_calls(monkeypatch)
    cold = _items(CHAPTER, monkeypatch)
    assert calls["plan"] == 1 and calls["solve"] > 0
    assert len(_entries(home, "plan")) == 1 and _entries(home, "roots")
    calls.update(plan=0, solve=0)
    warm = _items(CHAPTER, monkeypatch)
    assert calls == {"plan": 0, "solve": 0}  # everything came from the cache
    assert uncached == cold == warm
    assert len(uncached) == 40


def test_another_seed_or_a_changed_document_misses_the_plan(home, tmp_path, monkeypatch):
    reference = tmp_path / "circuits.md"
    text = CHAPTER.read_text(encoding="utf-8")
    reference.write_text(text, encoding="utf-8")
    _items(reference, monkeypatch)
    calls = _count_calls(monkeypatch)
    _items(reference, monkeypatch, seed=4)
    assert calls["plan"] == 1  # the probes of a plan are drawn with the seed
    # A stated range changes: another graph, another plan (and other items).
    changed = text.replace(
        "typically between\n$0.10 and $0.40", "typically between\n$0.20 and $0.30"
    )
    assert changed != text
    reference.write_text(changed, encoding="utf-8")
    cached = _items(reference, monkeypatch)
    assert calls["plan"] == 2
    assert len(_entries(home, "plan")) == 3
    monkeypatch.setenv("BENCHSMITH_SOLUTION_CACHE", "0")
    assert cached == _items(reference, monkeypatch)


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # a torn file
        lambda text: "\x00\xff garbage",
        lambda text: json.dumps({"key": "another key", "value": json.loads(text)["value"]}),
        lambda text: json.dumps({**json.loads(text), "value": {"cells": [["x", 1, [[1]]]]}}),
    ],
    ids=["torn", "garbage", "foreign-key", "bad-value"],
)
def test_a_corrupt_entry_is_ignored_and_rebuilt(home, monkeypatch, damage):
    expected = _items(CHAPTER, monkeypatch)
    entries = _entries(home, "plan") + _entries(home, "roots")
    for path in entries:
        path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    calls = _count_calls(monkeypatch)
    assert _items(CHAPTER, monkeypatch) == expected
    assert calls["plan"] == 1 and calls["solve"] > 0
    calls.update(plan=0, solve=0)
    assert _items(CHAPTER, monkeypatch) == expected  # rebuilt entries are read again
    assert calls == {"plan": 0, "solve": 0}


def test_a_roots_entry_with_foreign_code_is_never_evaluated(home, monkeypatch):
    expected = _items(CHAPTER, monkeypatch)
    for path in _entries(home, "roots"):
        record = json.loads(path.read_text(encoding="utf-8"))
        record["value"] = ["__import__('os').system('exit 3')"] * max(1, len(record["value"]))
        path.write_text(json.dumps(record), encoding="utf-8")
    assert _items(CHAPTER, monkeypatch) == expected


def test_expression_text_round_trip_and_refusals():
    r, n, pv = sp.symbols("r n PV")
    for expr in [
        (pv * (1 + r) ** n) ** sp.Rational(1, 3) - 1,
        sp.log(pv) / sp.log(1 + r) + sp.Float("0.25"),
        sp.exp(-r * n) * sp.pi - sp.E,
        -2 * r,
    ]:
        assert cache.from_text(cache.to_text(expr)) == expr
    for text in [
        "__import__('os')",
        "Symbol('r').__class__",
        "Function('f')(Symbol('r'))",
        "Symbol('r', positive=True)",
        "Symbol('a b')",
        "Add(Symbol('r'), Integer(1)",
        "Integer(1) + Integer(2)",
    ]:
        with pytest.raises(ValueError):
            cache.from_text(text)


def test_the_cache_can_be_turned_off(home, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_SOLUTION_CACHE", "off")
    key = cache.entry_key("plan", "x")
    cache.store("plan", key, {"a": 1})
    assert cache.load("plan", key) is None
    assert not home.exists()
    monkeypatch.delenv("BENCHSMITH_SOLUTION_CACHE")
    cache.store("plan", key, {"a": 1})
    assert cache.load("plan", key) == {"a": 1}
    assert cache.load("plan", cache.entry_key("plan", "y")) is None


def test_a_stored_derivation_that_does_not_fit_the_graph_is_planned_again(home, monkeypatch):
    expected = _items(CHAPTER, monkeypatch)
    (path,) = _entries(home, "plan")
    record = json.loads(path.read_text(encoding="utf-8"))
    cells = record["value"]["cells"]
    chain = next(d for cell in cells for d in cell[2] if d[2])
    chain[2] = chain[2][:-1]  # a given missing: well-typed, but not a derivation of the graph
    path.write_text(json.dumps(record), encoding="utf-8")
    calls = _count_calls(monkeypatch)
    assert _items(CHAPTER, monkeypatch) == expected
    assert calls["plan"] == 1

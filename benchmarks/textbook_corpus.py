"""The textbook reader on the corpus: formulas admitted and items a teacher accepts, per part.

For each section of ``tests/textbooks/corpus`` in the chosen parts it reports:

* **key formulas matched**: a formula of the hand-written key counts when the reader
  admitted a formula over the same symbols that agrees with it numerically (on four random
  points; the two are compared as equations, so ``c = q/(m ΔT)`` matches ``q = c m ΔT``);
* **admitted**: formulas the reader admitted;
* **teacher**: of ``--items`` items asked per section, how many ``tests/textbooks/teacher.py``
  accepts (every given and the asked quantity in the text's words, units and stated ranges,
  nothing asked that is given, the answer recomputed from the key's own formulas); and how
  many fail to recompute or ask for a given (these must be 0).

The set-aside parts (held-out-1 to held-out-3; held-out-4, written blind before the reader
model read textbooks; held-out-5, written blind from six books new to the corpus after the
reader was tuned on held-out-4) are what counts; ``dev`` is what the patterns were tuned on.
Without ``--model`` the patterns read alone. With ``--model SPEC`` that model is the reader
(``local:reader`` the embedded Qwen2.5-Coder-1.5B, ``local`` the embedded SmolLM2, or any
OpenAI-compatible endpoint), asked small questions per section
(:mod:`benchsmith.solution.reading`): formulas in words, and per symbol its words, unit and
range, each kept where the text bears it out; and whether two formulas that share only an
input describe one object. Items are worded by the template either way. A reader's answers
are cached (``$BENCHSMITH_HOME/cache/solution/reading``): a second run asks nothing.

Usage: ``python benchmarks/textbook_corpus.py [--set held-out-4] [--model SPEC] [--json F]``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import sympy as sp
from sympy.parsing.sympy_parser import parse_expr

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "textbooks" / "corpus"
sys.path.insert(0, str(ROOT / "tests" / "textbooks"))

from teacher import as_read, norm, review  # noqa: E402

from benchsmith.solution import SolutionError, generate_items  # noqa: E402
from benchsmith.solution.knowledge import build_knowledge  # noqa: E402

HARD = ("do not recompute", "do not reach", "recomputed", "which it gives")
"""The teacher's findings that must never occur (as ``test_teacher_corpus`` asserts)."""
PARTS = ("dev", "held-out-1", "held-out-2", "held-out-3", "held-out-4", "held-out-5")
FUNCTIONS = {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos,
             "tan": sp.tan, "pi": sp.pi, "binomial": sp.binomial}  # fmt: skip


def part_of(key: dict[str, Any]) -> str:
    """The corpus part of a key: its ``set``, else held-out-1 or dev."""
    return key.get("set") or ("held-out-1" if key["held_out"] else "dev")


def _plain(name: str) -> sp.Symbol:
    """A symbol as the teacher compares them (``norm``).

    Key and reader spell subscripts differently (``DeltaT``, ``Delta_T``) and names of
    words in either case (``BloodFlow``, ``Blood_flow``): compared bare.
    """
    return sp.Symbol(norm(name))


def key_equation(formula: dict[str, Any], symbols: list[str]) -> sp.Expr:
    """A key formula as ``left - right`` over bare symbols."""
    names = {n: _plain(n) for n in symbols} | FUNCTIONS
    left, right = formula["sympy"].split("=", 1)
    return parse_expr(left, local_dict=names) - parse_expr(right, local_dict=names)


def matches(key: sp.Expr, output: str, expr: sp.Expr, seed: int = 0) -> bool:
    """Whether ``output = expr`` is the key's equation: same symbols, zero on 3 of 4 points."""
    renamed = expr.xreplace({s: _plain(str(s)) for s in expr.free_symbols})
    out = _plain(output)
    if renamed.free_symbols | {out} != key.free_symbols:
        return False
    rng = random.Random(seed)
    agree = 0
    for _ in range(4):
        point = {s: rng.uniform(0.2, 2.0) for s in key.free_symbols}
        try:
            value = complex(renamed.subs(point))
            point[out] = value.real
            residual = complex(key.subs(point))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        agree += abs(residual) <= 1e-5 * max(1.0, abs(value))
    return agree >= 3


def measure(key: dict[str, Any], items: int, model: Any) -> dict[str, Any]:
    """One section's figures, with the seconds it took to read and build."""
    started = time.monotonic()
    row = _measure(key, items, model)
    row["seconds"] = round(time.monotonic() - started, 2)
    return row


def _measure(key: dict[str, Any], items: int, model: Any) -> dict[str, Any]:
    path = CORPUS / key["file"]
    try:
        knowledge = build_knowledge([path], reader=model)
    except SolutionError as exc:
        return {"id": key["id"], "error": str(exc)}
    admitted = [(f.output, f.expr) for f in knowledge.graph.formulas]
    missing = []
    for formula in key["formulas"]:
        equation = key_equation(formula, list(key["symbols"]))
        if not any(matches(equation, out, expr) for out, expr in admitted):
            missing.append(formula["text"])
    row = {
        "id": key["id"],
        "key_formulas": len(key["formulas"]),
        "matched": len(key["formulas"]) - len(missing),
        "missing": missing,
        "admitted": len(admitted),
        "asked": items,
        "built": 0,
        "accepted": 0,
        "recompute_or_given": 0,
        "first_problem": "",
        "reading": {k: v for k, v in knowledge.reading.items() if k != "pairs"},
        "pairs_apart": len(knowledge.graph.apart),
        "notes": knowledge.notes,
    }
    if not admitted:
        row["first_problem"] = "no formula admitted"
        return row
    # the model reads; the items are worded by the template, as the teacher reads them
    result = generate_items([path], items, seed=1, knowledge=knowledge)
    row["built"] = len(result.items)
    for item in result.items:
        problems = review(as_read(item), key)
        row["accepted"] += not problems
        row["recompute_or_given"] += any(h in p for p in problems for h in HARD)
        row["first_problem"] = row["first_problem"] or (problems[0] if problems else "")
        row.setdefault("problems", {})
        for problem in problems:
            kind = problem_kind(problem)
            row["problems"][kind] = row["problems"].get(kind, 0) + 1
    return row


def problem_kind(problem: str) -> str:
    """A teacher's finding without its particulars (symbols, values, quotes)."""
    kind = re.sub(r"\([^)]*\)|'[^']*'|\"[^\"]*\"", "", problem)
    kind = re.sub(r"\b(given|symbol|step|for)\s+\S+", r"\1 X", kind)
    kind = re.sub(r"^\S+ (is in|is in no)", r"X \1", kind)
    kind = re.sub(r"[-+]?\d[\d.,e+-]*", "N", kind)
    return " ".join(kind.split())[:70]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set",
        dest="parts",
        action="append",
        choices=PARTS,
        help="a corpus part (repeat for several; default: the held-out ones)",
    )
    parser.add_argument("--items", type=int, default=30, help="items asked per section")
    parser.add_argument("--model", default=None, help="the reader model's spec (default: none)")
    parser.add_argument("--json", type=Path, default=None, help="write the rows as JSON here")
    args = parser.parse_args()  # fmt: skip
    parts = args.parts or list(PARTS[1:])
    model = None
    if args.model:
        from benchsmith.config import RunConfig
        from benchsmith.llm.client import LLMRuntime

        model = LLMRuntime.from_config(RunConfig(model=args.model)).for_role("reader")
    keys = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.key.json"))]
    report: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        rows = []
        for key in (k for k in keys if part_of(k) == part):
            rows.append(measure(key, args.items, model))
            done = rows[-1]
            print(f"{part} {key['id']}: {done.get('matched', '-')}/{done.get('key_formulas', '-')} "
                  f"key formulas, teacher {done.get('accepted', '-')}/{done.get('asked', '-')}, "
                  f"{done['seconds']:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
        report[part] = rows
        print(f"\n## {part}\n")
        print(
            "| section | key formulas matched | admitted | built | teacher accepts | questions "
            "| s | first problem |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            if "error" in r:
                print(f"| {r['id']} | error: {r['error'][:80]} | | | | | {r['seconds']:.0f} | |")
                continue
            asked_of = r["reading"].get("asked", 0), r["reading"].get("from_cache", 0)
            print(f"| {r['id']} | {r['matched']}/{r['key_formulas']} | {r['admitted']} | "
                  f"{r['built']} | {r['accepted']}/{r['asked']} | {asked_of[0]} (+{asked_of[1]} "
                  f"cached) | {r['seconds']:.0f} | {r['first_problem'][:90]} |")  # fmt: skip
        good = [r for r in rows if "error" not in r]
        matched = sum(r["matched"] for r in good)
        total = sum(r["key_formulas"] for r in good)
        accepted = sum(r["accepted"] for r in good)
        asked = sum(r["asked"] for r in good)
        bad = sum(r["recompute_or_given"] for r in good)
        built = sum(r["built"] for r in good)
        seconds = sum(r["seconds"] for r in rows)
        share = 100 * accepted / max(asked, 1)
        of_built = 100 * accepted / max(built, 1)
        tally: dict[str, int] = {}
        for r in good:
            for kind, n in r.get("problems", {}).items():
                tally[kind] = tally.get(kind, 0) + n
        for kind, n in sorted(tally.items(), key=lambda kv: -kv[1])[:12]:
            print(f"- {n} x {kind}")
        print(f"\n{part}: key formulas {matched}/{total} = {100 * matched / max(total, 1):.1f} %; "
              f"built {built}; teacher {accepted}/{asked} = {share:.1f} % of asked, "
              f"{of_built:.1f} % of built; recompute failures or givens asked: {bad}; "
              f"{seconds:.0f} s")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

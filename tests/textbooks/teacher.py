"""A teacher's reading of computed problems against a key written by hand from the text.

Independent of benchsmith's reader: it reads the key (``corpus/<id>.key.json``: each
symbol's meaning, the text's words for it, its unit and stated range; the formulas as
sympy equations) and the item, and shares no code with the generator. A problem passes when

- every given and the asked quantity is described with the text's words for that symbol
  (one of the key's ``words``, in the sentence that states the value or asks for it);
- every given lies in the range the text states for it;
- every given and the answer are in the text's unit (dollars for money, the physical unit
  the key gives, no unit for a pure number; a fraction may be shown as a percentage);
- nothing asked is given;
- the answer recomputes from the givens by the recorded steps (Python's ``ast`` and
  ``math``, not sympy's lambdify), and each step holds as one of the key's formulas at the
  item's values (the formulas are the text's, not invented).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

import sympy as sp
from sympy.parsing.sympy_parser import parse_expr

BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
FUNCTIONS = {
    "exp": math.exp, "log": math.log, "sqrt": math.sqrt, "sin": math.sin, "cos": math.cos,
    "tan": math.tan,
}  # fmt: skip
NUMBER = re.compile(r"-?\$?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def norm(name: str) -> str:
    """A symbol compared across spellings: ``Par_Value``/``ParValue``, ``I_``/``I``."""
    plain = name.replace("_", "")
    # A name of words is the same in any case ("Average_speed" is AverageSpeed); a letter
    # keeps its case (C and c are two quantities).
    return plain.lower() if sum(c.isalpha() for c in plain) >= 4 else plain


def evaluate(expression: str, values: Mapping[str, float]) -> float:
    """A recorded step's expression on ``values``, by ``ast`` and ``math`` only."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id == "pi":
                return math.pi
            return float(values[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            return BINARY[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        raise ValueError(f"unexpected syntax {ast.dump(node)[:80]}")

    return walk(ast.parse(expression, mode="eval"))


@cache
def _key_formulas(formulas: tuple[str, ...], names: tuple[str, ...]) -> list[sp.Expr]:
    local: dict[str, Any] = {n: sp.Symbol(norm(n)) for n in names}
    local |= {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos,
              "tan": sp.tan, "pi": sp.pi}  # fmt: skip
    out = []
    for equation in formulas:
        left, right = equation.split("=", 1)
        out.append(parse_expr(left, local_dict=local) - parse_expr(right, local_dict=local))
    return out


def _holds(residual: sp.Expr, values: Mapping[str, float]) -> bool:
    try:
        value = complex(residual.subs({sp.Symbol(k): v for k, v in values.items()}))
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    scale = max(1.0, *(abs(v) for v in values.values()))
    return abs(value) <= 1e-6 * scale


def _words_in(sentence: str, words: list[str]) -> bool:
    low = sentence.lower()
    for phrase in words:
        stems = [w[: max(3, len(w) - 2)] for w in re.findall(r"[a-z0-9]+", phrase.lower())]
        if stems and all(re.search(rf"\b{re.escape(s)}", low) for s in stems):
            return True
    return False


def _numbers(sentence: str) -> list[float]:
    out = []
    for match in NUMBER.finditer(sentence):
        try:
            out.append(float(match.group(0).replace("$", "").replace(",", "")))
        except ValueError:
            continue
    return out


def _states(sentence: str, value: float) -> bool:
    """Whether the sentence gives ``value`` (as printed, or as a percentage of it)."""
    for shown in _numbers(sentence):
        for candidate in (value, value * 100):
            if math.isclose(shown, candidate, rel_tol=0.006, abs_tol=1e-9):
                return True
    return False


COUNT_UNITS = frozenset(
    "steps step individuals people persons years periods payments molecules cases days "
    "months trials items units shares".split()
)


def _unit_of_key(unit: str | None) -> str:
    """The key's unit as a teacher compares it: money, percent, none, count or a symbol."""
    unit = (unit or "").strip()
    if unit == "$":
        return "money"
    if unit == "%":
        return "percent"
    if not unit:
        return "none"
    if unit.lower() in COUNT_UNITS or unit.lower().rstrip("s") + "s" in COUNT_UNITS:
        return "count"
    return _symbol(unit)


def _symbol(unit: str) -> str:
    unit = unit.replace("²", "^2").replace("³", "^3").replace("·", "*").replace("⋅", "*")
    unit = re.sub(r"\s+|[()]", "", unit).replace("degrees", "°").replace("degree", "°")
    unit = re.sub(r"^ohms?$", "Ω", unit)
    return unit.replace("^1", "")


def _shown_unit(sentence: str, value: float) -> str:
    """The unit the item prints with ``value`` in ``sentence``."""
    for match in re.finditer(
        r"(\$)?(-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?)\s*(%|[^\s.,;?]+)?", sentence
    ):
        try:
            shown = float(match.group(2).replace(",", ""))
        except ValueError:
            continue
        if not any(math.isclose(shown, c, rel_tol=0.006) for c in (value, value * 100)):
            continue
        if match.group(1):
            return "money"
        after = match.group(3) or ""
        if after == "%":
            return "percent"
        if after == "in" and re.fullmatch(r"\.?\s*", sentence[match.end() :]):
            return "in"  # "The length is 22 in." ends the sentence: inches
        if not after or after.lower() in ("and", "or", "per", "of", "for", "in"):
            return "none"
        return _symbol(after)
    return "none"


def _asked_unit(question: str, choices: list[str] | None = None) -> str:
    """The unit an item asks its answer in: the question's, else its choices' (all one)."""
    if choices and not re.search(r"\bGive the answer\b", question):
        shown = {_choice_unit(c) for c in choices}
        return shown.pop() if len(shown) == 1 else "none"
    if re.search(r"\bin dollars\b", question):
        return "money"
    if re.search(r"\bas a percent(?:age)?\b", question):
        return "percent"
    unit = re.search(r"\bGive the answer in (.+?),", question)
    return _symbol(unit.group(1)) if unit else "none"


def _choice_unit(choice: str) -> str:
    """The unit a choice writes its value in ("75.11 mmHg", "$1,200.00", "12%")."""
    choice = choice.strip()
    if choice.startswith("$"):
        return "money"
    if choice.endswith("%"):
        return "percent"
    unit = re.fullmatch(r"[-−]?[\d,]*\.?\d+(?:e[-+]?\d+)?\s*(.*)", choice)
    return _symbol(unit.group(1)) if unit and unit.group(1) else "none"


def _unit_problem(name: str, key_unit: str, shown: str) -> str | None:
    """Why a teacher rejects the unit an item uses for a quantity of the text (None: fine)."""
    want = _unit_of_key(key_unit)
    if want == "count" or shown == want:
        return None
    if (want == "none" or want.startswith("1/")) and shown == "percent":
        return None  # a rate the text gives as a fraction (or per year), shown as a percentage
    if want == "none" and shown.lower() in COUNT_UNITS:
        return None  # "33 periods": a count named by its noun
    if want == "percent" and shown == "none":
        return None
    said = {"money": "dollars", "percent": "a percentage", "none": "no unit"}.get(shown, shown)
    return f"{name} is in {key_unit or 'no unit'} in the text; the item uses {said}"


def _named_by_words(
    sentences: list[str], symbols: Mapping[str, Any], taken: set[str]
) -> tuple[str, Any] | None:
    """The one key symbol whose words the sentences use (the longest phrase wins)."""
    best: list[tuple[int, str]] = []
    for name, symbol in symbols.items():
        if name in taken:
            continue
        for phrase in symbol.get("words") or []:
            if any(_words_in(s, [phrase]) for s in sentences):
                best.append((len(phrase), name))
    if not best:
        return None
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1] != best[1][1]:
        return None  # two quantities fit equally: the item does not say which
    return best[0][1], symbols[best[0][1]]


def as_read(item: Any) -> dict[str, Any]:
    """What a teacher reads of a built item: its text, its choices (if any), its metadata."""
    return {"input": item.input_text(), "choices": item.choices, "metadata": item.metadata}


def review(item: Mapping[str, Any], key: Mapping[str, Any]) -> list[str]:
    """Why a teacher rejects the item (empty: accepted)."""
    meta = item["metadata"]
    graph = meta["solution_graph"]
    symbols = {norm(n): (n, s) for n, s in key["symbols"].items()}
    problems: list[str] = []
    text = item["input"]
    sentences = [s.strip() for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]
    question = [s for s in sentences if s.endswith("?")]
    statements = [s for s in sentences if not s.endswith("?")]
    named = {}
    for name in [*graph["givens"], graph["target"]]:
        found = symbols.get(norm(name))
        if found is None:  # a teacher reads words, not symbols: the key's quantity so named
            if name == graph["target"]:
                said = question
            else:
                said = [s for s in statements if _states(s, graph["givens"][name])]
            found = _named_by_words(said, key["symbols"], {n for n, _ in named.values()})
        if found is None:
            problems.append(
                f"symbol {name!r} is not one of the text's ({', '.join(key['symbols'])})"
            )
        else:
            named[name] = found
    if graph["target"] in graph["givens"]:
        problems.append(f"asks for {graph['target']!r}, which it gives")
    for name, value in graph["givens"].items():
        if name not in named:
            continue
        key_name, symbol = named[name]
        words = symbol.get("words") or [symbol.get("meaning", "")]
        where = [s for s in statements if _states(s, value)]
        if not any(_words_in(s, words) for s in where):
            problems.append(f"given {key_name} = {value:g} is not described as the text does "
                            f"({' / '.join(words)})")  # fmt: skip
        unit = "unit" in symbol and _unit_problem(
            key_name, symbol["unit"], _shown_unit(" ".join(where), value)
        )
        if where and unit:
            problems.append(unit)
        low_high = symbol.get("range")
        if low_high and not (low_high[0] - 1e-9 <= value <= low_high[1] + 1e-9):
            problems.append(f"given {key_name} = {value:g} is outside the stated range {low_high}")
    target = named.get(graph["target"])
    if target is not None:
        words = target[1].get("words") or [target[1].get("meaning", "")]
        if not any(_words_in(s, words) for s in question):
            problems.append(f"the question does not ask for {target[0]} in the text's words "
                            f"({' / '.join(words)})")  # fmt: skip
        unit = "unit" in target[1] and _unit_problem(
            target[0], target[1]["unit"], _asked_unit(text, item.get("choices"))
        )
        if unit:
            problems.append(unit)
    values = dict(graph["givens"])
    try:
        for step in graph["steps"]:
            values[step["output"]] = evaluate(step["expression"], values)
    except (KeyError, ValueError, ZeroDivisionError, OverflowError) as exc:
        return [*problems, f"the steps do not recompute ({exc})"]
    if graph["target"] not in values:
        return [*problems, f"the steps do not reach {graph['target']!r}"]
    answer = values[graph["target"]]
    if not math.isclose(answer, float(meta["answer_value"]), rel_tol=1e-6, abs_tol=1e-12):
        problems.append(f"recomputed {answer!r}, the item says {meta['answer_value']!r}")
    residuals = _key_formulas(tuple(f["sympy"] for f in key["formulas"]), tuple(key["symbols"]))
    renamed = {norm(item_name): norm(key_name) for item_name, (key_name, _) in named.items()}
    normed = {renamed.get(norm(k), norm(k)): v for k, v in values.items()}
    for step in graph["steps"]:
        used = {norm(n) for n in re.findall(r"[A-Za-z_]\w*", step["expression"])} - set(FUNCTIONS)
        used |= {norm(step["output"])}
        used = {renamed.get(n, n) for n in used}
        used.discard("pi")
        point = {n: normed[n] for n in used if n in normed}
        matching = [r for r in residuals if {str(s) for s in r.free_symbols} == set(point)]
        if not any(_holds(r, point) for r in matching):
            problems.append(f"step {step['output']} = {step['expression']} is none of the text's "
                            "formulas")  # fmt: skip
    return problems

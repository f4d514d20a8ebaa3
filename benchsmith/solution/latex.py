r"""A LaTeX math subset rewritten to the plain syntax :mod:`expressions` parses.

Covers what formula sheets use: ``\frac``, ``\sqrt`` (with an optional index), ``^`` and
``_`` groups, ``\left``/``\right``, ``\cdot``/``\times``/``\div``, ``\ln``/``\log``/
``\exp``, ``e^{...}``, ``\text{...}``/``\mathrm{...}`` names and Greek letters as names.
Written by hand rather than with ``sympy.parsing.latex`` (which needs an ANTLR runtime of a
pinned version or lark) because multi-letter names such as ``PV`` must stay one quantity.
"""

from __future__ import annotations

import re

from benchsmith.markup import GREEK
from benchsmith.solution.errors import FormulaSyntaxError

_DROP = re.compile(r"\\(left|right|displaystyle|quad|qquad|,|;|!|:|big|Big|bigg|Bigg)(?![A-Za-z])")
_NAME_CMDS = ("text", "mathrm", "mathit", "operatorname", "textrm", "mathbf", "boldsymbol")
_KEYWORDS = {"lambda": "lamda", "Lambda": "Lamda"}
_TRIG = ("sin", "cos", "tan", "ln", "log", "exp")
"""Functions whose argument may follow without brackets ("\\sin\\theta", "\\ln 2")."""
_SIMPLE = {
    "cdot": "*",
    "times": "*",
    "div": "/",
    "ln": "log",
    "log": "log10",  # "\log" is the common logarithm where "\ln" is the natural one
    "exp": "exp",
    "pi": "pi",
    "%": "",
}


def _group(src: str, i: int) -> tuple[str, int]:
    """The argument at ``src[i]``: a ``{...}`` group or one character/command; and its end."""
    while i < len(src) and src[i] == " ":
        i += 1
    if i >= len(src):
        raise FormulaSyntaxError("a command is missing its argument")
    if src[i] == "{":
        depth = 0
        for j in range(i, len(src)):
            if src[j] == "{":
                depth += 1
            elif src[j] == "}":
                depth -= 1
                if depth == 0:
                    return src[i + 1 : j], j + 1
        raise FormulaSyntaxError("unbalanced braces")
    if src[i] == "\\":
        match = re.match(r"\\[A-Za-z]+", src[i:])
        if match:
            return match.group(0), i + len(match.group(0))
    return src[i], i + 1


def _convert(src: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            match = re.match(r"\\([A-Za-z]+|.)", src[i:])
            assert match is not None
            cmd = match.group(1)
            i += len(match.group(0))
            base = re.match(r"_(\{[^{}]*\}|[A-Za-z0-9])", src[i:]) if cmd == "log" else None
            if base is not None:  # "\log_{2} x" is ln x / ln 2
                i += len(base.group(0))
                out.append(f" (1/log({_convert(base.group(1).strip('{}'))}))*")
                cmd = "ln"
            if cmd == "frac" or cmd == "dfrac" or cmd == "tfrac":
                num, i = _group(src, i)
                den, i = _group(src, i)
                out.append(f"(({_convert(num)})/({_convert(den)}))")
            elif cmd == "sqrt":
                index = None
                if i < len(src) and src[i] == "[":
                    close = src.find("]", i)
                    if close < 0:
                        raise FormulaSyntaxError("unbalanced [ in \\sqrt")
                    index, i = src[i + 1 : close], close + 1
                body, i = _group(src, i)
                if index is None:
                    out.append(f"sqrt({_convert(body)})")
                else:
                    out.append(f"(({_convert(body)})**(1/({_convert(index)})))")
            elif cmd in _NAME_CMDS:
                body, i = _group(src, i)
                out.append(re.sub(r"[^A-Za-z0-9_]", "", body))
            elif cmd in _SIMPLE and (cmd not in _TRIG or re.match(r"\s*[({]", src[i:])):
                out.append(f" {_SIMPLE[cmd]} " if _SIMPLE[cmd] else "")
            elif cmd in _TRIG and not re.match(r"\s*[({]", src[i:]):
                # "\sin\theta_0", "\cos{2x}": the argument is the next name or group.
                rest = src[i:].lstrip()
                if rest.startswith("("):
                    out.append(f" {cmd}")
                else:
                    i = len(src) - len(rest)
                    number = re.match(r"\d+(?:\.\d+)?\s*", rest)
                    if number:  # "\sin 2\theta" is sin(2 theta); "\cos 30" is cos(30)
                        i += len(number.group(0))
                    if number and not re.match(r"\\?[A-Za-z]", src[i:]):
                        arg = number.group(0)
                    else:
                        arg, i = _group(src, i)
                        arg = (number.group(0) if number else "") + arg
                    sub = re.match(r"_(\{[^{}]*\}|[A-Za-z0-9])|'+", src[i:])
                    if sub:
                        arg, i = arg + sub.group(0), i + len(sub.group(0))
                    out.append(f" {_SIMPLE.get(cmd, cmd).strip()}({_convert(arg)})")
            elif cmd in ("Delta", "delta") and re.match(
                r"\s*(?:[A-Za-z]|\\math(?:rm|it)\{\s*[A-Za-z])", src[i:]
            ):
                # "\Delta x" is one quantity, the change in x.
                out.append(f" {cmd}_")
                i = len(src) - len(src[i:].lstrip())
            elif cmd.isalpha():
                # Greek letters are names; "lambda" is a Python keyword (sympy spells it lamda).
                out.append(f" {_KEYWORDS.get(cmd, cmd)} ")
            else:
                raise FormulaSyntaxError(f"unsupported LaTeX command \\{cmd}")
        elif ch == "^":
            body, i = _group(src, i + 1)
            out.append(f"**({_convert(body)})")
        elif ch == "_":
            body, i = _group(src, i + 1)
            # the subscript ends the name: "N_{A}k_{B}" is N_A times k_B
            out.append("_" + re.sub(r"[^A-Za-z0-9_]", "", _convert(body)) + " ")
        elif ch == "'":
            # Primes name another quantity: w' -> w_prime, w'' -> w_pprime.
            primes = len(src[i:]) - len(src[i:].lstrip("'"))
            out.append("_" + "p" * (primes - 1) + "prime")
            i += primes
        elif ch == "{":
            body, i = _group(src, i)
            out.append(f"({_convert(body)})")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def latex_to_plain(src: str) -> str:
    r"""Rewrite a LaTeX math expression to plain syntax (``\frac{a}{b}`` -> ``((a)/(b))``).

    Raises:
        FormulaSyntaxError: An unsupported command or unbalanced braces.
    """
    # A display ends its sentence: "r = b - d ." (the period is not math).
    src = re.sub(r"(?:\s|\\[,;!: ]|\\text\{[.,;]\})*[.,;]?\s*$", "", src)
    # Greek letters typed as characters ("αL") are the commands' names
    src = re.sub("[" + "".join(GREEK) + "]", lambda m: f"\\{GREEK[m.group(0)]} ", src)
    # "P_A^*" (the pure solvent's vapour pressure) is another quantity, P_A_star
    src = re.sub(r"\^\s*(?:\{\s*(?:\*|\\ast|\\star)\s*\}|\*)", "_{star}", src)
    src = re.sub(r"\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}(?=_\{star\})", r"\1", src)
    text = _DROP.sub(" ", src.replace("\\%", "%"))
    # "f_{s}(\max)": the maximum of f_s is one quantity, f_s_max (not f_s times max).
    text = re.sub(r"(?<=[}\w])\s*\(\s*\\?(max|min)\s*\)", r"_{\1}", text)
    text = _convert(text).replace("%", "")
    text = text.replace("[", "(").replace("]", ")")  # brackets group as parentheses do
    # e^{x} means exp(x) unless e is a quantity name (then it is part of a longer name).
    # "{ e }^{ r t }" (MathML's base set in a group) is the same.
    text = re.sub(r"(?<![A-Za-z0-9_])(?:e|\(\s*e\s*\))\s*\*\*\(", "exp(", text)
    # "p / k_B T" is p over the product k_B T, as physics texts write it inline
    text = re.sub(r"/\s*([A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)+)(?=\s*(?:[-+=)]|$))", r"/(\1)", text)
    text = re.sub(r"_\s+", "_", text)
    text = re.sub(r"(?<=[A-Za-z0-9])\s+_", "_", text)  # "\eta_t", "\mu_k": one name
    text = re.sub(r"\*\*\(\s*prime\s*\)", "_prime", text)  # w^{\prime}
    return re.sub(r"\s+", " ", text).strip()

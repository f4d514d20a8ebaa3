r"""Textbook markup read as Markdown with TeX math: OpenStax CNXML, HTML and LaTeX files.

The reference reader (:mod:`benchsmith.references`) takes Markdown, so a chapter in another
format is first rewritten to it: headings become ``#`` lines, paragraphs and list
items stay text, and math becomes TeX between ``$`` (inline) or ``$$`` (displayed). Spans of
facts read later index this Markdown, as a PDF's index its extracted text.

- **CNXML** (OpenStax's XML) and **HTML**: presentation MathML is rewritten to TeX
  (:func:`mathml_to_tex`), in the same form as a formula typed in TeX. A name set in words,
  one ``<mi>`` per word ("Par Value x Annual Coupon Rate = Annual Coupon Payment", as
  *Principles of Finance* writes its formulas) is one quantity, ``\mathrm{Par_Value}``, as
  are upright letters side by side (``PV``); italic letters side by side are a product
  (``g t``). TeX delimiters in HTML (``\( \)``, ``\[ \]``) are kept.
- **LaTeX**: sectioning commands become headings, ``equation``/``align``/``\[ \]`` display
  math, ``\( \)`` inline math; the preamble, labels, references and comments are dropped.

Only the standard library's XML parser reads CNXML and MathML (no network, no entities
beyond XML's own); HTML goes through Beautiful Soup's built-in parser.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from contextvars import ContextVar
from pathlib import Path

MARKUP_SUFFIXES = (".cnxml", ".xml", ".html", ".htm", ".xhtml", ".tex")
MAX_MARKUP_BYTES = 20_000_000

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi",
    "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}  # fmt: skip
OPERATORS = {
    "×": r" \times ", "⋅": r" \cdot ", "·": r" \cdot ", "∙": r" \cdot ", "*": r" \cdot ",
    "−": "-", "–": "-", "⁡": "", "⁢": " ", "\u2009": " ", "\u00a0": " ", "$": "",
    "′": "'", "″": "''", "≈": r" \approx ", "≤": r" \le ", "≥": r" \ge ", "÷": " / ",
}  # fmt: skip
FUNCTION_NAMES = frozenset("sin cos tan log ln exp sqrt max min".split())


class MarkupError(ValueError):
    """A markup file that cannot be read (the message names the file and the problem)."""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text(node: ET.Element) -> str:
    return "".join(node.itertext()).strip()


def _is_word(node: ET.Element) -> bool:
    text = _text(node)
    return (
        _local(node.tag) == "mi"
        and len(text) > 1
        and text.replace("-", "").isalpha()
        and not any(letter in GREEK for letter in text)
        and text.lower() not in FUNCTION_NAMES
    )


def _is_upright_letter(node: ET.Element) -> bool:
    text = _text(node)
    return _local(node.tag) == "mi" and len(text) == 1 and node.get("mathvariant") == "normal"


def _token(node: ET.Element) -> str:
    tag = _local(node.tag)
    text = _text(node)
    if tag == "mi":
        if text in GREEK:
            return f"\\{GREEK[text]} "
        if text.lower() in FUNCTION_NAMES and len(text) > 1:
            return f"\\{text.lower()} "
        if len(text) > 1 and any(letter in GREEK for letter in text):
            # "αL" set as one <mi> is alpha times L (the Greek letter is never a word)
            return " ".join(f"\\{GREEK[c]}" if c in GREEK else c for c in text) + " "
        return f" {text} " if len(text) == 1 else f"\\mathrm{{{text}}}"
    if tag == "mn":
        number = text.replace(",", "").replace("−", "-").replace("%", r"\%")
        return f" {number} "
    if tag == "mo":
        if text in OPERATORS:
            return OPERATORS[text]
        if text in GREEK:
            return f"\\{GREEK[text]} "
        return f" {text} " if text not in "()[]" else text
    if tag == "mtext":
        clean = text.replace("−", "-").strip("\u200b ")
        if clean in ("-", "+", "=", "(", ")", "/"):
            return f" {clean} "
        if clean in ("×", "·", "⋅", "*"):
            return r" \times "
        if clean in GREEK:  # "Δ" set as text: the Greek letter
            return f"\\{GREEK[clean]} "
        if clean.lower() in FUNCTION_NAMES:
            return f"\\{clean.lower()} "
        # Units ("m/s", "N") and words ("or") in a formula are not quantities.
        return " "
    return ""


def _is_name_part(node: ET.Element) -> bool:
    return _is_word(node) or _is_upright_letter(node)


def _name_run(kids: list[ET.Element], i: int) -> tuple[list[tuple[str, str]], int]:
    """The parts of a name set in words from ``kids[i]`` and the index after it.

    "S & P 500 Avg Return" is one name. Each part is (separator before it, text): "" joins
    upright letters written side by side (P V is PV), "_" joins words.
    """
    parts = [("", _text(kids[i]))]
    j = i + 1
    separator = ""
    while j < len(kids):
        kid = kids[j]
        text = _text(kid)
        following = kids[j + 1] if j + 1 < len(kids) else None
        if _is_name_part(kid):
            upright_pair = _is_upright_letter(kid) and _is_upright_letter(kids[j - 1])
            word_pair = _is_word(kid) and _is_word(kids[j - 1])
            glue = separator or ("" if upright_pair else "_" if word_pair else None)
            if glue is None:  # an italic letter after a word: a product, not the name
                break
            parts.append((glue, text))
            separator = ""
        elif (
            _local(kid.tag) == "mo"
            and text in ("&", "", "\u2009")
            and following is not None
            and (_is_name_part(following) or _local(following.tag) == "mn")
        ) or (
            _local(kid.tag) == "mo"
            and not text.strip()
            and following is not None
            and _is_word(following)
            and len(parts) > 1
        ):
            separator = "_"
        elif (
            _local(kid.tag) == "mn"
            and text.isdigit()
            and following is not None
            and _is_word(following)
            and separator
        ):
            parts.append(("_", text))
            separator = "_"
        else:
            break
        j += 1
    return parts, i + len(parts) if j == i + 1 else j


_ACRONYMS: ContextVar[frozenset[str]] = ContextVar("acronyms", default=frozenset())
"""Names the document's prose writes in capitals ("IMA", "FV"): letters set side by side in
its formulas that spell one of them are that name, not a product."""


def prose_acronyms(text: str) -> frozenset[str]:
    """Words of 2-4 capitals a document writes as names, and symbols it sets in italics.

    Outside its math (``<math>`` elements), or as one name inside it (``<mi>FV</mi>``); a
    capital and two or three small letters in italics in the prose ("Eff", not "Ad", which
    is A times d) is a name too.
    """
    named = re.findall(r"<(?:m:)?mi\b[^>]*>\s*([A-Z]{2,4})\s*</(?:m:)?mi>", text)
    # a symbol the prose sets in italics: "thermal efficiency, <emphasis>Eff</emphasis>,"
    italic = re.findall(
        r"<(?:emphasis\b[^>]*\bitalics\b[^>]*|i|em)>\s*([A-Z][a-z]{2,3})\s*</(?:emphasis|i|em)>",
        text,
    )
    prose = re.sub(r"<(?:m:)?math\b.*?</(?:m:)?math>", " ", text, flags=re.S)
    prose = re.sub(r"<[^>]+>", " ", prose)
    capitals = re.findall(r"(?<![\w-])[A-Z]{2,4}(?![\w-])", prose)
    return frozenset(capitals) | frozenset(named) | frozenset(italic)


def _acronym_run(kids: list[ET.Element], i: int) -> str:
    """The acronym that single letters ``kids[i:]`` spell side by side ('' if none)."""
    acronyms = _ACRONYMS.get()
    if not acronyms:
        return ""
    letters = ""
    best = ""
    for kid in kids[i : i + 4]:
        text = _text(kid)
        if _local(kid.tag) != "mi" or len(text) != 1 or not text.isalpha():
            break
        if not letters and not text.isupper():
            break  # a name starts with a capital ("IMA", "Eff")
        letters += text
        if len(letters) > 1 and letters in acronyms:
            best = letters
    return best


def _children(node: ET.Element) -> str:
    """The TeX of a row of MathML children, with names set in words joined."""
    parts: list[str] = []
    kids = list(node)
    i = 0
    while i < len(kids):
        kid = kids[i]
        acronym = _acronym_run(kids, i)
        if acronym:  # "I M A" where the text says "IMA": the ideal mechanical advantage
            parts.append(f" \\mathrm{{{acronym}}} ")
            i += len(acronym)
            continue
        if _is_name_part(kid):
            run, after = _name_run(kids, i)
            if len(run) > 1 or not _is_upright_letter(kid):
                name = "".join(glue + text for glue, text in run).strip("_")
                parts.append(f" \\mathrm{{{name}}} ")
            else:
                parts.append(f" {_text(kid)} ")
            i = after
            continue
        if _local(kid.tag) == "mtext" and _text(kid).strip(" ,;.").lower() in JOINS:
            parts.append(_JOIN)  # "W_i = F_i d_i and W_o = F_o d_o": two formulas, if both are
        elif _local(kid.tag) == "mtext":
            parts.append(_mtext(kid, kids[:i]))
        elif _unit_power(kid, kids[:i]):
            parts.append(" ")
        elif (
            _local(kid.tag) == "mo"
            and _text(kid) == "%"
            and i
            and _local(kids[i - 1].tag) in ("mi", "msub")
            and parts
        ):
            # "D%" in a formula is the share D, named D_pct (a weight, not D/100).
            parts[-1] = re.sub(r"\s*$", "", parts[-1]) + "_{pct} "
        else:
            parts.append(_tex(kid))
        i += 1
    pieces = "".join(parts).split(_JOIN)
    if len(pieces) > 1 and all("=" in piece for piece in pieces):
        return "\n".join(piece.strip() for piece in pieces)  # each its own display
    return " ".join(pieces)


JOINS = frozenset({"and", "or", "", "and then", "then", "so", "thus"})
"""Words set as text between two formulas of one line ("W_i = F_i d_i and W_o = F_o d_o")."""
_JOIN = "\x00"

NUMBER = r"[-−]?\d[\d,]*(?:\.\d+)?"
"""A number as texts write it: a sign, thousands commas, a decimal part ("−18,140.5")."""
UNIT_TEXT = re.compile(r"(?:[a-zA-Zμ°ΩÅ]{1,3}(?:[/·⋅][a-zA-Z]{1,3})?\d?|°[CF]?|%)")
PROSE_WORDS = frozenset("or and where with for if when then is are of in at to so".split())


def _mtext(node: ET.Element, before: list[ET.Element]) -> str:
    """Text in a formula: a unit or a word of prose is dropped, a name kept.

    A unit follows a number ("9.8 m/s"); a name set in text ("PV", "Annual Distribution")
    is one quantity.
    """
    token = _token(node)
    if token.strip():
        return token  # an operator, a Greek letter or a function
    text = " ".join(_text(node).replace("\u200b", " ").split())  # no-break spaces too
    # "18,140 J" is a value and its unit; "8ηλ" is 8 times η times λ (μ and Ω are units)
    number = re.fullmatch(rf"({NUMBER})(?:\s*[^\d\s{_NOT_UNITS}][^{_NOT_UNITS}]{{0,12}})?", text)
    if number:  # "55", "18,140 J": the value (its unit, as after any number, dropped)
        return f" {number.group(1).replace(',', '').replace('−', '-')} "
    after_number = _after_number(before)
    if re.fullmatch(r"[A-Za-z]", text) and not after_number:
        return f" {text} "  # an italic letter set as text ("<mtext>T</mtext>") is a symbol
    if not text or text.lower() in PROSE_WORDS or (after_number and UNIT_TEXT.fullmatch(text)):
        return " "
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9 &'-]*", text):  # "S&P 500 Avg Return", "T-Bill"
        if _step_words(text):
            return " "  # "Take the natural logarithm", "Divide by 10": a worked step's note
        return _text_name(text)
    if _FORMULA_TEXT.search(text):  # "MAP = diastolic BP + ", "π ΔP r", "8ηλ"
        return _formula_text(text)
    return " "


_NOT_UNITS = "".join(g for g in GREEK if g not in "μΩ")
_PROSE = PROSE_WORDS | {"the", "a", "an", "into", "from", "by", "on", "this", "that", "we"}
# a minus or an en dash is an operator ("Total current assets–inventory"); a hyphen joins
_FORMULA_TEXT = re.compile(rf"[=+()/×·⋅−–]|[{''.join(GREEK)}]")
_TEXT_OPERATORS = re.compile(r"\s*([=+()/×·⋅*]|(?<=\S)\s*[-−–]\s*(?=\S)|^[-−–])\s*")


_STEP_VERBS = frozenset(
    "take divide multiply subtract add substitute use solve simplify rewrite apply isolate "
    "evaluate round plug set write find calculate compute replace combine factor expand "
    "distribute cancel raise square".split()
)


def _step_words(text: str) -> bool:
    """Words set in a formula that note a step ("Take the natural log of both sides")."""
    words = text.split()
    lowered = {w.lower() for w in words}
    return (
        len(words) > 7  # "Number of shares of common stock outstanding" is a name
        or words[0].lower() in _STEP_VERBS | {"approx", "approximately"}
        or bool(lowered & {"the", "into", "by", "both", "when", "then", "from"})
    )


def _text_name(text: str) -> str:
    """A name set in words ("Blood flow", "diastolic BP"): one quantity."""
    words = [re.sub(r"[^A-Za-z0-9]", "", word) for word in text.split()]
    return f" \\mathrm{{{'_'.join(w for w in words if w)}}} "


def _formula_text(text: str) -> str:
    """A formula set as text ("MAP = diastolic BP + (systolic BP-diastolic BP)"), as TeX.

    Between its operators, a run of words with a word of two or more Latin letters is one
    name ("diastolic BP", "Blood flow"); otherwise each Greek letter, number and Latin
    letter is a symbol of its own ("π ΔP r" is π times ΔP times r, "8ηλ" 8 times η times λ),
    but Δ with the letter after it is one (the change in P).
    """
    pieces = _TEXT_OPERATORS.split(text)
    names = [p.split() for p in pieces[::2]]
    if any(len(w) > 3 or {x.lower() for x in w} & _PROSE for w in names):
        return " "  # "(Substitute into the continuous growth formula)": words, not a name
    out = []
    for i, chunk in enumerate(pieces):
        chunk = chunk.strip()
        if not chunk:
            continue
        if i % 2:  # an operator
            out.append(OPERATORS.get(chunk, f" {chunk} "))
        elif re.fullmatch(NUMBER, chunk):
            out.append(f" {chunk.replace(',', '').replace('−', '-')} ")
        elif any(re.fullmatch(r"[A-Za-z]{2,}", word) for word in chunk.split()):
            out.append(_text_name(chunk))
        else:
            for piece in re.findall(rf"{NUMBER}|[Δδ][A-Za-z]|[{''.join(GREEK)}]|[A-Za-z]", chunk):
                if piece[0] in GREEK:
                    out.append(f" \\{GREEK[piece[0]]} {piece[1:]} ")
                else:
                    out.append(f" {piece} ")
    return "".join(out)


def _after_number(before: list[ET.Element]) -> bool:
    previous = next((b for b in reversed(before) if _local(b.tag) != "mspace"), None)
    return previous is not None and (
        _local(previous.tag) == "mn"
        or (list(previous) and _local(previous[-1].tag) == "mn")
        or (
            _local(previous.tag) == "mtext" and bool(re.fullmatch(rf"{NUMBER}\.?", _text(previous)))
        )
    )


def _unit_power(node: ET.Element, before: list[ET.Element]) -> bool:
    """A unit raised to a power after a number ("9.81 m/s²"): not a quantity."""
    kids = list(node)
    return (
        _local(node.tag) in ("msup", "msub")
        and len(kids) == 2
        and _local(
            (kids[0][0] if _local(kids[0].tag) == "mrow" and len(kids[0]) == 1 else kids[0]).tag
        )
        == "mtext"
        and bool(UNIT_TEXT.fullmatch(_text(kids[0])))
        and _after_number(before)
    )


def _tex(node: ET.Element) -> str:
    tag = _local(node.tag)
    kids = list(node)
    if tag == "mtext":  # alone in a fraction or a script: a name, an operator or nothing
        return _mtext(node, [])
    if tag in ("mi", "mn", "mo"):
        return _token(node)
    if tag in ("annotation", "annotation-xml", "mphantom", "none", "mprescripts"):
        return ""
    if tag == "mspace":
        return "\n" if node.get("linebreak") == "newline" else " "
    if tag == "semantics":
        return _tex(kids[0]) if kids else ""
    if tag == "mfrac" and len(kids) == 2:
        return f"\\frac{{{_tex(kids[0])}}}{{{_tex(kids[1])}}}"
    if tag == "msup" and len(kids) == 2:
        if _text(kids[1]) in ("*", "∗", "⋆"):  # P_A^* (the pure solvent's pressure)
            return f"{{{_tex(kids[0])}}}^{{*}}"
        base = _tex(kids[0])
        last = _LAST_SYMBOL.search(base) if _text_formula_base(kids[0]) else None
        if last:  # "π ΔP r" set as one text with a superscript: the power is r's, as shown
            return f"{base[: last.start()]} {{{last.group(1)}}}^{{{_tex(kids[1])}}}"
        return f"{{{base}}}^{{{_tex(kids[1])}}}"
    if tag == "msub" and len(kids) == 2:
        return f"{_tex(kids[0]).strip()}_{{{_subscript(kids[1])}}}"
    if tag == "msubsup" and len(kids) == 3:
        return f"{{{_tex(kids[0]).strip()}_{{{_subscript(kids[1])}}}}}^{{{_tex(kids[2])}}}"
    if tag == "msqrt":
        return f"\\sqrt{{{_children(node)}}}"
    if tag == "mroot" and len(kids) == 2:
        return f"\\sqrt[{_tex(kids[1])}]{{{_tex(kids[0])}}}"
    if tag == "mfenced":
        opening, closing = node.get("open", "("), node.get("close", ")")
        separator = (node.get("separators") or ",")[:1]
        inner = f" {separator} ".join(_tex(k) for k in kids)
        return f"\\left{opening}{inner}\\right{closing}".replace("\\left{", "\\left\\{")
    if tag in ("munder", "mover", "munderover") and kids:
        return _tex(kids[0])
    if tag == "mtable":
        rows = [_row(row) for row in node if _local(row.tag) == "mtr"]
        return "\n".join(row for row in rows if row.strip())
    return _children(node)


_LAST_SYMBOL = re.compile(r"((?:\\[Dd]elta )?[A-Za-z])\s*$")


def _text_formula_base(node: ET.Element) -> bool:
    """Whether a script's base is one text holding several symbols ("π ΔP r", "πr")."""
    while _local(node.tag) == "mrow" and len(node) == 1:
        node = node[0]
    text = _text(node)
    return (
        _local(node.tag) == "mtext"
        and len(re.findall(r"\S", text)) > 1
        and not re.search(r"[A-Za-z]{2}", text)
    )


def _row(row: ET.Element) -> str:
    """A table row: its cells joined, or one line per cell holding a whole formula.

    An aligned row (``V`` | ``= L W H``) is one formula; a row whose cells each hold one
    (``V = L W H`` | ``S = 2 L H + ...``) is as many.
    """
    cells = [_tex(cell).strip() for cell in row]
    whole = [c for c in cells if re.search(r"\S\s*=\s*\S", c)]
    if len(whole) > 1 and len(whole) == len([c for c in cells if c]):
        return "\n".join(whole)
    return " ".join(cells)


def _subscript(node: ET.Element) -> str:
    """A subscript as name characters ("k" of mu_k, "max", "0"), text included."""
    text = _text(node)
    if re.fullmatch(r"[A-Za-z0-9]+", text):
        return text
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 &-]*", text) and re.search(r"[A-Za-z]{2}", text):
        return re.sub(r"[^A-Za-z0-9]", "", text)  # "US T-bill" is USTbill, "S&P" is SP
    return _tex(node).strip()


def mathml_to_tex(math: ET.Element) -> str:
    """A MathML ``<math>`` element as TeX (``<mfrac>`` -> a fraction, words as names)."""
    tex = _tex(math)
    tex = re.sub(r"[ \t]+", " ", tex)
    return "\n".join(line.strip() for line in tex.splitlines() if line.strip())


def _value_only(math: ET.Element) -> str | None:
    """The text of inline math that is only a value and its unit ("55 °C"), else None."""
    if any(_local(n.tag) in ("mi", "mfrac", "msqrt", "mroot") for n in math.iter()):
        return None
    text = "".join((n.text or "").strip() for n in math.iter()).replace("º", "°")
    if not re.fullmatch(rf"{NUMBER}\s*[^\d=<>]{{0,12}}", text):
        return None
    return re.sub(r"(?<=\d)(?=[^\d\s.,])", " ", text, count=1)


def _math_markdown(math: ET.Element, block: bool) -> str:
    if not block and math.get("display") != "block":
        value = _value_only(math)
        if value is not None:
            return value
    tex = mathml_to_tex(math)
    if not tex:
        return ""
    if block or math.get("display") == "block":
        # An aligned table of steps: each row on its own display.
        return "\n\n" + "\n\n".join(f"$${row}$$" for row in tex.splitlines()) + "\n\n"
    # a line break ends a formula; punctuation set inside the math ("height $H :$") is the
    # sentence's
    lines = [re.fullmatch(r"(.*?)\s*([,.:;]?)", line, flags=re.S) for line in tex.splitlines()]
    return " ".join(f"${m.group(1)}${m.group(2)}" for m in lines if m and m.group(1).strip())


# --------------------------------------------------------------------------- CNXML

_CNXML_SKIP = frozenset("metadata table figure media image mdml:metadata glossary".split())
_CNXML_BLOCKS = frozenset("para list item note example exercise problem solution".split())


def _symbol_in_prose(node: ET.Element) -> str | None:
    """An italic letter in prose as math ("mass <emphasis>m</emphasis>" is ``$m$``)."""
    text = _text(node)
    italic = _local(node.tag) == "emphasis" and node.get("effect") == "italics"
    if italic and re.fullmatch(r"[A-Za-z][A-Za-z0-9]?|[α-ωΑ-Ω]", text):
        return f"\\{GREEK[text]}" if text in GREEK else text
    return None


def _cnxml_inline(node: ET.Element) -> str:
    """A paragraph's text with its math as TeX; italic symbols in prose as math too."""
    parts = [node.text or ""]
    kids = list(node)
    for index, kid in enumerate(kids):
        tag = _local(kid.tag)
        symbol = _symbol_in_prose(kid)
        if symbol is not None:
            # "<emphasis>v</emphasis><sub>0</sub>" is v_0, with the subscript that follows.
            after = kids[index + 1] if index + 1 < len(kids) else None
            if after is not None and _local(after.tag) == "sub" and not (kid.tail or "").strip():
                symbol += f"_{{{_text(after)}}}"
                after.set("benchsmith-read", "1")
            change = re.search(r"([ΔδΣ])\s?$", parts[-1])
            if change:  # "Δ<emphasis>T</emphasis>": the change in T, one symbol
                parts[-1] = parts[-1][: change.start()]
                symbol = f"\\{GREEK[change.group(1)]} {symbol}"
            parts.append(f"${symbol}$")
        elif kid.get("benchsmith-read"):
            pass
        elif tag == "math":
            parts.append(_math_markdown(kid, block=False))
        elif tag in ("equation",):
            parts.append(_cnxml_equation(kid))
        elif tag in _CNXML_SKIP:
            pass
        elif tag == "newline":
            parts.append("\n")
        elif tag == "sup" and _text(kid):
            # "1.20×10<sup>12</sup> J", "m<sup>2</sup>": a power, never digits run together
            parts.append(f"^{_text(kid)}" if re.fullmatch(r"[-−]?\w{1,4}", _text(kid)) else "")
        else:
            parts.append(_cnxml_inline(kid))
        parts.append(kid.tail or "")
    return "".join(parts)


_PIECES = re.compile(
    r"\$([^$\n]+?)\$([ \t]*[()<>≤≥=–−+×/|][ \t()<>≤≥=–−+×/|]*)\$(?=[^\s$\d])([^$\n]+?)\$"
)
_SEPARATOR_TEX = str.maketrans({"≤": r" \le ", "≥": r" \ge ", "–": "-", "−": "-", "×": r" \times "})


def joined_math(text: str) -> str:
    r"""Pieces of one formula set as separate math with operators between them, as one.

    "$P$($X$ ≤ $x$) = $\frac{x - a}{b - a}$" (each symbol its own ``<math>``) is
    "$P ( X \le x ) = \frac{x - a}{b - a}$". Pieces with only spaces or words between them
    stay apart.
    """
    while True:
        joined = _PIECES.sub(
            lambda m: f"${m.group(1)} {m.group(2).translate(_SEPARATOR_TEX).strip()} {m.group(3)}$",
            text,
        )
        if joined == text:
            return text
        text = joined


def _cnxml_equation(node: ET.Element) -> str:
    maths = [m for m in node.iter() if _local(m.tag) == "math"]
    return "".join(_math_markdown(m, block=True) for m in maths)


def _cnxml_table_formulas(table: ET.Element) -> list[str]:
    """A table's rows that name a formula: "Current ratio | (Total current assets)/(...)".

    A row whose first cell is a short name in words and whose first cell of math (after
    it) is an expression over names, with no "=" and no number alone, is the display
    ``name = expression``; a worked cell ("$83,200 / $60,150") and data rows give nothing.
    The rest of a table is left out, as before.
    """
    found = []
    for row in table.iter():
        if _local(row.tag) != "row":
            continue
        cells = [c for c in row if _local(c.tag) == "entry"]
        if len(cells) < 2 or any(_local(n.tag) == "math" for n in cells[0].iter()):
            continue
        name = " ".join(_text(cells[0]).split())
        if not re.fullmatch(r"[A-Za-z][A-Za-z()'’ -]{1,60}", name) or len(name.split()) > 6:
            continue
        for cell in cells[1:]:
            maths = [n for n in cell.iter() if _local(n.tag) == "math"]
            if not maths:
                continue
            tex = " ".join(mathml_to_tex(m) for m in maths).strip()
            # an expression of quantities (a letter at least), not a worked value
            quantities = re.search(r"[A-Za-z]", tex)
            if "=" not in tex and "$" not in tex and quantities and not re.search(r"\d{3}", tex):
                label = re.sub(r"[()]", " ", name.replace("’", "'"))
                found.append(f"$${_text_name(label).strip()} = {tex}$$")
            break
    return found


def _cnxml_blocks(node: ET.Element, depth: int, out: list[str]) -> None:
    for kid in node:
        tag = _local(kid.tag)
        if tag == "table":
            out.extend(_cnxml_table_formulas(kid))
            continue
        if tag in _CNXML_SKIP:
            continue
        if tag == "title":
            title = " ".join(_text(kid).split())
            if title:
                out.append(f"{'#' * min(depth, 6)} {title}")
        elif tag == "section":
            _cnxml_blocks(kid, depth + 1, out)
        elif tag == "equation":
            out.append(_cnxml_equation(kid).strip())
        elif tag == "para":
            out.append(joined_math(" ".join(_cnxml_inline(kid).split(" ")).strip()))
        elif tag == "item":
            out.append("- " + joined_math(" ".join(_cnxml_inline(kid).split())))
        elif tag in _CNXML_BLOCKS or list(kid):
            _cnxml_blocks(kid, depth, out)
        elif (kid.text or "").strip():
            out.append(kid.text.strip())


def cnxml_markdown(text: str, name: str = "document") -> str:
    """An OpenStax CNXML module as Markdown with TeX math."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise MarkupError(f"{name}: not well-formed XML ({exc})") from exc
    token = _ACRONYMS.set(prose_acronyms(text))
    try:
        return _cnxml_body(root)
    finally:
        _ACRONYMS.reset(token)


def _cnxml_body(root: ET.Element) -> str:
    out: list[str] = []
    title = next((t for t in root if _local(t.tag) == "title"), None)
    if title is not None and _text(title):
        out.append(f"# {' '.join(_text(title).split())}")
    content = next((c for c in root if _local(c.tag) == "content"), root)
    _cnxml_blocks(content, 1, out)
    return "\n\n".join(block for block in out if block.strip()) + "\n"


# --------------------------------------------------------------------------- HTML

_HTML_MATH = re.compile(r"<math\b.*?</math>", re.S | re.I)


def html_markdown(text: str, name: str = "document") -> str:
    """An HTML page as Markdown: headings, paragraphs and list items; MathML as TeX."""
    token = _ACRONYMS.set(prose_acronyms(text))
    try:
        return _html_body(text)
    finally:
        _ACRONYMS.reset(token)


def _html_body(text: str) -> str:
    from bs4 import BeautifulSoup

    maths: list[str] = []

    def keep(match: re.Match[str]) -> str:
        source = match.group(0)
        if "xmlns" not in source.split(">", 1)[0]:
            source = source.replace("<math", '<math xmlns="http://www.w3.org/1998/Math/MathML"', 1)
        try:
            element = ET.fromstring(source)
        except ET.ParseError:
            return " "
        maths.append(_math_markdown(element, block=element.get("display") == "block"))
        return f" MATHPLACEHOLDER{len(maths) - 1} "

    soup = BeautifulSoup(_HTML_MATH.sub(keep, text), "html.parser")
    for dropped in soup(["script", "style", "head", "nav", "footer", "table", "figure"]):
        dropped.decompose()
    out: list[str] = []
    _html_blocks(soup, out)
    body = "\n\n".join(out) + "\n"
    body = re.sub(r"MATHPLACEHOLDER(\d+)", lambda m: maths[int(m.group(1))], body)
    body = re.sub(r"\\\[(.+?)\\\]", lambda m: f"\n\n$${m.group(1)}$$\n\n", body, flags=re.S)
    return re.sub(r"\\\((.+?)\\\)", lambda m: f"${m.group(1).strip()}$", body, flags=re.S)


_HTML_BLOCKS = frozenset("h1 h2 h3 h4 h5 h6 p li div dd dt blockquote figcaption".split())


def _html_blocks(node: object, out: list[str]) -> None:
    """Blocks in document order: headings, paragraphs, list items, and loose text.

    Loose text stands between blocks (a display formula set between two paragraphs).
    """
    from bs4 import NavigableString, Tag

    for child in getattr(node, "children", []):
        if type(child) is NavigableString:  # not a comment, doctype or declaration
            words = " ".join(str(child).split())
            if words:
                out.append(words)
            continue
        if not isinstance(child, Tag):
            continue
        nested = child.find(list(_HTML_BLOCKS))
        if child.name not in _HTML_BLOCKS or (child.name in ("div", "blockquote") and nested):
            _html_blocks(child, out)  # a container: its blocks are read one by one
            continue
        words = " ".join(child.get_text(" ").split())
        if not words:
            continue
        if child.name.startswith("h") and child.name[1:].isdigit():
            out.append(f"{'#' * int(child.name[1])} {words}")
        elif child.name == "li":
            out.append(f"- {words}")
        else:
            out.append(words)


# --------------------------------------------------------------------------- LaTeX

_TEX_HEADINGS = {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4}
_TEX_DISPLAY = re.compile(
    r"\\begin\{(equation|align|gather|multline|displaymath|eqnarray)(\*?)\}(.*?)"
    r"\\end\{\1\2\}",
    re.S,
)


def tex_markdown(text: str) -> str:
    """A LaTeX chapter as Markdown: sections as headings, display math as ``$$``."""
    body = re.sub(r"(?<!\\)%.*", "", text)
    begin = body.find(r"\begin{document}")
    if begin >= 0:
        body = body[begin + len(r"\begin{document}") :]
    body = body.replace(r"\end{document}", "")

    def display(match: re.Match[str]) -> str:
        rows = re.split(r"\\\\", match.group(3))
        kept = [re.sub(r"\\(?:label|tag|nonumber|notag)(?:\{[^}]*\})?", "", r).replace("&", "")
                for r in rows]  # fmt: skip
        return "\n\n" + "\n\n".join(f"$${r.strip()}$$" for r in kept if r.strip()) + "\n\n"

    body = _TEX_DISPLAY.sub(display, body)
    body = re.sub(r"\\\[(.+?)\\\]", lambda m: f"\n\n$${m.group(1).strip()}$$\n\n", body, flags=re.S)
    body = re.sub(r"\\\((.+?)\\\)", lambda m: f"${m.group(1).strip()}$", body, flags=re.S)
    for command, level in _TEX_HEADINGS.items():
        body = re.sub(
            rf"\\{command}\*?\{{([^}}]*)\}}",
            lambda m, n=level: f"\n\n{'#' * n} {m.group(1)}\n\n",
            body,
        )
    body = re.sub(r"\\(?:label|ref|eqref|cite|index)\{[^}]*\}", "", body)
    body = re.sub(r"\\(?:textbf|emph|textit|underline|text)\{([^}]*)\}", r"\1", body)
    body = re.sub(r"\\item\s*", "\n- ", body)
    body = re.sub(r"\\(?:begin|end)\{(?:itemize|enumerate|description|center|quote)\}", "", body)
    body = re.sub(r"\\(?:maketitle|noindent|medskip|bigskip|smallskip|newpage)\b", "", body)
    return re.sub(r"\n{3,}", "\n\n", body).strip() + "\n"


def to_markdown(path: Path) -> str:
    """The file at ``path`` (one of :data:`MARKUP_SUFFIXES`) as Markdown with TeX math.

    Raises:
        MarkupError: Too large, not UTF-8, or not well-formed (CNXML).
    """
    size = path.stat().st_size
    if size > MAX_MARKUP_BYTES:
        raise MarkupError(f"{path}: {size} bytes, more than {MAX_MARKUP_BYTES} for a reference")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MarkupError(f"{path}: not valid UTF-8 (byte {exc.start}); re-save it") from exc
    # "º" (an ordinal indicator) is how some sources type the degree sign: "55 ºC" is °C
    text = text.replace("º", "°")
    suffix = path.suffix.lower()
    if suffix == ".tex":
        return tex_markdown(text)
    if suffix in (".html", ".htm", ".xhtml"):
        return html_markdown(text, str(path))
    return cnxml_markdown(text, str(path))

"""Documents, formula extraction (each syntax) and quantity definitions."""

from dataclasses import replace

import sympy as sp

from benchsmith.solution.documents import read_document
from benchsmith.solution.expressions import parse_expression
from benchsmith.solution.formulas import extract_explicit, find_candidates
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.solution.latex import latex_to_plain
from benchsmith.solution.quantities import default_quantity, find_definitions, parse_definition

CHAPTER = """# Growth

Intro text with a price of $100 to $200, which is not math.

## Simple growth

The future value is

$$FV = PV \\cdot (1 + r)^{n}$$

and inline, $A = \\frac{B}{C}$ too. A worked example: FV = 1000 * 1.05**2 = 1102.5

```
D = B * C  # a comment
E = 2
```

G = sqrt(B) + exp(C)

where r is the rate per period, in percent per period, typically between 1% and 10%, and
n is the number of periods, in periods, typically between 1 and 40 periods.

$$H = \\frac{B}{$$

- `PV` — the present value, in dollars, typically between 100 and 5,000 dollars.
"""


def sym(text):
    return sp.sympify(text, locals={n: sp.Symbol(n) for n in ("E_", "PV", "FV")})


def knowledge_of(tmp_path, text: str):
    """What :func:`build_knowledge` reads in a chapter of ``text`` alone (no reader)."""
    path = tmp_path / "chapter.md"
    path.write_text(text, encoding="utf-8")
    return build_knowledge([path])


def test_markdown_sections_and_spans(tmp_path):
    path = tmp_path / "growth.md"
    path.write_text(CHAPTER)
    doc = read_document(path)
    assert doc.title == "Growth"
    assert [s.title for s in doc.sections] == ["Growth", "Growth > Simple growth"]
    section = doc.sections[1]
    assert section.concept == "Simple growth"
    assert doc.text[section.start : section.end] == section.text
    formulas, rejected = extract_explicit(section)
    first = formulas[0]
    assert doc.text[first.source.start : first.source.end] == "$$FV = PV \\cdot (1 + r)^{n}$$"
    assert first.source.to_dict()["section"] == "Growth > Simple growth"


def test_each_syntax_is_extracted(tmp_path):
    path = tmp_path / "growth.md"
    path.write_text(CHAPTER)
    section = read_document(path).sections[1]
    formulas, rejected = extract_explicit(section)
    got = {(f.syntax, f.output, str(f.expr)) for f in formulas}
    assert got == {
        ("latex", "FV", "PV*(r + 1)**n"),
        ("latex", "A", "B/C"),
        ("code", "D", "B*C"),
        ("line", "G", "sqrt(B) + exp(C)"),
    }
    # the worked example (numbers only) and `E = 2` are values, not formulas
    assert [r.syntax for r in rejected] == ["latex"]
    assert rejected[0].reason.startswith("cannot parse")


def test_dollar_amounts_are_not_inline_math():
    text = "It costs $100 to $200 a month, or $x = y + 1$ in math."
    candidates = find_candidates(text)
    assert [(c.lhs, c.rhs, c.syntax) for c in candidates] == [("x", "y + 1", "latex")]


def test_latex_rewrites():
    assert latex_to_plain(r"\left(1 + \frac{j}{m}\right)^{m} - 1") == "(1 + ((j)/(m)) )**(m) - 1"
    assert latex_to_plain(r"\sqrt[3]{x} \cdot e^{r t}") == "((x)**(1/(3))) * exp(r t)"
    assert latex_to_plain(r"\text{PMT}_{0} \times C_0") == "PMT_0 * C_0"


def test_function_notation_and_a_grouped_e(tmp_path):
    path = tmp_path / "cooling.md"
    path.write_text(
        "# Cooling\n\n$$T(t) = A { e }^{ k t } + T_s$$\n\n$$g(x) = c x$$\n\n$$V(r) = k t$$\n"
    )
    formulas, _rejected = extract_explicit(read_document(path).sections[0])
    got = [(f.output, str(f.expr)) for f in formulas]
    # T(t) defines T (not T = (...)/t); MathML's grouped base "{ e }" is Euler's number; a
    # left side whose argument the right does not use is a product, solved as before.
    assert got[:2] == [("T", "A*exp(k*t) + T_s"), ("g", "c*x")]
    assert got[2][0] == "V" and "r" in str(got[2][1])


def test_reserved_names_are_renamed(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text("Interest\n========\n\nI = P * r * t\n")
    doc = read_document(path)
    assert [s.title for s in doc.sections] == ["Interest"]
    formulas, _ = extract_explicit(doc.sections[0])
    assert formulas[0].output == "I_"
    assert str(formulas[0].expr) == "P*r*t"


def test_definitions_from_text(tmp_path):
    path = tmp_path / "growth.md"
    path.write_text(CHAPTER)
    doc = read_document(path)
    found = find_definitions({"r", "n", "PV", "B"}, list(doc.sections), doc.sections[1])
    r, n, pv = found["r"], found["n"], found["PV"]
    assert (r.description, r.unit, r.low, r.high, r.integer) == (
        "rate per period",
        "percent",
        0.01,
        0.1,
        False,
    )
    assert (n.unit, n.low, n.high, n.integer) == ("periods", 1, 40, True)
    assert (pv.description, pv.unit, pv.low, pv.high) == ("present value", "currency", 100, 5000)
    assert "B" not in found
    assert doc.text[r.source.start : r.source.end].startswith("the rate per period")


def test_definition_choices_and_defaults():
    m = parse_definition("m", "the number of periods per year (one of 1, 2, 4 or 12)")
    assert (m.unit, m.choices, m.integer) == ("count", (1.0, 2.0, 4.0, 12.0), True)
    q = default_quantity("r")
    assert (q.unit, q.low, q.high, q.assumed) == (
        "percent",
        0.01,
        0.12,
        ("description", "unit", "range"),
    )
    x = parse_definition("x", "a mystery")
    assert x.assumed == ("unit", "range") and x.unit == "number"


NOTATION = """# Circuits

## Ohm's law

$$V = I R$$

| Symbol | Meaning | Unit |
| --- | --- | --- |
| $V$ | potential difference across the resistor | volts (V) |

Here $R$ denotes the resistance of the resistor in ohms, and the current $I$ is measured in
amperes (A). A lamp draws 0.5 A from a 12 V supply; a heater draws 8 A at 230 V.

$$P = V I$$

with $P$ the electrical power in watts (W).

$$E = P t + W_0$$

where $t$ stands for the time the device is on, in seconds (s).
"""


def test_definitions_in_textbook_phrasings(tmp_path):
    path = tmp_path / "circuits.md"
    path.write_text(NOTATION)
    knowledge = build_knowledge([path])
    q = knowledge.graph.quantities
    assert (q["V"].description, q["V"].symbol) == ("potential difference across the resistor", "V")
    assert (q["R"].description, q["R"].symbol) == ("resistance of the resistor", "Ω")
    assert (q["I_"].description, q["I_"].symbol) == ("current", "A")  # the symbol I, renamed
    assert (q["I_"].low, q["I_"].high) == (0.5, 8.0)  # from the worked examples
    assert (q["P"].description, q["P"].symbol) == ("electrical power", "W")
    admitted = {f.output for f in knowledge.graph.formulas}
    assert admitted == {"V", "P"}
    (energy,) = [r for r in knowledge.rejected if r.text.startswith("$$E")]
    # E and W_0 are never defined: the formula is refused and the reason names them
    assert energy.reason == (
        "no definition in the text of the symbol(s) E_, W_0 (what it is, its unit)"
    )


def test_a_formula_written_twice_is_kept_once_and_reported(tmp_path):
    path = tmp_path / "twice.md"
    path.write_text(
        "# Speed\n\n## Average speed\n\n$$v = \\frac{d}{t}$$\n\n"
        "In code the same relation reads\n\n```\nv = d / t\n```\n\n"
        "where $v$ is the average speed in m/s, $d$ is the distance in metres (m) and $t$ "
        "is the time in seconds (s).\n"
    )
    from benchsmith.solution.report import formula_rows

    knowledge = build_knowledge([path])
    assert [f.equation() for f in knowledge.graph.formulas] == ["v = d/t"]
    rows = formula_rows(knowledge)
    assert [r["status"] for r in rows] == ["admitted", "duplicate"]
    assert rows[1]["formula"] == "v = d / t"
    assert (
        rows[1]["reason"]
        == "the same relation as '$$v = \\\\frac{d}{t}$$' (Speed > Average speed); kept once"
    )


def test_relations_stated_in_words_in_several_shapes(tmp_path):
    path = tmp_path / "work.md"
    path.write_text(
        "# Work and power\n\n## Definitions\n\n"
        "Here $W$ denotes the work done in joules (J), $F$ is the applied force in newtons "
        "(N), $d$ is the distance moved in metres (m), $P$ is the power in watts (W) and "
        "$t$ is the time taken in seconds (s). $E$ is the total energy in joules (J) and "
        "$K$ is the kinetic energy in joules (J).\n\n"
        "The work done is the product of the applied force and the distance moved. "
        "The power is the ratio of the work done to the time taken. "
        "The total energy is the sum of the work done and the kinetic energy. "
        "The momentum is the mass times the velocity.\n"
    )
    from benchsmith.solution.report import formula_rows

    knowledge = build_knowledge([path])
    equations = {f.equation() for f in knowledge.graph.formulas}
    assert equations == {"W = F*d", "P = W/t", "E_ = K + W"}  # E_: not Euler's e
    rejected = {r["formula"]: r["reason"] for r in formula_rows(knowledge) if r["reason"]}
    assert rejected == {
        "The momentum is the mass times the velocity": "stated in words; no symbol of the "
        "text is defined as 'momentum', 'mass', 'velocity'"
    }


def test_ranges_prefer_the_values_written_next_to_the_quantity():
    document = (
        "A bond with a face value of $1,000 pays $40 a year. Another has a face value of "
        "$5,000 and costs $4,700. The broker charges $25 per trade."
    )
    face = parse_definition("F", "the face value of the bond, in dollars", document=document)
    assert (face.low, face.high) == (1000, 5000)
    assert dict(face.origins)["range"] == (
        "worked examples and exercises near 'face value of the bond' (1000, 5000 currency)"
    )
    # nothing written next to the fee: every amount of the document bounds it
    fee = parse_definition("f", "the annual fee in dollars", document=document)
    assert (fee.low, fee.high) == (25, 5000)
    assert "in the document" in dict(fee.origins)["range"]
    # one value next to it: a band around it
    pay = parse_definition(
        "C", "the coupon payment in dollars", document="It pays a coupon payment of $40."
    )
    assert (pay.low, pay.high) == (20, 80)
    assert dict(pay.origins)["range"] == "worked example near 'coupon payment' (40 currency)"


def test_a_solved_root_is_checked_on_sampled_values_of_its_signs():
    from benchsmith.solution.graph import _root_holds

    v, u = sp.symbols("v u", positive=True)
    assert _root_holds(v**2, u, v, sp.sqrt(u))  # u = v^2 for a positive v: v = sqrt(u)
    assert not _root_holds(v**2, u, v, -sp.sqrt(u))  # never positive
    assert not _root_holds(v**2, u, v, u / 2)  # not a root at all


SIMPLE_INTEREST = """# Simple interest

## Loans in years

The simple interest $I$ to be paid on a loan with principal $P$ at annual interest rate
$r$ for a number of years $t$ is

$$I = P r t$$

A loan of $4,000 at 5.5% for 4 years pays $880 of interest. A loan of $14,800 at 7.9% for 7
years pays $8,184.40.

## Loans in days

For a loan of $t$ days, the simple interest is

$$I = \\frac{P r t}{365}$$

A loan of $15,000 at 6.5% for 90 days pays $240.41.

## Review

How is the simple interest of a loan of $t$ days computed?

- $I = P r t$

- $I = \\frac{P r t}{365}$

- $I = \\frac{P t}{r}$
"""


def test_a_symbol_in_two_senses_keeps_both_formulas_and_no_world_mixes_them(tmp_path):
    """I = P r t (years) and I = P r t / 365 (days) contradict each other over the same
    quantities: both are admitted as rivals, each item is drawn in a world of its own
    formula only, and formulas offered as answers to a review question are not the text's."""
    from benchsmith.solution import generate_items
    from benchsmith.solution.worlds import formula_error

    path = tmp_path / "interest.md"
    path.write_text(SIMPLE_INTEREST, encoding="utf-8")
    knowledge = build_knowledge([path])
    graph = knowledge.graph
    admitted = {str(f.expr): f for f in graph.formulas if f.output == "I_"}
    assert set(admitted) == {"P*r*t", "P*r*t/365"}
    assert graph.rivals == {frozenset(f.id for f in admitted.values())}
    offered = [r for r in knowledge.rejected if "an answer offered to a question" in r.reason]
    assert len(offered) == 3 and "How is the simple interest" in offered[0].reason
    items = generate_items([path], 12, seed=3, knowledge=knowledge).items
    assert items
    used = set()
    for item in items:
        graph_of = item.metadata["solution_graph"]
        values = dict(graph_of["givens"]) | {graph_of["target"]: item.metadata["answer_value"]}
        if set(values) != {"I_", "P", "r", "t"}:
            continue
        # the item holds in one sense of t, never in both
        holds = [e for e, f in admitted.items() if formula_error(f, values) < 1e-3]
        assert len(holds) == 1, (item.input_text(), values)
        used.add(holds[0])
    assert used == set(admitted)  # and both senses are asked


def test_a_name_set_in_words_keeps_its_words_unless_the_reader_says_more():
    from dataclasses import replace

    from benchsmith.solution.knowledge import _with_reading

    def reading(name: str, words: str):
        read = parse_definition(name, words, description=words)
        return replace(read, origins=(("description", "reader, checked against the text"),))

    own = parse_definition("diastolic_BP", "diastolic BP", description="diastolic BP")
    assert _with_reading(own, reading("diastolic_BP", "blood pressure")).description == (
        "diastolic BP"
    )
    payoff = parse_definition("Payoff", "payoff", description="payoff")
    assert _with_reading(payoff, reading("Payoff", "payoff amount")).description == "payoff amount"


def test_pi_rounded_by_the_text_is_the_constant_and_defined_pi_is_a_quantity(tmp_path):
    rounded = tmp_path / "cylinder.md"
    rounded.write_text(
        "# Cylinders\n\nA cylinder of radius $r$ (in cm) and height $h$ (in cm) has volume "
        "$V$ (in cm³)\n\n$$V = \\pi r^2 h$$\n\nWe will approximate $\\pi$ with 3.14.\n",
        encoding="utf-8",
    )
    graph = build_knowledge([rounded]).graph
    assert [str(f.expr) for f in graph.formulas] == ["pi*h*r**2"]  # sympy's pi, no pi_


def test_the_reader_s_words_for_one_symbol_that_the_text_gives_another_are_dropped():
    from benchsmith.solution.knowledge import _taken_by_patterns

    patterns = {
        "m": parse_definition("m", "mass of the sample in g", description="mass of the sample"),
        "M": parse_definition("M", "molar mass in g/mol", description="molar mass"),
    }
    hints = {"m": parse_definition("m", "molar mass", description="molar mass")}
    notes: list[str] = []
    _taken_by_patterns(hints, patterns, notes)
    assert hints["m"].description == "mass of the sample" and "description" in hints["m"].assumed
    assert "the text's definition of M" in notes[0]


def test_the_reader_s_words_are_read_where_the_text_qualifies_them_most(tmp_path):
    from benchsmith.solution.reading import SymbolAnswer, symbol_quantity

    path = tmp_path / "rates.md"
    path.write_text(
        "# Interest\n\nIn this case the rate is $r$. The principal is invested at an annual "
        "interest rate of $r$ for $t$ years.\n",
        encoding="utf-8",
    )
    section = read_document(path).sections[0]
    read = symbol_quantity("r", SymbolAnswer(words="rate", unit="", low="", high=""), section)
    assert read is not None and read.description == "annual interest rate"


def test_a_bare_word_where_a_symbol_is_first_used_takes_the_text_s_repeated_fuller_phrase(
    tmp_path,
):
    from benchsmith.solution.reading import SymbolAnswer, symbol_quantity

    path = tmp_path / "compound.md"
    path.write_text(
        "# Compound interest\n\n## Annually\n\nThe principal is $P$ and the rate is $r$.\n\n"
        "## Future value\n\nAt an annual interest rate $r$ the value grows. With an annual "
        "interest rate $r$ of 5%, it doubles. An equivalent simple interest rate $r$ is lower.\n",
        encoding="utf-8",
    )
    document = read_document(path)
    first = document.sections[0]  # "## Annually": only "the rate is $r$"
    answer = SymbolAnswer(words="rate", unit="", low="", high="")
    # the phrase written twice near r wins over the one written once and over the bare word
    read = symbol_quantity("r", answer, first, document.text)
    assert read is not None and read.description == "annual interest rate"
    assert symbol_quantity("r", answer, first).description == "rate"  # no document: as read
    # words that only lead up to the name are not part of it
    path.write_text("# Engines\n\nWe judge how much input work, $W$, is required.\n")
    section = read_document(path).sections[0]
    said = SymbolAnswer(words="how much input work", unit="", low="", high="")
    assert symbol_quantity("W", said, section).description == "input work"


def test_approx_states_a_relation_and_log_is_the_common_logarithm():
    (candidate,) = find_candidates(r"Then $$A \approx A_{0} e^{-0.000121 t}$$ years on.")
    assert (candidate.lhs, candidate.rhs) == ("A", "A_{0} e^{-0.000121 t}")
    (ratio,) = find_candidates(r"so $r = \frac{A}{A_0} ≈ e^{k t}$ here")
    assert (ratio.lhs, ratio.rhs) == ("r", r"\frac{A}{A_0}")
    I_, x = sp.symbols("I_ x")
    read = lambda latex: parse_expression(latex_to_plain(latex))  # noqa: E731
    assert sp.simplify(read(r"\log I") - sp.log(I_, 10)) == 0
    assert read(r"\ln 2") == sp.log(2)
    assert sp.simplify(read(r"\log_{2} x") - sp.log(x, 2)) == 0


def test_a_formula_with_numbers_for_some_of_another_s_quantities_is_a_worked_example(tmp_path):
    knowledge = knowledge_of(
        tmp_path,
        "# Growth\n\nExponential growth is $$y = A_{0} e^{k x}$$ where $y$ is the amount, "
        "$A_0$ is the initial amount, $k$ is the growth rate and $x$ is the time in years. For "
        "example, $$y = 3 e^{2 x}$$. The logistic model is $$f = \\frac{c}{1 + a e^{-b t}}$$ "
        "where $f$ is the population, $c$ is the carrying capacity, $a$ is the initial ratio, "
        "$b$ is the growth constant and $t$ is the time in years; one is "
        "$$f = \\frac{150}{1 + 8 e^{-2 t}}$$.\n\nThe doubling time is $$t = \\frac{\\ln 2}{k}$$\n",
    )
    kept = {(f.output, str(f.expr)) for f in knowledge.graph.formulas}
    assert ("y", "A_0*exp(k*x)") in kept and ("t", "log(2)/k") in kept
    assert not any(str(expr).startswith(("3*", "150")) for _, expr in kept)
    worked = [r.reason for r in knowledge.rejected if "with numbers for some" in r.reason]
    assert len(worked) == 2


def test_a_result_written_last_notation_in_words_and_an_amount_that_is_no_money(tmp_path):
    knowledge = knowledge_of(
        tmp_path,
        "# Dosage\n\nThe basic formula is\n\n$\\frac{ D }{ H } \\times Q = X$\n\n"
        "$D = \\mathrm{Desired dose (the dose ordered)}$ $H = \\mathrm{Amount on hand}$ "
        "$Q = \\mathrm{Quantity of the drug form}$ "
        "$X = \\mathrm{Amount to be administered}$\n\n$X = \\mathrm{How many mL?}$\n\n"
        "The order is 250 mg; on hand are 125 mg in 5 mL.\n",
    )
    (formula,) = knowledge.graph.formulas
    assert (formula.output, str(formula.expr)) == ("X", "D*Q_/H")  # the result written last
    quantities = knowledge.graph.quantities
    assert quantities["D"].description == "desired dose"  # the aside in parentheses left out
    assert quantities["X"].description == "amount to be administered"  # not "How many mL?"
    # no sum of money anywhere in the text: an "amount" is not dollars
    assert quantities["H"].unit != "currency" and quantities["X"].unit != "currency"


def test_a_sentence_named_in_words_before_math_that_opens_with_equals(tmp_path):
    knowledge = knowledge_of(
        tmp_path,
        "# Odds ratio\n\nOdds ratio $= \\frac{( a \\times d )}{( b \\times c )}$ where\n\n"
        "$a$ = number of individuals exposed and with disease\n\n"
        "$b$ = number of individuals exposed but without disease\n\n"
        "$c$ = number of individuals unexposed but with disease\n\n"
        "$d$ = number of individuals unexposed and without disease\n\n"
        "Proportion of men who had hypertension $= \\frac{ 305 }{ 5007 } = 0.06$\n",
    )
    (formula,) = knowledge.graph.formulas  # the worked line is a value, not a formula
    assert (formula.output, str(formula.expr)) == ("Odds_ratio", "a*d/(b*c)")
    quantities = knowledge.graph.quantities
    assert quantities["a"].description == "number of individuals exposed and with disease"
    assert quantities["d"].description == "number of individuals unexposed and without disease"


def test_a_formula_set_in_pieces_a_probability_of_an_event_and_a_constant_density(tmp_path):
    from benchsmith.markup import joined_math

    pieces = "The cdf is $P$($X$ ≤ $x$) = $\\frac{ x - a }{ b - a }$. $X$ is continuous."
    assert joined_math(pieces) == (
        "The cdf is $P ( X \\le x ) = \\frac{ x - a }{ b - a }$. $X$ is continuous."
    )
    assert joined_math("It costs $5 – $6, and $a$ and $b$ differ.") == (
        "It costs $5 – $6, and $a$ and $b$ differ."
    )  # money, and pieces with words between them, stay apart
    knowledge = knowledge_of(
        tmp_path,
        "# Uniform\n\nHere $a$ is the lowest value, $b$ is the highest value and $x$ is a "
        "value of the variable. The probability density $f$ is $f ( x ) = \\frac{ 1 }{ b - a }$ "
        "and the cumulative probability $P$ is $P ( X \\le x ) = \\frac{ x - a }{ b - a }$.\n",
    )
    got = {(f.output, str(f.expr)) for f in knowledge.graph.formulas}
    assert ("P", "(-a + x)/(-a + b)") in got  # the probability of the event is P
    from benchsmith.solution.formulas import function_name

    assert function_name("f ( x )", "1/(b - a)") == "f"  # f(x), though it does not vary in x
    assert function_name("V ( r )", "k t") == "V ( r )"  # a product, solved as before


def test_words_before_an_abbreviation_spelled_loosely_and_a_reader_cut_short():
    from benchsmith.solution.knowledge import _with_reading
    from benchsmith.solution.quantities import acronym_phrase

    # the M of CPM is Latin mille: as many words as letters, the first letter the same
    assert acronym_phrase("This is where cost per thousand", "CPM") == "cost per thousand"
    assert acronym_phrase("the current yield", "CY") == "current yield"
    assert acronym_phrase("and the big dog", "CPM") is None
    reader = parse_definition("CPM", "cost", description="cost")
    reader = replace(reader, origins=(("description", "reader, checked against the text"),))
    patterns = parse_definition("CPM", "cost per thousand", description="cost per thousand")
    assert _with_reading(patterns, reader).description == "cost per thousand"
    # a name set in one word of five letters or more keeps it over the reader's other word
    rating = parse_definition("Rating", "rating", description="rating")
    said = replace(parse_definition("Rating", "percentage", description="percentage"),
                   origins=(("description", "reader, checked against the text"),))  # fmt: skip
    assert _with_reading(rating, said).description == "rating"
    eff = parse_definition("Eff", "eff", description="eff")  # an abbreviation: the reader's
    read = (("description", "reader, checked against the text"),)
    efficiency = replace(parse_definition("Eff", "efficiency"), origins=read)
    assert _with_reading(eff, efficiency).description == "efficiency"

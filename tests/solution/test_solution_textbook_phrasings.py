"""Definitions and ranges where textbooks put them, and the LaTeX real texts use.

``chapters/valuation.md`` is written in ordinary textbook prose (the phrasings of issue 33's
finance chapter): "a bond with face value $F$ and annual coupon rate $c$", "$n$ years to
maturity", "its price is $$P = ...$$", "the effective annual rate $$EAR = ...$$", ranges in
a sentence of their own. Every formula is admitted, every symbol has the text's words, no
two share a description, and every drawn value lies in the range the text states.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchsmith.solution import generate_items
from benchsmith.solution.documents import read_document
from benchsmith.solution.expressions import parse_expression
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.solution.latex import latex_to_plain
from benchsmith.solution.quantities import (
    clean_description,
    find_definitions,
    noun_before,
    parse_definition,
    word_name,
)
from benchsmith.solution.wording import with_the

CHAPTER = Path(__file__).resolve().parent / "chapters" / "valuation.md"


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"\eta_t = \frac{\eta_0}{1 + k t}", ["eta_t", "eta_0/(k*t + 1)"]),
        (r"w' = w - \eta g", ["w_prime", "-eta*g + w"]),
        (r"w^{\prime}", ["w_prime"]),
        (r"v^{2} = v_0^2 + 2 a \Delta x", ["v**2", "2*Delta_x*a + v_0**2"]),
        (r"F = \mu_k N", ["F", "N_*mu_k"]),
        (r"N = N_0 e^{-\lambda t}", ["N_", "N_0*exp(-lamda*t)"]),
        (r"R = \frac{v_0^2 \sin 2\theta}{g}", ["R", "v_0**2*sin(2*theta)/g"]),
        (r"x = \cos 30", ["x", "cos(30)"]),
        (
            r"F_1 = \frac{2 \mathrm{TP}}{2 \mathrm{TP} + \mathrm{FP} + \mathrm{FN}}",
            ["F_1", "2*TP/(FN + FP + 2*TP)"],
        ),  # fmt: skip
        (r"C = c \times F", ["C", "F*c"]),  # case-sensitive: C and c are two quantities
        (
            r"P = C \times \frac{\left[1 - \frac{1}{(1+r)^{n}}\right]}{r}",
            ["P", "C*(1 - 1/(r + 1)**n)/r"],
        ),
        (r"f_{s}(\max ) = \mu_{s} N", ["f_s_max", "N_*mu_s"]),
        (r"R = N_{A}k_{B}", ["R", "N_A*k_B"]),  # a subscript ends the name
        (r"N / V = p / k_{B} T", ["N_/V", "p/(T*k_B)"]),  # a product after a slash divides
        (r"\frac{p_{1}V_{1}}{T_{1}} = 1", ["V_1*p_1/T_1", "1"]),
    ],
)
def test_latex_names_real_texts_use(latex, expected):
    plain = latex_to_plain(latex)
    assert [str(parse_expression(side)) for side in plain.split("=")] == expected


@pytest.mark.parametrize(
    ("before", "phrase"),
    [
        ("Consider a bond with face value", "face value"),
        ("Consider a bond with face value $F$ and annual coupon rate", "annual coupon rate"),
        ("With a yield to maturity", "yield to maturity"),
        ("and with a required return", "required return"),
        ("the required rate of return", "required rate of return"),
        ("With inflation", "inflation"),
        ("A rate $r$ quoted annually and compounded", None),
        ("The dividend just paid is", None),
        ("we represent it with the symbol", None),  # a generic noun names nothing
        ("which has the value", None),
    ],
)
def test_the_noun_phrase_before_a_symbol(before, phrase):
    assert noun_before(before) == phrase


@pytest.fixture(scope="module")
def knowledge():
    return build_knowledge([CHAPTER])


def test_every_formula_of_a_chapter_in_textbook_prose_is_admitted(knowledge):
    graph = knowledge.graph
    assert sorted(f.output for f in graph.formulas) == sorted(
        ["C", "P", "P_z", "CY", "EAR", "R", "D_1", "P_0"]
    )
    words = {name: q.description for name, q in graph.quantities.items()}
    assert words["F"] == "face value"
    assert words["c"] == "annual coupon rate" and words["C"] == "coupon"
    assert words["n"] == "number of years to maturity"
    assert words["P"] == "price of the bond"
    assert words["P_z"] == "price of the zero-coupon bond"
    assert words["CY"] == "current yield"
    assert words["EAR"] == "effective annual rate"
    assert words["D_0"] == "dividend just paid" and words["D_1"] == "next year's dividend"
    assert words["m"] == "number of times a year"
    assert len(set(words.values())) == len(words)  # no two quantities share a description


def test_ranges_stated_in_the_text_bound_every_drawn_value(knowledge):
    quantities = knowledge.graph.quantities
    stated = {n: (q.low, q.high) for n, q in quantities.items()}
    assert stated["F"] == (100.0, 10000.0)  # "Face values usually lie between 100 and 10000"
    assert stated["c"] == (0.01, 0.12)  # "coupon rates between 0.01 and 0.12"
    assert stated["r"] == (0.01, 0.2)  # "Typical quoted rates range from 0.01 to 0.2"
    assert stated["m"] == (1, 365)  # "$m$ is from 1 to 365"
    assert stated["g"] == (0.0, 0.08)  # "typically between 0 and 0.08"
    # "coupon rates" is not the range of the effective annual rate nor of the real rate
    assert "stated" not in dict(quantities["EAR"].origins)["range"]
    result = generate_items([CHAPTER], 60, seed=4, knowledge=knowledge)
    assert len(result.items) == 60
    for item in result.items:
        givens = item.metadata["solution_graph"]["givens"]
        for name, value in givens.items():
            if name in ("F", "c", "r", "m", "g"):
                low, high = stated[name]
                assert low - 1e-9 <= value <= high + 1e-9, (item.id, name, value)
        text = item.input_text()
        assert "the next year's" not in text.lower()  # "next year's dividend", no article
        assert "quantity " not in text


PHYSICS = """# Free fall

We represent vertical displacement with the symbol $y$. The magnitude of static friction
is $$f_{s} = \\mu_{s} N ,$$ where $\\mu_{s}$ is the coefficient of static friction and $N$ is the
magnitude of the normal force.

A ball is thrown with an initial velocity of 4.9 m/s downward. Knowns: $v_{0} = -4.9$.
The positive root is the one we want, since time $t = 0$ is the release. (The time
$t = -5.0 s$ is the other root.) Take the point of release to be $y_{0} = 0$.
"""


def test_physics_definitions_real_texts_use(tmp_path):
    """Greek letters with subscripts, "represent ... with the symbol", a value given with
    its name and a unit read from a later definition, and a symbol named through a worked
    example's value ("an initial velocity of 4.9 m/s" and "$v_0 = -4.9$")."""
    path = tmp_path / "fall.md"
    path.write_text(PHYSICS, encoding="utf-8")
    sections = read_document(path).sections
    names = {"y", "mu_s", "N", "v_0", "t", "y_0"}
    found = find_definitions(names, sections, sections[0], PHYSICS)
    described = {name: found[name].description for name in names}
    assert described == {
        "y": "vertical displacement",
        "mu_s": "coefficient of static friction",
        "N": "magnitude of the normal force",
        "v_0": "initial velocity",
        "t": "time",
        "y_0": "point of release",
    }
    assert found["t"].symbol == "s"  # from "$t = -5.0 s$", the second definition
    assert "unit" not in found["t"].assumed


def test_physical_units_from_the_name_only_where_the_text_uses_them(tmp_path):
    """ "the particle's mass $m$" is in kg when the text writes masses in kg (an 80-kg
    athlete); "the time $t$" stays in years in a text that never writes seconds."""
    physics = (
        "The kinetic energy of a particle is one-half the product of the particle's mass $m$ "
        "and the square of its speed $v$: $$K = \\frac{1}{2} m v^2$$ An 80-kg athlete runs at "
        "10 m/s.\n"
    )
    finance = "An amount grows as $$FV = PV (1 + r)^t$$ where the time $t$ is counted from now.\n"
    found = {}
    for name, text in (("physics", physics), ("finance", finance)):
        path = tmp_path / f"{name}.md"
        path.write_text(f"# {name}\n\n{text}", encoding="utf-8")
        found[name] = build_knowledge([path]).graph.quantities
    assert (found["physics"]["m"].symbol, found["physics"]["v"].symbol) == ("kg", "m/s")
    assert found["physics"]["v"].description == "speed of the particle"  # not "of the square"
    assert found["finance"]["t"].symbol == ""


def _sections(path: Path):
    sections = read_document(path).sections
    return sections, sections[0], path.read_text(encoding="utf-8")


def read(tmp_path, text: str, names: set[str]):
    path = tmp_path / "section.md"
    path.write_text(f"# Section\n\n{text}\n", encoding="utf-8")
    sections = read_document(path).sections
    return find_definitions(names, sections, sections[0], sections[0].text)


@pytest.mark.parametrize(
    ("text", "name", "description"),
    [
        # a notation line names the symbol in words
        (r"We write $$r = \mathrm{Interest_Rate}$$ and $$n = \mathrm{Number_of_Periods}$$", "r",
         "interest rate"),
        # the name before the symbol, not the genus after "is"
        ("The precision $P$ is the fraction of examples labelled positive that are positive.",
         "P", "precision"),
        # a name set in words is what the text calls it
        (r"Using the constant perpetuity formula, $$\mathrm{Gift} = \frac{C}{R_s}$$", "Gift",
         "gift"),
        # "Beta" capitalised is a word; a formula's letters are not
        (r"The stock's $$\mathrm{Beta} = \frac{C}{R_s}$$ here.", "Beta", "beta"),
    ],
)  # fmt: skip
def test_what_the_text_calls_a_symbol(tmp_path, text, name, description):
    assert read(tmp_path, text, {name})[name].description == description


@pytest.mark.parametrize(
    "text",
    [
        "Free fall at any location has the average value\n\n$$g = 9.81 .$$",  # the value's words
        "Let's use an average value of 9.8 m/s2 for it; then $g = 9.8$.",
        "The ball rises to the apex $g = 0.41$ and falls.",  # a place, not a name
    ],
)
def test_words_that_do_not_name_a_symbol(tmp_path, text):
    assert read(tmp_path, text, {"g"}).get("g") is None


@pytest.mark.parametrize(
    ("text", "name", "bounds"),
    [
        ("Here $K$ is the carrying capacity. Carrying capacities for the island bird "
         "populations discussed\nbelow usually lie between 100 and 10000 individuals.", "K",
         (100, 10000)),
        ("Here $V$ is the voltage. In this experiment, the voltage applied across the resistor "
         "varies from −10.00 to +10.00 V, by increments of 1.00 V.", "V", (-10, 10)),
        ("Here $s$ is the decay period in steps. In practice, decay periods usually lie between "
         "100 and 10000 steps.", "s", (100, 10000)),
    ],
)  # fmt: skip
def test_ranges_stated_in_a_sentence_of_their_own(tmp_path, text, name, bounds):
    quantity = read(tmp_path, text, {name})[name]
    assert (quantity.low, quantity.high) == bounds
    assert "range" not in quantity.assumed


def test_spelled_out_greek_letters_are_not_words():
    assert word_name("omega") is None
    assert word_name("lamda") is None
    assert word_name("Beta") == "beta"
    assert word_name("Annual_Distribution") == "annual distribution"


@pytest.mark.parametrize(
    ("text", "name", "description", "unit"),
    [
        # plain text: a "where" list that sets the symbol equal to words, with its unit
        ("The molarity is\n\n    c = n / V\n\nwhere\n    c = molar concentration of the solute, "
         "in mol/L\n    n = amount of solute, in mol\n", "n", "amount of solute", "mol"),
        # plain text: the symbol after its words, its unit in parentheses
        ("It is found from the mass of the sample m (in grams) and the molar mass M (in g/mol).",
         "m", "mass of the sample", "g"),
        # an operation on the quantity is not its name
        ("The kinetic energy is one-half the product of the particle's mass $m$ and the square "
         "of its speed $v$.", "m", "particle's mass", ""),
        ("All free-falling objects have an acceleration $g$ due to gravity.", "g",
         "acceleration due to gravity", ""),
        ("The motion has constant acceleration of magnitude $g$.", "g", "constant acceleration",
         ""),
    ],
)  # fmt: skip
def test_plain_text_and_physics_phrasings(tmp_path, text, name, description, unit):
    quantity = read(tmp_path, text, {name})[name]
    assert (quantity.description, quantity.symbol) == (description, unit)


def test_a_coefficient_is_a_pure_number_and_takes_the_range_stated_for_its_kind(tmp_path):
    text = (
        "The magnitude of kinetic friction is $$f_{k} = \\mu_{k} N ,$$ where $\\mu_{k}$ is the "
        "coefficient of kinetic friction and $N$ is the magnitude of the normal force. A crate "
        "of 20.0 kg pushes with 196 N. Coefficient of friction is a unitless quantity with a "
        "magnitude usually between 0 and 1.0."
    )
    quantity = read(tmp_path, text, {"mu_k"})["mu_k"]
    assert quantity.symbol == ""  # not newtons, although "friction" is a force
    assert (quantity.low, quantity.high) == (0, 1.0)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # one quantity named twice: a problem would only rename it
        ("The acceleration $a$ of a falling body is $$a = g$$ where $g$ is the acceleration "
         "due to gravity.", "another name for g"),
        # a worked line whose numbers end in a whole number
        ("Here $\\mu_{s}$ is the coefficient of static friction and $N$ is the normal force."
         "\n\n$$\\mu_{s} N = ( 0.400 )( 490 ) = 196$$", "worked example"),
        # a statement that something is constant
        ("Here $p$ is the pressure and $V$ is the volume. At fixed temperature\n\n"
         "$$p V = \\mathrm{constant}$$", "constant"),
    ],
)  # fmt: skip
def test_what_is_not_a_formula_to_compute_is_refused_with_its_reason(tmp_path, text, reason):
    path = tmp_path / "section.md"
    path.write_text(f"# Section\n\n{text}\n", encoding="utf-8")
    knowledge = build_knowledge([path])
    assert not knowledge.graph.formulas
    assert any(reason in r.reason for r in knowledge.rejected)


@pytest.mark.parametrize(
    ("text", "name", "description"),
    [
        ("The constant $k_{B}$ is called the Boltzmann constant in honor of Ludwig Boltzmann.",
         "k_B", "Boltzmann constant"),
        ("Note that $n = N/N_{A}$. We define the universal gas constant as $R = N_{A}k_{B}$.",
         "R", "universal gas constant"),
        ("Letting $m_{s}$ be the mass of a sample, we have $m_{s} = n M$.", "m_s",
         "mass of a sample"),
    ],
)  # fmt: skip
def test_called_known_as_and_defined_as(tmp_path, text, name, description):
    assert read(tmp_path, text, {name})[name].description == description


@pytest.mark.parametrize(
    ("description", "worded"),
    [
        ("particle's mass", "the particle's mass"),  # a common noun owns it
        ("next year's dividend", "next year's dividend"),  # a time owns it
        ("Boltzmann's constant", "Boltzmann's constant"),  # a name owns it
        ("face value", "the face value"),
    ],
)
def test_the_article_before_a_possessive(description, worded):
    assert with_the(description) == worded


@pytest.mark.parametrize(
    ("text", "name", "unit", "symbol"),
    [
        # a balance-sheet quantity named in words is money
        (r"The ratio is $$\mathrm{Current_Ratio} = \frac{\mathrm{Current_Assets}}{"
         r"\mathrm{Current_Liabilities}}$$", "Current_Assets", "currency", ""),
        # a volume in a text that writes values in cubic metres (MathML's way)
        ("A gas has volume $V$ and pressure $p$. It fills $5 \\times { 10 }^{ -4 } "
         "{ \\mathrm{m} }^{ 3 }$ of space.", "V", "number", "m³"),
        ("The angular frequency $\\omega$ of the motion is 2.0 rad/s here.", "omega", "number",
         "rad/s"),
    ],
)  # fmt: skip
def test_units_from_the_kind_of_a_quantity(tmp_path, text, name, unit, symbol):
    quantity = read(tmp_path, text, {name})[name]
    assert (quantity.unit, quantity.symbol) == (unit, symbol)


@pytest.mark.parametrize(
    ("text", "name", "description", "symbol"),
    [
        # a change written \Delta T in a where-list, a temperature in the °C the text uses
        ("The equation is $$\\Delta L = \\alpha L \\Delta T$$ where $\\Delta T$ is the change in "
         "temperature. It warmed by 30 °C, then by 20 °C.", "Delta_T", "change in temperature",
         "°C"),
        # a notation table's unit column
        ("| Symbol | Quantity | Unit |\n|---|---|---|\n| $Q$ | rate of heat loss through the "
         "wall | W |\n", "Q_", "rate of heat loss through the wall", "W"),
        # the unit written after a worked value of the symbol, outside the math
        ("The target level $C_{ss}$ is set by the prescriber. For $C_{ss} = 10$~mg/L the "
         "maintenance dose is $D = 336$~mg.", "C_ss", "target level", "mg/L"),
        # the last value of a worked line, and a unit with a denominator of two units
        ("$R_T$ is the total resistance. Here $R_T$ = 0.13 + 3.43 = 3.56 m²·K/W, and "
         "$U$ = 0.28 W/(m²·K).", "R_T", "total resistance", "m²·K/W"),
        ("The specific heat $c$ of water is 4.184 J/g °C.", "c", "specific heat", "J/(g·°C)"),
        # "units of" after the words; a coefficient takes only a per-unit
        ("The coefficient of linear expansion $\\alpha$ may have units of 1/°C or 1/K.",
         "alpha", "coefficient of linear expansion", "1/°C"),
        ("Here $\\mu_k$ is the coefficient of kinetic friction; $f = \\mu_k N = 0.3 N$.",
         "mu_k", "coefficient of kinetic friction", ""),
        # a value's unit of another kind is not the quantity's ("36 L" for a length)
        ("The length $L$ of the rod is 2.0 m. It holds $L = 36$ L of water.", "L", None, "m"),
    ],
)  # fmt: skip
def test_units_the_text_writes_for_a_symbol(tmp_path, text, name, description, symbol):
    quantity = read(tmp_path, text, {name})[name]
    if description is not None:
        assert quantity.description == description
    assert quantity.symbol == symbol


def test_a_subject_clause_names_an_inline_formula_and_a_gerund_names_nothing(tmp_path):
    text = (
        "Recognizing that current is $I = q / t$, we go on. Entering the values, obtaining\n\n"
        "$$V = 12$$\n\nbetween the board and the snow is $k = 0.1$."
    )
    found = read(tmp_path, text, {"I_", "V", "k"})
    assert found["I_"].description == "current"
    assert "V" not in found or found["V"].description != "obtaining"
    assert "k" not in found or found["k"].description != "snow"


def test_upright_letters_the_text_never_names_are_a_product_of_its_symbols(tmp_path):
    chapter = tmp_path / "power.md"
    chapter.write_text(
        "# Power\n\nThe current $I$ flows through a resistor. The voltage $V$ is across it.\n\n"
        "The electric power is $$P = \\mathrm{IV}$$\n\n"
        "The present value (PV) of a payment $C$ is $$\\mathrm{PV} = \\mathrm{FV}$$ where FV is "
        "the future value.\n"
    )
    knowledge = build_knowledge([chapter])
    formulas = {f.output: str(f.expr) for f in knowledge.graph.formulas}
    assert formulas.get("P") == "I_*V"
    assert any("PV is another name for FV" in r.reason for r in knowledge.rejected)


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        ("(P − 0.2·S_r)² / (P + 0.8·S_r)", "(P - 0.2*S_r)**2/(P + 0.8*S_r)"),
        ("(1/n) × R_h**(2/3) · √S", "R_h**(2/3)*sqrt(S_)/n"),
        ("√(2*g*h)", "sqrt(2)*sqrt(g*h)"),
    ],
)
def test_formulas_typed_with_unicode_signs(written, plain):
    assert str(parse_expression(written)) == plain


def test_a_plain_text_chapter_sets_its_symbols_bare(tmp_path):
    chapter = tmp_path / "runoff.txt"
    chapter.write_text(
        "6.1 Peak Runoff\n---------------\n\nThe peak flow is found with the rational method::\n\n"
        "    Q_p = C * i * A / 360\n\nHere Q_p is the peak runoff rate at the outlet in m³/s, "
        "i is the rainfall intensity in mm/h, and A is the catchment area in hectares.\n\n"
        "The runoff coefficient C is the fraction of the rainfall that becomes runoff. The "
        "runoff coefficient is "
        "typically between 0.05 and 0.95.\n\nThe runoff depth is\n\n"
        "    Q_d = (P − 0.2·S_r)² / (P + 0.8·S_r)\n\nwhere P is the total rainfall depth and S_r "
        "is the potential maximum retention.\n",
        encoding="utf-8",
    )
    knowledge = build_knowledge([chapter])
    quantities = knowledge.graph.quantities
    assert {f.output for f in knowledge.graph.formulas} == {"Q_p", "Q_d"}
    described = {n: quantities[n].description for n in ("Q_p", "i", "A", "C", "P", "S_r")}
    assert described == {
        "Q_p": "peak runoff rate at the outlet",
        "i": "rainfall intensity",
        "A": "catchment area",
        "C": "runoff coefficient",
        "P": "total rainfall depth",
        "S_r": "potential maximum retention",
    }
    assert (quantities["C"].low, quantities["C"].high) == (0.05, 0.95)
    assert (quantities["i"].symbol, quantities["A"].symbol) == ("mm/h", "ha")
    # a Markdown chapter marks its math: a bare letter there is a word, not the symbol
    markdown = tmp_path / "runoff.md"
    markdown.write_text("# Runoff\n\nThe flow is $$Q_p = C i$$ and C is large.\n", "utf-8")
    assert "C" not in find_definitions({"C"}, *_sections(markdown))


def test_a_description_without_a_word_still_reads_the_values_of_its_unit():
    # "ab" has no word of three letters to look for: the values in metres are used as they are
    quantity = parse_definition("L", "ab in metres", description="ab", document="5 m, 7 m.")
    assert (quantity.symbol, quantity.low, quantity.high) == ("m", 5.0, 7.0)


def test_anatomy_and_thermodynamics_phrasings(tmp_path):
    """Phrasings of Anatomy and Physiology 2e and Physics (OpenStax) the reader once missed."""
    # a word beside an abbreviation is a name set in words; its capitals stay
    assert word_name("systolic_BP") == "systolic BP"
    assert word_name("PV_FV") is None
    # a list entry "- ΔP represents ...", and a definition whose space the markup lost
    entry = "Poiseuille's equation uses these:\n\n- ΔP represents the difference in pressure."
    assert read(tmp_path, entry, {"Delta_P"})["Delta_P"].description == "difference in pressure"
    glued = "The first law states $\\Delta U = Q - W$ where $Q$is the net heat transfer."
    assert read(tmp_path, glued, {"Q"})["Q"].description == "net heat transfer"
    # millimetres of mercury, and a range "within the range of" with an en dash
    pressure = (
        "The mean arterial pressure $MAP$ is computed from the two readings. Normally, the "
        "MAP falls within the range of 70–110 mm Hg; here it is 93 mm Hg."
    )
    quantity = read(tmp_path, pressure, {"MAP"})["MAP"]
    assert (quantity.symbol, quantity.low, quantity.high) == ("mmHg", 70, 110)
    # values in scientific notation are values (not "1.20×1012 J": 1012 J)
    energy = (
        "Here $W$ is the work done by the engine. It takes in 1.20×10^12 J and does "
        "3.0×10^11 J of work."
    )
    quantity = read(tmp_path, energy, {"W"})["W"]
    assert quantity.symbol == "J" and 1e11 <= quantity.low < quantity.high <= 1e13
    # "a quantity called X" is X
    called = "A way to quantify it is $E$, a quantity called thermal efficiency."
    assert clean_description("quantity called thermal efficiency", "E") == "thermal efficiency"
    assert read(tmp_path, called, {"E"})["E"].description != "quantity called thermal efficiency"


def test_us_units_one_length_system_and_letters_that_are_factors(tmp_path):
    """Prealgebra 2e's geometry: inches and feet, "cu. ft" and "sq. in.", and "$S = 2 L H$"
    (2 times the length, not 2 litres)."""
    from benchsmith.solution.quantities import _physical_kind, physical_unit

    assert [physical_unit(t) for t in ("12 inches", "216 cu. ft", "1,264 sq. in.", "3 ft")] == [
        "in", "ft³", "in²", "ft"
    ]  # fmt: skip
    text = (
        "A box has length 22 inches and height 9 inches; its volume is 2,772 cu. in. and its "
        "surface is 1,264 sq. in. A shed is 8 ft tall. $$S = 2 L H + 2 L W$$ $$V = 2 L W H$$"
    )
    assert _physical_kind("volume", text) == "in³"  # not litres: "2 L W" is a product
    assert _physical_kind("surface area", text) == "in²"
    assert _physical_kind("height", text) == "in"
    assert _physical_kind("kinetic energy", "so $K = 4.1 \\times 10^{-21} J$ here") == "J"


def test_a_verb_of_finding_and_punctuation_set_in_math_name_nothing(tmp_path):
    found = read(tmp_path, "Now we must find $v_{0y}$, the component of the velocity.", {"v_0y"})
    assert found.get("v_0y") is None or "find" not in found["v_0y"].description
    assert noun_before("Now we must find") is None

"""Textbook files in their own formats: OpenStax CNXML with MathML, HTML and LaTeX.

Each is read as Markdown with TeX math (``benchsmith.markup``) and then by the same reader
as a Markdown chapter. The corpus files are the real OpenStax modules of
``tests/textbooks/corpus`` (CC BY 4.0, see ATTRIBUTION.md); only files not held out are
read here.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from benchsmith.markup import (
    MarkupError,
    cnxml_markdown,
    html_markdown,
    mathml_to_tex,
    tex_markdown,
    to_markdown,
)
from benchsmith.solution.errors import SolutionError
from benchsmith.solution.expressions import parse_expression
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.solution.latex import latex_to_plain

CORPUS = Path(__file__).resolve().parent / "corpus"
M = 'xmlns="http://www.w3.org/1998/Math/MathML"'


def equation(latex: str) -> tuple[str, str]:
    left, right = latex_to_plain(latex).split("=")
    return str(parse_expression(left)), str(parse_expression(right))


def tex(mathml: str) -> str:
    return mathml_to_tex(ET.fromstring(mathml.replace("<math>", f"<math {M}>")))


def test_mathml_words_upright_letters_subscripts_and_units():
    # Principles of Finance writes formulas in words, one <mi> per word.
    words = tex(
        "<math><mi>Par</mi><mi>Value</mi><mo>×</mo><mi>Annual</mi><mi>Coupon</mi><mi>Rate</mi>"
        "<mo>=</mo><mi>Annual</mi><mi>Coupon</mi><mi>Payment</mi></math>"
    )
    assert latex_to_plain(words) == "Par_Value * Annual_Coupon_Rate = Annual_Coupon_Payment"
    upright = tex('<math><msub><mrow><mi mathvariant="normal">P</mi><mi mathvariant="normal">V'
                  "</mi></mrow><mi>Coupon</mi></msub></math>")  # fmt: skip
    assert latex_to_plain(upright) == "PV_Coupon"
    # Italic letters side by side are a product; a unit after a number is not a quantity.
    product = tex("<math><mi>v</mi><mo>=</mo><msub><mi>v</mi><mn>0</mn></msub><mo>−</mo>"
                  "<mi>g</mi><mi>t</mi></math>")  # fmt: skip
    assert latex_to_plain(product) == "v = v_0 - g t"
    unit = tex("<math><mi>g</mi><mo>=</mo><mn>9.81</mn><mspace/><mtext>m/s</mtext></math>")
    assert "m" not in latex_to_plain(unit).replace("g", "")
    greek = tex("<math><msub><mi>μ</mi><mtext>k</mtext></msub><mi>N</mi></math>")
    assert latex_to_plain(greek) == "mu_k N"


def test_mathml_names_in_text_units_with_powers_and_line_breaks():
    # Names set in <mtext> inside a fraction (Principles of Finance's liquidity ratios).
    ratio = tex("<math><mtext>Cash Ratio</mtext><mo>=</mo><mfrac><mtext>Cash and Cash Equivalents"
                "</mtext><mtext>Current Liabilities</mtext></mfrac></math>")  # fmt: skip
    assert equation(ratio) == ("Cash_Ratio", "Cash_and_Cash_Equivalents/Current_Liabilities")
    # A slash set as text divides (University Physics: E = V/d).
    assert equation(tex("<math><mi>E</mi><mo>=</mo><mrow><mi>V</mi><mtext>/</mtext>"
                        "<mi>d</mi></mrow></math>")) == ("E_", "V/d")  # fmt: skip
    # A unit with a power after a number is not a quantity: g = 9.81 m/s².
    unit = tex("<math><mi>g</mi><mo>=</mo><mn>9.81</mn><mspace/><msup><mrow><mtext>m/s</mtext>"
               "</mrow><mn>2</mn></msup></math>")  # fmt: skip
    assert latex_to_plain(unit) == "g = 9.81"
    # Words, upright letters, "&" and a number make one name; D% is the weight D_pct.
    words = tex('<math><mi>Risk</mi><mi>Premium</mi><mo>=</mo><mi mathvariant="normal">S</mi>'
                '<mo>&amp;</mo><mi mathvariant="normal">P</mi><mo> </mo><mn>500</mn><mi>Avg</mi>'
                "<mi>Return</mi><mo>-</mo><mtext>US T-Bill Avg Return</mtext></math>")  # fmt: skip
    assert equation(words) == ("Risk_Premium", "S_P_500_Avg_Return - US_TBill_Avg_Return")
    weight = tex("<math><mi>W</mi><mo>=</mo><mi>D</mi><mo>%</mo><mo>×</mo><msub><mi>r</mi>"
                 "<mrow><mi>US</mi><mo> </mo><mi mathvariant=\"normal\">T</mi><mo>-</mo>"
                 "<mi>bill</mi></mrow></msub></math>")  # fmt: skip
    assert equation(weight) == ("W", "D_pct*r_USTbill")
    # A line break inside one <math> separates two formulas.
    two = tex('<math><mi>a</mi><mo>=</mo><mi>b</mi><mspace linebreak="newline"/><mi>c</mi>'
              "<mo>=</mo><mi>d</mi></math>")  # fmt: skip
    assert [equation(line) for line in two.splitlines()] == [("a", "b"), ("c", "d")]


def test_cnxml_headings_paragraphs_italic_symbols_and_equations():
    module = f"""<document xmlns="http://cnx.rice.edu/cnxml"><title>Free Fall</title>
    <content><section><title>Gravity</title>
    <para>The kinetic energy of a particle with mass <emphasis effect="italics">m</emphasis>
    and initial speed <emphasis effect="italics">v</emphasis><sub>0</sub> is</para>
    <equation><math {M}><mi>K</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac><mi>m</mi>
    <msup><mi>v</mi><mn>2</mn></msup></math></equation></section></content></document>"""
    text = cnxml_markdown(module)
    assert text.startswith("# Free Fall\n\n## Gravity\n\n")
    assert "mass $m$" in text and "initial speed $v_{0}$" in text
    (display,) = re.findall(r"\$\$(.+?)\$\$", text)
    assert equation(display) == ("K", "m*v**2/2")
    with pytest.raises(MarkupError, match="not well-formed"):
        cnxml_markdown("<document><title>x</document>", "broken.cnxml")


def test_latex_and_html_chapters():
    chapter = r"""\documentclass{article}\begin{document}
    \section{Growth} % a comment
    The intrinsic rate \(r\) is
    \begin{equation}\label{eq:r} r = b - d \end{equation}
    \begin{align*} P_t &= P_0 e^{r t} \\ t_d &= \frac{\ln 2}{r} \end{align*}
    \end{document}"""
    text = tex_markdown(chapter)
    assert "## Growth" in text and "rate $r$ is" in text and "comment" not in text
    assert "$$r = b - d$$" in text and "$$P_t = P_0 e^{r t}$$" in text
    page = f"""<html><body><h2>Rates</h2><p>The attack rate \\(AR\\) is</p>
    <p><math {M} display="block"><mi>AR</mi><mo>=</mo><mfrac><mi>C</mi><mi>N</mi></mfrac>
    </math></p><ul><li>where \\(C\\) is the number of cases</li></ul></body></html>"""
    text = html_markdown(page)
    assert "## Rates" in text and "attack rate $AR$ is" in text
    (display,) = re.findall(r"\$\$(.+?)\$\$", text)
    assert equation(display) == ("AR", "C/N_") and "- where $C$ is" in text


def test_a_real_openstax_module_is_read_and_its_formulas_admitted():
    key = json.loads((CORPUS / "fin-perpetuities.key.json").read_text(encoding="utf-8"))
    assert key["held_out"] is False
    knowledge = build_knowledge([CORPUS / key["file"]])
    present = {str(f.expr) for f in knowledge.graph.formulas if f.output == "PV"}
    assert {"C/R_s", "C/(-G + R_s)"} <= present  # the constant and the growing perpetuity
    words = {n: q.description for n, q in knowledge.graph.quantities.items()}
    assert words["PV"] == "price of the preferred stock"
    assert words["R_s"] == "required rate of return"


def test_unreadable_markup_is_named(tmp_path):
    broken = tmp_path / "chapter.cnxml"
    broken.write_text("<document><para>unclosed</document>", encoding="utf-8")
    with pytest.raises(MarkupError, match="chapter.cnxml: not well-formed XML"):
        to_markdown(broken)
    from benchsmith.solution.documents import read_document

    with pytest.raises(SolutionError, match="not well-formed"):
        read_document(broken)
    odd = tmp_path / "chapter.docx"
    odd.write_bytes(b"PK")
    with pytest.raises(SolutionError, match=r"must be .md, .txt, .pdf, .tex, .html, .cnxml"):
        read_document(odd)


def test_html_display_math_between_paragraphs_is_kept():
    page = (
        "<!DOCTYPE html><html><body><section><h2>Rates</h2><p>The prevalence \\(P\\) is</p>"
        '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mi>P</mi><mo>=</mo>'
        "<mfrac><mi>C</mi><mi>N</mi></mfrac></math><p>The incidence rate is</p>"
        "\\[ \\mathrm{IR} = \\frac{A}{T} \\]<!-- a note --><p>where it ends.</p></section>"
        "</body></html>"
    )
    markdown = html_markdown(page)
    assert "$$P = \\frac{ C }{ N }$$" in markdown
    assert "$$ \\mathrm{IR} = \\frac{A}{T} $$" in markdown
    assert markdown.index("is") < markdown.index("$$P") < markdown.index("incidence")
    assert "html" not in markdown.split()[0] and "a note" not in markdown


def test_mathml_greek_runs_numbers_set_as_text_and_starred_names():
    # "αL" set as one <mi> is alpha times L; "Δ" then an italic letter is one change.
    assert equation(tex("<math><mi>ΔL</mi><mo>=</mo><mi>αL</mi><mtext>Δ</mtext>"
                        "<mstyle><mtext>T</mtext></mstyle></math>")) == (
        "Delta_L", "Delta_T*L*alpha")  # fmt: skip
    # A number set as text is a value and the unit after it is dropped ("55 ºC").
    assert latex_to_plain(tex("<math><mi>T</mi><mo>=</mo><mtext>55</mtext><mtext>°C</mtext>"
                              "</math>")) == "T = 55"  # fmt: skip
    # P_A^* (the pure solvent's vapour pressure) is its own quantity.
    starred = tex(
        "<math><msub><mi>P</mi><mi>A</mi></msub><mo>=</mo><msub><mi>X</mi><mi>A</mi>"
        "</msub><msup><msub><mi>P</mi><mi>A</mi></msub><mo>*</mo></msup></math>"
    )
    assert equation(starred) == ("P_A", "P_A_star*X_A")


def test_cnxml_prose_values_keep_their_units_and_changes_are_one_symbol():
    module = f"""<document xmlns="http://cnx.rice.edu/cnxml"><title>Heat</title>
    <content><para>Here Δ<emphasis effect="italics">T</emphasis> is the temperature change.
    The change in temperature is <math {M}><mrow><mtext>55</mtext><mtext>º</mtext>
    <mtext>C</mtext></mrow></math>.</para></content></document>"""
    text = cnxml_markdown(module)
    assert "Here $\\Delta T$ is the temperature change" in text
    assert "The change in temperature is 55 °C." in " ".join(text.split())


def test_two_formulas_on_one_line_are_two_and_letters_the_text_names_are_one_name():
    # "W_i = F_i d_i and W_o = F_o d_o" (College Physics): a word between two formulas.
    two = tex("<math><msub><mi>W</mi><mi>i</mi></msub><mo>=</mo><msub><mi>F</mi><mi>i</mi>"
              "</msub><msub><mi>d</mi><mi>i</mi></msub><mtext>and</mtext><msub><mi>W</mi>"
              "<mi>o</mi></msub><mo>=</mo><msub><mi>F</mi><mi>o</mi></msub><msub><mi>d</mi>"
              "<mi>o</mi></msub></math>")  # fmt: skip
    assert [equation(line) for line in two.splitlines()] == [("W_i", "F_i*d_i"), ("W_o", "F_o*d_o")]
    # "and" inside one formula ("x = a and b" is not two formulas) stays a dropped word.
    one = tex("<math><mi>x</mi><mo>=</mo><mi>a</mi><mtext>and</mtext><mi>b</mi></math>")
    assert len(one.splitlines()) == 1
    # A table row with a whole formula per cell (Prealgebra's V = LWH | S = 2LH + ...).
    row = tex(
        "<math><mtable><mtr><mtd><mi>V</mi><mo>=</mo><mi>L</mi><mi>W</mi><mi>H</mi></mtd>"
        "<mtd/><mtd><mi>S</mi><mo>=</mo><mn>2</mn><mi>L</mi><mi>H</mi></mtd></mtr>"
        "<mtr><mtd><mi>a</mi></mtd><mtd><mo>=</mo><mi>b</mi></mtd></mtr></mtable></math>"
    )
    assert [equation(line) for line in row.splitlines()] == [
        ("V", "H*L*W"), ("S_", "2*H*L"), ("a", "b")  # an aligned row's cells stay one formula
    ]  # fmt: skip
    # Letters set side by side that spell a name the text writes ("IMA") are that name; the
    # same letters in a text that never writes the name are a product.
    formula = (f"<math {M}><mi>I</mi><mi>M</mi><mi>A</mi><mo>=</mo><mfrac><msub><mi>F</mi>"
               "<mi>r</mi></msub><msub><mi>F</mi><mi>e</mi></msub></mfrac></math>")  # fmt: skip

    def module(prose: str) -> str:
        head = '<document xmlns="http://cnx.rice.edu/cnxml"><title>Machines</title><content>'
        return f"{head}<para>{prose}</para><equation>{formula}</equation></content></document>"

    named = cnxml_markdown(module("The ideal mechanical advantage (IMA) of a lever is"))
    assert equation(re.search(r"\$\$(.+?)\$\$", named).group(1)) == ("IMA", "F_r/F_e")
    unnamed = cnxml_markdown(module("For a lever,"))
    assert equation(re.search(r"\$\$(.+?)\$\$", unnamed).group(1)) == ("A*I_*M", "F_r/F_e")


def test_a_formula_set_as_text_keeps_its_names_operators_and_powers():
    # Anatomy and Physiology 2e sets its formulas as text: names of words, Greek letters run
    # together, a superscript over a run of symbols (it shows on the last one).
    mean = tex(
        f"<math {M}><mtext>MAP\u00a0=\u00a0diastolic\u00a0BP\u00a0+\u00a0</mtext><mfrac>"
        "<mtext>(systolic\u00a0BP-diastolic\u00a0BP)</mtext><mn>3</mn></mfrac></math>"
    )
    assert equation(mean) == equation(
        r"\mathrm{MAP} = \mathrm{diastolic_BP} + (\mathrm{systolic_BP} - \mathrm{diastolic_BP})/3"
    )
    flow = tex(
        f"<math {M}><mtext>Blood flow = </mtext><mfrac><msup><mrow><mtext>π ΔP r</mtext>"
        "</mrow><mtext>4</mtext></msup><mrow><mtext>8ηλ</mtext></mrow></mfrac></math>"
    )
    assert equation(flow) == ("Blood_flow", "pi*Delta_P*r**4/(8*eta*lamda)")
    resistance = tex(
        f"<math {M}><mtext>Resistance =</mtext><mfrac><mtext>8ηλ</mtext><msup>"
        "<mrow><mtext>πr</mtext></mrow><mtext>4</mtext></msup></mfrac></math>"
    )
    assert equation(resistance) == ("Resistance", "8*eta*lamda/(pi*r**4)")
    # a value with its unit set as text stays a value; a line of prose is no name
    assert tex(f"<math {M}><mi>x</mi><mo>=</mo><mtext>18,140 J</mtext></math>").split() == [
        "x", "=", "18140"
    ]  # fmt: skip
    prose = tex(
        f"<math {M}><mi>A</mi><mo>=</mo><mtext>(Substitute into the growth formula)</mtext></math>"
    )
    assert "Substitute" not in prose


def test_prose_powers_and_a_symbol_the_prose_sets_in_italics():
    head = '<document xmlns="http://cnx.rice.edu/cnxml"><title>Heat engines</title><content>'
    formula = (f"<math {M}><mi>E</mi><mi>f</mi><mi>f</mi><mo>=</mo><mfrac><mi>W</mi><msub>"
               "<mi>Q</mi><mtext>h</mtext></msub></mfrac></math>")  # fmt: skip
    module = (
        f'{head}<para>We define thermal efficiency, <emphasis effect="italics">Eff</emphasis>,'
        " as the ratio; it takes in 1.20×10<sup>12</sup> J by heat over 3 m<sup>2</sup>.</para>"
        f"<equation>{formula}</equation></content></document>"
    )
    text = cnxml_markdown(module)
    assert "1.20×10^12 J" in text and "3 m^2" in text  # not "1.20×1012 J"
    assert equation(re.search(r"\$\$(.+?)\$\$", text).group(1)) == ("Eff", "W/Q_h")
    # two letters in italics are a product ("Ad" is A times d), not a name
    two = module.replace("Eff</emphasis>", "Ad</emphasis>").replace(
        "<mi>E</mi><mi>f</mi><mi>f</mi>", "<mi>A</mi><mi>d</mi>"
    )
    assert equation(re.search(r"\$\$(.+?)\$\$", cnxml_markdown(two)).group(1))[0] == "A*d"


def test_punctuation_set_inside_inline_math_is_the_sentence_s():
    # Prealgebra 2e: "with length <math>L ,</math> width <math>W ,</math> and height <math>H :"
    module = (
        '<document xmlns="http://cnx.rice.edu/cnxml"><title>Solids</title><content><para>'
        f"with length <math {M}><mi>L</mi><mo>,</mo></math> and height <math {M}><mi>H</mi>"
        "<mo>:</mo></math> the box</para></content></document>"
    )
    assert "with length $L$, and height $H$: the box" in cnxml_markdown(module)


def test_notes_of_a_worked_step_set_in_a_formula_are_no_names():
    # College Algebra 2e annotates its steps in the formula's own table cells
    for note in ("Take the natural logarithm", "Divide by 10", "Substitute", "when compounded"):
        assert "mathrm" not in tex(f"<math {M}><mi>k</mi><mo>=</mo><mn>2</mn><mtext>{note}</mtext>"
                                   "</math>"), note  # fmt: skip
    assert "SP_500_Avg_Return" in tex(f"<math {M}><mi>x</mi><mo>=</mo><mtext>S&amp;P 500 Avg "
                                       "Return</mtext></math>")  # fmt: skip


def test_a_table_row_that_names_a_formula_is_the_formula_and_other_rows_are_left_out():
    def row(*cells):
        return "<row>" + "".join(f"<entry>{c}</entry>" for c in cells) + "</row>"

    def frac(top, bottom):
        return (
            f"<math {M}><mfrac><mrow><mtext>{top}</mtext></mrow>"
            f"<mrow><mtext>{bottom}</mtext></mrow></mfrac></math>"
        )

    module = f"""<document xmlns="http://cnx.rice.edu/cnxml"><title>Ratios</title>
    <content><para>The ratios of a firm.</para><table><tgroup cols="4"><tbody>
    {row("Ratio", "Formula", "Calculation", "Result")}
    {
        row(
            "Acid-test (quick) ratio",
            frac("Total current assets–inventory", "Total current liabilities"),
            frac("$83,200", "$60,150"),
            "1.1",
        )
    }
    {
        row(
            "Earnings per share",
            frac("Net profit", "Number of shares of common stock outstanding"),
            frac("$5,000", "2,000"),
            "2.5",
        )
    }
    {row("Delicious Desserts", "20XX", "1.4")}
    </tbody></tgroup></table></content></document>"""
    text = cnxml_markdown(module)
    displays = [equation(d) for d in re.findall(r"\$\$(.+?)\$\$", text)]
    # a minus set as an en dash in text is one; a long name of words is one quantity
    assert displays == [
        ("Acidtest_quick_ratio", "(Total_current_assets - inventory)/Total_current_liabilities"),
        ("Earnings_per_share", "Net_profit/Number_of_shares_of_common_stock_outstanding"),
    ]
    assert "83,200" not in text and "Delicious" not in text  # worked cells and data rows


def test_a_prose_name_equal_to_inline_math_and_a_code_line_s_library_calls(tmp_path):
    from benchsmith.solution.formulas import find_candidates, parse_candidate

    (iqr,) = find_candidates("It is the difference. IQR = $Q_{3}$ – $Q_{1}$. The IQR is 7.")
    assert parse_candidate(iqr) == ("IQR", parse_expression("Q_3 - Q_1"))
    assert find_candidates("It costs $5 – $6 a day.") == []
    path = tmp_path / "distance.md"
    path.write_text(
        "# Distance\n\n```python\ndistance = math.sqrt((x2 - x1)**2 + (y2 - y1)**2)\n"
        "area = math.pi * r**2\ncircumference = math.tau * r\n```\n",
        encoding="utf-8",
    )
    from benchsmith.solution.documents import read_document

    code = [c for c in find_candidates(read_document(path).text) if c.syntax == "code"]
    parsed = {c.lhs: parse_candidate(c)[1] for c in code}
    assert parsed["distance"] == parse_expression("sqrt((x2 - x1)**2 + (y2 - y1)**2)")
    assert parsed["area"] == parse_expression("pi*r**2")
    assert parsed["circumference"] == parse_expression("2*pi*r")

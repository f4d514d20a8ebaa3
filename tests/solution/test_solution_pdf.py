"""A PDF reference: read by pypdf, its formula admitted only with plausible ranges, and its
items recomputable, with the page as the source section."""

from benchsmith.solution import generate_items
from benchsmith.solution.knowledge import build_knowledge
from benchsmith.testing.pdf import minimal_pdf

LINES = [
    "Future value of a single sum",
    "FV = PV * (1 + r)**n",
    "where PV is the present value, in dollars, typically between 100 and 5,000 dollars,",
    "r is the interest rate per period, in percent per period, typically between 1% and 5%,",
    "n is the number of periods, in periods, typically between 1 and 10 periods.",
]
FV = "where FV is the future value, in dollars, typically between 100 and 100,000 dollars."


def test_pdf_formula_with_an_undefined_symbol_is_rejected_with_the_reason(tmp_path):
    pdf = tmp_path / "chapter.pdf"
    pdf.write_bytes(minimal_pdf(LINES))
    knowledge = build_knowledge([pdf])
    assert not knowledge.graph.formulas
    (rejected,) = [r.to_dict() for r in knowledge.rejected]
    assert rejected["text"] == "FV = PV * (1 + r)**n"
    assert rejected["source"]["file"].endswith("chapter.pdf")
    assert rejected["source"]["section"] == "page 1"
    assert rejected["reason"].startswith("no definition in the text of the symbol(s) FV")


def test_pdf_reference_gives_recomputable_items(tmp_path):
    pdf = tmp_path / "chapter.pdf"
    pdf.write_bytes(minimal_pdf([*LINES[:2], FV, *LINES[2:]]))
    result = generate_items([pdf], 6, seed=3, difficulties=(1,), answer_formats=("numeric",))
    assert len(result.items) == 6 and not result.rejected_formulas
    for item in result.items:
        meta = item.metadata
        assert meta["source"]["section"] == "page 1"
        graph = meta["solution_graph"]
        givens = graph["givens"]
        assert [s["output"] for s in graph["steps"]] == [graph["target"]]
        if graph["target"] == "FV":
            expected = givens["PV"] * (1 + givens["r"]) ** givens["n"]
            assert abs(float(item.target) - expected) <= 0.005  # to the cent, as asked

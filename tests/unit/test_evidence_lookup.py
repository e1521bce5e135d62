"""Step ``lookup``: a claim's value is looked up in the table row that names its quantity."""

from __future__ import annotations

import pytest

from gechat.evidence.base import ClaimInput, EvidencePool, as_answer_to
from gechat.evidence.candidates import Candidates
from gechat.evidence.lookup import TableLookup
from gechat.evidence.scoring import NliScores
from gechat.evidence.steps import ClaimState
from tests.unit.test_evidence_objective import Scripted, context

TABLE = [
    "Merchandise inventories | February 2, 2019: 5,409 | February 3, 2018: 5,209 ($ in millions)",
    "Total Company | 2018: $ 36,500 | Assets 2017: $ 37,987 | Capital Expenditures 2018: $ 1,577 | "
    "Capital Expenditures 2017: $ 1,373 (Millions)",
    "Purchases of property, plant and equipment | 2018: (1,577) | 2017: (1,373) (Millions)",
    "Net revenue | FY2022: 17,606 | FY2021: 15,785 (in millions)",
    "Inventories rose as the company opened new stores in 2019.",
]


def run(claim: str, given: str = "", texts: list[str] | None = None) -> ClaimState:
    ctx = context(Scripted({}), coverage="facts")  # the model passes nothing: the rows decide
    ctx.pool = EvidencePool.from_texts(["\n\n".join(texts or TABLE)])
    st = ClaimState(claim=ClaimInput(text=claim, source="answer", given=given))
    for step in (Candidates(60), NliScores(), TableLookup()):
        step.run([st], ctx)
    return st


def test_the_row_naming_the_quantity_states_the_value_in_the_claims_year() -> None:
    st = run("Merchandise inventories were $5,409 million at the end of fiscal 2019.")
    assert st.verdict == "supported" and st.passes
    assert [e.text for e in st.evidence] == [TABLE[0]]
    assert st.note == "looked up in the table row 'Merchandise inventories' (p. 1): February 2, 2019: 5,409 million"


def test_a_column_header_names_the_quantity_of_a_total_row() -> None:
    question = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    # "$1577.00" answering a question "in USD millions" is $1,577 million
    st = run(as_answer_to(question, "$1577.00"), given=question)
    assert st.verdict == "supported"
    assert [e.text for e in st.evidence] == [TABLE[1]]
    assert "Capital Expenditures 2018: $ 1,577 million" in st.note


def test_a_claim_that_names_no_year_may_be_of_any_column() -> None:
    assert run("Inventories were $5,409 million.").verdict == "supported"
    assert run("Net revenue was $17.6 billion in FY2022.").verdict == "supported"  # rounded as written


@pytest.mark.parametrize("claim", [
    "Net revenue was $5,409 million in 2019.",  # the row that states it names inventories
    "Capital spending was $1,577 million in 2018.",  # no row names "spending": a paraphrase stays unsupported
    "Net revenue was $17.6 billion in FY2022 and $15.1 billion in FY2021.",  # two values: one is wrong
    "Merchandise inventories rose 5,509 units in fiscal 2019.",  # a change is no level of the row
    "Merchandise inventories were $5,509 million at the end of 2019 and 2018.",  # two years
])
def test_what_a_lookup_does_not_support(claim: str) -> None:
    st = run(claim)
    assert st.verdict is None and not st.passes


@pytest.mark.parametrize(("claim", "stated"), [
    ("Merchandise inventories were $5,209 million at the end of fiscal 2019.", "5,409"),  # 2018's value
    ("Merchandise inventories were $5,509 million at the end of fiscal 2019.", "5,409"),  # no cell states it
    ("Net revenue was $17.6 billion in FY2021.", "15,785"),  # FY2022's value
])
def test_the_row_naming_the_quantity_states_another_value_for_the_year(claim: str, stated: str) -> None:
    st = run(claim)
    assert st.verdict == "contradicted" and not st.passes and len(st.evidence) == 1
    assert st.note.startswith("the table row ") and f"states {stated}" in st.note


@pytest.mark.parametrize("texts", [
    # a label naming what the claim does not: another measure
    ["Adjusted net revenue | FY2021: 15,100 | FY2020: 14,000 (in millions)"],
    # a quarter's column is another period
    ["Net revenue | First quarter FY2021: 3,900 | First quarter FY2020: 3,500 (in millions)"],
    # two rows naming it disagree: which is the year's is not known
    [TABLE[3], "Net revenue | FY2021: 15,102 | FY2020: 14,000 (in millions)"],
    # prose states the claim's value: the model's to read
    [TABLE[3], "Net revenue was $17.6 billion in FY2021, the company said."],
    # a percentage is no reading of a bare figure
    ["Net revenue | FY2021: 15,785 | FY2020: 14,000 (in millions)"],
])
def test_no_contradiction_where_the_rows_do_not_settle_it(texts: list[str]) -> None:
    claim = ("Net revenue was 17.6% in FY2021." if texts[0].startswith("Net revenue | FY2021")
             else "Net revenue was $17.6 billion in FY2021.")
    assert run(claim, texts=texts).verdict is None


def test_short_figures_and_prose_are_left_to_the_model() -> None:
    assert run("Net revenue was $18 billion in FY2022.").verdict is None  # two significant digits
    assert run("Inventories rose in 2019.", texts=[TABLE[4]]).verdict is None  # no value, no row
    assert run("Inventories were 5,409 in 2019.", texts=[TABLE[4]]).verdict is None


@pytest.mark.parametrize("row", [
    "Industrial | Net Sales 2018: $ 7,945 | Net Sales 2017: $ 7,512 (Millions)",  # a segment's
    "Net sales - Asia | 2018: 7,945 | 2017: 7,512 (Millions)",  # a region's
])
def test_a_row_of_a_part_is_no_lookup_for_the_whole(row: str) -> None:
    assert run("Acme's net sales in 2018 were $7,945 million.", texts=[row]).verdict is None
    # the claim that names the part is looked up
    part = "Industrial" if row.startswith("Industrial") else "Asia"
    assert run(f"Acme's {part} net sales in 2018 were $7,945 million.", texts=[row]).verdict == "supported"


def test_rows_found_by_the_claims_figures_are_read_by_the_lookup_alone() -> None:
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([TABLE[4]])  # what the question retrieved: prose
    found = EvidencePool.from_texts([TABLE[0]]).sentences  # a row stating the claim's figure
    ctx.pool.rows = [s.model_copy(update={"id": 99}) for s in found]
    st = ClaimState(claim=ClaimInput(text="Merchandise inventories were $5,409 million in fiscal 2019.",
                                     source="answer"))
    for step in (Candidates(60), NliScores(), TableLookup()):
        step.run([st], ctx)
    assert st.verdict == "supported" and [e.text for e in st.evidence] == [TABLE[0]]
    assert [c.id for c in st.candidates] == [1]  # not a candidate: the model never read it
    assert st.evidence[0].p_entail == 0.0 and st.note.startswith("looked up in the table row")
    # a claim the row does not bear out is not touched by it
    wrong = ClaimState(claim=ClaimInput(text="Net revenue was $5,409 million in 2019.", source="answer"))
    for step in (Candidates(60), NliScores(), TableLookup()):
        step.run([wrong], ctx)
    assert wrong.verdict is None


def test_the_twelve_months_column_is_the_years_and_a_quarters_is_not() -> None:
    row = ("Net revenue | FOURTH QUARTER FY2021: 4,100 | FOURTH QUARTER FY2020: 3,800 | TWELVE MONTHS FY2021: 15,785"
           " | TWELVE MONTHS FY2020: 14,000 (in millions)")
    st = run("Net revenue was $17.6 billion in FY2021.", texts=[row])
    assert st.verdict == "contradicted" and "states 15,785" in st.note


def test_a_quarters_column_states_no_figure_of_the_year() -> None:
    row = ("Total Company | Fourth quarter 2018 Net Sales: $ 7,945 | Fourth quarter 2017 Net Sales: $ 7,990"
           " (Dollars in millions)")
    asked = "What were Acme's net sales in 2018?"
    assert run("Acme's net sales in 2018 were $7,945 million.", given=asked, texts=[row]).verdict is None
    asked = "What were Acme's net sales in the fourth quarter of 2018?"
    st = run("Acme's net sales in the fourth quarter of 2018 were $7,945 million.", given=asked, texts=[row])
    assert st.verdict == "supported"

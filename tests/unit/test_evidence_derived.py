"""Step ``derived``: a computed figure is checked by computing it again from the table rows."""

from __future__ import annotations

import pytest

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.derived import DerivedFigures
from gechat.evidence.scoring import NliScores
from gechat.evidence.steps import ClaimState
from gechat.retrieve.synonyms import Synonyms, load_synonyms
from tests.unit.test_evidence_objective import Scripted, context

TABLE = [
    "Net revenue | FY2022: 17,606 | FY2021: 15,785 (in millions)",
    "Cost of revenue | FY2022: 9,100 | FY2021: 8,250 (in millions)",
    "Operating income | FY2022: 4,410 | FY2021: 3,900 (in millions)",
    "Headcount rose as the company opened new offices in 2022.",
]


def run(claim: str, given: str = "", texts: list[str] | None = None, synonyms: Synonyms | None = None) -> ClaimState:
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts(["\n\n".join(texts or TABLE)])
    st = ClaimState(claim=ClaimInput(text=claim, source="answer", given=given))
    for step in (Candidates(60), NliScores(), DerivedFigures(synonyms=synonyms)):
        step.run([st], ctx)
    return st


def test_a_growth_rate_is_recomputed_from_one_rows_two_years() -> None:
    st = run("Net revenue grew 11.5% from FY2021 to FY2022.")
    assert st.verdict == "supported"
    assert [e.text for e in st.evidence] == [TABLE[0]]
    assert st.note.startswith("computed (17,606 million - 15,785 million) / 15,785 million = 11.54%")
    assert "'Net revenue' FY2022: 17,606 million (p. 1)" in st.note
    assert "'Net revenue' FY2021: 15,785 million (p. 1)" in st.note
    # one year named: the change is from the period before it in the same row
    assert run("Net revenue grew 11.5% in FY2022.").verdict == "supported"


def test_a_margin_is_recomputed_from_two_rows_of_one_year() -> None:
    st = run("The FY2022 operating margin on net revenue was 25.0%.")
    assert st.verdict == "supported"
    assert sorted(e.text for e in st.evidence) == sorted([TABLE[0], TABLE[2]])
    assert "4,410 million / 17,606 million = 25.05%" in st.note


@pytest.mark.parametrize(("claim", "supported"), [
    ("Net revenue grew 11.5% to $17,606 million in FY2022.", True),  # the level is the operand row's
    ("Net revenue grew 11.5% to $18,606 million in FY2022.", False),
    ("The operating margin on net revenue was 25.0% in FY2022 and 24.7% in FY2021.", True),
    ("The operating margin on net revenue was 25.0% in FY2022 and 30.0% in FY2021.", False),  # one value wrong
    # a value that follows from the claim's own computed values
    ("The operating margin on net revenue rose from 24.7% in FY2021 to 25.0% in FY2022, up 0.3%.", True),
    ("The operating margin on net revenue rose from 24.7% in FY2021 to 25.0% in FY2022, up 0.9%.", False),
])
def test_every_value_of_the_claim_must_be_computed_or_stated_by_an_operand_row(claim: str, supported: bool) -> None:
    st = run(claim)
    assert (st.verdict == "supported") is supported, st.note


def test_a_change_is_between_columns_that_differ_only_by_their_period() -> None:
    row = ("Net revenue | FOURTH QUARTER 2022: 4,400 | FOURTH QUARTER 2021: 4,000 | TWELVE MONTHS 2022: 17,606"
           " | TWELVE MONTHS 2021: 15,785 (in millions)")
    assert run("Net revenue grew 11.5% from 2021 to 2022.", texts=[row]).verdict == "supported"
    assert run("Net revenue grew 10.0% from 2021 to 2022.", texts=[row]).verdict == "supported"  # the quarter's
    # 17,606 against the fourth quarter of 2021 is no change of anything
    assert run("Net revenue grew 340% from 2021 to 2022.", texts=[row]).verdict is None


def test_sums_and_differences_of_amounts() -> None:
    assert run("Net revenue increased by $1.82 billion in FY2022.").verdict == "supported"
    # two significant digits: some difference of the table's figures would match by chance
    assert run("Net revenue increased by $1.8 billion in FY2022.").verdict is None
    st = run("Total of net revenue and cost of revenue in FY2021 was $24,035 million.")
    assert st.verdict == "supported" and "15,785 million + 8,250 million" in st.note


SHARES = [
    "Liability balance at December 31, 2022 | Employee Costs: 81 | Fixed Asset Related Costs: 2 | Other Costs: 10"
    " | Total Restructuring Costs: 93 ($ in millions)",
    "Commercial Airplanes | 2022: 25,867 | 2021: 19,493 (in millions)",
    "Defense | 2022: 23,162 | 2021: 26,540 (in millions)",
    "Total revenues | 2022: 66,608 | 2021: 62,286 (in millions)",
]


@pytest.mark.parametrize(("claim", "supported"), [
    ("87% of the total restructuring liability is related to employee costs.", True),  # 81 / 93, one row
    ("Commercial Airplanes made up 39% of total revenues in 2022.", True),  # 25,867 / 66,608, one column
    ("Defense made up 35% of total revenues in 2022.", True),
    ("Defense made up 37% of total revenues in 2022.", False),  # wrong share
    ("Defense made up 43% of total revenues in 2021.", True),
    ("Defense made up 35% of total revenues in 2021.", False),  # 2022's share
    ("11% of the total restructuring liability is other costs.", True),  # 10 / 93
    ("Airplanes and defense made up 90% of the total.", False),  # no one part over its total: 2 digits
    ("84% of restructuring costs is related to fixed assets.", False),  # no total named... 2 / 93 is 2%
])
def test_a_short_share_of_a_total_is_recomputed_from_the_part_the_claim_names(claim: str, supported: bool) -> None:
    st = run(claim, texts=SHARES)
    assert (st.verdict == "supported") is supported, st.note
    if supported:
        assert " / " in st.note


@pytest.mark.parametrize("claim", [
    "Net revenue grew 15% from FY2021 to FY2022.",  # wrong rate
    "Net revenue fell 11.5% from FY2021 to FY2022.",  # the change went the other way
    "The FY2021 operating margin on net revenue was 25.0%.",  # that is FY2022's margin
    "Net revenue was 11.5% of something.",  # no year, and no row of that name: nothing to divide
    "Net revenue was $17.6 billion in FY2022.",  # no computation named: a stated figure is not derived
    "Headcount grew 11.5% in 2022.",  # prose, no table row of that name
])
def test_no_computation_no_support(claim: str) -> None:
    st = run(claim)
    assert st.verdict is None and not st.passes and st.note == ""


def test_a_wrong_figure_is_never_contradicted_by_this_step() -> None:
    st = run("Net revenue grew 30% from FY2021 to FY2022.")
    assert st.verdict is None
    # but a claim that writes its arithmetic out wrong is, with the sum redone in its note
    st = run("Net revenue and cost of revenue in FY2021 total 15,785 + 8,250 = 25,035 million.")
    assert st.verdict == "contradicted" and st.note.endswith("= 24,035, not 25,035 million")
    assert [e.text for e in st.evidence] == TABLE[:2]  # shown: the rows that state its figures


def test_a_claims_own_wrong_arithmetic_contradicts_it() -> None:
    from gechat.evidence.arithmetic import miscomputed

    text = "The total monthly fee is $12,500 + $4,200 + $2,800 = $29,500."
    wrong = miscomputed(text)
    assert wrong is not None
    assert wrong.note == "its arithmetic is wrong: $12,500 + $4,200 + $2,800 = 19,500, not $29,500"
    assert text[wrong.start:wrong.end] == "$29,500" and wrong.right == "$19,500"
    margin = miscomputed("The margin is 1,200 / 10,000 = 15%.")
    assert margin is not None and margin.note == "its arithmetic is wrong: 1,200 / 10,000 = 12%, not 15%"
    assert margin.right == "12%"
    scaled = miscomputed("They total 15,785 + 8,250 = 25,035 million, and 6,489 / 7,500 = 0.95.")
    assert scaled is not None and scaled.right == "24,035 million"
    assert miscomputed("It is 6,489 / 7,500 = 0.95.").right == "0.87"  # type: ignore[union-attr]
    assert miscomputed("No figure here.") is None and miscomputed("Only one = 5.") is None
    for right in ("The total is $12,500 + $4,200 + $2,800 = $19,500.", "Net margin = 1,200 / 10,000 = 12%.",
                  "It is 6,489 / 7,500 = 0.8652.", "3 x 4 = 12 units", "5,000 - 3,000 = 2,000",
                  "Average PP&E is (253 + 282) / 2 = 267.5.", "(177,866 - 135,987) / 135,987 * 100 = 30.8%",
                  # not read: years, a plain statement with "="
                  "From 2018 - 2019 = 5%.", "In 2020 = $6 million."):
        assert miscomputed(right) is None, right


def test_brackets_are_read_and_a_share_may_be_made_a_percentage_in_the_expression() -> None:
    from gechat.evidence.arithmetic import miscomputed

    growth = miscomputed("Plugging in the values: (3,033 - 2,371) / 2,371 * 100 = 20.0%")
    assert growth is not None and growth.right == "27.9%" and growth.result == "20.0%"
    assert growth.note == "its arithmetic is wrong: (3,033 - 2,371) / 2,371 × 100 = 27.92%, not 20.0%"
    assert miscomputed("(150 - 100) / 100 = 40%").right == "50%"  # type: ignore[union-attr]
    nested = miscomputed("turnover = 17,606 / ((1,200 + 1,300) / 2) = 14.5")
    assert nested is not None and nested.note.endswith("17,606 / ((1,200 + 1,300) / 2) = 14.08, not 14.5")
    # brackets around the whole sentence are not the expression's; "(699)" is a negative
    assert miscomputed("(the half, 17,606 / 2 = 8,000)").right == "8,803"  # type: ignore[union-attr]
    assert miscomputed("A loss of (699) + 1,425 = 700").note.startswith(  # type: ignore[union-attr]
        "its arithmetic is wrong: (699) + 1,425 = 726")
    assert miscomputed("It is (1,200 + 300 = 1,500") is None  # unbalanced, but right all the same


def test_a_claim_that_states_a_miscomputed_steps_result_is_contradicted() -> None:
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts(["\n\n".join(TABLE)])
    step = "Revenue growth: (17,606 - 15,785) / 15,785 * 100 = 15.0%"
    states = [ClaimState(claim=ClaimInput(text=text, source=source)) for text, source in (
        ("Net revenue grew 15.0% in FY2022.", "answer"), (step, "thought"),
        ("Net revenue was 15,785 million in FY2021.", "thought"))]
    for s in (Candidates(60), NliScores(), DerivedFigures()):
        s.run(states, ctx)
    answer, thought, other = states
    assert thought.verdict == "contradicted" and thought.note.endswith("= 11.54%, not 15.0%")
    assert answer.verdict == "contradicted"
    assert answer.note == ("it rests on a step whose arithmetic is wrong: (17,606 - 15,785) / 15,785 × 100 = 11.54%,"
                           " not 15.0%")
    assert [e.text for e in answer.evidence] == [TABLE[0]]  # shown: the row the step read
    assert other.verdict is None  # states no result of the step
    # the right figure does not rest on the wrong step
    states = [ClaimState(claim=ClaimInput(text=text, source="thought")) for text in (
        "Net revenue grew 11.5% in FY2022.", step)]
    for s in (Candidates(60), NliScores(), DerivedFigures()):
        s.run(states, ctx)
    assert states[0].verdict == "supported"


def test_the_arithmetics_own_small_numbers_pull_in_no_evidence() -> None:
    rows = ["Franchises | Gross: $ 1,154 | Net: $ 49", "Software | Useful life: 2 - 5 years | Gross: 601"]
    st = run("The average is ($1,154 + $49) / 2 = $651.50 million.", texts=rows)
    assert st.verdict == "contradicted" and st.note.endswith("= 601.5, not $651.50 million")
    assert [e.text for e in st.evidence] == rows[:1]  # not the row that states a "2"


def test_a_row_may_name_the_claims_quantity_by_another_name_of_the_vocabulary() -> None:
    # "revenue" is the statement's "Total net sales"; rows that name nothing of the claim are
    # no operands however many come first
    rows = [f"Segment {k} | 2016: {k}5 | 2017: {k}9 (in millions)" for k in range(1, 10)]
    rows += ["Total net sales | 2016: 135,987 | 2017: 177,866 (in millions)"]
    claim = "Amazon's revenue grew 30.8% from 2016 to 2017."
    assert run(claim, texts=rows).verdict is None  # no word of the row's label is the claim's
    st = run(claim, texts=rows, synonyms=load_synonyms("finance"))
    assert st.verdict == "supported", st.note
    assert "(177,866 million - 135,987 million) / 135,987 million = 30.80%" in st.note
    assert run("Amazon's revenue grew 20.8% from 2016 to 2017.", texts=rows,
               synonyms=load_synonyms("finance")).verdict is None

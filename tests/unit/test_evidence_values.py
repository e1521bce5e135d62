"""Typed values: amounts, percentages and counts compared as a reader compares them, and the
``values`` step that contradicts a claim whose value a sentence states otherwise."""

from __future__ import annotations

import pytest

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.conflicts import ValueConflicts
from gechat.evidence.periods import another_period
from gechat.evidence.scoring import NliScores
from gechat.evidence.steps import ClaimState
from gechat.evidence.values import agree, agreeing_keys, claimed, quantities
from gechat.evidence.verdict import Verdicts
from tests.unit.test_evidence_objective import Scripted, context


def one(text: str):  # type: ignore[no-untyped-def]
    (q,) = quantities(text)
    return q


def test_values_are_read_with_their_kind_scale_sign_and_hedge() -> None:
    got = [(q.value, q.kind, q.hedge) for q in quantities(
        "Revenue was $32.8 billion in 2018, up 3.5% from $31,657 million; a loss of (1,234); "
        "more than 280M nodes")]
    assert got == [(pytest.approx(32.8e9), "money", ""), (2018.0, "year", ""), (3.5, "percent", ""),
                   (31_657e6, "money", ""), (-1234.0, "number", ""), (280e6, "number", "more")]
    # a range's first bound is in the unit written after its second; a bare range has none
    ranges = "a 30-40% increase, $1.7 to $1.9 billion, 5-10 years, from $5 to 10%"
    assert [(q.value, q.kind) for q in quantities(ranges)] == [
        (30.0, "percent"), (40.0, "percent"), (pytest.approx(1.7e9), "money"), (pytest.approx(1.9e9), "money"),
        (5.0, "number"), (10.0, "number"), (5.0, "money"), (10.0, "percent")]


def test_an_accounting_negative_keeps_the_scale_written_after_its_parenthesis() -> None:
    # "(1,806) million" had read as -1,806: the scale word after the bracket was lost
    got = [(q.value, q.kind) for q in quantities("Financing used $(1,806) million; investing (962) million")]
    assert got == [(pytest.approx(-1806e6), "money"), (pytest.approx(-962e6), "number")]
    assert agree(one("$1.8 billion"), one("$(1,806) million"))
    # a scale inside the bracket is an aside in prose, not a negative
    assert one("($1.8 bn)").value == pytest.approx(1.8e9)


def test_locators_codes_and_list_markers_are_not_values() -> None:
    assert [q.text for q in quantities("Item 7 ....35, FY2019, Q3 and 10-K; (1) one and (2) two")] == ["7", "10"]
    assert [q.value for q in quantities("($1.8 bn) and (1,234)")] == [1.8e9, -1234.0]


@pytest.mark.parametrize(("claim", "source", "same"), [
    ("$1.2 billion", "$1,200 million", True),
    ("$32.8 billion", "32,765", True),  # a table figure in millions, rounded
    ("$35.0 billion", "32,765", False),
    ("12.5%", "0.125", True),
    ("12.5%", "13.5%", False),
    ("about 280M", "more than 280M", True),
    ("about 280M", "300M", True),  # within 10% of a hedged value
    ("280M", "300M", False),
    ("more than 280M", "300 million", True),
    ("more than 10", "737", False),  # a bound holds near it, not for any larger number
    ("less than 10", "0.5", False),
    ("less than 10", "8", True),
    ("3 rooms", "4 rooms", False),
    ("(1,577)", "$1577.00", True),  # a cash flow statement's outflow is the amount spent
    ("($1.8 bn)", "1.8 billion", True),  # an aside in parentheses is not a negative
    ("1990", "1990", False),  # years are matched as written, not as values
])
def test_agree_as_a_reader_would(claim: str, source: str, same: bool) -> None:
    assert agree(one(claim), one(source)) is same


def test_a_value_in_another_form_covers_the_claims_number() -> None:
    assert agreeing_keys("Revenue was $32.8 billion.", "Net sales 32,765 31,657") == {"32.8"}
    assert agreeing_keys("Revenue was $35 billion.", "Net sales 32,765 31,657") == frozenset()
    ctx = context(Scripted({}), coverage="facts")
    claim = ClaimInput(text="Net sales were $32.8 billion in 2018.", source="answer")
    assert ctx.covers(claim, "Net sales in 2018 were $32,765 million.")
    assert not ctx.covers(claim, "Net sales in 2018 were $30,109 million.")
    assert ctx.missing(claim, "Net sales in 2018 were $30,109 million.") == ["32.8"]


FILING = ("Net sales were $32,765 million in 2018. Net sales were $31,657 million in 2017. "
          "The company has 93,000 employees. Net sales in Asia were $9,000 million in 2016.")


def run_values(claim: str, table: dict[str, tuple[float, float]] | None = None) -> ClaimState:
    ctx = context(Scripted(table or {}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([FILING])
    st = ClaimState(claim=ClaimInput(text=claim, source="answer"))
    for step in (Candidates(60), NliScores(), ValueConflicts()):
        step.run([st], ctx)
    return st


def test_a_claim_with_another_value_for_the_same_thing_is_contradicted_with_both_values() -> None:
    st = run_values("Net sales were $35.0 billion in 2018.")
    assert st.verdict == "contradicted"
    assert st.evidence[0].text == "Net sales were $32,765 million in 2018."
    assert st.note == "the claim says $35.0 billion; the source says $32,765 million"


def test_no_conflict_with_another_year_another_thing_or_the_same_value() -> None:
    assert run_values("Net sales were $35.0 billion in 2016.").verdict is None  # no sentence of 2016
    assert run_values("Operating income was $35.0 billion in 2018.").verdict is None  # another quantity
    assert run_values("Net sales were $32.8 billion in 2018.").verdict is None  # the same value, rounded
    # a sentence about the same thing states the claim's value: another that differs is no conflict
    assert run_values("Net sales in Asia were $9.0 billion.").verdict is None
    # a page number says where the value is written, not what it is
    assert run_values("Net sales in 2018 are listed on page 26 of the report.").verdict is None
    assert [q.text for q in claimed("Stores are listed on page 26; Table 2 gives $26 million.")] == ["$26 million"]


def test_a_supported_claim_is_left_alone() -> None:
    st = run_values("Net sales were $35.0 billion in 2018.",
                    {"Net sales were $32,765 million in 2018.": (0.0, 0.0)})
    st.passes = False
    assert st.verdict == "contradicted"
    ctx = context(Scripted({}), coverage="facts")
    passing = ClaimState(claim=ClaimInput(text="Net sales were $35.0 billion in 2018.", source="answer"),
                         passes=True)
    ValueConflicts().run([passing], ctx)
    assert passing.verdict is None


def test_a_sentence_dated_to_other_years_is_no_evidence_for_the_claims_years() -> None:
    from gechat.evidence.dates import unnamed_years
    from gechat.evidence.steps import holds

    q = "What are major acquisitions that Best Buy has done in FY2023, FY2022 and FY2021?"
    claim = ClaimInput(text="Best Buy acquired Current Health in FY2023, FY2022, and FY2021, respectively.",
                       source="answer", given=q)
    dated = "In fiscal 2022, we acquired all of the outstanding shares of Current Health Ltd."
    assert unnamed_years(claim.text, dated) == {"2021", "2023"}
    assert not holds(claim, dated)  # the years came from the question, and still need their evidence
    assert "2021" in context(Scripted({}), coverage="facts").missing(claim, dated)
    # an undated sentence may speak of any period; a year in a heading above it counts
    assert holds(claim, "We acquired all of the outstanding shares of Current Health Ltd.")
    assert holds(claim, dated, context="Fiscal 2023, 2022 and 2021")
    # a claim that quotes its question needs only the years of what it adds
    quoting = ClaimInput(text=f"The answer to {q} is: Current Health", source="answer", given=f"The answer to {q} is:")
    assert holds(quoting, dated)


def test_an_amount_or_percentage_taken_from_the_question_must_be_shown() -> None:
    from gechat.evidence.steps import holds
    from gechat.evidence.values import unshown

    q = "Is the premium support fee increasing by 3% a year?"
    claim = ClaimInput(text="Yes, the premium support fee is increasing by 3% a year.", source="answer", given=q)
    row = "Premium support | Monthly fee: $2,800 | Annual increase: 5%"
    assert unshown(claim.answer(), q, row) == ["3%"]
    assert not holds(claim, row) and "3% (not a figure of this row)" in context(Scripted({}), coverage="facts").missing(
        claim, row)
    assert holds(claim, "Premium support | Monthly fee: $2,800 | Annual increase: 3.0%")
    # a number of the question that names a thing needs no evidence: "3M" is no value
    assert not unshown("3M's capital spending was $1.6 billion.", "What was 3M's capex?", "Capex was $1.6 billion.")


ROW = "Net income | 2018: $ 5,363 | 2017: $ 4,869 | 2016: $ 5,058 (Millions)"


def test_a_table_row_states_each_value_for_its_columns_period() -> None:
    from gechat.evidence.values import narrow, row_cells

    assert [(c.head, c.periods, c.value) for c in row_cells(ROW)] == [
        ("2018", {"2018"}, "$ 5,363 million"), ("2017", {"2017"}, "$ 4,869 million"),
        ("2016", {"2016"}, "$ 5,058 million")]
    assert row_cells("Net sales were $32.8 billion.") == []
    eps = "Diluted earnings per share | 2018: $ 8.89 (Dollars in millions, except per share data)"
    assert [(c.periods, c.value) for c in row_cells(eps)] == [({"2018"}, "$ 8.89")]
    # a column with no header keeps its place: the cells after it still line up with their parts
    ragged = "Cost of sales | 14% | 2016: 23 % | 2015: 27%"
    assert [(c.head, c.value) for c in row_cells(ragged)] == [("", "14%"), ("2016", "23 %"), ("2015", "27%")]
    assert narrow(ragged, {"2015"}) == "Cost of sales | 14% | 2015: 27%"
    assert narrow(ROW, {"2017"}) == "Net income | 2017: $ 4,869 (Millions)"
    assert narrow(ROW, {"2015"}) == ROW and narrow("Plain text in 2017.", {"2017"}) == "Plain text in 2017."
    # 5,363 is the 2018 figure: no evidence for 2017, evidence for 2018
    assert another_period("Net income in 2017 was $5,363 million.", ROW) == {"2017"}
    assert not another_period("Net income in 2018 was $5,363 million.", ROW)
    assert not another_period("Net income in 2017 was $4.9 billion.", ROW)
    assert not another_period("Net income in 2017 was $4,869 million.", ROW)


def test_a_claim_against_its_years_column_of_a_table_row_is_contradicted() -> None:
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([ROW])
    st = ClaimState(claim=ClaimInput(text="Net income was $5,363 million in 2017.", source="answer"))
    for step in (Candidates(60), NliScores(), ValueConflicts()):
        step.run([st], ctx)
    assert st.verdict == "contradicted"
    assert st.note == "the claim says $5,363 million; the source says $ 4,869 million"  # in the table's unit
    # the same figure, rounded, in the claim's year's column: no conflict
    ok = ClaimState(claim=ClaimInput(text="Net income was about $4.9 billion in 2017.", source="answer"))
    for step in (Candidates(60), NliScores(), ValueConflicts()):
        step.run([ok], ctx)
    assert ok.verdict is None
    assert st.evidence[0].text == ROW  # the row is shown whole, verbatim


def test_a_claims_value_is_written_as_the_premise_writes_the_very_same_value() -> None:
    from gechat.evidence.steps import in_its_terms

    assert in_its_terms("It has 81.1 million papers.", "It has 81.1M papers.") == "It has 81.1M papers."
    assert in_its_terms("Revenue was $1.2 billion.", "Revenue was $1,200 million, up from $1,100 million.") \
        == "Revenue was $1,200 million."
    assert in_its_terms("Margin was 12.5% in 2022.", "Margin rose to 12.50% in 2022.") == "Margin was 12.50% in 2022."
    # not rewritten: a value that agrees only by rounding or a hedge, another kind, a year
    assert in_its_terms("Revenue was $32.8 billion.", "Revenue | 2022: 32,765 (in millions)") \
        == "Revenue was $32.8 billion."
    assert in_its_terms("about 280 million nodes", "more than 281M nodes") == "about 280 million nodes"
    assert in_its_terms("It opened in 2019.", "It opened in 2,019 days.") == "It opened in 2019."


REPURCHASES = ("Total fiscal 2023 fourth quarter | Total Number of Shares Purchased: 7,138,475 | "
               "Average Price Paid per Share: $ 76.91 | Approximate Dollar Value of Shares that May Yet Be "
               "Purchased Under the Program: $ 4,125,000,000")


def test_a_figure_in_a_column_that_counts_things_is_no_amount() -> None:
    from gechat.evidence.values import mistyped, stated

    assert [q.kind for q in stated(REPURCHASES)] == ["count", "money", "money"]
    assert mistyped("Best Buy's revenue in fiscal 2023 was $7,138,475.", REPURCHASES) == ["$7,138,475"]
    assert not mistyped("Best Buy bought back 7,138,475 shares in the quarter.", REPURCHASES)
    assert not mistyped("The average price paid was $76.91.", REPURCHASES)  # the price column is money
    # the same digits written as an amount elsewhere in the text, or a column of amounts
    assert not mistyped("Revenue was $7,138,475.", "Amount paid: $7,138,475 for 7,138,475 shares.")
    amounts = "Balance | Ordinary Shares Amount: 16 | Treasury Shares Number of Shares: 7"
    assert [q.kind for q in stated(amounts)] == ["number", "count"]
    assert not mistyped("The ordinary shares amounted to $16 million.", amounts)
    assert mistyped("The treasury shares were worth $7 million.", amounts) == ["$7 million"]


def test_a_number_that_names_a_table_or_a_page_is_no_value_a_sentence_states() -> None:
    from gechat.evidence.values import stated

    assert stated("Table 1: List of long-form summarization datasets considered in our survey.") == ()
    assert [q.text for q in stated("As Figure 2 shows, 101 papers were read (page 3).")] == ["101"]


def test_the_same_digits_in_another_stated_unit_are_not_the_claims_amount() -> None:
    from gechat.evidence.values import mistyped

    per_share = "The Board declared a quarterly cash dividend payment of $0.55 per share."
    assert mistyped("The company paid $0.55 billion in dividends.", per_share) == ["$0.55 billion"]
    assert mistyped("It had 2 million users.", "It had 2 thousand users.") == ["2 million"]
    # the same amount in another scale, or a bare table figure whose header gives the scale
    assert not mistyped("Revenue was $1.2 billion.", "Revenue was $1,200 million.")
    assert not mistyped("Capital spending was $1,577 million.", "Purchases of PP&E | 2018: (1,577) (Millions)")
    assert not mistyped("The dividend was $0.55 per share.", per_share)
    claim = ClaimInput(text="The company paid $0.55 billion in dividends.", source="answer")
    assert not context(Scripted({per_share: (0.93, 0.02)}), coverage="facts").covers(claim, per_share)


def test_a_claims_amount_read_in_a_count_column_does_not_pass_whatever_the_model_says() -> None:
    claim = ClaimInput(text="Revenue in fiscal 2023 was $7,138,475.", source="answer")
    ctx = context(Scripted({REPURCHASES: (0.93, 0.02)}), coverage="facts")
    assert not ctx.covers(claim, REPURCHASES)
    assert ctx.missing(claim, REPURCHASES) == ["$7,138,475"]
    ctx.pool = EvidencePool.from_texts([REPURCHASES])
    st = ClaimState(claim=claim)
    for step in (Candidates(60), NliScores()):
        step.run([st], ctx)
    assert not st.passes
    shares = ClaimInput(text="The company repurchased 7,138,475 shares in fiscal 2023.", source="answer")
    assert ctx.covers(shares, REPURCHASES)


ROWS = ("Net income attributable to 3M | 2018: 5,349 | 2017: 4,858 (Dollars in millions, except per share amounts)\n\n"
        "Net income attributable to 3M basic | 2018: 9.09 | 2017: 8.13 (Dollars in millions, except per share amounts)")


def test_a_model_contradiction_beside_a_row_stating_the_claims_value_is_no_verdict() -> None:
    # the model read the per-share row's digits as contradicting the claim; the row above
    # states the claim's value for the same quantity and year
    per_share = ROWS.split("\n\n")[1]
    ctx = context(Scripted({per_share: (0.05, 0.95)}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([ROWS])
    st = ClaimState(claim=ClaimInput(text="Net income attributable to 3M for FY2018 was $5,349 million.",
                                     source="answer"))
    for step in (Candidates(60), NliScores(), ValueConflicts(), Verdicts()):
        step.run([st], ctx)
    assert st.verdict == "unsupported"
    wrong = ClaimState(claim=ClaimInput(text="Net income attributable to 3M for FY2018 was $6,100 million.",
                                        source="answer"))
    for step in (Candidates(60), NliScores(), ValueConflicts(), Verdicts()):
        step.run([wrong], ctx)
    assert wrong.verdict == "contradicted"


def test_a_tables_unit_names_nothing_the_claim_does_not() -> None:
    # "(Dollars in millions)" kept every such row from speaking of the claim's quantity
    st = ClaimState(claim=ClaimInput(text="Net income attributable to 3M in 2018 was $6,100 million.", source="answer"))
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([ROWS.split("\n\n")[0]])
    for step in (Candidates(60), NliScores(), ValueConflicts()):
        step.run([st], ctx)
    assert st.verdict == "contradicted"
    assert st.note == "the claim says $6,100 million; the source says 5,349 million"


def test_a_days_number_in_a_date_is_no_value() -> None:
    assert [q.text for q in quantities("as of February 1, 2018, and on 3 Dec. 2019")] == ["2018", "2019"]
    assert [q.text for q in quantities("rounded to 3 decimal places over 12 months")] == ["3", "12"]


def test_a_bare_figure_of_one_or_two_digits_is_not_read_in_millions() -> None:
    # "1" read as millions held every value from 0.5 to 1.5 million: "1.2 million employees"
    # passed on "These statements reflect expectations as of Item 1"
    assert agreeing_keys("Amazon had approximately 1.2 million employees.", "See Item 1 of the report.") == set()
    assert agreeing_keys("Revenue was $32.8 billion.", "Net sales 32,765 31,657") == {"32.8"}
    assert agreeing_keys("Other costs were $349 million.", "Other | 2018: 349 | 2017: 266") == {"349"}


def test_a_model_contradiction_from_other_figures_about_another_thing_is_no_verdict() -> None:
    fx = ("Changes in foreign exchange rates impacted operating income by $264 million, $(5) million, and "
          "$(53) million for 2015, 2016, and 2017.")
    ctx = context(Scripted({fx: (0.03, 0.9)}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([fx])

    def verdict(claim: str) -> str | None:
        st = ClaimState(claim=ClaimInput(text=claim, source="answer"))
        for step in (Candidates(60), NliScores(), ValueConflicts(), Verdicts()):
            step.run([st], ctx)
        return st.verdict

    # the model read the digits: the sentence is about the exchange rates' effect, not AWS's income
    assert verdict("The operating income of the AWS segment in 2017 was $4,331 million.") == "unsupported"
    # a claim about what the sentence speaks of, or one with no figure, is still contradicted
    assert verdict("Changes in foreign exchange rates impacted operating income by $900 million in 2017.") \
        == "contradicted"
    assert verdict("Foreign exchange rates never impacted operating income.") == "contradicted"

    # nor is a line that states no value at all (a table's header cut from its figures)
    header = "Action Labor cost Parts cost Cost per product"
    ctx.scorer = Scripted({header: (0.02, 0.9)})
    ctx.pool = EvidencePool.from_texts([header])
    assert verdict("Parts cost: $40.") == "unsupported"
    assert verdict("Labor is the only cost of this action.") == "contradicted"  # no value: the model decides

def test_a_rows_label_gives_the_period_of_columns_that_name_none() -> None:
    row = "Liability balance at June 30, 2022 | Employee Costs: $ 97 | Costs: $ 118 ($ in millions)"
    assert another_period("The restructuring liability for Q2 of FY2023 was $118 million.", row) == {"2023"}
    assert not another_period("The liability balance at June 30, 2022 was $118 million.", row)


def test_a_bare_figure_answers_in_the_unit_its_question_asks_for() -> None:
    from gechat.evidence.base import as_answer_to
    from gechat.evidence.steps import holds
    from gechat.evidence.values import in_asked_unit, mistyped, quantities

    q = "How much (in USD billions) did the company pay out in cash dividends for FY2020?"
    claim = ClaimInput(text=as_answer_to(q, "0.55"), source="answer", given=q)
    per_share = "The Board declared a quarterly cash dividend payment of $0.55 per share."
    assert mistyped(claim.text, per_share, q) == ["0.55"]
    assert not mistyped(claim.text, per_share)  # no question, no unit: the digits alone agree
    assert not holds(claim, per_share)
    assert holds(claim, "In 2020 the company paid out $550 million in cash dividends.")
    assert holds(claim, "Cash dividends paid in 2020 were $0.55 billion.")
    (read,) = in_asked_unit(quantities("0.55"), "Answer in USD millions.")
    assert (read.kind, read.value, read.scale) == ("money", 550_000.0, 1e6)
    (read,) = in_asked_unit(quantities("12"), "How many employees, in thousands?")
    assert (read.kind, read.value) == ("number", 12_000.0)
    # a figure with its own sign, scale or percent keeps it; a question naming no unit changes nothing
    assert in_asked_unit(quantities("$1.6 billion and 4%"), "in USD millions") == quantities("$1.6 billion and 4%")
    assert in_asked_unit(quantities("0.55"), "What was the payout ratio?") == quantities("0.55")



def test_cents_zeros_of_an_amount_in_billions_claim_no_precision() -> None:
    from gechat.evidence.values import agree, in_asked_unit, quantities, stated

    (net,) = stated("Property, plant and equipment - net | 2018: 8,738 (Millions)")
    (read,) = in_asked_unit(quantities("$8.70"), "Answer in USD billions.")
    assert agree(read, net)  # $8.70 billion is $8.7 billion
    assert not agree(in_asked_unit(quantities("$8.75"), "Answer in USD billions.")[0], net)
    assert not agree(quantities("$8.80 billion")[0], net)
    # plain dollars keep their cents: "$3.10 a share" is not $3.14
    assert not agree(quantities("$3.10")[0], quantities("$3.14")[0])


def test_a_bare_figure_in_a_column_of_percentages_is_a_percentage() -> None:
    # "14.6%" of total sales is what a "% of Total" column writes as "14.6"; the bare figure
    # still answers a question that asked for the percentage, and other columns are unchanged
    row = "Consumer | 2018 Net Sales: 4,796 | 2018 % of Total: 14.6 (Dollars in millions)"
    assert agreeing_keys("Consumer was 14.6% of 3M's 2018 sales.", row) == {"14.6"}
    assert agreeing_keys("Consumer was 14.6 percent of sales.", "Consumer | Percentage of sales: 14.6") == {"14.6"}
    assert agreeing_keys("14.6", row) == {"14.6"}
    assert not agreeing_keys("Net sales grew 4,796%.", row)  # the sales column holds no percentages
    assert not agreeing_keys("Precision was 92.1%.", "Hybrid | Bio yield: 92.1")


def test_a_run_of_thousands_of_digits_is_read_without_error() -> None:
    # int() refuses more than 4,300 digits: the day-of-month check had raised on such a run
    assert [q.kind for q in quantities("1" * 20000)] == ["number"]

"""A table row that states a claim's value is its evidence only when it names the claim's
quantity in words."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool, as_answer_to, asked, fragment_of
from gechat.evidence.candidates import Candidates
from gechat.evidence.rows import quantity_words, unbound
from gechat.evidence.scoring import NliScores
from gechat.evidence.steps import ClaimState
from tests.unit.test_evidence_objective import Scripted, context

STOCK = "Best Buy Co., Inc. | February 3, 2018: $ 100.00 | February 2, 2019: $ 84.25"
SALES = "Total net sales | 2017: $ 177,866 | 2016: $ 135,987 (in millions)"
REVENUE = "Revenue | 2023: $ 46,298 | 2022: $ 51,761 (in millions)"


def test_the_words_of_a_quantity_leave_out_names_numbers_periods_and_totals() -> None:
    assert quantity_words("Best Buy's revenue in fiscal 2023 was $46,298 million.") == ["revenue"]
    assert quantity_words("Amazon's total net sales for the year 2017 were $177,866 million.") == ["sales"]
    assert quantity_words("3M's net sales in 2018 were $32,765 million.") == ["sales"]  # not the "s" of "3M's"
    # words about documents and telling are not the quantity
    assert quantity_words("The first excerpt provides the total background checks for Texas.") == [
        "background", "checks"]
    assert quantity_words("Revenue was $5 million.") == ["revenue"]
    assert quantity_words("3M had 93,516 employees.") == ["employees"]


def test_a_row_about_another_quantity_does_not_hold_the_claims_value() -> None:
    # a stock-performance index is no revenue, whatever the digits
    assert unbound("Best Buy Co., Inc. reported revenue of $100.00 for February 3, 2018.", STOCK) == ["revenue"]
    # the row's label names the quantity, or the value's column does
    assert not unbound("Best Buy's revenue in fiscal 2023 was $46,298 million.", REVENUE)
    assert not unbound("Its 2023 sales were $46,298 million.", "Domestic | Sales 2023: $ 46,298 (in millions)")
    assert unbound("Its 2023 profit was $46,298 million.", "Domestic | Sales 2023: $ 46,298 (in millions)")
    # not the claim's value, not a table row, a claim that names no quantity, a row whose
    # label is a period: other checks decide
    assert not unbound("Best Buy's revenue in fiscal 2023 was $51,000 million.", STOCK)
    assert not unbound("Revenue was $100.00.", "Best Buy's stock closed at $100.00.")
    assert not unbound("Best Buy's was $100.00 on February 3, 2018.", STOCK)
    assert not unbound("Revenue was $7,138,475.", "Total fiscal 2023 fourth quarter | Shares: 7,138,475")


def test_a_fragment_answers_quantity_is_what_the_question_asks_not_its_instructions() -> None:
    q = ("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response by relying on "
         "the details shown in the cash flow statement.")
    financing = "Net cash provided by (used in) financing activities | 2018: (6,701) | 2017: (2,655) (Millions)"
    claim = as_answer_to(q, "6,701")
    # "cash" of the instructions is no word of the quantity asked for
    assert unbound(claim, financing, answer=claim, given=q) == ["capital", "expenditure"]
    assert asked(q) == "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    assert asked("Revenue in 2018 vs. 2017?") == "Revenue in 2018 vs. 2017?"  # no cut at an abbreviation
    assert fragment_of(q, claim) == "6,701" and fragment_of(q, "Capex was $6,701 million.") is None


def test_a_label_that_shares_no_word_with_the_quantity_does_not_name_it() -> None:
    # the safe side: closeness in meaning could not tell "Net sales" for revenue from
    # "financing activities" for capital expenditure (the embedder put both at 0.54)
    assert unbound("Amazon's revenue in 2017 was $177,866 million.", SALES) == ["revenue"]
    # period and reading words name no quantity: "year end", "Therefore, ... shows"
    ppe = "Property, plant and equipment — net | 2018: 8,738 | 2017: 8,866 (Dollars in millions)"
    assert not unbound("Therefore, the table shows net property, plant and equipment of $8,738 million.", ppe)
    q = "What is the year end FY2018 net PPNE for 3M? Answer in USD billions."
    assert quantity_words(asked(q)) == [] and not unbound(as_answer_to(q, "8.738"), ppe, given=q)
    asks = "What is the year end FY2018 net PPNE for 3M?"
    assert as_answer_to(q, "8.738") == f'The answer to the question "{asks}" is: 8.738'


def test_a_header_names_the_words_it_abbreviates() -> None:
    # a paper's ablation table heads its last column "Avg.": the average asked for
    row = "No hard negatives | CLS: 82.4 | USR: 85.8 | CITE: 89.8 | REC: 36.8 | Avg.: 78.4"
    q = "What average score does SPECTER reach without hard negatives?"
    assert not unbound(as_answer_to(q, "78.4"), row, given=q)
    assert not unbound("SPECTER's average without hard negatives was 78.4.", row)
    # another quantity is still another, and a label's "Inc." is a company, not income
    assert unbound("The income was 78.4 without hard negatives.", row) == ["income"]
    index = "Best Buy Co., Inc. | February 3, 2018: $ 100.00 | February 2, 2019: $ 97.69"
    assert unbound("Best Buy's income was $100.00 on February 3, 2018.", index) == ["income"]


def test_a_row_names_most_words_of_the_quantity_or_with_its_headings_all() -> None:
    opening = "CASH AND CASH EQUIVALENTS, BEGINNING OF PERIOD | 2016: $ 15,890 | 2017: $ 19,334 (in millions)"
    claim = "Amazon's free cash flow in 2017 was $19,334 million."
    assert unbound(claim, opening, context="CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions)") == ["free"]
    # more than half: "operating income" is not "Net income", nor "recurring revenue" "Revenue"
    assert unbound("Its operating income in 2017 was $19,334 million.", "Net income | 2017: 19,334") == ["operating"]
    assert unbound("Its annualized recurring revenue was $19,334 million.", "Revenue | 2017: 19,334") == \
        ["annualized", "recurring"]
    assert not unbound("Its operating cash flow in 2017 was $19,334 million.",
                       "Net cash provided by operating activities | 2017: 19,334")
    aws = "AWS | 2015: 1,507 | 2016: 3,108 | 2017: 4,331"
    claim = "The operating income of the AWS segment in 2017 was $4,331 million."
    assert unbound(claim, aws) == ["operating", "income", "segment"]
    assert not unbound(claim, aws, context="Operating income (loss) by segment is as follows (in millions):")
    # a label naming another measure of the quantity is not made the claim's by its headings
    net = "Net income | 2015: 596 | 2016: 2,371 | 2017: 3,033 (in millions)"
    claim = "Amazon's operating income in 2017 was $3,033 million."
    assert unbound(claim, net, context="CONSOLIDATED STATEMENTS OF CASH FLOWS > OPERATING ACTIVITIES:") == ["operating"]
    assert not unbound("Amazon's net income in 2017 was $3,033 million.", net, context="OPERATING ACTIVITIES:")


def test_each_value_of_a_claim_is_held_to_the_quantity_its_own_clause_names() -> None:
    claim = "The liability balance at June 30, 2022, is $118 million, and the net charges to earnings are $2 million."
    assert not unbound(claim, "Liability balance at June 30, 2022 | Employee Costs: $ 97 | Costs: $ 118")
    assert not unbound(claim, "Net charges to earnings | Employee Costs: 2 | Costs: 2 ($ in millions)")
    assert unbound(claim, "Cash paid | Costs: (118)") == ["liability", "balance"]


def test_a_set_holds_a_rows_value_only_where_the_row_names_the_quantity() -> None:
    q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    spending = "In 2018, 63% of 3M's capital expenditure was within the United States."
    financing = "Net cash provided by (used in) financing activities | 2018: (6,701) | 2017: (2,655) (Millions)"
    capex = "Capital expenditure | 2018: (1,577) | 2017: (1,373) (Millions)"
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([spending, financing, capex])
    by_text = {s.text: s for s in ctx.pool.sentences}
    wrong = ClaimInput(text=as_answer_to(q, "6,701"), source="answer", given=q)
    pair = [by_text[spending], by_text[financing]]
    text = ctx.passage(pair, wrong)
    # read as one text the pair holds every word and figure: the row's value and the
    # other sentence's "capital expenditure"; the row itself is about financing
    assert ctx.covers(wrong, text) and not ctx.covers_set(wrong, pair, text)
    right = ClaimInput(text=as_answer_to(q, "1,577"), source="answer", given=q)
    pair = [by_text[spending], by_text[capex]]
    assert ctx.covers_set(right, pair, ctx.passage(pair, right))


def test_a_row_that_states_none_of_the_claims_values_lends_a_set_no_words() -> None:
    from gechat.evidence.rows import figure_line, lends_words

    grobid, abstract = "Papers w/ GROBID full text 8.1M (10.0%)", "Papers w/ publisher abstract 73.4M (90.4%)"
    assert figure_line(grobid) and figure_line("Best Buy 4 - (4) - - - -")
    assert not figure_line("We process 1.5M papers from LATEX source.") and not figure_line("Table 3: Statistics.")
    claim = "73.4M papers have full text."
    assert lends_words(claim, grobid) and not lends_words(claim, abstract)
    assert not lends_words("Many papers have full text.", grobid)  # a claim with no value
    assert lends_words("Capex was $1,577 million.", "Net income | 2018: $ 5,349 (Millions)")
    ctx = context(Scripted({}), coverage="facts")
    ctx.pool = EvidencePool.from_texts([grobid, abstract])
    pair = ctx.pool.sentences
    wrong = ClaimInput(text=claim, source="answer")
    # the pair holds every word and the figure, but "full text" is the GROBID row's, not 73.4M's
    assert ctx.covers(wrong, ctx.passage(pair, wrong)) and not ctx.covers_set(wrong, pair, ctx.passage(pair, wrong))
    both = ClaimInput(text="8.1M papers have GROBID full text and 73.4M a publisher abstract.", source="answer")
    assert ctx.covers_set(both, pair, ctx.passage(pair, both))


def test_the_nli_step_does_not_pass_a_row_about_another_quantity_and_names_the_quantity() -> None:
    claim = ClaimInput(text="Best Buy Co., Inc. reported revenue of $100.00 for February 3, 2018.", source="answer")
    ctx = context(Scripted({STOCK: (0.93, 0.02)}), coverage="facts")
    assert not ctx.covers(claim, STOCK)
    assert "revenue" in ctx.missing(claim, STOCK)
    ctx.pool = EvidencePool.from_texts([STOCK])
    st = ClaimState(claim=claim)
    for step in (Candidates(60), NliScores()):
        step.run([st], ctx)
    assert not st.passes
    off = context(Scripted({STOCK: (0.93, 0.02)}), coverage="off")
    assert off.covers(claim, STOCK)


def test_a_row_holds_no_claim_that_states_none_of_its_figures() -> None:
    from gechat.evidence.rows import figureless

    # the model entailed such claims from a row at 0.3-0.9: it reads a row by its digits
    ctx = context(Scripted({}), coverage="facts")
    for text in ("The revenue is expressed in millions, so we need to convert the number.",
                 "Total net sales is given in the notes to the financial statements."):
        assert figureless(text, SALES)
        assert not ctx.covers(ClaimInput(text=text, source="thought"), SALES)
    assert not figureless("Total net sales were $177,866 million in 2017.", SALES)
    assert ctx.covers(ClaimInput(text="Total net sales were $177,866 million in 2017.", source="answer"), SALES)
    # signs aside: a payment is written in parentheses
    paid = "Cash paid | Employee Costs: (16) | Costs: (25) ($ in millions)"
    assert not figureless("Cash paid was $25 million.", paid)
    reversed_ = "Reversal of unused amounts | Employee Costs: (2) | Costs: (2) ($ in millions)"
    assert not figureless("Cash paid was $25 million and $2 million was reversed.", f"{paid}\n\n{reversed_}")
    assert figureless("Cash paid was $30 million.", f"{paid}\n\n{reversed_}")
    # a sentence is no row: left to the other checks
    assert not figureless("Net sales grew.", "Net sales grew in 2017.")


def test_the_headings_over_a_row_name_its_quantity_when_they_hold_all_of_it() -> None:
    q = "How many total background checks were there in Alabama?"
    row = "Alabama | Permit: 18,870 | Handgun: 23,022 | Totals: 71,137"
    claim = as_answer_to(q, "71,137")
    # "how many" asks for a count and names none
    assert quantity_words(q) == ["background", "checks"]
    assert unbound(claim, row, answer=claim, given=q) == ["background", "checks"]
    assert not unbound(claim, row, answer=claim, given=q, context="NICS Firearm Background Checks")
    # one shared word of a far heading is not enough
    assert unbound(claim, row, answer=claim, given=q, context="Report > Checks of the system") == ["background"]
    # the evidence step reads the candidate's headings
    ctx = context(Scripted({row: (0.9, 0.02)}), coverage="facts")
    answer = ClaimInput(text=claim, source="answer", given=q)
    assert not ctx.covers(answer, row)
    assert ctx.covers(answer, row, "NICS Firearm Background Checks")
    assert ctx.missing(answer, row, "NICS Firearm Background Checks") == []
    # and so does the NLI step, from the sentence's own heading path; the model reads the row
    # under the heading that says what it counts
    ctx.scorer = Scripted({f"NICS Firearm Background Checks. {row}": (0.9, 0.02)})
    ctx.pool = EvidencePool.from_texts([row])
    ctx.pool.sentences[0].context = "NICS Firearm Background Checks"
    st = ClaimState(claim=answer)
    for step in (Candidates(60), NliScores()):
        step.run([st], ctx)
    assert st.passes


def test_a_header_row_among_the_headings_names_each_column_only_its_own_figure() -> None:
    # the loader may set a table's header row in the heading path of its rows; "Permit" there
    # names the column of 98 452, so it does not make California's total a count of permits
    row = "California | Permit: 98 452 | Handgun: 41 181 | Totals: 180 116"
    heads = "NICS Firearm Background Checks > State / Territory Permit Handgun Totals"
    assert unbound("There were 180,116 permit checks in California.", row, context=heads) == ["permit"]
    assert not unbound("There were 98,452 permit checks in California.", row, context=heads)
    assert not unbound("There were 180,116 background checks in California.", row, context=heads)


def test_the_closest_of_an_unsupported_claim_is_the_nearest_to_stating_it() -> None:
    # F favours a short sentence that says nothing over a long row the model half believes
    cells = " | ".join(f"Column {k}: {k * 1000 + 17:,}" for k in range(1, 25))
    row = f"Alabama | {cells} | Totals: 71,137"
    claim = ClaimInput(text="Alabama had 71,137 background checks in November 2015.", source="thought")
    ctx = context(Scripted({row: (0.23, 0.02), "NOTES:": (0.01, 0.02)}), coverage="facts")
    ctx.pool = EvidencePool.from_texts(["NOTES:", row])
    st = ClaimState(claim=claim)
    for step in (Candidates(60), NliScores()):
        step.run([st], ctx)
    assert not st.passes and st.evidence[0].text == row


def test_a_figure_among_unlabelled_figures_is_no_evidence_of_what_it_is() -> None:
    from gechat.evidence.rows import unlabelled
    q = "What was 3M's total net sales in 2018?"
    lost = "Net sales (millions) $ 3,183 $ 2,453 $ 1,577 $ 735 $ (3) $ 7,945"
    assert unlabelled("3,183 million", q, lost) == ["3,183 million"]
    assert unlabelled("$7,945 million", q, lost) == ["$7,945 million"]
    # words between the figures say which is which; years are no figures of a run
    told = "Research expenses totaled $1.821 billion in 2018, $1.870 billion in 2017 and $1.764 billion in 2016."
    assert unlabelled("$1.821 billion", q, told) == []
    assert unlabelled("$3,183", q, "Net sales | 2018: $ 3,183 | 2017: $ 2,453 | 2016: $ 1,577") == []
    # two figures are not yet a run, and a figure stated elsewhere with its label counts
    assert unlabelled("$3,183", q, "Net sales $ 3,183 $ 2,453") == []
    assert unlabelled("$3,183", q, f"{lost} Total net sales were $3,183 million.") == []
    # a nil cell's dash holds a place in the run: seven cells, two of them figures
    stores = "Best Buy 4 - (4) - - - -"
    assert unlabelled("Best Buy had 4 stores in Canada.", "", stores) == ["4"]
    assert unlabelled("It had 4 stores - and 5 more - by 2022.", "", "It had 4 stores - and 5 more - by 2022.") == []
    # the evidence step reads it so, and names the figure as not shown for what it is
    ctx = context(Scripted({lost: (0.9, 0.02)}), coverage="facts")
    answer = ClaimInput(text=as_answer_to(q, "3,183 million"), source="answer", given=q)
    assert not ctx.covers(answer, lost)
    assert "3,183 million (one of several unlabelled figures)" in ctx.missing(answer, lost)
    # a step that quotes the run as it stands claims no more than the text says
    quote = 'The document states that "Net sales (millions) $ 3,183 $ 2,453 $ 1,577 $ 735 $ (3) $ 7,945'
    assert unlabelled(quote, q, lost) == []


def test_a_party_named_by_its_defined_term_is_read_under_the_heading_that_names_it() -> None:
    from gechat.evidence.base import ClaimInput
    from gechat.evidence.steps import in_context

    claim = ClaimInput(text="3M had 93,516 employees at the end of 2018.", source="answer")
    said = "At December 31, 2018, the Company employed 93,516 people."
    path = "10-K - 3M Company > PART I > Item 1. Business"
    # whatever the mode: a filing's "the Company" is its title's company
    assert in_context(claim, said, path, "off") == (f"10-K - 3M Company. {said}", "10-K - 3M Company")
    assert in_context(claim, said, path, "off", rows=False) == (said, "")  # the name checks read the text
    # a company in lower case is no defined term; nor is a heading that names nothing the claim lacks
    assert in_context(claim, "At December 31, 2018, the company employed 93,516 people.", path, "off")[1] == ""
    assert in_context(claim, said, "Annual report > PART I", "off")[1] == ""
    # a filing's "we" is its company too ("Today, we are a global leader in ... packaging": 0.08)
    amcor = ClaimInput(text="Amcor is a global leader in packaging.", source="answer")
    we = "Today, we are a global leader in developing and producing responsible packaging."
    assert in_context(amcor, we, "AMCOR PLC > PART I", "off") == (f"AMCOR PLC. {we}", "AMCOR PLC")


def test_a_documents_running_title_dates_none_of_its_sentences() -> None:
    from gechat.evidence.dates import dating
    from gechat.evidence.steps import holds

    q = "What are major acquisitions that Best Buy has done in FY2023, FY2022 and FY2021?"
    claim = ClaimInput(text="Best Buy acquired Yardbird in FY2021 and Current Health in FY2023.", source="answer",
                       given=q)
    dated = "In fiscal 2022, we acquired Current Health Ltd. and Yardbird, on November 4, 2021."
    # every page of the 10-K runs under "BEST BUY FISCAL 2023 FORM 10-K": it dated this to 2023
    assert dating("BEST BUY FISCAL 2023 FORM 10-K > PART II") == "PART II"
    assert dating("Fiscal 2023") == "Fiscal 2023"  # a path of one heading keeps it
    assert not holds(claim, dated, context="BEST BUY FISCAL 2023 FORM 10-K > PART II")
    assert holds(claim, dated, context="BEST BUY FISCAL 2023 FORM 10-K > Fiscal 2023 and 2022")



def test_a_row_that_came_without_its_tables_unit_states_its_amounts_in_any_scale() -> None:
    from gechat.evidence.steps import holds
    from gechat.evidence.values import agree, claimed, stated

    row = "Free cash flow | 2015: $ 7,450 | 2016: $ 10,535 | 2017: $ 8,376"
    claim = "Amazon's free cash flow in 2017 was $8,376 million."
    [value] = claimed(claim)
    # "(in millions)" stood above the table: the row's "$ 8,376" is $8,376 million, not a rival
    assert any(agree(value, q) for q in stated(row))
    assert holds(ClaimInput(text=claim, source="answer"), row)
    # with its unit, a row is read in it; a sentence's "$8,376" is dollars
    assert not any(agree(value, q) for q in stated(row + " (in thousands)"))
    assert not any(agree(value, q) for q in stated("The fee was $8,376 in 2017."))

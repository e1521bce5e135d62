"""A superlative is checked by comparing the table rows the question offers (``extremes``,
run in the ``derived`` step)."""

from __future__ import annotations

import pytest

from tests.unit.test_evidence_derived import run

CASH = [
    "Cash flows were as follows ($ in millions):",
    "Operating activities | 2023: $ 1,824 | 2022: $ 3,252 | 2021: $ 4,927",
    "Investing activities | 2023: (962) | 2022: (1,372) | 2021: (788)",
    "Financing activities | 2023: (1,806) | 2022: (4,297) | 2021: (876)",
    "Effect of exchange rate changes on cash | 2023: (8) | 2022: (3) | 2021: 7",
]
ASKED = "Among operating, investing and financing activities, which brought in the most cash in FY2023?"


def test_the_row_the_claim_names_is_the_highest_of_the_options() -> None:
    st = run("Operating activities brought in the most cash in FY2023 ($1.8 billion).", ASKED, CASH)
    assert st.verdict == "supported"
    assert [e.text for e in st.evidence] == CASH[1:4]  # the options, not the exchange-rate row
    assert st.note == ("compared 'Operating activities': $ 1,824 (p. 1); 'Investing activities': (962) (p. 1); "
                       "'Financing activities': (1,806) (p. 1): the highest is 'Operating activities'")
    # the lowest of another year's column; the question's year where the claim names none
    assert run("Financing activities brought in the least cash in 2022.", ASKED, CASH).verdict == "supported"
    assert run("Operating activities brought in the most cash.", ASKED, CASH).verdict == "supported"
    # no period named at all, and three columns: which one?
    undated = ASKED.removesuffix(" in FY2023?") + "?"
    assert run("Operating activities brought in the most cash.", undated, CASH).verdict is None


@pytest.mark.parametrize("claim", [
    "Investing activities brought in the most cash in FY2023.",  # not the highest: proves nothing
    "Operating activities brought in the most cash in FY2023, $3.3 billion.",  # a figure none of the rows has
    "Financing activities had the largest outflow in FY2023.",  # an outflow over figures of both signs
    "Operating and investing activities brought in the most cash in FY2023.",  # two rows named
])
def test_what_the_comparison_does_not_show_is_left_to_the_other_steps(claim: str) -> None:
    assert run(claim, ASKED, CASH).verdict is None


def test_the_rows_must_be_the_questions_options_in_one_table() -> None:
    # the question offers no rows to compare: "the most" among which?
    assert run("Operating activities brought in the most cash in FY2023.", "How did cash flows change?",
               CASH).verdict is None
    # one option in each of two tables (another column header) is no comparison
    other = ["Investing activities | FY2023: (962) | FY2022: (1,372)"]
    assert run("Operating activities brought in the most cash in FY2023.", ASKED,
               CASH[:2] + other).verdict is None


def test_a_claim_that_quotes_its_question_is_read_for_what_it_adds() -> None:
    quoted = f'The answer to the question "{ASKED}" is: '
    st = run(quoted + "operating activities, $1.8 billion, the most cash.", quoted, CASH)
    assert st.verdict == "supported"


def test_a_row_is_named_by_the_words_its_label_alone_has() -> None:
    statement = [
        "Total cash provided by operating activities | January 28, 2023: 1,824 ($ in millions)",
        "Total cash used in investing activities | January 28, 2023: (962) ($ in millions)",
        "Total cash used in financing activities | January 28, 2023: (1,806) ($ in millions)",
    ]
    st = run("Operating activities brought in the most cash in FY2023.", ASKED, CASH + statement)
    assert st.verdict == "supported"
    assert [e.text for e in st.evidence] == CASH[1:4] + statement  # both tables show it
    assert "the highest is 'Total cash provided by operating activities'" in st.note


def test_a_comparison_of_two_is_checked_against_those_after_than() -> None:
    st = run("Operating activities brought in more cash than investing activities in FY2023.", ASKED, CASH)
    assert st.verdict == "supported" and [e.text for e in st.evidence] == CASH[1:3]
    assert st.note.endswith("the higher is 'Operating activities'")
    assert run("Investing activities brought in more cash than financing activities in FY2023.", ASKED,
               CASH).verdict == "supported"  # (962) against (1,806)
    assert run("Financing activities brought in more cash than investing activities in FY2023.", ASKED,
               CASH).verdict is None
    # a bound is no comparison
    assert run("Operating activities brought in more than $1 billion in FY2023.", ASKED, CASH).verdict is None


def test_the_higher_of_two_options() -> None:
    segments = ["Flexibles | 2023: 11,200 | 2022: 11,400 ($ in millions)",
                "Rigid Packaging | 2023: 3,494 | 2022: 3,455 ($ in millions)"]
    asked = "Which had the higher net sales in 2023, Flexibles or Rigid Packaging?"
    st = run("Flexibles had the higher net sales in 2023.", asked, segments)
    assert st.verdict == "supported" and st.note.endswith("the higher is 'Flexibles'")
    # the table holds both options the question offers by name: the other choice is shown false
    assert run("Rigid Packaging had the higher net sales in 2023.", asked, segments).verdict == "contradicted"


def test_a_comparison_of_changes_is_not_one_of_the_figures() -> None:
    asked = "Did operating or investing cash flows grow more in FY2023?"
    assert run("Operating activities grew more than investing activities in FY2023.", asked, CASH).verdict is None


def test_in_a_table_of_no_periods_the_column_is_the_one_the_words_name() -> None:
    ablation = ["SPECTER | CLS: 84.2 | USR: 88.4 | CITE: 91.5 | REC: 36.9 | Avg.: 80.0",
                "No hard negatives | CLS: 82.4 | USR: 85.8 | CITE: 89.8 | REC: 36.8 | Avg.: 78.4"]
    asked = "Which scores the higher average, SPECTER or the model with no hard negatives?"
    st = run("SPECTER scores the higher average.", asked, ablation)
    assert st.verdict == "supported"
    assert st.note.startswith("compared 'SPECTER': 80.0 (p. 1); 'No hard negatives': 78.4")
    # no column named: which of five?
    assert run("SPECTER scores higher.", asked.replace(" average", ""), ablation).verdict is None


MAIN = ["SciBERT (2019) | Cite nDCG: 71.7 | Recomm. nDCG: 52.1 | Avg.: 59.6",
        "Citeomatic (2018) | Cite nDCG: 94.1 | Recomm. nDCG: 52.5 | Avg.: 76.0",
        "SPECTER (Ours) | Cite nDCG: 94.9 | Recomm. nDCG: 53.9 | Avg.: 80.0"]


def test_the_table_contradicts_a_choice_when_it_holds_every_option_offered() -> None:
    asked = "Which model has the higher average score, SPECTER or SciBERT?"
    st = run("SciBERT has the higher average score.", asked, MAIN)
    assert st.verdict == "contradicted"
    assert st.note == ("compared 'SciBERT (2019)': 59.6 (p. 1); 'SPECTER (Ours)': 80.0 (p. 1): "
                       "the higher is 'SPECTER (Ours)', not 'SciBERT (2019)'")
    assert run("SPECTER has the higher average score.", asked, MAIN).verdict == "supported"
    # the column the words name most: "recommendation nDCG" is "Recomm. nDCG", not "Cite nDCG"
    asked = "Which does better on recommendation nDCG, SPECTER or Citeomatic?"
    assert run("Citeomatic has the higher recommendation nDCG.", asked, MAIN).verdict == "contradicted"
    # an option the table lacks: nothing is shown either way
    asked = "Which model has the higher average score, SPECTER or Doc2vec?"
    assert run("SciBERT has the higher average score.", asked, MAIN).verdict is None


def test_a_claim_that_compares_stands_only_on_a_strong_reading() -> None:
    from gechat.evidence.comparing import compares
    from gechat.evidence.subjects import anchored

    pair = "Using BERT-Large instead of SciBERT in SPECTER reduces performance considerably."
    assert compares("SciBERT has the higher average score.") and compares("Citeomatic performs better.")
    assert not anchored("SciBERT has the higher average score.", pair, 0.28)
    assert anchored("SciBERT has the higher average score.", pair, 0.6)
    # a bound, a date and a plain statement compare nothing
    assert not any(compares(t) for t in ("Revenue was more than $1 billion.", "He was born earlier.",
                                         "SPECTER uses SciBERT.", "The More the Merrier was directed by him."))
    assert anchored("SPECTER uses SciBERT.", pair, 0.28)

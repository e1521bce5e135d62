"""A value the source states only as expected is no evidence that it happened; one it states
only as a change is no evidence for it as an amount."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, as_answer_to
from gechat.evidence.framing import amount_only, changed_only, foretold
from gechat.evidence.steps import holds
from tests.unit.test_evidence_objective import Scripted, context

GUIDANCE = ("These forward-looking statements reflect expectations as of February 1, 2018. Net sales are "
            "expected to be between $47.75 billion and $50.75 billion, or to grow between 34% and 42% "
            "compared with first quarter 2017.")


def test_a_value_given_only_as_expected_is_missing_from_a_claim_that_it_happened() -> None:
    claim = "Amazon's net sales in 2017 were between $47.75 billion and $50.75 billion, a growth of 34% to 42%."
    assert foretold(claim, "", GUIDANCE) == ["$47.75 billion", "$50.75 billion", "34%", "42%"]
    assert not holds(ClaimInput(text=claim, source="answer"), GUIDANCE)
    # a claim that tells of the expectation itself is held as it stands
    assert not foretold("Amazon expects net sales between $47.75 billion and $50.75 billion.", "", GUIDANCE)
    assert not foretold("Net sales may reach $50.75 billion.", "", GUIDANCE)
    # a fragment answer is read with its question: "in 2017" asks what happened
    q = "What were Amazon's net sales in the first quarter of 2018?"
    assert foretold(as_answer_to(q, "$50.75 billion"), q, GUIDANCE) == ["$50.75 billion"]


def test_only_the_clause_that_holds_the_value_says_whether_it_is_expected() -> None:
    claim = "Revenue was $5 billion in 2017."
    assert not foretold(claim, "", "Revenue rose 10% to $5 billion in 2017, and we expect further growth.")
    assert not foretold(claim, "", "We expect revenue of $6 billion in 2018; revenue was $5 billion in 2017.")
    assert foretold(claim, "", "We expect revenue of $5 billion in 2018.") == ["$5 billion"]
    # stated once as expected and once as reported: it is reported
    assert not foretold(claim, "", "We expect revenue of $5 billion in 2018. Revenue was $5 billion in 2017.")
    # a pension's projected benefit obligation is reported, not expected; a claim without a value is not read here
    assert not foretold("The obligation was $5 billion.", "", "The projected benefit obligation was $5 billion.")
    assert not foretold("Sales grew.", "", "We expect sales to grow.")


def test_the_evidence_step_names_the_value_given_only_as_expected() -> None:
    ctx = context(Scripted({GUIDANCE: (0.96, 0.01)}), coverage="facts")
    claim = ClaimInput(text="Amazon's net sales were $50.75 billion.", source="answer")
    assert ctx.missing(claim, GUIDANCE) == ["$50.75 billion (only as expected, not as happened)"]


MDA = "Net sales increased by $150 million, or 1%, in fiscal year 2023, compared to fiscal year 2022."
ROW = "Net sales | 2023: $ 14,694 | 2022: $ 14,544 | Change: 150"


def test_a_value_given_only_as_a_change_is_missing_from_a_claim_of_the_amount() -> None:
    claim = "Amcor's net sales in fiscal 2023 were $150 million, or 1% higher than in fiscal 2022."
    assert changed_only(claim, "", MDA) == ["$150 million"]  # the 1% is a change in both
    assert not holds(ClaimInput(text=claim, source="answer"), MDA)
    assert changed_only("Net sales were 150 million.", "", ROW) == ["150 million"]
    assert changed_only("Sales were 5%.", "", "Sales increased 5% to $3 billion.") == ["5%"]
    # a claim of the change, before or after the value, is left to the model
    assert not changed_only("Net sales rose by $150 million in fiscal 2023.", "", MDA)
    assert not changed_only("Net sales were $150 million higher in fiscal 2023.", "", MDA)
    assert not changed_only("The change in net sales was 150.", "", ROW)
    # the amount a change reaches, a gain, an amount paid down are amounts
    assert not changed_only("Revenue was $5 billion.", "", "Revenue grew 10% to $5 billion.")
    assert not changed_only("JnJ realized $20 billion.", "", "JnJ expects a gain of approximately $20 billion.")
    assert not changed_only("It repaid $500 million.", "", "It paid down $500 million of debt.")
    assert not changed_only("Net sales were $14,694 million.", "", ROW)


def test_the_evidence_step_names_the_value_given_only_as_a_change() -> None:
    ctx = context(Scripted({MDA: (0.95, 0.01)}), coverage="facts")
    claim = ClaimInput(text="Amcor's net sales were $150 million.", source="answer")
    assert ctx.missing(claim, MDA) == ["$150 million (only as a change, not as the amount)"]


def test_a_value_given_only_as_an_amount_is_missing_from_a_claim_of_the_change() -> None:
    # 7.8 was the fine-grained annotations' deviation; the reduction from 14.0 was 6.2
    table = ("FINE annotations have lower standard deviation in faithfulness scores than COARSE annotations "
             "(7.8 vs 14.0 average on 100-point scaled ratings).")
    claim = "Fine-grained judgment reduces the standard deviation of faithfulness scores by 7.8."
    assert amount_only(claim, "", table) == ["7.8"]
    assert not holds(ClaimInput(text=claim, source="answer"), table)
    assert context(Scripted({table: (0.95, 0.01)}), coverage="facts").missing(
        ClaimInput(text=claim, source="answer"), table) == ["7.8 (only as an amount, not as the change)"]
    # a change beside the value in the text, a cell headed as a change, or a claim of the amount
    assert not amount_only("Net sales rose by $150 million in fiscal 2023.", "", MDA)
    assert not amount_only("Revenue rose 12% in 2022.", "", "Revenue was up 12% in 2022.")
    assert not amount_only("Revenue rose 12%.", "", "Revenue | % change: 12%")
    assert not amount_only("The deviation rose by 30-40%.", "", "with a 30-40% increase in standard deviation")
    assert not amount_only("The deviation was 7.8.", "", table)
    gain = "we obtain an 86.4 (82.0) F1 score which is about a ∆= + 2.3 (+1.5) point absolute increase"
    assert not amount_only("The F1 score increased by about 2.3 points.", "", gain)  # a signed figure
    assert amount_only("Revenue rose 12% in 2022.", "", "Our margin was 12% in 2022.") == ["12%"]

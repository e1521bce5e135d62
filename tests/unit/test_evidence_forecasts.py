"""A value the source states only as expected is no evidence that it happened."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, as_answer_to
from gechat.evidence.forecasts import foretold
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

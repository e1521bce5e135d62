"""Values as contracts write them, and a passage that supports a claim while another sentence,
about the claim's very quantity, states another value (tried on a services agreement)."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.conflicts import ValueConflicts, known_names, topic
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets
from gechat.evidence.steps import ClaimState
from gechat.evidence.values import quantities, stated
from gechat.evidence.verdict import Verdicts
from gechat.lexical import uncovered
from tests.unit.test_evidence_objective import Scripted, context

DUE = "2.2 Invoices are due within forty-five (45) days of receipt."
CURE = "3.2 Either party may terminate for material breach that remains uncured thirty (30) days after notice."
CLAIM = "Invoices are due within thirty (30) days of receipt."


def _values(text: str) -> list[tuple[str, float]]:
    return [(q.text, q.value) for q in stated(text)]


def test_a_figure_that_repeats_its_number_words_is_that_number() -> None:
    assert _values(DUE) == [("(45)", 45.0)]  # not a list mark, and "2.2" numbers the clause
    assert _values("on one hundred twenty (120) days' notice") == [("(120)", 120.0)]  # no accounting negative
    assert [(q.text, q.value, q.kind) for q in quantities("a fee of five percent (5%) is due")] == [
        ("(5%)", 5.0, "percent")]
    # the marks of a list, an accounting negative and a decimal figure are read as before
    assert _values("We acquired (1) Current Health and (2) Two Peaks.") == []
    assert _values("Net cash used | 2018: (1,577)") == [("(1,577)", -1577.0)]
    assert _values("2.2 million people live there.") == [("2.2 million", 2.2e6)]
    assert _values("The margin was\n2.5 Percent of sales.") == [("2.5", 2.5)]
    # and a claim's figure so written must be in its evidence
    assert uncovered(CLAIM, DUE) == frozenset({"30"})


def test_terms_a_text_defines_and_its_title_name_nothing_new() -> None:
    pool = EvidencePool.from_texts(['This Agreement (the "Agreement") is made by Acme LLC ("Provider").'])
    pool.sentences[0].context = "Master Services Agreement"
    assert {"agree", "provi", "maste", "servi"} <= known_names(pool.sentences)


def _ground(claim: str, texts: list[str], table: dict[str, tuple[float, float]]) -> ClaimState:
    ctx = context(Scripted(table), coverage="facts")
    ctx.pool = EvidencePool.from_texts(texts)
    state = ClaimState(claim=ClaimInput(text=claim, source="answer", given="When are invoices due?"))
    for step in (Candidates(60), NliScores(), SentenceSets(top=3), ValueConflicts(), Verdicts()):
        step.run([state], ctx)  # type: ignore[attr-defined]
    return state


def test_a_passage_aside_loses_to_the_sentence_about_the_claims_quantity() -> None:
    # the model passes the cure period's sentence, which shares the figure
    state = _ground(CLAIM, [DUE, CURE], {CURE: (0.9, 0.0)})
    assert state.verdict == "contradicted"
    assert [e.text for e in state.evidence] == [DUE] and "(45)" in state.note
    # evidence about the quantity itself is left alone
    right = "Invoices are due within forty-five (45) days of receipt."
    assert _ground(right, [DUE, CURE], {DUE: (0.9, 0.0)}).verdict == "supported"


def test_a_set_whose_sentence_states_another_value_for_the_claims_quantity_does_not_pass() -> None:
    # read as one passage the two entail the claim; one of them says 45 days for the same thing
    state = _ground(CLAIM, [f"{DUE} {CURE}"], {f"{DUE} {CURE}": (0.9, 0.0)})
    assert state.verdict != "supported"


def test_a_change_is_no_level_and_a_table_row_is_no_passage_aside() -> None:
    change = "Net sales increased by $150 million, or 1%, in fiscal year 2023, compared to fiscal year 2022."
    row = "Net sales | 2023: $ 14,694 | 2022: $ 14,544"
    claim = "Amcor's net sales in fiscal 2023 were $14,694 million."
    # the change is about net sales in 2023 but states no level to read the claim's against
    state = _ground(claim, [change], {})
    assert state.verdict != "contradicted"
    # a row that states the value supports it, whatever share of the claim's words it holds
    state = _ground(claim, [change, row], {row: (0.9, 0.0)})
    assert state.verdict == "supported" and [e.text for e in state.evidence] == [row]
    # a claim that states a change is read against the change
    state = _ground("Amcor's net sales increased by $250 million in fiscal 2023.", [change], {})
    assert state.verdict == "contradicted" and "$150 million" in state.note


def test_a_number_in_words_is_a_value_not_what_the_claim_is_about() -> None:
    fee = ("3.3 Customer may terminate for convenience on one hundred twenty (120) days' written notice, "
           "subject to a termination fee equal to two (2) months of the base fee.")
    cap = ("5.1 Except for breaches of Section 4, neither party's aggregate liability shall exceed the fees "
           "paid in the twelve (12) months before the claim.")
    claim = "The cap on each party's aggregate liability is two (2) months of the base fee."
    assert "two" not in topic(claim)
    # read together the two sentences pass; the cap's own sentence states twelve months
    state = _ground(claim, [f"{fee} {cap}"], {f"{fee} {cap}": (0.9, 0.0)})
    assert state.verdict == "contradicted" and "(12)" in state.note
    state = _ground(claim, [fee, cap], {fee: (0.9, 0.0)})
    assert state.verdict == "contradicted" and [e.text for e in state.evidence] == [cap]

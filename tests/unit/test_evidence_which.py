""""Which is X, A or B?": the answer is judged by each option's own sentences read against "A is X"."""

from __future__ import annotations

import pytest

from gechat.evidence import which
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_both import ByClaim
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import selector

BELLA, JAMILA = "Bella is a weekly magazine published in the United Kingdom.", "Al Jamila is a magazine from Dubai."
TABLE = {
    (BELLA, "Bella is published in the United Kingdom"): (0.91, 0.02),
    (JAMILA, "Al Jamila is published in the United Kingdom"): (0.09, 0.3),
}
GIVEN = "Which magazine is published in the United Kingdom, Bella or Al Jamila?"


@pytest.mark.parametrize(("question", "options", "predicate"), [
    (GIVEN, ("Bella", "Al Jamila"), "is published in the United Kingdom"),
    ("Who was inducted into the Hall of Fame, Ann Lee or Bo Ray?", ("Ann Lee", "Bo Ray"),
     "was inducted into the Hall of Fame"),
    ("Which bands were from Leeds, The Wedding Present or Muse?", ("The Wedding Present", "Muse"), "was from Leeds"),
    ('The answer to the question "Which is a perennial plant, Chelidonium or Duranta?" is:',
     ("Chelidonium", "Duranta"), "is a perennial plant"),
])
def test_parse_reads_the_options_and_what_is_asked(question: str, options: tuple[str, str], predicate: str) -> None:
    assert which.parse(question) == which.WhichQuestion(options, predicate)


@pytest.mark.parametrize("question", [
    "Which band has more members, Muse or The Raconteurs?",  # an amount: no one sentence says "more"
    "Who was born first, Ann Lee or Bo Ray?",  # gechat.evidence.compare's
    "Which magazine is published in the United Kingdom?",  # no options
])
def test_other_questions_are_not_parsed(question: str) -> None:
    assert which.parse(question) is None


def test_the_option_its_sentences_say_it_of_wins() -> None:
    p = docs_pool([BELLA, JAMILA])
    answers = ("Bella", "Al Jamila is.", "Al Jamila is from Dubai.")
    claims = [ClaimInput(text=t, source="answer", given=GIVEN) for t in answers]
    right, wrong, more = selector(ByClaim(TABLE), which=True, supported=0.25).select(claims, p)  # type: ignore[arg-type]
    assert right.verdict == "supported" and wrong.verdict == "contradicted"
    assert [e.text for e in right.evidence] == [BELLA, JAMILA]
    assert right.note.startswith("Bella is published in the United Kingdom: yes (P(entailment) 0.91)")
    # a wrong option is contradicted whatever else the answer says
    assert more.verdict == "contradicted"


def test_a_denial_or_an_undecided_reading_is_left_to_the_model() -> None:
    p = docs_pool([BELLA, JAMILA])
    denied = ClaimInput(text="Al Jamila is not published there.", source="answer", given=GIVEN)
    (out,) = selector(ByClaim(TABLE), which=True, supported=0.25).select([denied], p)  # type: ignore[arg-type]
    assert out.note == ""
    # both readings between "not said" and "said": no decision
    table = {**TABLE, (JAMILA, "Al Jamila is published in the United Kingdom"): (0.4, 0.1)}
    (out,) = selector(ByClaim(table), which=True, supported=0.25).select(  # type: ignore[arg-type]
        [ClaimInput(text="Bella", source="answer", given=GIVEN)], p)
    assert out.note == ""
    (off,) = selector(ByClaim(TABLE), which=False, supported=0.25).select(  # type: ignore[arg-type]
        [ClaimInput(text="Bella", source="answer", given=GIVEN)], p)
    assert off.note == ""

""""Are A and B both X?": yes or no is judged by each option's own sentence read against "A is X"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from gechat.evidence import both
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import selector

DOCS = [
    "Kings of Leon is an American rock band. It formed in Nashville in 1999.",
    "The New Pornographers is a Canadian indie rock band. It formed in Vancouver.",
    "Tool is an American rock band from Los Angeles.",
]


class ByClaim:
    """P(entail) / P(contra) looked up by (premise, hypothesis); everything else is neutral."""

    name = "by-claim"

    def __init__(self, table: dict[tuple[str, str], tuple[float, float]]) -> None:
        self.table = table
        self.asked: list[str] = []

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.asked.append(hypothesis)
        rows = []
        for p in premises:
            e, c = self.table.get((p, hypothesis), (0.05, 0.05))
            rows.append([c, 1 - e - c, e])
        return np.asarray(rows, dtype=np.float32)


KINGS, PORNO, TOOL = (DOCS[0].split(" It")[0], DOCS[1].split(" It")[0], DOCS[2])
TABLE = {
    (KINGS, "Kings of Leon is an American rock band"): (0.9, 0.02),
    (TOOL, "Tool is an American rock band"): (0.9, 0.02),
    (PORNO, "The New Pornographers is an American rock band"): (0.07, 0.8),
}


@pytest.mark.parametrize(("question", "first", "past"), [
    ("Are Kings of Leon and Tool both American rock bands?", ("Kings of Leon", "Tool", "American rock bands"), False),
    # the end of B is open: every end is kept, longest B first
    ("Are both Kings of Leon and Tool American rock bands?", ("Kings of Leon", "Tool American rock", "bands"), False),
    ("Were both Ann Lee and Bo Ray both writers?", ("Ann Lee", "Bo Ray", "writers"), True),
    # a class noun before a name is not the name
    ('The answer to the question "Are the bands Tool and Kings of Leon both from Nashville?" is:',
     ("Tool", "Kings of Leon", "from Nashville"), False),
])
def test_parse_reads_the_options_and_what_both_are(question: str, first: tuple[str, str, str], past: bool) -> None:
    q = both.parse(question)
    assert q is not None and q.splits[0] == first and q.past is past


@pytest.mark.parametrize("question", [
    "Are Kings of Leon and Tool from the same country?",  # gechat.evidence.same's
    "Which band formed first, Kings of Leon or Tool?",
    "Are Kings of Leon and Tool American rock bands?",  # no "both": it could ask about them together
])
def test_other_questions_are_not_parsed(question: str) -> None:
    assert both.parse(question) is None


def test_the_reading_the_documents_name_is_chosen() -> None:
    p = docs_pool(DOCS)
    q = both.parse("Are both Kings of Leon and The New Pornographers American rock bands?")
    assert q is not None
    assert both.find(p, q) == ("Kings of Leon", "The New Pornographers", "American rock bands")
    # no reading names both options: nothing to decide
    q = both.parse("Are Kings of Leon and Muse both rock bands?")
    assert q is not None and both.find(p, q) is None


@pytest.mark.parametrize(("what", "one"), [
    ("American rock bands", "an American rock band"),
    ("types of plant", "a type of plant"),
    ("genera", "a genus"),
    ("cities in China", "a city in China"),
    ("novelists", "a novelist"),
    ("American", "American"),
    ("located in Michigan", "located in Michigan"),
    ("in the United States", "in the United States"),
    ("the tallest buildings", "the tallest building"),
])
def test_what_one_option_is_said_to_be(what: str, one: str) -> None:
    assert both.singular(what) == one


def test_what_an_answer_says() -> None:
    def says(text: str) -> bool | None:
        return both.claimed(ClaimInput(text=text, source="answer"))

    assert says("Yes.") is True
    assert says("No, The New Pornographers are Canadian.") is False
    assert says("Kings of Leon and Tool are both rock bands.") is True
    assert says("They are not both American.") is False
    assert says("Only one of them is American.") is False
    # a "not" about something else is no answer
    assert says("Kings of Leon is not from Los Angeles.") is None


def test_the_answer_is_judged_by_each_options_sentence() -> None:
    p = docs_pool(DOCS)
    given = "Are Kings of Leon and Tool both American rock bands?"
    claims = [ClaimInput(text=t, source="answer", given=given) for t in ("Yes.", "No.")]
    scorer = ByClaim(TABLE)
    right, wrong = selector(scorer, both=True).select(claims, p)  # type: ignore[arg-type]
    assert right.verdict == "supported" and wrong.verdict == "contradicted"
    assert [e.text for e in right.evidence] == [KINGS, TOOL]
    assert right.note == ("Kings of Leon is an American rock band: yes (P(entailment) 0.90); "
                          "Tool is an American rock band: yes (P(entailment) 0.90)")
    # a Canadian band: no, with its own sentence as the evidence
    given = "Are Kings of Leon and The New Pornographers both American rock bands?"
    claims = [ClaimInput(text=t, source="answer", given=given) for t in ("No.", "Yes, both are.")]
    right, wrong = selector(ByClaim(TABLE), both=True).select(claims, p)  # type: ignore[arg-type]
    assert right.verdict == "supported" and wrong.verdict == "contradicted"
    assert PORNO in " ".join(e.text for e in right.evidence)
    assert "The New Pornographers is an American rock band: no (P(entailment) 0.07)" in right.note


def test_a_sentence_about_the_other_option_is_not_read() -> None:
    # one document tells of both bands: the Canadian band's sentence only is its own
    p = docs_pool([f"{KINGS} {PORNO}"])
    r = both.read(p, "The New Pornographers", "Kings of Leon", "American rock bands", False, ByClaim(TABLE))
    assert r is not None and r.entailing.text == PORNO and r.p_entail == pytest.approx(0.07)


def test_undecided_or_more_said_is_left_to_the_model() -> None:
    p = docs_pool(DOCS)
    given = "Are Kings of Leon and Tool both American rock bands?"
    # between "not said" (the "supported" threshold) and "said" (0.5): no decision
    table = {**TABLE, (TOOL, "Tool is an American rock band"): (0.4, 0.1)}
    (out,) = selector(ByClaim(table), both=True, supported=0.25).select(  # type: ignore[arg-type]
        [ClaimInput(text="Yes.", source="answer", given=given)], p)
    assert out.note == ""
    # a right yes that says more ("... from Nashville") is the model's to judge; a wrong one is not
    said_more = ClaimInput(text="Yes, both are American rock bands from Nashville.", source="answer", given=given)
    wrong_more = ClaimInput(text="No, only Tool is from Los Angeles.", source="answer", given=given)
    more, wrong = selector(ByClaim(TABLE), both=True).select([said_more, wrong_more], p)  # type: ignore[arg-type]
    assert more.note == "" and wrong.verdict == "contradicted"
    # the rule off: the model decides, and here nothing entails the whole claim
    (off,) = selector(ByClaim(TABLE), both=False).select(  # type: ignore[arg-type]
        [ClaimInput(text="Yes.", source="answer", given=given)], p)
    assert off.note == "" and off.verdict == "unsupported"


def test_the_document_about_the_option_is_read_before_one_that_lists_it() -> None:
    lists = "Sum 41 toured with acts including Tool and Muse across the United States."
    p = docs_pool([*DOCS, lists])
    table = {(lists, "Tool is from the United States"): (0.9, 0.02),
             (TOOL, "Tool is from the United States"): (0.6, 0.02)}
    r = both.read(p, "Tool", "Kings of Leon", "from the United States", False, ByClaim(table))
    assert r is not None and r.entailing.text == TOOL
    # with no document about it, any sentence naming it is read
    p = docs_pool([DOCS[0], lists])
    r = both.read(p, "Tool", "Kings of Leon", "from the United States", False, ByClaim(table))
    assert r is not None and r.entailing.text == lists


def test_the_option_named_in_full_is_read_before_a_longer_name_holding_it() -> None:
    # the composer's page names him in full; the theatre's name holds his
    composer = "Giuseppe Fortunino Francesco Verdi (1813 – 1901) was an Italian opera composer."
    theatre = "Teatro Giuseppe Verdi is a small opera house in Busseto."
    p = docs_pool([composer, theatre, DOCS[0]])
    table = {(composer, "Giuseppe Verdi is an opera composer"): (0.9, 0.02),
             (theatre, "Giuseppe Verdi is an opera composer"): (0.92, 0.02)}
    r = both.read(p, "Giuseppe Verdi", "Kings of Leon", "opera composers", False, ByClaim(table))
    assert r is not None and r.entailing.text == composer
    # with no page of his own, the theatre's sentence is all there is
    r = both.read(docs_pool([theatre, DOCS[0]]), "Giuseppe Verdi", "Kings of Leon", "opera composers", False,
                  ByClaim(table))
    assert r is not None and r.entailing.text == theatre


def test_of_the_sentences_that_say_it_the_options_own_is_shown() -> None:
    genus = "Silene is a genus of flowering plants."
    species = "Silene menziesii is a species of flowering plant."
    sex = '"Silene" are a flowering plant that evolved separate sexes.'
    p = docs_pool([species, genus, sex, DOCS[0]])
    hyp = "Silene is a type of plant"
    table = {(genus, hyp): (0.8, 0.02), (species, hyp): (0.95, 0.02), (sex, hyp): (0.9, 0.02)}
    r = both.read(p, "Silene", "Kings of Leon", "types of plant", False, ByClaim(table))
    # the species' page is not about the genus; of the genus' two pages, the most entailing
    assert r is not None and r.entailing.text == sex and r.p_entail == pytest.approx(0.9)
    # a sentence whose subject is the option wins over a more entailing one whose subject is not
    about = "The genus Silene holds flowering plants."
    table[(about, hyp)] = (0.97, 0.02)
    p = docs_pool([genus + " " + about, DOCS[0]])
    r = both.read(p, "Silene", "Kings of Leon", "types of plant", False, ByClaim(table))
    assert r is not None and r.entailing.text == genus
    # unless it does not say it
    table[(genus, hyp)] = (0.3, 0.02)
    r = both.read(p, "Silene", "Kings of Leon", "types of plant", False, ByClaim(table))
    assert r is not None and r.entailing.text == about

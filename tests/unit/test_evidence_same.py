""""Are A and B from the same country?": yes or no is judged by the options' nationality words."""

from __future__ import annotations

import pytest

from gechat.evidence import same
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

PEOPLE = [
    "Alpha Smith (born 3 May 1950) is an American painter. She lives in Leeds.",
    "Beta Jones (1940 – 2001) was a Hungarian-American poet best known for a book about Swedish lakes.",
    "Gamma Lee (born 1960) is a Canadian-born French singer.",
]
FILMS = [
    "Red Sky (French title: Ciel rouge) is a 1990 film directed by Carol White.",
    "Carol White (born 1961) is a Swedish director.",
    "Blue Moon and Stars is a 1950 British film. It was directed by Hugo Grey.",
    "Hugo Grey (born 1935) is an English director.",
]


@pytest.mark.parametrize(("question", "options", "role"), [
    ("Are Alpha Smith and Beta Jones from the same country?", [("Alpha Smith", "Beta Jones")], None),
    ("Were Alpha Smith and Beta Jones of the same nationality?", [("Alpha Smith", "Beta Jones")], None),
    ("Are both movies, Law Of The Barbary Coast and My Piece Of The Pie, from the same country?",
     [("Law Of The Barbary Coast", "My Piece Of The Pie")], None),
    ("Are The Collector (2002 Film) and Gulistan both from the same country?", [("The Collector", "Gulistan")],
     None),
    ("Do director of film Red Sky and director of film Blue Moon have the same nationality?",
     [("Red Sky", "Blue Moon")], "director"),
    ("Do both films: Red Sky and Blue Moon (Film) have the directors from the same country?",
     [("Red Sky", "Blue Moon")], "director"),
    ("Do both films Red Sky and The Mystery Of Pine Creek have the directors that share the same nationality?",
     [("Red Sky", "The Mystery Of Pine Creek")], "director"),
    # "and" inside a name: every reading is kept, the documents decide
    ("Are Red Sky and Blue Moon and Stars from the same country?",
     [("Red Sky", "Blue Moon and Stars"), ("Red Sky and Blue Moon", "Stars")], None),
    # an oracle claim quotes the question
    ('The answer to the question "Are Alpha Smith and Beta Jones from the same country?" is:',
     [("Alpha Smith", "Beta Jones")], None),
])
def test_parse_reads_the_options_and_the_role(question: str, options: list[tuple[str, str]],
                                              role: str | None) -> None:
    q = same.parse(question)
    assert q is not None and list(q.splits) == options and q.role == role


@pytest.mark.parametrize("question", [
    "Who directed Red Sky?",
    "Are Alpha Smith and Beta Jones both painters?",
    "Which country is Alpha Smith from?",
])
def test_other_questions_are_not_parsed(question: str) -> None:
    assert same.parse(question) is None


def test_nationality_words() -> None:
    assert same.nationalities("Beta Jones was a Hungarian-American poet.") == (
        frozenset({"hungarian", "us"}), "Hungarian, American")
    # the first description only: a later word tells of something else
    assert same.nationalities(PEOPLE[1]) == (frozenset({"hungarian", "us"}), "Hungarian, American")
    assert same.nationalities("a Ukrainian- born, Lithuanian- American filmmaker")[0] == frozenset(  # type: ignore[index]
        {"ukrainian", "lithuanian", "us"})
    assert same.nationalities("an English director")[0] == same.nationalities("a British one")[0]  # type: ignore[index]
    assert same.nationalities("a South African writer")[0] == frozenset({"south african"})  # type: ignore[index]
    # a language is not a nationality
    assert same.nationalities(FILMS[0]) is None
    assert same.nationalities("an English-language film sung in Spanish") is None
    assert same.nationalities("No nationality here.") is None


def test_what_an_answer_says() -> None:
    def says(text: str, given: str = "") -> bool | None:
        return same.claimed(ClaimInput(text=text, source="answer", given=given))

    assert says("Yes.") is True
    assert says("Both are American.") is True
    assert says("No, they are not.") is False
    assert says("They don't share one.") is False
    assert says("They are from different countries.") is False
    assert says('The answer to "Q?" is: no', given='The answer to "Q?" is:') is False
    assert says("Alpha Smith is a painter.") is None


def test_the_answer_is_judged_by_the_two_nationalities() -> None:
    p = docs_pool(PEOPLE)
    given = "Are Alpha Smith and Beta Jones from the same country?"
    claims = [ClaimInput(text=t, source="answer", given=given) for t in ("Yes, both are American.", "No.")]
    right, wrong = selector(Scripted({}), same=True).select(claims, p)
    assert right.verdict == "supported" and wrong.verdict == "contradicted"
    for claim in (right, wrong):
        assert [e.text for e in claim.evidence] == [PEOPLE[0].split(" She")[0], PEOPLE[1]]
        assert claim.note == "Alpha Smith: American; Beta Jones: Hungarian, American; the same"
    # a Canadian-born French singer shares nothing with an American painter
    claim = ClaimInput(text="No.", source="answer",
                       given="Are Alpha Smith and Gamma Lee from the same country?")
    (out,) = selector(Scripted({}), same=True).select([claim], p)
    assert out.verdict == "supported" and out.note.endswith("not the same")
    # without the rule the entailment model decides, and here it sees nothing that entails
    assert selector(Scripted({}), same=False).select(claims[:1], p)[0].verdict == "unsupported"
    step = ClaimInput(text="Both are American.", source="thought", given=given)
    assert selector(Scripted({}), same=True).select([step], p)[0].note == ""


def test_the_directors_are_found_through_the_films() -> None:
    p = docs_pool(FILMS)
    given = "Are director of film Red Sky and director of film Blue Moon and Stars from the same country?"
    (claim,) = selector(Scripted({}), same=True).select([ClaimInput(text="No.", source="answer", given=given)], p)
    # the directors' nationalities, not the films' ("British"), nor the title's language
    assert claim.verdict == "supported"
    assert claim.note == "Red Sky: Swedish; Blue Moon and Stars: English; not the same"
    texts = " ".join(e.text for e in claim.evidence)
    assert "Carol White (born 1961)" in texts and "Hugo Grey (born 1935)" in texts


def test_no_nationality_found_leaves_it_to_the_model() -> None:
    p = docs_pool([PEOPLE[0], "Beta Jones (1940 – 2001) was a poet."])
    claim = ClaimInput(text="Yes.", source="answer", given="Are Alpha Smith and Beta Jones from the same country?")
    (out,) = selector(Scripted({}), same=True).select([claim], p)
    assert out.note == "" and out.verdict == "unsupported"

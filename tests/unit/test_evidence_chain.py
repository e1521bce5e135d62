""""Where was the director of film X born?": X's sentence naming the director, then the director's
sentence holding the answer, are the evidence."""

from __future__ import annotations

import pytest

from gechat.evidence import chain
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

DOCS = [
    "Dollar is a 1938 Swedish comedy film directed by Gustaf Molander and starring Ingrid Bergman.",
    "Gustaf Molander (1888 – 1973) was a Swedish film director. "
    "Gustaf Molander was born in Helsingfors in the Grand Duchy of Finland.",
    "Ingrid Bergman (1915 – 1982) was a Swedish actress. She was born in Stockholm.",
    "Octavie Coudreau (1867 – 1938) was a French explorer. "
    "Her husband was the French explorer and geographer Henri Coudreau.",
    "Henri Anatole Coudreau (6 May 1859 Sonnac – 10 November 1899) was a French explorer.",
]


@pytest.mark.parametrize(("question", "role", "subject"), [
    ("What is the place of birth of the director of film Dollar (1938 Film)?", "director", "Dollar"),
    ("Where was the husband of Octavie Coudreau born?", "husband", "Octavie Coudreau"),
    ("When did the composer of film The Sparrow'S Fluttering die?", "composer", "The Sparrow'S Fluttering"),
    ("Where does the director of film Le Pont Du Nord work at?", "director", "Le Pont Du Nord"),
    ("Which country the director of film Desire Inc. is from?", "director", "Desire Inc."),
    ("What nationality is Clarice Orsini's husband?", "husband", "Clarice Orsini"),
    ("Where was the place of death of Alessandro Ruspoli, 2Nd Prince Of Cerveteri's father?", "father",
     "Alessandro Ruspoli, 2Nd Prince Of Cerveteri"),
    ('The director of the war film "Paths Of Glory" was born where?', "director", "Paths Of Glory"),
])
def test_parse(question: str, role: str, subject: str) -> None:
    assert chain.parse(question) == chain.ChainQuestion(role, subject)


@pytest.mark.parametrize("question", [
    "Which film has the director who died earlier, Gold For The Caesars or Heinz In The Moon?",
    "Where was Gustaf Molander born?", "Who is the paternal grandfather of George Cochrane?",
    # two roles in a row are not read; a lone word after a description is no title
    "Who is the father of the composer of song I Am The World?", "Who was the father of modern Italian opera?"])
def test_other_questions_are_not_parsed(question: str) -> None:
    assert chain.parse(question) is None


def test_the_person_of_the_role_a_sentence_names() -> None:
    assert chain.person(DOCS[0], "director", "Dollar") == "Gustaf Molander"
    # "French" alone is not a name; the cue may stand a few words before it
    assert chain.person(DOCS[3].split(". ")[1], "husband", "Octavie Coudreau") == "Henri Coudreau"
    assert chain.person("She married Charles Emmanuel II, Duke of Savoy in 1665.", "husband", "Marie Jeanne") == \
        "Charles Emmanuel II, Duke of Savoy"
    assert chain.person("He was the son of Charles Howard and his wife Anne.", "father", "Edward Howard") == \
        "Charles Howard"
    # the actress is no director
    assert chain.person("It stars Ingrid Bergman.", "director", "Dollar") is None


def claim(question: str, answer: str) -> ClaimInput:
    given = f'The answer to the question "{question}" is:'
    return ClaimInput(text=f"{given} {answer}", source="answer", given=given)


def test_the_chain_supports_the_answer() -> None:
    q = "What is the place of birth of the director of film Dollar (1938 Film)?"
    right, wrong = selector(Scripted({}), chain=True).select([claim(q, "Helsingfors"), claim(q, "Stockholm")],
                                                             docs_pool(DOCS))
    assert right.verdict == "supported"
    assert [e.text for e in right.evidence] == [DOCS[0], DOCS[1].split(". ")[1]]
    assert right.note == "Dollar: director Gustaf Molander; Gustaf Molander: Helsingfors"
    # the actress's birthplace: no sentence about the director holds it, so the model decides
    assert wrong.verdict == "unsupported" and wrong.note == ""
    # without the rule the model decides the right answer too (nothing entails here)
    assert selector(Scripted({}), chain=False).select([claim(q, "Helsingfors")], docs_pool(DOCS))[0].note == ""


def test_a_spouse_named_after_a_cue() -> None:
    q = "Where was the husband of Octavie Coudreau born?"
    (c,) = selector(Scripted({}), chain=True).select([claim(q, "Sonnac")], docs_pool(DOCS))
    assert c.verdict == "supported" and c.note.startswith("Octavie Coudreau: husband Henri Coudreau")
    assert [e.text for e in c.evidence] == [DOCS[3].split(". ")[1], DOCS[4]]


def test_a_missing_link_leaves_it_to_the_model() -> None:
    q = "What is the place of birth of the director of film Dollar (1938 Film)?"
    (c,) = selector(Scripted({}), chain=True).select([claim(q, "Helsingfors")], docs_pool(DOCS[1:]))
    assert c.note == "" and c.verdict == "unsupported"
    # the subject's own sentence holding the answer is not the person's: "a Swedish film"
    (c,) = selector(Scripted({}), chain=True).select([claim(q, "Swedish")], docs_pool(DOCS[:1]))
    assert c.note == ""
    # reasoning steps are the model's
    step = ClaimInput(text="Gustaf Molander was born in Helsingfors.", source="thought", given=q)
    assert selector(Scripted({}), chain=True).select([step], docs_pool(DOCS))[0].note == ""

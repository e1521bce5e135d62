""""Who is X's paternal grandfather?": the answer is supported by the chain of two parent sentences."""

from __future__ import annotations

import pytest

from gechat.evidence import kin
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

FAMILY = [
    "Edward Howard, 2nd Earl of Carlisle (1646 – 1692) was an English politician. "
    "He was the son of Charles Howard, 1st Earl of Carlisle and his wife Anne Howard.",
    "Charles Howard, 1st Earl of Carlisle (1629 – 1685) was an English military leader. "
    "He was the son of Sir William Howard of Naworth and Mary Eure.",
    "Anne Howard (died 1696) was the daughter of military officer Edward Howard, 1st Baron Howard of Escrick.",
    "Zubda Begum (1651 – 1707) was the daughter of Emperor Aurangzeb and his Empress consort Dilras Banu.",
    "Aurangzeb (1618 – 1707) was a Mughal emperor. Unlike his predecessors, including his father Shah Jahan, "
    "Aurangzeb kept a modest court.",
]


@pytest.mark.parametrize(("question", "person", "first", "second"), [
    ("Who is Edward Howard, 2Nd Earl Of Carlisle's paternal grandfather?", "Edward Howard, 2Nd Earl Of Carlisle",
     "father", "father"),
    ("Who is the maternal grandmother of Agnes Duff, Countess Fife?", "Agnes Duff, Countess Fife", "mother", "mother"),
    ("Who is the paternal grandfather of George Cochrane (Politician)?", "George Cochrane", "father", "father"),
    ("Who is Magnus De La Gardie's paternal grandmother?", "Magnus De La Gardie", "father", "mother"),
    ('The answer to the question "Who is the maternal grandfather of Vyacheslav?" is:', "Vyacheslav", "mother",
     "father"),
])
def test_parse(question: str, person: str, first: str, second: str) -> None:
    assert kin.parse(question) == kin.KinQuestion(person, first, second)


@pytest.mark.parametrize("question", ["Who is the father of Anne Howard?", "Who is Tiberius's uncle?",
                                      "Where was the paternal grandfather born"])
def test_other_questions_are_not_parsed(question: str) -> None:
    assert kin.parse(question) is None


def test_parents_a_sentence_names() -> None:
    s = "He was the son of Charles Howard, 1st Earl of Carlisle and his wife Anne Howard."
    assert kin.parent(s, "father") == "Charles Howard, 1st Earl of Carlisle"
    assert kin.parent(s, "mother") == "Anne Howard"
    s = ("She was the daughter of Peter of Luxembourg, Count of Saint-Pol, Conversano and Brienne, "
         "and his wife Margaret.")
    assert kin.parent(s, "mother") == "Margaret"
    assert kin.parent("including his father Shah Jahan, he", "father") == "Shah Jahan"
    assert kin.parent("Axel was the son of military commander Jacob De la Gardie and Ebba Brahe.", "mother") == \
        "Ebba Brahe"
    # one parent named: the father, unless a title says she is the mother
    assert kin.parent("He was a son of Olaf Gudrodsson (d. 941).", "father") == "Olaf Gudrodsson"
    assert kin.parent("He was a son of Olaf Gudrodsson (d. 941).", "mother") is None
    assert kin.parent("She was the daughter of Queen Maria of Aragon.", "mother") == "Queen Maria of Aragon"
    assert kin.parent("He was an English politician.", "father") is None


def test_the_chain_supports_the_grandparent() -> None:
    p = docs_pool(FAMILY)
    given = 'The answer to the question "Who is Edward Howard, 2Nd Earl Of Carlisle\'s paternal grandfather?" is:'
    claims = [ClaimInput(text=f"{given} {a}", source="answer", given=given)
              for a in ("Sir William Howard", "Mary Eure")]
    right, wrong = selector(Scripted({}), kin=True).select(claims, p)
    assert right.verdict == "supported"
    assert [e.text for e in right.evidence] == [FAMILY[0].split(". ")[1], FAMILY[1].split(". ")[1]]
    assert right.note == ("Edward Howard, 2Nd Earl Of Carlisle: father Charles Howard, 1st Earl of Carlisle; "
                          "Charles Howard, 1st Earl of Carlisle: father Sir William Howard of Naworth")
    # another person: the rule does not decide, the entailment model does (nothing entails here)
    assert wrong.verdict == "unsupported" and wrong.note == ""
    # without the rule the model decides the right answer too
    assert selector(Scripted({}), kin=False).select(claims[:1], p)[0].verdict == "unsupported"


def test_a_title_and_a_later_sentence_are_followed() -> None:
    p = docs_pool(FAMILY)
    given = 'The answer to the question "Who is the paternal grandfather of Zubda Begum?" is:'
    (claim,) = selector(Scripted({}), kin=True).select(
        [ClaimInput(text=f"{given} Shah Jahan", source="answer", given=given)], p)
    # "Emperor Aurangzeb" is told of as "Aurangzeb"; his father is named in his second sentence
    assert claim.verdict == "supported" and "Shah Jahan" in claim.note
    assert any("his father Shah Jahan" in e.text for e in claim.evidence)


def test_a_broken_chain_leaves_it_to_the_model() -> None:
    p = docs_pool(FAMILY[:1])  # the father's own document is missing
    given = 'The answer to the question "Who is Edward Howard, 2Nd Earl Of Carlisle\'s paternal grandfather?" is:'
    (claim,) = selector(Scripted({}), kin=True).select(
        [ClaimInput(text=f"{given} Sir William Howard", source="answer", given=given)], p)
    assert claim.note == "" and claim.verdict == "unsupported"
    # reasoning steps are the model's
    step = ClaimInput(text="Sir William Howard is his grandfather.", source="thought", given=given)
    assert selector(Scripted({}), kin=True).select([step], docs_pool(FAMILY))[0].note == ""

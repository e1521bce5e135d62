"""A supported answer whose evidence stands in a paragraph about someone the question does not
name gets the sentence that ties that person to the question."""

from __future__ import annotations

import pytest

from gechat.evidence import bridge
from gechat.evidence.base import ClaimInput
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

DOCS = [
    "Red Harbour is a 1931 opera by Mara Lind. It premiered in Gothenburg.",
    "Mara Lind (1890 – 1960) was a Swedish composer. She played the cello in the city orchestra.",
    "Blue Harbour is a 1950 film. Mara Lind is not in it, and it has no opera.",
    "Karl Berg (1901 – 1970) was a Danish painter. He played the cello as a boy.",
]
Q = "Which instrument did the composer of the opera Red Harbour play?"


def claim(answer: str) -> ClaimInput:
    given = f'The answer to the question "{Q}" is:'
    return ClaimInput(text=f"{given} {answer}", source="answer", given=given)


@pytest.mark.parametrize(("sentence", "name"), [
    ("Mara Lind (1890 – 1960) was a Swedish composer.", "Mara Lind"),
    ("Kiss and Run is a 1945 comedy film.", "Kiss and Run"),
    ('"Red Harbour" is an opera.', "Red Harbour"),
    ("Charles Howard, 1st Earl of Carlisle, was an English nobleman.", "Charles Howard"),
    ("In 1931 she wrote an opera.", ""),
    ("The opera was a success.", ""),
    ("she wrote an opera.", ""),
    # a species is named by its genus and a lower-case word
    ("Silene menziesii is a species of flowering plant.", "Silene menziesii"),
    ("Silene latifolia (formerly Melandrium album) is a flowering plant.", "Silene latifolia"),
    ("Silene tomentosa, the Gibraltar campion, is very rare.", "Silene tomentosa"),
    ("Silene is a genus.", "Silene"),
    ("Silene grows in a dry place.", "Silene"),
])
def test_leading_name(sentence: str, name: str) -> None:
    assert bridge.leading_name(sentence) == name


def test_the_bridge_sentence_is_added() -> None:
    cello = DOCS[1].split(". ")[1]
    sel = selector(Scripted({cello: (0.9, 0.01)}), bridge=True)
    (c,) = sel.select([claim("the cello")], docs_pool(DOCS))
    assert c.verdict == "supported"
    # the opera's sentence, whose paragraph the question names, not the film's that also names her
    assert [e.text for e in c.evidence] == [DOCS[0].split(". ")[0] + ".", cello]
    # the whole is scored again as one passage: the script gives it the neutral default
    assert c.evidence[0].p_entail == pytest.approx(0.05)
    # without the rule, the answer's sentence alone
    (c,) = selector(Scripted({cello: (0.9, 0.01)}), bridge=False).select([claim("the cello")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [cello]


def test_nothing_is_added_when_not_needed() -> None:
    # the question names what the evidence's paragraph is about
    named = DOCS[0].split(". ")[1]
    sel = selector(Scripted({named: (0.9, 0.01)}), bridge=True)
    (c,) = sel.select([claim("Gothenburg")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [named]
    # nothing elsewhere names the painter
    boy = DOCS[3].split(". ")[1]
    (c,) = selector(Scripted({boy: (0.9, 0.01)}), bridge=True).select([claim("the cello")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [boy]
    # an unsupported claim gets no bridge, nor does a reasoning step
    (c,) = selector(Scripted({}), bridge=True).select([claim("the harp")], docs_pool(DOCS))
    assert c.verdict == "unsupported" and len(c.evidence) == 1
    step = ClaimInput(text="Mara Lind played the cello.", source="thought", given=Q)
    cello = DOCS[1].split(". ")[1]
    (c,) = selector(Scripted({cello: (0.9, 0.01)}), bridge=True).select([step], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [cello]


def test_a_person_is_found_by_first_and_last_name() -> None:
    # her paragraph writes "Mara Elin Lind", the opera's "Mara Lind"
    docs = ["Red Harbour is a 1931 opera by Mara Lind. It premiered in Gothenburg.",
            "Mara Elin Lind (1890 – 1960) was a Swedish composer. She played the cello in the city orchestra."]
    pool = docs_pool(docs)
    cello = next(s for s in pool.sentences if s.text.startswith("She played"))
    tie = bridge.find(pool, Q, [cello])
    assert tie is not None and tie.text == "Red Harbour is a 1931 opera by Mara Lind."


@pytest.mark.parametrize(("name", "option", "same"), [
    ("Giuseppe Verdi", "Giuseppe Verdi", True),
    ("The Manchester Terrier", "the Manchester Terrier", True),
    ("Giuseppe Fortunino Francesco Verdi", "Giuseppe Verdi", True),
    ("Teatro Giuseppe Verdi", "Giuseppe Verdi", False),
    ("Silene menziesii", "Silene", False),
    ("", "Silene", False),
])
def test_same_name(name: str, option: str, same: bool) -> None:
    assert bridge.same_name(name, option) is same


def test_the_hop_the_other_way() -> None:
    # the evidence names the man the question only describes: his page's sentence that says
    # what the question says of him is added
    docs = ["The Peace Summit was initiated by Mikhail Gorbachev in the 1990s as a forum for laureates.",
            "Mikhail Sergeyevich Gorbachev (born 1931) is a former Soviet statesman.",
            "Boris Yeltsin (1931 – 2007) was a Russian statesman."]
    q = "What type of forum did a former Soviet statesman initiate?"
    pool = docs_pool(docs)
    forum = pool.sentences[0]
    tie = bridge.find(pool, q, [forum])
    assert tie is not None and tie.text == docs[1]
    # a name the question holds is no missing hop
    assert bridge.find(pool, "What forum did Mikhail Gorbachev, a former Soviet statesman, initiate?",
                       [forum]) is None
    # nor is a page sharing fewer than two words with the question
    assert bridge.find(docs_pool([docs[0], "Mikhail Gorbachev (born 1931) has a daughter."]), q, [forum]) is None


def test_a_person_is_found_by_last_name() -> None:
    docs = ["Richard Milhous Nixon (January 9, 1913 – April 22, 1994) was president from 1969 until 1974.",
            "Roger Egeberg was Assistant Secretary for Health during the Nixon administration.",
            "Nixon Peabody is a law firm for Health and Secretary matters."]
    q = "Roger O. Egeberg was Assistant Secretary for Health during the administration of what president?"
    pool = docs_pool(docs)
    tie = bridge.find(pool, q, [pool.sentences[0]])
    assert tie is not None and tie.text == docs[1]
    # a page that opens with no dates is not taken for a person's
    firm = ["Richard Milhous Nixon is a law firm founded in 1969.", docs[1]]
    pool = docs_pool(firm)
    assert bridge.find(pool, q, [pool.sentences[0]]) is None

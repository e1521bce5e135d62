"""A sentence pair from two paragraphs that do not name each other keeps the answer's sentence
and takes, as the other hop, the sentence tying its paragraph to the question."""

from __future__ import annotations

import pytest

from gechat.evidence import bridge
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.types import Sentence
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

ARENA = "The Harbour Arena is a 5,000 capacity stadium in Portsmouth."
HOME = "The team played its home games at the Harbour Arena."
GAMES = "Twelve teams played 60 home games each."
DOCS = [
    f"{ARENA} It opened in 1990.",
    f"The Portsmouth Gulls are an ice hockey team. {HOME}",
    f"The 2006 hockey season had twelve teams. {GAMES}",
]
Q = "The arena where the Portsmouth Gulls played their home games can seat how many people?"


def claim(question: str, answer: str) -> ClaimInput:
    given = f'The answer to the question "{question}" is:'
    return ClaimInput(text=f"{given} {answer}", source="answer", given=given)


def sentence(pool: EvidencePool, text: str) -> Sentence:
    return next(s for s in pool.sentences if s.text == text)


def scores() -> dict[str, tuple[float, float]]:
    # the model likes the pair with the passenger best; the hop pair passes too
    return {f"{ARENA} {GAMES}": (0.9, 0.01), f"{ARENA} {HOME}": (0.7, 0.01)}


def test_the_unlinked_partner_is_replaced_by_the_hop() -> None:
    pool = docs_pool(DOCS)
    (c,) = selector(Scripted(scores()), rebridge=True, set_top=10).select([claim(Q, "5,000")], pool)
    assert c.verdict == "supported"
    assert [e.text for e in c.evidence] == [ARENA, HOME]
    assert c.evidence[0].p_entail == pytest.approx(0.7)  # the mended pair scored as one passage
    (c,) = selector(Scripted(scores()), rebridge=False, set_top=10).select([claim(Q, "5,000")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [ARENA, GAMES]


def test_the_hop_must_pass_too() -> None:
    table = scores() | {f"{ARENA} {HOME}": (0.2, 0.01)}
    (c,) = selector(Scripted(table), rebridge=True, set_top=10).select([claim(Q, "5,000")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [ARENA, GAMES]


def test_pairs_left_alone() -> None:
    pool = docs_pool(DOCS)
    arena, home, games = (sentence(pool, t) for t in (ARENA, HOME, GAMES))
    # linked already: the home-games sentence names the arena its partner's paragraph is about
    assert bridge.repaired(pool, Q, "5,000", [arena, home]) is None
    # the answer in neither sentence, or in both: which one to keep is unknown
    assert bridge.repaired(pool, Q, "7,000", [arena, games]) is None
    assert bridge.repaired(pool, Q, "home games", [arena, games]) is None
    # one paragraph: no hop between paragraphs
    assert bridge.repaired(pool, Q, "5,000", [arena, sentence(pool, "It opened in 1990.")]) is None
    assert bridge.repaired(pool, Q, "5,000", [arena, games]) == [arena, home]


def test_a_comparison_is_not_mended() -> None:
    q = "Which seats more, the Harbour Arena or the 2006 hockey season?"
    table = {f"{ARENA} {GAMES}": (0.9, 0.01), f"{ARENA} {HOME}": (0.7, 0.01)}
    (c,) = selector(Scripted(table), rebridge=True, set_top=10).select([claim(q, "5,000")], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [ARENA, GAMES]


def test_a_paragraph_named_in_part_is_not_linked() -> None:
    # "an arena" names half of the Harbour Arena: a pair that only looks linked is mended
    games = "Twelve teams played 60 home games each in an arena."
    pool = docs_pool([DOCS[0], DOCS[1], f"The 2006 hockey season had twelve teams. {games}"])
    arena, home, partner = (sentence(pool, t) for t in (ARENA, HOME, games))
    assert bridge.repaired(pool, Q, "5,000", [arena, partner]) == [arena, home]

"""A list told line by line (a lead-in with a colon, then its items) is read as one set."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.lists import lists_in
from gechat.evidence.sets import SentenceSets
from tests.unit.test_evidence_names import _set_evidence

SEGMENTS = ("Our business is organized into three reportable segments:\n\n• Digital Media;\n\n"
            "• Digital Experience; and\n\n• Publishing and Advertising.\n\nThese segments give a full view.")


def test_a_lead_in_and_its_items_are_found() -> None:
    pool = EvidencePool.from_texts([SEGMENTS])
    texts = {s.id: s.text for s in pool.sentences}
    (found,) = lists_in(pool.sentences, set(texts))
    assert sorted(texts[i] for i in found) == sorted(
        ["Our business is organized into three reportable segments:", "• Digital Media;",
         "• Digital Experience; and", "• Publishing and Advertising."])
    assert lists_in(pool.sentences, set()) == []  # none of it among the candidates
    prose = EvidencePool.from_texts(["We note the following: revenue rose.\n\nIt fell later.\n\n- One item only."])
    assert lists_in(prose.sentences, {s.id for s in prose.sentences}) == []


def test_a_claim_that_names_every_item_is_supported_by_the_whole_list() -> None:
    pool = EvidencePool.from_texts([SEGMENTS])
    whole = pool.span_text(pool.sentences[0], pool.sentences[3])
    claim = ClaimInput(text="Adobe's reportable segments are Digital Media, Digital Experience, and Publishing and "
                            "Advertising.", source="answer", given="What are Adobe's reportable segments?")
    sets = SentenceSets(top=15, max_size=2, gain=0.1, linked=True, needed=0.05, named=True)
    assert _set_evidence({whole: (0.7, 0.1)}, pool, claim, sets) == [whole]
    # the lead-in is needed: without it the items alone entail as much, so it is a passenger
    items = pool.span_text(pool.sentences[1], pool.sentences[3])
    assert _set_evidence({whole: (0.7, 0.1), items: (0.68, 0.1)}, pool, claim, sets) is None

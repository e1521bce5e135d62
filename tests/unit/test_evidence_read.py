"""A set is read with the name of the document before a sentence that opens with a pronoun:
lifted out of its paragraph, "He was working at Tata Consultancy Services." says nothing about
Sachin Warrier. The reader is shown the sentences verbatim."""

from __future__ import annotations

import pytest

from gechat.evidence.base import ClaimInput
from gechat.evidence.objective import opens_unnamed
from tests.unit.test_evidence_compare import docs_pool
from tests.unit.test_evidence_objective import Scripted, selector

DOCS = ["Sachin Warrier is a poet from Kerala. He was working as a software engineer at Tata Consultancy Services.",
        "Tata Consultancy Services is a company headquartered in Mumbai."]
Q = "Where is the company that Sachin Warrier worked for headquartered?"
WORKED = DOCS[0].split(". ")[1]


def claim() -> ClaimInput:
    given = f'The answer to the question "{Q}" is:'
    return ClaimInput(text=f"{given} Mumbai", source="answer", given=given)


def test_a_pronoun_sentence_is_read_with_its_documents_name() -> None:
    read = f"(Sachin Warrier) {WORKED} {DOCS[1]}"
    scorer = Scripted({read: (0.9, 0.01), DOCS[1]: (0.6, 0.01)})
    (c,) = selector(scorer, set_gain=0.1, set_names=True).select([claim()], docs_pool(DOCS))
    assert c.verdict == "supported"
    # shown verbatim, scored as read
    assert [e.text for e in c.evidence] == [WORKED, DOCS[1]]
    assert c.evidence[0].p_entail == pytest.approx(0.9)
    # read verbatim, the pair would entail no more than the company's sentence alone
    verbatim = Scripted({f"{WORKED} {DOCS[1]}": (0.9, 0.01), DOCS[1]: (0.6, 0.01)})
    (c,) = selector(verbatim, set_gain=0.1, set_names=True).select([claim()], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [DOCS[1]]
    # with the setting off, read verbatim
    (c,) = selector(verbatim, set_gain=0.1).select([claim()], docs_pool(DOCS))
    assert [e.text for e in c.evidence] == [WORKED, DOCS[1]]


def test_which_sentences_open_unnamed() -> None:
    assert opens_unnamed("He was born in Kerala.")
    assert opens_unnamed("This climactic battle secured Ethiopian sovereignty.")
    assert opens_unnamed("Its capital is Rome.")
    # names that open with such a word, and sentences that name their subject
    assert not opens_unnamed("This Is Spinal Tap is a 1984 film.")
    assert not opens_unnamed("He Knows You're Alone is a 1980 film.")
    assert not opens_unnamed("The team competes in the America East Conference.")
    assert not opens_unnamed("Sachin Warrier is a poet.")
    assert not opens_unnamed("")


def test_only_in_a_documents_opening_chunk() -> None:
    # the same pair, the pronoun sentence in the document's second chunk: read verbatim
    pool = docs_pool(DOCS)
    first, worked = pool.sentences[0], pool.sentences[1]
    chunk = pool.chunks[1]
    pool.chunks[1] = chunk.model_copy(update={"sentence_ids": [first.id]})
    pool.chunks[9] = chunk.model_copy(update={"id": 9, "ord": 1, "sentence_ids": [worked.id]})
    pool.sentences[1] = worked.model_copy(update={"chunk_id": 9, "ord": 0})
    read = f"(Sachin Warrier) {WORKED} {DOCS[1]}"
    (c,) = selector(Scripted({read: (0.9, 0.01), DOCS[1]: (0.6, 0.01)}), set_gain=0.1,
                    set_names=True).select([claim()], pool)
    assert [e.text for e in c.evidence] == [DOCS[1]]

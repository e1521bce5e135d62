"""The triplet extractors HC reads: the LLM's (a fake LLM here) placed in their sentences, and
the clause a deletion takes."""

from __future__ import annotations

import json

from gechat.correct import CORRECTORS, TRIPLETS
from gechat.correct.hc import HallucinationCorrector
from gechat.correct.llm_triplets import LLMTriplets, find
from gechat.correct.triplets import clause_span
from gechat.models.embed import HashingEmbedder
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.settings import Settings
from gechat.types import Usage
from tests.unit.test_evidence_objective import Scripted

SENTENCES = ["Oray and HiChina are domain registrars in China.", "Oray was founded in 1993."]


def llm_replying(*replies: object) -> CachedLLM:
    return CachedLLM(FakeLLM([json.dumps(r) for r in replies]), None, Usage())


def test_the_llms_triplets_keep_the_words_and_spans_of_their_sentence() -> None:
    reply = {"triplets": [
        {"sentence": 1, "subject": "oray", "relation": "Are", "object": "domain registrars in China"},
        {"sentence": 2, "subject": "Oray", "relation": "founded in", "object": "1993"},
        {"sentence": 2, "subject": "Oray Inc.", "relation": "founded in", "object": "1993"},  # not in the text
        {"sentence": 7, "subject": "Oray", "relation": "is", "object": "China"},  # no such sentence
        {"sentence": 1, "subject": "", "relation": "is", "object": "China"},
        "not a triplet",
    ]}
    got = LLMTriplets(llm_replying(reply))(SENTENCES)
    assert [(t.subject, t.relation, t.object, t.source) for t in got] == [
        ("Oray", "are", "domain registrars in China", 0), ("Oray", "founded in", "1993", 1)]
    first = got[0]
    assert SENTENCES[0][first.subject_span[0]:first.subject_span[1]] == "Oray"
    assert SENTENCES[0][first.object_span[0]:first.object_span[1]] == "domain registrars in China"
    assert first.subject_named


def test_an_output_cut_short_or_not_json_gives_what_it_holds() -> None:
    cut = '{"triplets": [{"sentence": 2, "subject": "Oray", "relation": "founded in", "object": "1993"}, {"sent'
    llm = CachedLLM(FakeLLM([cut]), None, Usage())
    assert [t.object for t in LLMTriplets(llm)(SENTENCES)] == ["1993"]
    assert LLMTriplets(CachedLLM(FakeLLM(["no json at all"]), None, Usage()))(SENTENCES) == []


def test_find_ignores_case_and_spacing() -> None:
    assert find("Domain  registrars in China", "domain registrars") == (0, 18)
    assert find("Oray", "HiChina") is None and find("Oray", "  ") is None


def test_settings_choose_the_extractor_by_name() -> None:
    s = Settings(preset="test", correct="hc", correct_triplets="llm")
    llm = llm_replying({"triplets": []})
    assert isinstance(TRIPLETS.create("llm", s, llm=llm), LLMTriplets)
    hc = CORRECTORS.create("hc", s, embedder=HashingEmbedder(), scorer=Scripted({}), llm=llm)
    assert isinstance(hc, HallucinationCorrector) and isinstance(hc.extract, LLMTriplets)
    assert hc.unsupported == "delete"  # the default
    s = Settings(preset="test", correct="hc", correct_unsupported="keep")
    hc = CORRECTORS.create("hc", s, embedder=HashingEmbedder(), scorer=Scripted({}), llm=llm)
    assert isinstance(hc, HallucinationCorrector) and hc.unsupported == "keep"


def test_a_clause_is_cut_with_what_joins_it() -> None:
    text = '"Human Error" was the season finale of the third season of "House" and aired on NBC.'
    a, b = clause_span(text, text.index("NBC"))  # type: ignore[misc]
    assert text[a:b] == " and aired on NBC"
    opening = "Although Walter Darwin Coy was part of the cast, the narrator of the series was Richard Boone."
    a, b = clause_span(opening, opening.index("Coy"))  # type: ignore[misc]
    assert opening[a:b] == "Although Walter Darwin Coy was part of the cast, "
    assert clause_span(opening, opening.index("Boone")) is None  # the main clause


def test_find_takes_whole_words_and_leaves_the_marks_around_them() -> None:
    text = 'Oray, HiChina and "Human Error" are in China.'
    assert text[slice(*find(text, "china"))] == "China"  # type: ignore[misc]
    assert text[slice(*find(text, '"human error"'))] == 'Human Error'  # type: ignore[misc]
    assert find(text, "ray") is None and find(text, "Error are in Ch") is None

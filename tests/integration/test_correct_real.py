"""HC with the real packaged models (spaCy triplets and lists, MiniLM names, the NLI model)
after the real evidence chain: the paper's worked example, a replaced year, an invented name."""

from __future__ import annotations

import pytest

from gechat.correct.hc import HallucinationCorrector
from gechat.evidence import SELECTORS, ClaimInput, EvidencePool, verdict_thresholds
from gechat.models import EMBEDDERS, ENTAILERS
from gechat.settings import Settings
from gechat.types import Answer, Correction

pytestmark = pytest.mark.slow

TOWER = "The Eiffel Tower in Paris was completed in 1889. It was designed by Gustave Eiffel's company."


@pytest.fixture(scope="module")
def run():  # type: ignore[no-untyped-def]
    s = Settings.load("default")
    embedder, scorer = EMBEDDERS.create(s.embedder, s), ENTAILERS.create(s.entailment, s)
    selector = SELECTORS.create("nli-objective", s, scorer=scorer, embedder=embedder)
    hc = HallucinationCorrector(embedder, scorer, verdict_thresholds(s, scorer)[0])

    def correct(context: str, answer: str, question: str) -> Correction:
        pool = EvidencePool.from_texts([context])
        claims = selector.select([ClaimInput(text=answer, source="answer", given=question)], pool)
        return hc.correct(Answer(question=question, text=answer, thoughts=[], claims=claims), pool)

    return correct


def test_the_papers_example(run) -> None:  # type: ignore[no-untyped-def]
    out = run("Oray, HiChina, east.net and BIZCN are domain registrars in China. They sell .cn names.",
              "Domain registrars in China include GoDaddy and Oray.", "Which domain registrars operate in China?")
    assert out.text == "Domain registrars in China include Oray."
    assert [(e.kind, e.old) for e in out.edits] == [("delete", "GoDaddy and ")] and out.eliminated == ["GoDaddy"]


def test_a_wrong_year_is_replaced_with_its_evidence(run) -> None:  # type: ignore[no-untyped-def]
    out = run(TOWER, "The Eiffel Tower was completed in 1887.", "When was the Eiffel Tower completed?")
    assert out.text == "The Eiffel Tower was completed in 1889."
    (edit,) = out.edits
    assert edit.evidence is not None and edit.evidence.text == "The Eiffel Tower in Paris was completed in 1889."


def test_an_invented_name_goes_with_its_sentence_and_a_supported_answer_stays(run) -> None:  # type: ignore[no-untyped-def]
    out = run(TOWER, "The Eiffel Tower was designed by Acme Corp.", "Who designed the Eiffel Tower?")
    assert out.text == "" and "Acme Corp" in out.edits[0].reason
    kept = run(TOWER, "The Eiffel Tower was completed in 1889.", "When was the Eiffel Tower completed?")
    assert kept.text == "The Eiffel Tower was completed in 1889." and kept.edits == []


def test_the_llm_extractor_places_the_packaged_models_triplets(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("llama_cpp")
    from gechat.correct.llm_triplets import LLMTriplets
    from gechat.models import build_llm

    texts = ["Oray, HiChina, east.net and BIZCN are domain registrars in China.",
             "Gustave Eiffel's company designed the Eiffel Tower."]
    found = LLMTriplets(build_llm(Settings.load("default", cache_dir=tmp_path / "cache")))(texts)
    assert found, "the 1.5B model states at least one fact"
    for t in found:  # every kept triplet's words are in its own sentence, where its spans say
        text = texts[t.source]
        assert text[t.subject_span[0]:t.subject_span[1]] == t.subject
        assert text[t.object_span[0]:t.object_span[1]] == t.object and t.relation

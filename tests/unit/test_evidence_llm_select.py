"""EvidenceChat reflection and the direct-quote baseline with a scripted LLM: what is not in
the source is dropped and counted, never shown."""

from __future__ import annotations

import json

from gechat.evidence import SELECTORS
from gechat.evidence.base import ClaimInput
from gechat.evidence.llm_select import QuoteSelector, ReflectionSelector
from gechat.evidence.locate import locate
from gechat.models.embed import HashingEmbedder
from gechat.models.llm.fake import FakeLLM
from gechat.settings import Settings
from tests.unit.test_evidence_objective import Scripted, pool


def test_locate_exact_fuzzy_multi_and_missing() -> None:
    s = pool().sentences
    assert locate("Alpha is red.", s) == [s[0]]
    assert locate("  alpha IS red ", s) == [s[0]]
    assert locate("Beta is small, and was built in 1990 by a team.", s) == [s[2]]  # a comma added
    assert locate("Alpha is red. Alpha is big.", s) == [s[0], s[1]]
    assert locate("Delta was built in 2001 on the moon.", s) == []
    assert locate("red", s) == []  # too short to be a quote


def test_reflection_keeps_located_sentences_and_counts_invented_ones() -> None:
    reply = json.dumps({"supporting": ["Beta is small and was built in 1990 by a team.",
                                       "Beta was designed by aliens."]})
    llm = FakeLLM([reply])
    sel = ReflectionSelector(llm, Scripted({}), HashingEmbedder(), k=3)
    (claim,) = sel.select([ClaimInput(text="Beta was built in 1990.", source="thought")], pool())
    assert claim.verdict == "supported" and [e.text for e in claim.evidence] == [
        "Beta is small and was built in 1990 by a team."]
    assert claim.evidence[0].selector == "reflection"
    assert sel.stats["fabricated"] == 1 and sel.stats["quotes"] == 2
    prompt = llm.calls[0][0][1]["content"]
    assert prompt.count("\n- ") == 3  # k = 3 candidates shown
    assert llm.calls[0][1]["json_schema"]["properties"]["supporting"]["maxItems"] == 3


def test_reflection_never_takes_more_than_k_and_handles_garbage() -> None:
    many = json.dumps({"supporting": ["Alpha is red.", "Alpha is big.", "Gamma is here now.", "Alpha is red."]})
    sel = ReflectionSelector(FakeLLM([many, "not json"]), None, HashingEmbedder(), k=2)
    a, b = sel.select([ClaimInput(text="Alpha is red and big.", source="answer"),
                       ClaimInput(text="Something else entirely.", source="answer")], pool())
    assert len(a.evidence) <= 2 and b.verdict == "unsupported" and sel.stats["unparsed"] == 1


def test_quote_baseline_sees_the_excerpts_and_counts_fabrications() -> None:
    llm = FakeLLM([json.dumps({"quotes": ["Alpha is big.", "Alpha was founded in 1850."]}),
                   json.dumps({"quotes": []})])
    sel = QuoteSelector(llm, Scripted({"Alpha is big.": (0.9, 0.0)}), k=3)
    a, b = sel.select([ClaimInput(text="Alpha is large.", source="answer"),
                       ClaimInput(text="Zeta is small.", source="answer")], pool())
    assert a.verdict == "supported" and a.evidence[0].p_entail > 0.8 and a.evidence[0].page == 2
    assert b.verdict == "unsupported" and not b.evidence
    assert sel.stats["fabricated"] == 1 and sel.stats["quotes"] == 2
    assert "Beta is small and was built in 1990" in llm.calls[0][0][1]["content"]  # the excerpt text


def test_registry_builds_both() -> None:
    s = Settings.load("test")
    deps = {"llm": FakeLLM(), "scorer": Scripted({}), "embedder": HashingEmbedder()}
    assert SELECTORS.create("reflection", s, **deps).name == "reflection"
    assert SELECTORS.create("quote", s, **deps).name == "quote"

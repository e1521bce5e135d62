"""The claim-support sets of benchmarks/nli.py are read as documented."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.nli import (
    DATA,
    ClaimPair,
    evidence_step,
    expertqa_pairs,
    halueval_pairs,
    knowledge,
    score_windowed,
    windows,
)

from gechat.evidence import EvidencePool
from tests.unit.test_evidence_objective import Scripted, selector

pytestmark = pytest.mark.skipif(not (DATA / "halueval").exists(), reason="shared data not found")


def test_halueval_gives_one_right_and_one_hallucinated_claim_per_row() -> None:
    pairs = halueval_pairs(limit=3)
    assert [c.supported for c in pairs] == [True, False] * 3
    assert pairs[0].premise == pairs[1].premise and "Arthur's Magazine" in pairs[0].claim
    assert pairs[0].claim[len(pairs[0].given):] == "Arthur's Magazine"
    # HaluEval's sentences joined with no space get one back, so a splitter cuts them
    assert "19th century. First for Women" in pairs[0].premise


def test_joined_sentences_are_spaced_but_initials_and_numbers_kept() -> None:
    assert knowledge("formed in Vancouver.Kings of Leon is a band.") == "formed in Vancouver. Kings of Leon is a band."
    assert knowledge('was called "Sassy".The band') == 'was called "Sassy". The band'
    # an initial, an abbreviation or a decimal has no lower-case letter before its stop
    assert knowledge("H.G. Wells, U.S.A. and 3.5 points") == "H.G. Wells, U.S.A. and 3.5 points"


def test_expertqa_drops_uncited_and_na_claims_and_citation_marks() -> None:
    pairs = expertqa_pairs()
    assert 500 < len(pairs) < 800
    assert not any("[1]" in c.claim or "http" in c.premise[:8] for c in pairs)
    assert 0.5 < np.mean([c.supported for c in pairs]) < 0.8
    assert all(c.given.strip() for c in pairs)  # the question the claim answers


def test_long_premises_are_scored_as_their_best_window() -> None:
    text = " ".join(f"Sentence number {i} is here with some filler words to make it long enough." for i in range(12))
    wins = windows(text)
    assert len(wins) == 10 and all(w.count(".") == 3 for w in wins)
    assert windows("Short one.") == ["Short one."]

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array([[0.0, 0.5, 0.5] if "number 5 " in p else [0.0, 0.9, 0.1] for p, _ in pairs], dtype=np.float32)

    out = score_windowed(score, [(text, "h"), ("Short one.", "h")])
    assert out[0, 2] == pytest.approx(0.5) and out[1, 2] == pytest.approx(0.1)


def test_a_passage_pool_is_cut_into_sentences_at_their_offsets() -> None:
    texts = ["Alpha Smith (1901 – 1950) was a poet. She lived in Leeds.", "Beta is small."]
    pool = EvidencePool.from_texts(texts)
    assert [(s.doc_id, s.ord, s.text) for s in pool.sentences] == [
        (1, 0, "Alpha Smith (1901 – 1950) was a poet."), (1, 1, "She lived in Leeds."), (2, 0, "Beta is small.")]
    for s in pool.sentences:
        assert texts[s.doc_id - 1][s.start:s.end] == s.text
        assert s.id in pool.chunks[s.chunk_id].sentence_ids


def test_the_evidence_step_verdict_is_what_the_selector_says() -> None:
    premise = "Alpha Smith is a poet. She was born in Leeds in 1901."
    rows = [ClaimPair(premise, "The answer is: Leeds", True, "The answer is:"),
            ClaimPair(premise, "The answer is: York", False, "The answer is:"),
            ClaimPair("Beta is small.", "The answer is: small", False, "The answer is:")]
    # the scorer entails every claim by the Leeds sentence; names and numbers decide the rest
    scorer = Scripted({"She was born in Leeds in 1901.": (0.9, 0.0), "Beta is small.": (0.9, 0.0)})
    r = evidence_step(selector(scorer, coverage="facts"), {"halueval_qa": rows})
    # Leeds: supported; York: the evidence lacks the name; small: supported, but gold says no
    assert r["halueval_qa_evidence_step_balanced_accuracy"] == pytest.approx((1.0 + 0.5) / 2)
    assert r["halueval_qa_evidence_step_seconds_per_claim"] >= 0

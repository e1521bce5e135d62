"""Evidence and answer metrics on hand-made cases with known values."""

from __future__ import annotations

import numpy as np
import pytest

from gechat.eval.evidence import conciseness, evidence_scores, page_hit, prf, token_recall
from gechat.eval.qa import answer_f1, exact_match, normalize_answer


def test_normalisation_and_exact_match() -> None:
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("A cat and an owl") == "cat and owl"
    assert exact_match("the Beatles", "Beatles.") == 1.0
    assert exact_match("Beatles", "Rolling Stones") == 0.0


def test_answer_f1_known_values() -> None:
    assert answer_f1("Shirley Temple Black", "Shirley Temple") == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert answer_f1("yes", "no") == 0.0
    assert answer_f1("yes it is", "yes") == 0.0  # yes/no must match exactly
    assert answer_f1("", "Paris") == 0.0


def test_evidence_score_is_cosine_times_conciseness() -> None:
    def embed(texts: list[str]) -> np.ndarray:  # one-hot by first word: cosine 1 or 0
        vocab = sorted({t.split()[0] if t.split() else "" for t in texts})
        return np.array([[1.0 if (t.split() or [""])[0] == w else 0.0 for w in vocab] for t in texts],
                        dtype=np.float32)

    gold = ["alpha beta gamma delta", "alpha beta"]
    got = evidence_scores(["alpha one two three four five six seven", "zeta beta"], gold, embed)
    assert got[0] == pytest.approx(0.5)  # same direction, twice the gold's length
    assert got[1] == pytest.approx(0.0)  # orthogonal
    assert evidence_scores([""], ["alpha"], embed) == [0.0]
    assert conciseness("a b", "a b c d") == 1.0 and conciseness("", "a") == 0.0
    with pytest.raises(ValueError):
        evidence_scores(["a"], [], embed)


def test_sentence_prf_page_hit_token_recall() -> None:
    r = prf({1, 2, 3}, {2, 3, 4, 5})
    assert (r.precision, r.recall) == (pytest.approx(2 / 3), pytest.approx(0.5))
    assert r.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert prf(set(), set()).f1 == 1.0 and prf({1}, set()).f1 == 0.0 and prf(set(), {1}).recall == 0.0
    assert page_hit([3, 9], [9]) == 1.0 and page_hit([], [1]) == 0.0
    assert token_recall("Revenue was $5.2 billion in 2022", "revenue: 5.2 billion dollars") == pytest.approx(3 / 4)
    assert token_recall("anything", "") == 1.0

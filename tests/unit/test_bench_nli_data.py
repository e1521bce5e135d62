"""The claim-support sets of benchmarks/nli.py are read as documented."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.nli import DATA, expertqa_pairs, halueval_pairs, score_windowed, windows

pytestmark = pytest.mark.skipif(not (DATA / "halueval").exists(), reason="shared data not found")


def test_halueval_gives_one_right_and_one_hallucinated_claim_per_row() -> None:
    pairs = halueval_pairs(limit=3)
    assert [ok for _, _, ok in pairs] == [True, False] * 3
    assert pairs[0][0] == pairs[1][0] and "Arthur's Magazine" in pairs[0][1]


def test_expertqa_drops_uncited_and_na_claims_and_citation_marks() -> None:
    pairs = expertqa_pairs()
    assert 500 < len(pairs) < 800
    assert not any("[1]" in claim or "http" in evidence[:8] for evidence, claim, _ in pairs)
    assert 0.5 < np.mean([ok for _, _, ok in pairs]) < 0.8


def test_long_premises_are_scored_as_their_best_window() -> None:
    text = " ".join(f"Sentence number {i} is here with some filler words to make it long enough." for i in range(12))
    wins = windows(text)
    assert len(wins) == 10 and all(w.count(".") == 3 for w in wins)
    assert windows("Short one.") == ["Short one."]

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array([[0.0, 0.5, 0.5] if "number 5 " in p else [0.0, 0.9, 0.1] for p, _ in pairs], dtype=np.float32)

    out = score_windowed(score, [(text, "h"), ("Short one.", "h")])
    assert out[0, 2] == pytest.approx(0.5) and out[1, 2] == pytest.approx(0.1)

"""A deterministic lexical entailment scorer for unit tests (no model, no randomness)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gechat.lexical import STOPWORDS, words
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL

_NEGATIONS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor"})


def _negated(ws: list[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in ws)


def _stem(word: str) -> str:
    # "capitals" should match "capital"; nothing cleverer is needed for tests
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in STOPWORDS and w not in _NEGATIONS and not w.endswith("n't")}


class FakeEntailment:
    """P(entail) grows with the share of the hypothesis's content words in the premise;
    negation in exactly one of the two turns that mass into contradiction."""

    name = "fake"

    def __init__(self) -> None:
        self.pairs_scored = 0

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        hyp_words = content_words(hypothesis)
        hyp_neg = _negated(words(hypothesis))
        out = np.zeros((len(premises), 3), dtype=np.float64)
        for i, premise in enumerate(premises):
            prem_words = content_words(premise)
            overlap = len(hyp_words & prem_words) / len(hyp_words) if hyp_words else 0.0
            strong, weak = 0.05 + 0.9 * overlap, 0.05
            mismatch = _negated(words(premise)) != hyp_neg
            out[i, CONTRADICTION] = strong if mismatch else weak
            out[i, ENTAILMENT] = weak if mismatch else strong
            out[i, NEUTRAL] = 1.0 - out[i, CONTRADICTION] - out[i, ENTAILMENT]
        self.pairs_scored += len(premises)
        return out.astype(np.float32)

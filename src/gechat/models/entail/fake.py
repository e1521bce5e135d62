"""A deterministic lexical entailment scorer for unit tests (no model, no randomness)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NEGATIONS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor"})
_STOPWORDS_TEXT = (
    "a an the of to in on at by for with from as is are was were be been being am "
    "it its this that these those and or but if then so than there their they them he she "
    "his her we our you your i me my do does did has have had will would can could should "
    "may might must shall which who whom what when where why how all any some"
)
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _negated(words: list[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


def _stem(word: str) -> str:
    # "capitals" should match "capital"; nothing cleverer is needed for tests
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _words(text) if w not in _STOPWORDS and w not in _NEGATIONS and not w.endswith("n't")}


class FakeEntailment:
    """P(entail) grows with the share of the hypothesis's content words in the premise;
    negation in exactly one of the two turns that mass into contradiction."""

    name = "fake"

    def __init__(self) -> None:
        self.pairs_scored = 0

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        hyp_words = content_words(hypothesis)
        hyp_neg = _negated(_words(hypothesis))
        out = np.zeros((len(premises), 3), dtype=np.float64)
        for i, premise in enumerate(premises):
            prem_words = content_words(premise)
            overlap = len(hyp_words & prem_words) / len(hyp_words) if hyp_words else 0.0
            strong, weak = 0.05 + 0.9 * overlap, 0.05
            mismatch = _negated(_words(premise)) != hyp_neg
            out[i, CONTRADICTION] = strong if mismatch else weak
            out[i, ENTAILMENT] = weak if mismatch else strong
            out[i, NEUTRAL] = 1.0 - out[i, CONTRADICTION] - out[i, ENTAILMENT]
        self.pairs_scored += len(premises)
        return out.astype(np.float32)

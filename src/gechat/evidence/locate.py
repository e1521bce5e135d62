"""Find text an LLM says it copied from the source among the source's sentences.

Exact first (whitespace and case folded), then the quote as a run of whole sentences, then
fuzzy (rapidfuzz ratio, for a changed comma or quote mark). What is not found is not
evidence: callers drop it and count it as fabricated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from gechat.types import Sentence

FUZZY_CUTOFF = 90.0  # rapidfuzz ratio, 0-100
_WS = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().strip("\"'“”‘’").strip().lower()


def locate(quote: str, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences ``quote`` reproduces, in document order; [] if it is not in ``sentences``."""
    q = _norm(quote)
    if len(q) < 8 or not sentences:
        return []
    normed = [_norm(s.text) for s in sentences]
    for s, n in zip(sentences, normed, strict=True):
        if n == q or (len(q) >= 0.6 * len(n) and q in n):  # the sentence, or most of it
            return [s]
    inside = [i for i, n in enumerate(normed) if len(n) >= 8 and n in q]
    if inside and sum(len(normed[i]) for i in inside) >= 0.8 * len(q):
        return [sentences[i] for i in inside]  # several whole sentences quoted together
    best = process.extractOne(q, normed, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
    return [sentences[best[2]]] if best is not None else []

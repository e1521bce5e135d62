"""Evidence quality: the papers' evidence score, sentence-level P/R/F1, page hits, token recall."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gechat.eval.qa import normalize_answer

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]


def conciseness(evidence: str, gold: str) -> float:
    """min(1, L_gt / L) with lengths in words: evidence longer than the gold is penalised."""
    n = len(evidence.split())
    return min(1.0, len(gold.split()) / n) if n else 0.0


def evidence_scores(evidence: Sequence[str], gold: Sequence[str], embed: Embed) -> list[float]:
    """Per question: cos(E, E_gt) * min(1, L_gt / L). Empty evidence scores 0."""
    if len(evidence) != len(gold):
        raise ValueError(f"{len(evidence)} evidence texts for {len(gold)} gold texts")
    if not evidence:
        return []
    vecs = embed([*evidence, *gold]).astype(np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    e, g = vecs[: len(evidence)], vecs[len(evidence) :]
    cos = (e * g).sum(1)
    return [float(c) * conciseness(ev, gt) if ev.strip() else 0.0
            for c, ev, gt in zip(cos, evidence, gold, strict=True)]


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float


def prf(predicted: Collection[object], gold: Collection[object]) -> PRF:
    """Set precision / recall / F1; nothing predicted and nothing gold is a perfect 1."""
    p, g = set(predicted), set(gold)
    if not p and not g:
        return PRF(1.0, 1.0, 1.0)
    hit = len(p & g)
    precision = hit / len(p) if p else 0.0
    recall = hit / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    return PRF(precision, recall, f1)


def page_hit(predicted_pages: Collection[int], gold_pages: Collection[int]) -> float:
    """1 if any evidence lies on a gold evidence page."""
    return float(bool(set(predicted_pages) & set(gold_pages)))


def token_recall(evidence: str, gold: str) -> float:
    """Share of the gold evidence's normalised tokens (with multiplicity) found in the evidence."""
    g = Counter(normalize_answer(gold).split())
    if not g:
        return 1.0
    e = Counter(normalize_answer(evidence).split())
    return sum((g & e).values()) / sum(g.values())

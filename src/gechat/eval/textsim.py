"""Reference-based text scores for generated answers: ROUGE-L and chrF, our own code.

METEOR needs WordNet data that cannot be had offline here, so chrF (character n-gram F-score,
n = 1..6, recall weighted by beta = 2) stands beside ROUGE-L instead.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"\w+", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rouge_l(prediction: str, reference: str) -> float:
    """F1 of the longest common subsequence of lower-cased word tokens."""
    a, b = _tokens(prediction), _tokens(reference)
    if not a or not b:
        return float(a == b)
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[-1]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    p, r = lcs / len(a), lcs / len(b)
    return 2 * p * r / (p + r)


def chrf(prediction: str, reference: str, n: int = 6, beta: float = 2.0) -> float:
    """chrF over character n-grams (spaces removed), averaged over n = 1..``n``."""
    a, b = re.sub(r"\s+", "", prediction), re.sub(r"\s+", "", reference)
    precisions, recalls = [], []
    for k in range(1, n + 1):
        pa = Counter(a[i:i + k] for i in range(len(a) - k + 1))
        pb = Counter(b[i:i + k] for i in range(len(b) - k + 1))
        if not pa or not pb:
            continue
        hit = sum((pa & pb).values())
        precisions.append(hit / sum(pa.values()))
        recalls.append(hit / sum(pb.values()))
    if not precisions:
        return float(a == b)
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if p == 0 and r == 0:
        return 0.0
    return (1 + beta**2) * p * r / (beta**2 * p + r)

"""Word retrieval (BM25 over the FTS5 index) and its fusion with the vectors.

``fused`` (the default) ranks by weighted reciprocal rank fusion: each chunk scores
sum(w / (FUSED_K + rank)) over the vector ranking (w = 1, the question's names common in a
document discounted as in ``vector``) and the BM25 ranking (w = ``LEXICAL_WEIGHT``), each
``depth`` deep; the two chunks nearest in meaning keep the first two places. Ranks, not
scores, are fused, since a cosine and a BM25 score are on no common scale. With a small
constant and half weight the words mostly re-order what the vectors found (a chunk both find
rises), and a chunk only the words find (a table row named by its line item and year) enters
lower down. Equal weights and the usual constant of 60 let chunks that merely repeat the
question's words push the answer out of the first places (a paper's "nodes" paragraphs
above the one that says how many; an FAA rule's contact and amendment paragraphs above its
comment deadline); chosen on the dev questions (docs/benchmarks.md).

``mixed`` keeps the vector ranking's first places and gives the last ``lexical_share`` of the
``k`` places to the best BM25 hits the vectors did not rank there. Fusion can push the chunk
nearest in meaning below chunks that merely repeat the question's words (a paper's own
title words are in every chunk); here the vectors' best stays first, and a chunk only the
words find (a table row named by its line item and year) is still read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gechat.lexical import a_year
from gechat.models.embed_base import Embedder
from gechat.retrieve.names import search_chunks
from gechat.retrieve.vector import hits_for
from gechat.store.base import Store
from gechat.types import ChunkHit

# a figure as a claim writes it ("$1577.00", "5,409", "12.5%"); years and short numbers aside
_FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
FIGURE_DIGITS = 3  # a figure with fewer significant digits ("3M", "1.9%") is in any long document
FIGURE_WEIGHT = 1.0  # ``fused``: a chunk stating the claim's figure counts as one the meaning finds

RRF_K = 60  # the usual constant: rank 1 and rank 10 differ, but not by an order of magnitude
FUSED_K = 5  # ``fused``: a ranking's first places count for clearly more than its tenth
LEXICAL_WEIGHT = 0.5  # ``fused``: the words re-rank; alone they do not outweigh the meaning
KEPT = 2  # ``fused``: the vectors' first places, kept whatever the words say


def rrf(*rankings: Sequence[tuple[int, float]], weights: Sequence[float] | None = None,
        k: int = RRF_K) -> list[tuple[int, float]]:
    """Ids by fused score, best first (ties: the earlier ranking's order)."""
    score: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[n]
        for rank, (i, _) in enumerate(ranking, start=1):
            score[i] = score.get(i, 0.0) + w / (k + rank)
    return sorted(score.items(), key=lambda t: -t[1])


class LexicalRetriever:
    name = "bm25"

    def __init__(self, store: Store) -> None:
        self.store = store

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        return hits_for(self.store, self.store.lexical_search("chunk", question, k))

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        return self.store.lexical_search("sentence", question, k)

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        return hits


class _TwoRankings:
    """A retriever that ranks chunks and sentences alike from the vector and word rankings."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder

    def rank(self, kind: str, question: str, k: int) -> list[tuple[int, float]]:
        raise NotImplementedError

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        return hits_for(self.store, self.rank("chunk", question, k))

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        return self.rank("sentence", question, k)

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        return hits


class FusedRetriever(_TwoRankings):
    name = "fused"

    def __init__(self, store: Store, embedder: Embedder, depth: int = 30, name_share: float = 1.0) -> None:
        super().__init__(store, embedder)
        self.depth, self.name_share = depth, name_share

    def rank(self, kind: str, question: str, k: int) -> list[tuple[int, float]]:
        depth = max(self.depth, k)
        if kind == "chunk":
            meaning = search_chunks(self.store, self.embedder, question, depth, self.name_share)
        else:
            meaning = self.store.search(kind, self.embedder.embed([question])[0], depth)
        rankings = [meaning, self.store.lexical_search(kind, question, depth)]
        weights = [1.0, LEXICAL_WEIGHT]
        stated = figures(question)
        if stated:  # a claim's figure: where the document states it (a table row) is a candidate
            rankings.append(self.store.lexical_search(kind, " ".join(stated), depth))
            weights.append(FIGURE_WEIGHT)
        fused = rrf(*rankings, weights=weights, k=FUSED_K)
        first = [i for i, _ in meaning[:KEPT]]
        ranked = first + [i for i, _ in fused if i not in first]
        # scores in rank order: the first places' cosines and the fused scores share no scale
        return [(i, 1.0 / (rank + 1)) for rank, i in enumerate(ranked[:k])]


class MixedRetriever(_TwoRankings):
    name = "mixed"

    def __init__(self, store: Store, embedder: Embedder, lexical_share: float = 1 / 3) -> None:
        super().__init__(store, embedder)
        self.share = lexical_share

    def rank(self, kind: str, question: str, k: int) -> list[tuple[int, float]]:
        words = min(k - 1, round(k * self.share)) if k > 1 else 0
        q = self.embedder.embed([question])[0]
        meaning = self.store.search(kind, q, k)
        out = meaning[:k - words]
        seen = {i for i, _ in out}
        extra = [h for h in self.store.lexical_search(kind, question, k) if h[0] not in seen][:words]
        seen |= {i for i, _ in extra}
        rest = [h for h in meaning[k - words:] if h[0] not in seen]  # fewer word hits than places
        ranked = out + extra + rest
        # scores in rank order: a cosine and a BM25 score are on no common scale
        return [(i, 1.0 / (rank + 1)) for rank, (i, _) in enumerate(ranked[:k])]


def figures(text: str) -> list[str]:
    """The figures ``text`` states with at least ``FIGURE_DIGITS`` significant digits, years
    aside ("$1577.00" in "... in FY2018 ... is: $1577.00"): searched on their own, they find
    the rows that state them, which a question's many words outrank."""
    out = []
    for m in _FIGURE.finditer(text):
        number = m.group().rstrip(",")
        digits = number.replace(",", "").replace(".", "").strip("0")  # "100%", "$1.50" are round
        if len(digits) < FIGURE_DIGITS or a_year(number):
            continue
        out.append(number)
    return list(dict.fromkeys(out))

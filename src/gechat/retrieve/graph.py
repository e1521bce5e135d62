"""Graph retrieval (GE-Chat) and hybrid retrieval (graph + vector, reciprocal-rank fusion)."""

from __future__ import annotations

from collections.abc import Sequence

from gechat.errors import StoreError
from gechat.graph.search import SubgraphSearch
from gechat.retrieve.lexical import rrf
from gechat.retrieve.vector import VectorRetriever, hits_for
from gechat.store.base import Store
from gechat.types import ChunkHit

PER_THOUGHT = 2  # chunks a reasoning step adds to the evidence pool


class GraphRetriever:
    name = "graph"

    def __init__(self, store: Store, search: SubgraphSearch) -> None:
        self.store, self.search = store, search

    def _check(self) -> None:
        if self.search.is_empty():
            raise StoreError("this workspace has no knowledge graph yet",
                             hint="build it with `gechat graph build`, or use --retriever vector")

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        self._check()
        return hits_for(self.store, self.search.search(question).chunks[:k])

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        self._check()
        return self.search.search(question).sentences[:k]

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        seen = {h.chunk.id for h in hits}
        extra: list[tuple[int, float]] = []
        if not texts:
            return hits
        for text, q in zip(texts, self.search.embedder.embed(list(texts)), strict=True):
            for cid, score in self.search.search(text, q).chunks[:PER_THOUGHT]:
                if cid not in seen:
                    seen.add(cid)
                    extra.append((cid, score))
        return hits + hits_for(self.store, extra[:k])


class HybridRetriever:
    name = "hybrid"

    def __init__(self, store: Store, vector: VectorRetriever, graph: GraphRetriever) -> None:
        self.store, self.vector, self.graph = store, vector, graph

    def _rankings(self, question: str, kind: str, pool: int) -> tuple[list[tuple[int, float]], ...]:
        """Vector and graph rankings of chunks or sentences, from one embedding of the question."""
        q = self.vector.embedder.embed([question])[0]
        vector = self.store.search(kind, q, pool)
        if self.graph.search.is_empty():  # no graph (yet): plain vector retrieval
            return (vector,)
        hit = self.graph.search.search(question, q)
        return vector, (hit.sentences if kind == "sentence" else hit.chunks)[:pool]

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        return hits_for(self.store, rrf(*self._rankings(question, "chunk", max(k, 20)))[:k])

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        return rrf(*self._rankings(question, "sentence", max(k, 50)))[:k]

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        if self.graph.search.is_empty():
            return hits
        return self.graph.for_evidence(texts, hits, k)

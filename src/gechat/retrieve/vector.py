"""Vector retrieval: the question's embedding against chunk (or sentence) embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gechat.models.embed_base import Embedder
from gechat.retrieve.names import search_chunks
from gechat.store.base import Store
from gechat.types import ChunkHit


class VectorRetriever:
    name = "vector"

    def __init__(self, store: Store, embedder: Embedder, name_share: float = 1.0) -> None:
        self.store, self.embedder, self.name_share = store, embedder, name_share

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        return hits_for(self.store, search_chunks(self.store, self.embedder, question, k, self.name_share))

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        return self.store.search("sentence", self.embedder.embed([question])[0], k)

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        return hits


def hits_for(store: Store, found: Sequence[tuple[int, float]]) -> list[ChunkHit]:
    """Chunk hits, with their documents' titles, for (chunk id, score) pairs, in order."""
    titles = {d.id: Path(d.path).name for d in store.documents()}
    chunks = {c.id: c for c in store.chunks([cid for cid, _ in found])}
    return [ChunkHit(chunk=chunks[cid], score=score, doc_title=titles.get(chunks[cid].doc_id, ""))
            for cid, score in found if cid in chunks]

"""Vector retrieval: the question's embedding against chunk embeddings."""

from __future__ import annotations

from pathlib import Path

from gechat.models.embed_base import Embedder
from gechat.store.base import DocumentStore
from gechat.types import ChunkHit


class VectorRetriever:
    name = "vector"

    def __init__(self, store: DocumentStore, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        q = self.embedder.embed([question])[0]
        found = self.store.search("chunk", q, k)
        titles = {d.id: Path(d.path).name for d in self.store.documents()}
        chunks = {c.id: c for c in self.store.chunks([cid for cid, _ in found])}
        return [ChunkHit(chunk=chunks[cid], score=score, doc_title=titles.get(chunks[cid].doc_id, ""))
                for cid, score in found if cid in chunks]

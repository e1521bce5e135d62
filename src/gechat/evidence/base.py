"""The evidence stage: each claim gets verbatim source sentences and a verdict."""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from gechat.models.embed_base import Embedder
from gechat.types import Chunk, Claim, Evidence, Sentence


class ClaimInput(BaseModel):
    text: str
    source: Literal["answer", "thought"]


class EvidencePool(BaseModel):
    """The candidate sentences (those of the retrieved chunks) and what locates them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    sentences: list[Sentence]
    chunks: dict[int, Chunk]
    titles: dict[int, str]
    vectors: npt.NDArray[np.float32] | None = None  # one row per sentence, if known

    def sentence_vectors(self, embedder: Embedder) -> npt.NDArray[np.float32]:
        """One row per sentence: the stored vectors when the pool has them, else embedded now."""
        vecs = self.vectors
        if vecs is None or len(vecs) != len(self.sentences):
            vecs = embedder.embed([s.text for s in self.sentences])
        return vecs

    def nearest(self, queries: npt.NDArray[np.float32], embedder: Embedder, k: int) -> list[list[Sentence]]:
        """For each query vector, the ``k`` sentences closest by cosine, in document order."""
        sents = self.sentences
        if not sents or not len(queries):
            return [[] for _ in queries]
        sims = queries @ self.sentence_vectors(embedder).T
        return [[sents[i] for i in np.sort(np.argsort(-row)[:k])] for row in sims]

    def span_text(self, first: Sentence, last: Sentence) -> str:
        """Verbatim text from ``first`` to ``last`` (same chunk), gaps included."""
        chunk = self.chunks[first.chunk_id]
        return chunk.text[first.start - chunk.start : last.end - chunk.start]

    def evidence(self, sents: list[Sentence], p: npt.NDArray[np.float32], score: float,
                 selector: str) -> Evidence:
        first, last = sents[0], sents[-1]
        return Evidence(
            sentences=sents, doc_id=first.doc_id, doc_title=self.titles.get(first.doc_id, ""),
            page=first.page, start=first.start, end=last.end,
            text=first.text if len(sents) == 1 else self.span_text(first, last),
            p_entail=float(p[2]), p_contradict=float(p[0]), score=float(score), selector=selector,
        )


class EvidenceSelector(Protocol):
    name: str

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]: ...

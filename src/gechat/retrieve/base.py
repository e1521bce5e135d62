"""The retrieval stage: a question in, the most useful chunks out.

``rank_sentences`` serves the retrieval benchmark (recall of gold sentences); ``for_evidence``
is GE-Chat's second look: after the LLM has answered, its reasoning steps search again, so
the evidence step sees the source of each step (the graph strategies use it; vector keeps
the question's chunks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from gechat.types import ChunkHit, CoEReport


class Retriever(Protocol):
    name: str

    def retrieve(self, question: str, k: int) -> list[ChunkHit]: ...

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]: ...

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]: ...


@runtime_checkable
class ExplainingRetriever(Protocol):
    """A retriever that says why it chose what the LLM reads (ScopeCoE's feature coverage)."""

    def choose(self, question: str, k: int) -> tuple[list[ChunkHit], CoEReport]: ...

"""The retrieval stage: a question in, the most useful chunks out."""

from __future__ import annotations

from typing import Protocol

from gechat.types import ChunkHit


class Retriever(Protocol):
    name: str

    def retrieve(self, question: str, k: int) -> list[ChunkHit]: ...

"""The store stage: what a workspace keeps and how stages read it back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from gechat.types import Chunk, ChunkSpan, Document, PageInfo, ParsedDocument, Sentence, SentenceSpan

Vectors = npt.NDArray[np.float32]


@dataclass
class NewDocument:
    """Everything about one document, computed before the store is touched."""

    path: str
    sha256: str
    parsed: ParsedDocument
    sentences: list[SentenceSpan]
    chunks: list[ChunkSpan]
    sentence_vectors: Vectors
    chunk_vectors: Vectors
    embedder: str | None = None  # "name/dim"; recorded with the document, in its transaction


class DocumentStore(Protocol):
    """Documents, pages, chunks, sentences and their vectors; one transaction per document."""

    def find_sha256(self, sha256: str) -> Document | None: ...
    def insert(self, doc: NewDocument) -> Document: ...
    def remove(self, doc_id: int) -> None: ...
    def documents(self) -> list[Document]: ...
    def document_text(self, doc_id: int) -> str: ...
    def pages(self, doc_id: int) -> list[PageInfo]: ...
    def chunks(self, ids: Sequence[int]) -> list[Chunk]: ...
    def chunk_ids(self, doc_id: int) -> list[int]: ...
    def sentences_of_chunks(self, chunk_ids: Sequence[int]) -> list[Sentence]: ...
    def search(self, kind: str, query: Vectors, k: int) -> list[tuple[int, float]]: ...
    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]: ...
    def vectors(self, kind: str, ids: Sequence[int]) -> Vectors: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...

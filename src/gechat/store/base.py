"""The store stage: what a workspace keeps and how stages read it back.

Every caller (pipeline, graph build and search, retrievers, evidence, API) sees a store
through these Protocols; which engine holds the rows is chosen by the ``store`` URL in
Settings (``gechat.store.registry``): ``sqlite`` (one file per workspace, the default) or
``postgresql://...`` (one database for many workspaces, one schema each, pgvector).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from gechat.errors import StoreError
from gechat.types import Chunk, ChunkSpan, Document, PageInfo, ParsedDocument, Sentence, SentenceSpan

Vectors = npt.NDArray[np.float32]


class Connection(Protocol):
    """What the SQL shared by both engines runs on: ``sqlite3.Connection``, or the
    PostgreSQL adapter (``gechat.store.pg_conn``), which takes the same ``?`` placeholders."""

    def execute(self, sql: str, parameters: Any = (), /) -> Any: ...
    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Any: ...


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


# --- the graph's rows (gechat.store.graph writes them; graph/ reads them) ---
@dataclass
class UnitCost:
    """What extracting one chunk cost (a unit's cost is split over its chunks)."""

    llm_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class EntityRow:
    id: int
    name: str
    type: str
    description: str
    n_mentions: int


@dataclass
class RelationRow:
    id: int
    src: int
    dst: int
    keywords: str
    description: str
    weight: float


@dataclass
class MentionWrite:
    """One entity seen in one chunk, already resolved to an entity id."""

    entity_id: int
    doc_id: int
    chunk_id: int
    key: str
    name: str
    type: str
    description: str
    sentence_ids: Sequence[int]


@dataclass
class RelationWrite:
    src: int
    dst: int
    doc_id: int
    chunk_id: int
    keywords: str
    description: str
    strength: float
    kind: str
    sentence_ids: Sequence[int] = field(default_factory=list)


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
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def generation(self) -> int: ...


class VectorIndex(Protocol):
    """Nearest items by meaning (``kind``: "sentence" or "chunk") and by words."""

    def search(self, kind: str, query: Vectors, k: int) -> list[tuple[int, float]]: ...
    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]: ...
    def word_spread(self, words: Sequence[str]) -> dict[int, dict[str, float]]: ...
    def vectors(self, kind: str, ids: Sequence[int]) -> Vectors: ...
    def index_is_exact(self, kind: str) -> bool: ...


class GraphStore(Protocol):
    """The knowledge graph's rows. Writes take the transaction handle of ``Store.transaction``."""

    def new_entity(self, db: Connection, name: str, type_: str, name_vec: np.ndarray | None) -> int: ...
    def write(self, db: Connection, mentions: Sequence[MentionWrite], relations: Sequence[RelationWrite],
              done: Sequence[tuple[int, int, str, bool, UnitCost]]) -> None: ...
    def set_vectors(self, db: Connection, column: str, rows: Sequence[tuple[int, np.ndarray]]) -> None: ...
    def save_vectors(self, column: str, rows: Sequence[tuple[int, np.ndarray]]) -> None: ...
    def entity_for_key(self, key: str) -> int | None: ...
    def entities(self) -> list[EntityRow]: ...
    def relations(self) -> list[RelationRow]: ...
    def vectors(self, column: str) -> dict[int, np.ndarray | None]: ...
    def entity_mentions(self) -> list[tuple[int, int, list[int]]]: ...
    def relation_mentions(self) -> list[tuple[int, int, list[int]]]: ...
    def name_keys(self) -> list[tuple[str, int]]: ...
    def done_chunks(self, doc_id: int, extractor: str) -> set[int]: ...
    def keys_of_chunk(self, chunk_id: int) -> list[tuple[int, str]]: ...
    def cost_by_document(self) -> dict[int, dict[str, float]]: ...
    def counts(self) -> dict[str, int]: ...
    def generation(self) -> int: ...


class Store(DocumentStore, VectorIndex, Protocol):
    """One workspace's store: its documents, their vectors and word index, and its graph."""

    @property
    def graph(self) -> GraphStore: ...
    @property
    def where(self) -> str: ...  # for messages: the file, or the database and schema (never a password)

    def transaction(self) -> AbstractContextManager[Connection]: ...
    def check_embedder(self, name: str) -> None: ...
    def embedder_problem(self) -> StoreError | None: ...
    def problems(self) -> list[str]: ...
    def close(self) -> None: ...
    def drop(self) -> None: ...


class JobRecords(Protocol):
    """The server's durable job records (``gechat.api.job_store``): one server's, or shared by
    every API replica on a PostgreSQL store (``shared``), whose workers claim jobs from them."""

    shared: bool
    where: str

    def next_seq(self) -> int: ...
    def save(self, job: Any, *, if_state: str | None = None) -> bool: ...
    def get(self, job_id: str) -> Any | None: ...
    def load(self, workspace: str | None = None, *, unfinished: bool = False) -> list[Any]: ...
    def delete(self, job_ids: list[str]) -> None: ...
    def trim(self, keep: int) -> None: ...
    def claim(self, owner: str) -> Any | None: ...
    def renew(self, job_id: str, owner: str) -> tuple[bool, bool]: ...
    def ask_cancel(self, job_id: str) -> None: ...
    def release(self, owner: str | None = None) -> None: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...

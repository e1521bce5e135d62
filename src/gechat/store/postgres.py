"""The shared store: PostgreSQL with pgvector, many workspaces in one database.

Each workspace is a schema (``gechat.store.pg_conn``); its tables are the SQLite store's
(``gechat.store.pg_schema``). Vectors are pgvector columns searched by cosine distance: an
exact scan below ``ann_threshold`` vectors, an HNSW index (one per kind and dimension, made
with the first vectors of that dimension) above it. Words are ``tsvector`` columns of the rows
themselves (English stemming, GIN index), ranked by ``ts_rank_cd``: the lexical side of
hybrid retrieval, and nothing that can outlive its row. Writers on several machines meet
in PostgreSQL's transactions; the generation counter row orders them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from gechat.errors import DuplicateDocumentError, StoreError, first_line
from gechat.store.base import Connection, NewDocument, Vectors
from gechat.store.lexical import query_words
from gechat.store.pg_conn import PgConnection, connect, migrate, redact, schema_name
from gechat.store.pg_schema import MIGRATIONS
from gechat.store.sql_store import SqlStore
from gechat.types import Document

_TABLES = {"chunk": "chunks", "sentence": "sentences"}
EF_SEARCH_MAX = 1000  # pgvector's bound on hnsw.ef_search


def vector_text(v: np.ndarray) -> str:
    """pgvector's text form of one vector."""
    return "[" + ",".join(map(str, np.asarray(v, np.float32).reshape(-1).tolist())) + "]"


def _kind(kind: str) -> str:
    if kind not in _TABLES:  # kinds are spliced into SQL (partial indexes need literals)
        raise StoreError(f"unknown item kind {kind!r}")
    return kind


class PostgresStore(SqlStore):
    dim_sql = "dim"

    def __init__(self, url: str, workspace: str, ann_threshold: int = 20_000, description_chars: int = 600,
                 namespace: str = "") -> None:
        import psycopg

        self.schema = schema_name(workspace, namespace)
        self.where = f"{redact(url)}, schema {self.schema}"
        self.ann_threshold = ann_threshold
        conn = connect(url, self.schema)
        try:
            migrate(conn, self.schema, MIGRATIONS)
        except psycopg.Error as e:
            conn.close()
            raise StoreError(f"cannot set up workspace tables in {self.where}: {first_line(e)}",
                             hint="the store URL's user needs CREATE on the database") from None
        self._conn: PgConnection = conn
        super().__init__(conn, conn.lock, description_chars)
        self._sizes: dict[str, tuple[int, int]] = {}  # kind -> (generation, vectors)
        self.embedder_problem()

    def close(self) -> None:
        self._conn.close()

    def drop(self) -> None:
        """Deletes the workspace's schema and every row in it."""
        with self._lock:
            self._conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        self.close()

    def problems(self) -> list[str]:
        from gechat.store.consistency import row_problems

        with self._lock:
            return row_problems(self._conn, self.dim_sql, word_index=False)

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self._lock, self._conn.raw.transaction():
            yield self._conn

    def _add_terms(self, db: Connection, kind: str, rows: list[tuple[int, str]]) -> None:
        db.executemany(f"UPDATE {_TABLES[_kind(kind)]} SET terms = to_tsvector('english', ?) WHERE id = ?",
                       [(text, i) for i, text in rows])

    def _add_vectors(self, db: Connection, kind: str, doc_id: int, ids: list[int], vecs: Vectors) -> None:
        if not ids:
            return
        dim = int(vecs.shape[1])
        db.executemany("INSERT INTO vectors(kind, item_id, doc_id, dim, vec) VALUES (?, ?, ?, ?, ?::vector)",
                       [(kind, i, doc_id, dim, vector_text(v)) for i, v in zip(ids, vecs, strict=True)])
        name = f"vectors_{_kind(kind)}_{dim}_hnsw"
        if db.execute("SELECT 1 FROM pg_indexes WHERE schemaname = ? AND indexname = ?",
                      (self.schema, name)).fetchone() is None:
            # partial and per dimension: workspaces of other embedders never share an index
            db.execute(f"CREATE INDEX IF NOT EXISTS {name} ON vectors USING hnsw ((vec::vector({dim})) "
                       f"vector_cosine_ops) WHERE kind = '{kind}' AND dim = {dim}")

    def insert(self, doc: NewDocument) -> Document:
        import psycopg

        try:
            return super().insert(doc)
        except psycopg.Error as e:
            if isinstance(e, psycopg.errors.UniqueViolation) and e.diag.table_name == "documents":
                # a writer elsewhere committed the same file meanwhile
                raise DuplicateDocumentError(f"{doc.path} is stored already (sha256 {doc.sha256[:12]})") from None
            raise StoreError(f"{doc.path}: not stored: {first_line(e)}",
                             hint="nothing of it was written; add it again") from None

    # --- vectors ---
    def vectors(self, kind: str, ids: Sequence[int]) -> Vectors:
        if not ids:
            return np.zeros((0, 0), np.float32)
        with self._lock:
            rows = dict(self._conn.execute("SELECT item_id, vec::real[] FROM vectors WHERE kind = ? "
                                           "AND item_id = ANY(?)", (kind, list(ids))).fetchall())
        return np.stack([np.asarray(rows[i], np.float32) for i in ids])

    def index_is_exact(self, kind: str) -> bool:
        gen = self.generation()
        cached = self._sizes.get(kind)
        if cached is None or cached[0] != gen:
            with self._lock:
                n = int(self._conn.execute("SELECT count(*) FROM vectors WHERE kind = ?", (kind,)).fetchone()[0])
            cached = self._sizes[kind] = (gen, n)
        return cached[1] < self.ann_threshold

    def search(self, kind: str, query: Vectors, k: int) -> list[tuple[int, float]]:
        if k <= 0:
            return []
        q = np.asarray(query, np.float32).reshape(-1)
        dim, text = len(q), vector_text(q)
        exact = self.index_is_exact(kind)
        # the ORDER BY expression and the WHERE literals are the partial index's own
        distance = f"vec::vector({dim}) <=> ?::vector({dim})"
        sql = (f"SELECT item_id, 1 - ({distance}) FROM vectors WHERE kind = '{_kind(kind)}' AND dim = {dim} "
               f"ORDER BY {distance} LIMIT ?")
        with self._tx() as db:  # SET LOCAL lasts this transaction only
            if exact:  # small: a scan is exact and fast
                db.execute("SET LOCAL enable_indexscan = off")
            else:
                db.execute(f"SET LOCAL hnsw.ef_search = {min(EF_SEARCH_MAX, max(40, 2 * k))}")
            rows = db.execute(sql, (text, text, k)).fetchall()
        return [(int(i), float(s)) for i, s in rows]

    def word_spread(self, words: Sequence[str]) -> dict[int, dict[str, float]]:
        """For each document, the share of its chunks (stemmed words, as searched) holding each word."""
        out: dict[int, dict[str, float]] = {}
        with self._lock:
            totals = dict(self._conn.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id").fetchall())
            for w in words:
                term = _ts_word(w)
                if term == "''":
                    continue
                for doc, n in self._conn.execute("SELECT doc_id, count(*) FROM chunks WHERE terms @@ "
                                                 "to_tsquery('english', ?) GROUP BY doc_id", (term,)).fetchall():
                    out.setdefault(int(doc), {})[w] = int(n) / int(totals[doc])
        return out

    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` chunks or sentences sharing most of ``text``'s words (stemmed), best first."""
        words = query_words(text)
        if not words or k <= 0:
            return []
        query = " | ".join(_ts_word(w) for w in words)
        table = _TABLES[_kind(kind)]
        with self._lock:
            rows: list[Any] = self._conn.execute(
                f"SELECT id, ts_rank_cd(terms, q) AS s FROM {table}, to_tsquery('english', ?) AS q "
                "WHERE terms @@ q ORDER BY s DESC, id LIMIT ?", (query, k)).fetchall()
        return [(int(i), float(s)) for i, s in rows]


def _ts_word(word: str) -> str:
    """One word as a tsquery term, quoted so that it is never read as an operator."""
    return "'" + word.replace("'", "").replace("\\", "") + "'"

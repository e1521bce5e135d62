"""The embedded store: one SQLite file per workspace (WAL, foreign keys).

Vectors are float32 blobs; search is exact below ``ann_threshold`` and an HNSW index
(usearch) above it, rebuilt lazily when the store's ``generation`` changes
(``gechat.store.vectors``). Words are indexed by FTS5 (``gechat.store.lexical``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gechat.errors import StoreError
from gechat.store.base import Connection, Vectors
from gechat.store.graph import GRAPH_SCHEMA
from gechat.store.lexical import LexicalIndex
from gechat.store.sql_store import SqlStore
from gechat.store.vectors import MatrixIndex

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, kind TEXT NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, n_pages INTEGER NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE, number INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, width REAL, height REAL,
    PRIMARY KEY (doc_id, number));
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL, page INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    text TEXT NOT NULL, n_tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sentences (
    id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE, ord INTEGER NOT NULL,
    page INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL,
    boxes TEXT NOT NULL, context TEXT NOT NULL DEFAULT '', heading INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS vectors (
    kind TEXT NOT NULL, item_id INTEGER NOT NULL,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE, vec BLOB NOT NULL,
    PRIMARY KEY (kind, item_id));
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE INDEX IF NOT EXISTS sentences_chunk ON sentences(chunk_id);
CREATE INDEX IF NOT EXISTS sentences_doc ON sentences(doc_id);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors(doc_id);
"""


class SQLiteStore(SqlStore):
    def __init__(self, path: Path, ann_threshold: int = 20_000, description_chars: int = 600) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.ann_threshold = ann_threshold
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # another process may be writing (gechat add --ray local, a CLI beside the server): wait for it
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA + GRAPH_SCHEMA)
            _migrate(db)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open workspace database {self.path}: {e}") from None
        super().__init__(db, threading.RLock(), description_chars)
        self._sqlite = db
        try:
            self.lexical = LexicalIndex(db, self._lock)
            self.lexical.backfill()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot index workspace database {self.path} for word search: {e}") from None
        self._indexes: dict[str, tuple[int, MatrixIndex]] = {}
        self.embedder_problem()  # on open: a workspace mixed before the check existed is found at once

    def close(self) -> None:
        with self._lock:  # after the statement running now: closing under it fails that request
            self._sqlite.close()

    def drop(self) -> None:
        """Deletes the database file and the indexes beside it."""
        self.close()
        for f in [self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm")),
                  *self.path.parent.glob(f"{self.path.stem}.*.usearch")]:
            f.unlink(missing_ok=True)

    def problems(self) -> list[str]:
        from gechat.store.consistency import problems

        return problems(self.path)

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self._lock:
            self._sqlite.execute("BEGIN IMMEDIATE")
            try:
                yield self._sqlite
            except BaseException:
                self._sqlite.execute("ROLLBACK")
                raise
            self._sqlite.execute("COMMIT")

    def _add_terms(self, db: Connection, kind: str, rows: list[tuple[int, str]]) -> None:
        LexicalIndex.add(db, kind, rows)

    def _remove_terms(self, db: Connection, doc_id: int) -> None:
        LexicalIndex.remove_document(db, doc_id)

    def _add_vectors(self, db: Connection, kind: str, doc_id: int, ids: list[int], vecs: Vectors) -> None:
        db.executemany(
            "INSERT INTO vectors(kind, item_id, doc_id, vec) VALUES (?,?,?,?)",
            [(kind, i, doc_id, np.asarray(v, np.float32).tobytes()) for i, v in zip(ids, vecs, strict=True)],
        )

    # --- vectors ---
    def vectors(self, kind: str, ids: Sequence[int]) -> Vectors:
        if not ids:
            return np.zeros((0, 0), np.float32)
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = dict(self._sqlite.execute(
                f"SELECT item_id, vec FROM vectors WHERE kind=? AND item_id IN ({marks})",
                [kind, *ids],
            ).fetchall())
        return np.stack([np.frombuffer(rows[i], np.float32) for i in ids])

    def search(self, kind: str, query: Vectors, k: int) -> list[tuple[int, float]]:
        return self._index(kind).search(query, k)

    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` chunks or sentences whose words best match ``text`` (BM25), best first."""
        return self.lexical.search(kind, text, k)

    def word_spread(self, words: Sequence[str]) -> dict[int, dict[str, float]]:
        return self.lexical.spread([w for w in words if w.strip()])

    def index_is_exact(self, kind: str) -> bool:
        return self._index(kind).exact

    def _index(self, kind: str) -> MatrixIndex:
        gen = self.generation()
        cached = self._indexes.get(kind)
        if cached is not None and cached[0] == gen:
            return cached[1]
        with self._lock:
            rows = self._sqlite.execute(
                "SELECT item_id, vec FROM vectors WHERE kind=? ORDER BY item_id", (kind,)
            ).fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = (np.stack([np.frombuffer(r[1], np.float32) for r in rows])
                  if rows else np.zeros((0, 1), np.float32))
        for old in self.path.parent.glob(f"{self.path.stem}.{kind}.*.usearch"):
            if old.name != f"{self.path.stem}.{kind}.{gen}.usearch":
                old.unlink(missing_ok=True)
        index_path = self.path.parent / f"{self.path.stem}.{kind}.{gen}.usearch"
        index = MatrixIndex(ids, matrix, self.ann_threshold, index_path)
        self._indexes[kind] = (gen, index)
        return index


def _migrate(db: sqlite3.Connection) -> None:
    """Columns added since a workspace was made get their defaults: its documents keep
    working (without heading context until they are added again)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(sentences)")}
    for column, decl in (("context", "TEXT NOT NULL DEFAULT ''"), ("heading", "INTEGER NOT NULL DEFAULT 0")):
        if column not in have:
            db.execute(f"ALTER TABLE sentences ADD COLUMN {column} {decl}")

"""The embedded store: one SQLite file per workspace (WAL, foreign keys).

Each document is written in one transaction, after all parsing and embedding is done,
so a crash or an error never leaves half a document; the embedder that made its vectors is
checked and recorded in that same transaction (``gechat.store.embedder``). Removing a document
cascades to its pages, chunks, sentences and vectors. Vector indexes are rebuilt lazily when the store's
``generation`` changes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from gechat.errors import StoreError
from gechat.store import embedder
from gechat.store.base import NewDocument, Vectors
from gechat.store.faults import kill_point
from gechat.store.graph import GRAPH_SCHEMA, GraphTables
from gechat.store.lexical import LexicalIndex
from gechat.store.vectors import VectorIndex
from gechat.types import Box, Chunk, Document, PageInfo, Sentence

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


class SQLiteStore:
    def __init__(self, path: Path, ann_threshold: int = 20_000, description_chars: int = 600) -> None:
        self.path = Path(path)
        self.ann_threshold = ann_threshold
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA + GRAPH_SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open workspace database {self.path}: {e}") from None
        self._lock = threading.RLock()
        self.graph = GraphTables(self._db, self._lock, description_chars)
        try:
            self.lexical = LexicalIndex(self._db, self._lock)
            self.lexical.backfill()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot index workspace database {self.path} for word search: {e}") from None
        self._indexes: dict[str, tuple[int, VectorIndex]] = {}
        self._mixed: tuple[int, StoreError | None] = (-1, None)
        self.embedder_problem()  # on open: a workspace mixed before the check existed is found at once

    def close(self) -> None:
        with self._lock:  # after the statement running now: closing under it fails that request
            self._db.close()

    # --- the embedder (gechat.store.embedder) ---
    def check_embedder(self, name: str) -> None:
        """Raises when the workspace's vectors are another embedder's than ``name`` (name/dim), or mixed."""
        problem = self.embedder_problem()
        if problem is not None:
            raise problem
        with self._lock:
            embedder.check(self._db, name)

    def embedder_problem(self) -> StoreError | None:
        """Why this workspace cannot search (vectors of several dimensions), or None; once per generation."""
        gen = self.generation()
        if self._mixed[0] != gen:
            with self._lock:
                self._mixed = (gen, embedder.mixed(self._db))
        return self._mixed[1]

    def _migrate(self) -> None:
        """Columns added since a workspace was made get their defaults: its documents keep
        working (without heading context until they are added again)."""
        have = {r[1] for r in self._db.execute("PRAGMA table_info(sentences)")}
        for column, decl in (("context", "TEXT NOT NULL DEFAULT ''"), ("heading", "INTEGER NOT NULL DEFAULT 0")):
            if column not in have:
                self._db.execute(f"ALTER TABLE sentences ADD COLUMN {column} {decl}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (the graph builder writes each unit of chunks in one)."""
        with self._tx() as db:
            yield db
            kill_point("graph-unit")  # the graph builder's units are its only writers here

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # --- meta ---
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def _bump(self, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # --- documents ---
    def find_sha256(self, sha256: str) -> Document | None:
        rows = self._doc_rows("WHERE d.sha256 = ?", (sha256,))
        return rows[0] if rows else None

    def insert(self, doc: NewDocument) -> Document:
        p = doc.parsed
        vecs = doc.sentence_vectors if len(doc.sentence_vectors) else doc.chunk_vectors
        with self._tx() as db:
            # first, against the vectors stored before this document's
            embedder.record(db, doc.embedder, int(vecs.shape[1]) if len(vecs) else None)
            cur = db.execute(
                "INSERT INTO documents(sha256, path, kind, title, text, n_pages, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (doc.sha256, doc.path, p.kind, p.title, p.text, len(p.pages),
                 datetime.now(UTC).isoformat(timespec="seconds")),
            )
            doc_id = int(cur.lastrowid or 0)
            kill_point("document-row")
            db.executemany(
                'INSERT INTO pages(doc_id, number, start, "end", width, height) VALUES (?,?,?,?,?,?)',
                [(doc_id, pg.number, pg.start, pg.end, pg.width, pg.height) for pg in p.pages],
            )
            sentence_chunk: dict[int, int] = {}
            chunk_ids: list[int] = []
            for ord_, ch in enumerate(doc.chunks):
                page = doc.sentences[ch.sentences[0]].page if ch.sentences else 1
                c = db.execute(
                    'INSERT INTO chunks(doc_id, ord, page, start, "end", text, n_tokens) '
                    "VALUES (?,?,?,?,?,?,?)",
                    (doc_id, ord_, page, ch.start, ch.end, ch.text, ch.n_tokens),
                )
                chunk_ids.append(int(c.lastrowid or 0))
                for si in ch.sentences:
                    sentence_chunk[si] = chunk_ids[-1]
            sentence_ids: list[int] = []
            for ord_, s in enumerate(doc.sentences):
                boxes = json.dumps([[b.page, b.x0, b.y0, b.x1, b.y1] for b in s.boxes])
                c = db.execute(
                    'INSERT INTO sentences(doc_id, chunk_id, ord, page, start, "end", text, boxes, context, heading) '
                    "VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (doc_id, sentence_chunk[ord_], ord_, s.page, s.start, s.end, s.text, boxes, s.context,
                     int(s.heading)),
                )
                sentence_ids.append(int(c.lastrowid or 0))
            LexicalIndex.add(db, "sentence", [(i, f"{s.context} {s.text}".strip())
                                              for i, s in zip(sentence_ids, doc.sentences, strict=True)])
            heads = [next((doc.sentences[i].context for i in ch.sentences if doc.sentences[i].context), "")
                     for ch in doc.chunks]
            LexicalIndex.add(db, "chunk", [(i, f"{h} {ch.text}".strip())
                                           for i, h, ch in zip(chunk_ids, heads, doc.chunks, strict=True)])
            self._insert_vectors(db, "sentence", doc_id, sentence_ids, doc.sentence_vectors)
            self._insert_vectors(db, "chunk", doc_id, chunk_ids, doc.chunk_vectors)
            kill_point("vectors")
            self._bump(db)
        kill_point("committed")
        found = self._doc_rows("WHERE d.id = ?", (doc_id,))
        return found[0]

    @staticmethod
    def _insert_vectors(db: sqlite3.Connection, kind: str, doc_id: int, ids: list[int],
                        vecs: Vectors) -> None:
        if len(ids) != len(vecs):
            raise StoreError(f"{kind} vectors do not match items ({len(vecs)} != {len(ids)})")
        db.executemany(
            "INSERT INTO vectors(kind, item_id, doc_id, vec) VALUES (?,?,?,?)",
            [(kind, i, doc_id, np.asarray(v, np.float32).tobytes()) for i, v in zip(ids, vecs, strict=True)],
        )

    def remove(self, doc_id: int) -> None:
        with self._tx() as db:
            ents, rels = self.graph.prune_document(db, doc_id)
            LexicalIndex.remove_document(db, doc_id)
            cur = db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            if cur.rowcount == 0:
                raise StoreError(f"no document with id {doc_id}", hint="`gechat docs` lists them")
            self.graph.after_delete(db, ents, rels)
            self._bump(db)

    def documents(self) -> list[Document]:
        return self._doc_rows("", ())

    def _doc_rows(self, where: str, args: tuple[object, ...]) -> list[Document]:
        sql = (
            "SELECT d.id, d.path, d.sha256, d.kind, d.title, d.n_pages, d.added_at, "
            "(SELECT COUNT(*) FROM sentences s WHERE s.doc_id = d.id), "
            "(SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.id) "
            f"FROM documents d {where} ORDER BY d.id"
        )
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [
            Document(id=r[0], path=r[1], sha256=r[2], kind=r[3], title=r[4], n_pages=r[5],
                     added_at=r[6], n_sentences=r[7], n_chunks=r[8])
            for r in rows
        ]

    def document_text(self, doc_id: int) -> str:
        with self._lock:
            row = self._db.execute("SELECT text FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise StoreError(f"no document with id {doc_id}")
        return str(row[0])

    def pages(self, doc_id: int) -> list[PageInfo]:
        with self._lock:
            rows = self._db.execute(
                'SELECT number, start, "end", width, height FROM pages WHERE doc_id=? ORDER BY number',
                (doc_id,),
            ).fetchall()
        return [PageInfo(number=r[0], start=r[1], end=r[2], width=r[3], height=r[4]) for r in rows]

    # --- chunks and sentences ---
    def chunks(self, ids: Sequence[int]) -> list[Chunk]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(
                f'SELECT id, doc_id, ord, page, start, "end", text FROM chunks WHERE id IN ({marks})',
                list(ids),
            ).fetchall()
            sents = self._db.execute(
                f"SELECT chunk_id, id FROM sentences WHERE chunk_id IN ({marks}) ORDER BY ord",
                list(ids),
            ).fetchall()
        members: dict[int, list[int]] = {}
        for chunk_id, sid in sents:
            members.setdefault(chunk_id, []).append(sid)
        by_id = {
            r[0]: Chunk(id=r[0], doc_id=r[1], ord=r[2], page=r[3], start=r[4], end=r[5],
                        text=r[6], sentence_ids=members.get(r[0], []))
            for r in rows
        }
        return [by_id[i] for i in ids if i in by_id]

    def chunk_ids(self, doc_id: int) -> list[int]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,)).fetchall()
        return [r[0] for r in rows]

    def sentences_of_chunks(self, chunk_ids: Sequence[int]) -> list[Sentence]:
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        with self._lock:
            rows = self._db.execute(
                'SELECT id, doc_id, chunk_id, ord, page, start, "end", text, boxes, context, heading FROM sentences '
                f"WHERE chunk_id IN ({marks}) ORDER BY doc_id, ord",
                list(chunk_ids),
            ).fetchall()
        return [
            Sentence(id=r[0], doc_id=r[1], chunk_id=r[2], ord=r[3], page=r[4], start=r[5], end=r[6],
                     text=r[7], boxes=[Box(page=b[0], x0=b[1], y0=b[2], x1=b[3], y1=b[4])
                                       for b in json.loads(r[8])], context=r[9], heading=bool(r[10]))
            for r in rows
        ]

    # --- vectors ---
    def vectors(self, kind: str, ids: Sequence[int]) -> Vectors:
        if not ids:
            return np.zeros((0, 0), np.float32)
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = dict(self._db.execute(
                f"SELECT item_id, vec FROM vectors WHERE kind=? AND item_id IN ({marks})",
                [kind, *ids],
            ).fetchall())
        return np.stack([np.frombuffer(rows[i], np.float32) for i in ids])

    def search(self, kind: str, query: Vectors, k: int) -> list[tuple[int, float]]:
        return self._index(kind).search(query, k)

    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` chunks or sentences whose words best match ``text`` (BM25), best first."""
        return self.lexical.search(kind, text, k)

    def index_is_exact(self, kind: str) -> bool:
        return self._index(kind).exact

    def _index(self, kind: str) -> VectorIndex:
        gen = self.generation()
        cached = self._indexes.get(kind)
        if cached is not None and cached[0] == gen:
            return cached[1]
        with self._lock:
            rows = self._db.execute(
                "SELECT item_id, vec FROM vectors WHERE kind=? ORDER BY item_id", (kind,)
            ).fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = (np.stack([np.frombuffer(r[1], np.float32) for r in rows])
                  if rows else np.zeros((0, 1), np.float32))
        for old in self.path.parent.glob(f"{self.path.stem}.{kind}.*.usearch"):
            if old.name != f"{self.path.stem}.{kind}.{gen}.usearch":
                old.unlink(missing_ok=True)
        index_path = self.path.parent / f"{self.path.stem}.{kind}.{gen}.usearch"
        index = VectorIndex(ids, matrix, self.ann_threshold, index_path)
        self._indexes[kind] = (gen, index)
        return index

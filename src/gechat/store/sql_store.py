"""What the SQLite and PostgreSQL stores share: the documents' rows and how they are read.

The SQL here runs on both engines (``?`` placeholders, ``RETURNING``, ``ON CONFLICT``); each
engine adds its transactions, its vectors and its word index (``gechat.store.sqlite``,
``gechat.store.postgres``). Each document is written in one transaction, after all parsing
and embedding is done, so a crash or an error never leaves half a document; the embedder that
made its vectors is checked and recorded in that same transaction (``gechat.store.embedder``).
Removing a document cascades to its pages, chunks, sentences, vectors and graph mentions.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime

from gechat.errors import DuplicateDocumentError, StoreError
from gechat.store import embedder
from gechat.store.base import Connection, NewDocument, Vectors
from gechat.store.faults import kill_point
from gechat.store.graph import GraphTables
from gechat.types import Box, Chunk, Document, PageInfo, Sentence


class SqlStore(ABC):
    where: str
    dim_sql: str = "length(vec) / 4"  # a stored vector's dimension, in this engine's SQL

    def __init__(self, db: Connection, lock: threading.RLock, description_chars: int) -> None:
        self._db, self._lock = db, lock
        self.graph = GraphTables(db, lock, description_chars)
        self._mixed: tuple[int, StoreError | None] = (-1, None)

    # --- what each engine provides ---
    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _add_terms(self, db: Connection, kind: str, rows: list[tuple[int, str]]) -> None: ...

    @abstractmethod
    def _add_vectors(self, db: Connection, kind: str, doc_id: int, ids: list[int], vecs: Vectors) -> None: ...

    def _remove_terms(self, db: Connection, doc_id: int) -> None:  # noqa: B027 (most engines need nothing)
        """Before a document is deleted: word-index rows the cascade does not reach."""

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction (the graph builder writes each unit of chunks in one)."""
        with self._tx() as db:
            yield db
            kill_point("graph-unit")  # the graph builder's units are its only writers here

    # --- the embedder (gechat.store.embedder) ---
    def check_embedder(self, name: str) -> None:
        """Raises when the workspace's vectors are another embedder's than ``name`` (name/dim), or mixed."""
        problem = self.embedder_problem()
        if problem is not None:
            raise problem
        with self._lock:
            embedder.check(self._db, name, self.dim_sql)

    def embedder_problem(self) -> StoreError | None:
        """Why this workspace cannot search (vectors of several dimensions), or None; once per generation."""
        gen = self.generation()
        if self._mixed[0] != gen:
            with self._lock:
                self._mixed = (gen, embedder.mixed(self._db, self.dim_sql))
        return self._mixed[1]

    # --- meta ---
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT (key) "
                       "DO UPDATE SET value = excluded.value", (key, value))

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    @staticmethod
    def _bump(db: Connection) -> None:
        db.execute("INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT (key) "
                   "DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)")

    # --- documents ---
    def find_sha256(self, sha256: str) -> Document | None:
        rows = self._doc_rows("WHERE d.sha256 = ?", (sha256,))
        return rows[0] if rows else None

    def insert(self, doc: NewDocument) -> Document:
        p = doc.parsed
        vecs = doc.sentence_vectors if len(doc.sentence_vectors) else doc.chunk_vectors
        with self._tx() as db:
            # first, against the vectors stored before this document's
            if db.execute("SELECT 1 FROM documents WHERE sha256 = ?", (doc.sha256,)).fetchone() is not None:
                raise DuplicateDocumentError(f"{doc.path} is stored already (sha256 {doc.sha256[:12]})")
            embedder.record(db, doc.embedder, int(vecs.shape[1]) if len(vecs) else None, self.dim_sql)
            doc_id = int(db.execute(
                "INSERT INTO documents(sha256, path, kind, title, text, n_pages, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (doc.sha256, doc.path, p.kind, p.title, p.text, len(p.pages),
                 datetime.now(UTC).isoformat(timespec="seconds")),
            ).fetchone()[0])
            kill_point("document-row")
            db.executemany(
                'INSERT INTO pages(doc_id, number, start, "end", width, height) VALUES (?,?,?,?,?,?)',
                [(doc_id, pg.number, pg.start, pg.end, pg.width, pg.height) for pg in p.pages],
            )
            sentence_chunk: dict[int, int] = {}
            chunk_ids: list[int] = []
            for ord_, ch in enumerate(doc.chunks):
                page = doc.sentences[ch.sentences[0]].page if ch.sentences else 1
                chunk_ids.append(int(db.execute(
                    'INSERT INTO chunks(doc_id, ord, page, start, "end", text, n_tokens) '
                    "VALUES (?,?,?,?,?,?,?) RETURNING id",
                    (doc_id, ord_, page, ch.start, ch.end, ch.text, ch.n_tokens),
                ).fetchone()[0]))
                for si in ch.sentences:
                    sentence_chunk[si] = chunk_ids[-1]
            sentence_ids: list[int] = []
            for ord_, s in enumerate(doc.sentences):
                boxes = json.dumps([[b.page, b.x0, b.y0, b.x1, b.y1] for b in s.boxes])
                sentence_ids.append(int(db.execute(
                    'INSERT INTO sentences(doc_id, chunk_id, ord, page, start, "end", text, boxes, context, heading) '
                    "VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING id",
                    (doc_id, sentence_chunk[ord_], ord_, s.page, s.start, s.end, s.text, boxes, s.context,
                     int(s.heading)),
                ).fetchone()[0]))
            self._add_terms(db, "sentence", [(i, f"{s.context} {s.text}".strip())
                                             for i, s in zip(sentence_ids, doc.sentences, strict=True)])
            heads = [next((doc.sentences[i].context for i in ch.sentences if doc.sentences[i].context), "")
                     for ch in doc.chunks]
            self._add_terms(db, "chunk", [(i, f"{h} {ch.text}".strip())
                                          for i, h, ch in zip(chunk_ids, heads, doc.chunks, strict=True)])
            for kind, ids, v in (("sentence", sentence_ids, doc.sentence_vectors),
                                 ("chunk", chunk_ids, doc.chunk_vectors)):
                if len(ids) != len(v):
                    raise StoreError(f"{kind} vectors do not match items ({len(v)} != {len(ids)})")
                self._add_vectors(db, kind, doc_id, ids, v)
            kill_point("vectors")
            self._bump(db)
        kill_point("committed")
        found = self._doc_rows("WHERE d.id = ?", (doc_id,))
        return found[0]

    def remove(self, doc_id: int) -> None:
        with self._tx() as db:
            ents, rels = self.graph.prune_document(db, doc_id)
            self._remove_terms(db, doc_id)
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

"""Is a workspace's database whole? What the crash tests and the reliability benchmark check
after killing ``gechat add`` (``gechat.store.faults``), and a person can run on a workspace
they doubt.

Whole means: SQLite's own integrity check passes; no row points at a row that is gone (the
foreign keys, and the vectors and word-index rows, which have none); every document has its
pages, its chunks and sentences, one vector and one word-index row for each of them; one
vector dimension; and the embedder recorded once there are vectors.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from gechat.store.base import Connection
from gechat.store.embedder import BLOB_DIM, META_KEY

_TABLES = frozenset({"meta", "documents", "pages", "chunks", "sentences", "vectors", "sentence_terms",
                     "chunk_terms"})
# (what is wrong, a query counting the rows it is wrong for)
_CHECKS: tuple[tuple[str, str], ...] = (
    ("documents without pages", "SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                "(SELECT 1 FROM pages p WHERE p.doc_id = d.id)"),
    ("documents without chunks", "SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                 "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"),
    ("documents without sentences", "SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                    "(SELECT 1 FROM sentences s WHERE s.doc_id = d.id)"),
    ("sentences without a vector", "SELECT count(*) FROM sentences s WHERE NOT EXISTS "
                                   "(SELECT 1 FROM vectors v WHERE v.kind = 'sentence' AND v.item_id = s.id)"),
    ("chunks without a vector", "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                                "(SELECT 1 FROM vectors v WHERE v.kind = 'chunk' AND v.item_id = c.id)"),
    ("vectors of no sentence", "SELECT count(*) FROM vectors v WHERE v.kind = 'sentence' AND NOT EXISTS "
                               "(SELECT 1 FROM sentences s WHERE s.id = v.item_id)"),
    ("vectors of no chunk", "SELECT count(*) FROM vectors v WHERE v.kind = 'chunk' AND NOT EXISTS "
                            "(SELECT 1 FROM chunks c WHERE c.id = v.item_id)"),
)
# the SQLite store's word index is tables of its own (in PostgreSQL, a column of each row)
_WORD_CHECKS: tuple[tuple[str, str], ...] = (
    ("sentences not in the word index", "SELECT count(*) FROM sentences s WHERE NOT EXISTS "
                                        "(SELECT 1 FROM sentence_terms t WHERE t.rowid = s.id)"),
    ("word-index rows of no sentence", "SELECT count(*) FROM sentence_terms t WHERE NOT EXISTS "
                                       "(SELECT 1 FROM sentences s WHERE s.id = t.rowid)"),
    ("chunks not in the word index", "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                                     "(SELECT 1 FROM chunk_terms t WHERE t.rowid = c.id)"),
    ("word-index rows of no chunk", "SELECT count(*) FROM chunk_terms t WHERE NOT EXISTS "
                                    "(SELECT 1 FROM chunks c WHERE c.id = t.rowid)"),
)


def problems(db_path: Path) -> list[str]:
    """What is wrong with the workspace database at ``db_path``; empty when it is whole."""
    if not db_path.exists():
        return []  # killed before the database was made: nothing to be inconsistent
    db = sqlite3.connect(f"file:{db_path}?mode=rw", uri=True)  # never creates one
    try:
        return _problems(db)
    finally:
        db.close()


def _problems(db: sqlite3.Connection) -> list[str]:
    out: list[str] = []
    integrity = [str(r[0]) for r in db.execute("PRAGMA integrity_check")]
    if integrity != ["ok"]:
        out.append("integrity check: " + "; ".join(integrity[:5]))
    dangling = db.execute("PRAGMA foreign_key_check").fetchall()
    if dangling:
        where = sorted({str(r[0]) for r in dangling})
        out.append(f"{len(dangling)} rows point at rows that are gone (in {', '.join(where)})")
    tables = {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if not tables >= _TABLES:
        return out  # killed while the schema was made (the store makes the rest on open): nothing stored
    return out + row_problems(db, BLOB_DIM)


def row_problems(db: Connection, dim_sql: str, word_index: bool = True) -> list[str]:
    """What is wrong with the rows, on either engine (``dim_sql``: a vector's dimension)."""
    out: list[str] = []
    for what, sql in _CHECKS + (_WORD_CHECKS if word_index else ()):
        n = int(db.execute(sql).fetchone()[0])
        if n:
            out.append(f"{n} {what}")
    dims = [int(r[0]) for r in db.execute(f"SELECT DISTINCT {dim_sql} FROM vectors")]
    if len(dims) > 1:
        out.append(f"vectors of {len(dims)} dimensions: {sorted(dims)}")
    recorded = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if dims and recorded is None:
        out.append("vectors but no embedder recorded")
    return out

"""The knowledge graph's tables, in the workspace's SQLite file.

Entities and relations are *derived* rows: every fact the extractor saw is a mention row
that points at its document, chunk and sentences (foreign keys with ON DELETE CASCADE). An
entity's name, type and description, and a relation's keywords, description and weight,
are recomputed from the mentions that remain. So removing a document is: delete it
(mentions go with it), delete entities and relations left with no mention, re-derive the
rest. The graph then equals one built without that document, up to ids.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gechat.store.base import Connection, EntityRow, MentionWrite, RelationRow, RelationWrite, UnitCost

GRAPH_SCHEMA = """
CREATE TABLE IF NOT EXISTS entities (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    n_mentions INTEGER NOT NULL DEFAULT 0, name_vec BLOB, vec BLOB);
CREATE TABLE IF NOT EXISTS entity_mentions (
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    key TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    sentence_ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS relations (
    id INTEGER PRIMARY KEY,
    src INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    dst INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    keywords TEXT NOT NULL, description TEXT NOT NULL, weight REAL NOT NULL DEFAULT 0,
    UNIQUE (src, dst));
CREATE TABLE IF NOT EXISTS relation_mentions (
    relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    keywords TEXT NOT NULL, description TEXT NOT NULL, strength REAL NOT NULL, kind TEXT NOT NULL,
    sentence_ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_chunks (
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    extractor TEXT NOT NULL, failed INTEGER NOT NULL, llm_calls INTEGER NOT NULL,
    cache_hits INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL, PRIMARY KEY (chunk_id, extractor));
CREATE INDEX IF NOT EXISTS emention_entity ON entity_mentions(entity_id);
CREATE INDEX IF NOT EXISTS emention_key ON entity_mentions(key);
CREATE INDEX IF NOT EXISTS emention_doc ON entity_mentions(doc_id);
CREATE INDEX IF NOT EXISTS emention_chunk ON entity_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS rmention_rel ON relation_mentions(relation_id);
CREATE INDEX IF NOT EXISTS rmention_doc ON relation_mentions(doc_id);
CREATE INDEX IF NOT EXISTS rmention_chunk ON relation_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS graph_chunks_doc ON graph_chunks(doc_id);
"""


def merge_texts(texts: Iterable[str], bound: int, sep: str = " | ") -> str:
    """Distinct texts in order, joined until ``bound`` characters; no LLM (see README)."""
    out: list[str] = []
    seen: set[str] = set()
    size = 0
    for t in texts:
        t = " ".join(t.split())
        low = t.lower()
        if not t or low in seen:
            continue
        if out and size + len(sep) + len(t) > bound:
            break
        seen.add(low)
        out.append(t[:bound])
        size += len(t) + len(sep)
    return sep.join(out)


class GraphTables:
    """Reads and writes the graph tables on the store's connection and lock."""

    def __init__(self, db: Connection, lock: threading.RLock, description_chars: int = 600) -> None:
        self.db, self.lock = db, lock
        self.description_chars = description_chars

    def _q(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        with self.lock:
            return list(self.db.execute(sql, args).fetchall())

    # --- writing (inside the caller's transaction) ---
    def new_entity(self, db: Connection, name: str, type_: str, name_vec: np.ndarray | None) -> int:
        blob = None if name_vec is None else np.asarray(name_vec, np.float32).tobytes()
        cur = db.execute("INSERT INTO entities(name, type, description, name_vec) VALUES (?,?,?,?) RETURNING id",
                         (name, type_, "", blob))
        return int(cur.fetchone()[0])

    def write(self, db: Connection, mentions: Sequence[MentionWrite], relations: Sequence[RelationWrite],
              done: Sequence[tuple[int, int, str, bool, UnitCost]]) -> None:
        """Mentions, relation mentions and the chunks marked done, then re-derive what changed."""
        db.executemany(
            "INSERT INTO entity_mentions(entity_id, doc_id, chunk_id, key, name, type, description, sentence_ids) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [(m.entity_id, m.doc_id, m.chunk_id, m.key, m.name, m.type, m.description,
              json.dumps(list(m.sentence_ids))) for m in mentions])
        touched_rel: set[int] = set()
        for r in relations:
            if r.src == r.dst:
                continue
            a, b = min(r.src, r.dst), max(r.src, r.dst)  # undirected: one row per pair
            db.execute("INSERT INTO relations(src, dst, keywords, description) VALUES (?,?,'','') "
                       "ON CONFLICT (src, dst) DO NOTHING", (a, b))
            rid = int(db.execute("SELECT id FROM relations WHERE src=? AND dst=?", (a, b)).fetchone()[0])
            db.execute(
                "INSERT INTO relation_mentions(relation_id, doc_id, chunk_id, keywords, description, strength, kind, "
                "sentence_ids) VALUES (?,?,?,?,?,?,?,?)",
                (rid, r.doc_id, r.chunk_id, r.keywords, r.description, r.strength, r.kind,
                 json.dumps(list(r.sentence_ids))))
            touched_rel.add(rid)
        db.executemany(
            "INSERT INTO graph_chunks(chunk_id, doc_id, extractor, failed, llm_calls, cache_hits, "
            "prompt_tokens, completion_tokens, seconds) VALUES (?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (chunk_id, extractor) DO UPDATE SET doc_id=excluded.doc_id, failed=excluded.failed, "
            "llm_calls=excluded.llm_calls, cache_hits=excluded.cache_hits, prompt_tokens=excluded.prompt_tokens, "
            "completion_tokens=excluded.completion_tokens, seconds=excluded.seconds",
            [(cid, did, ex, int(failed), c.llm_calls, c.cache_hits, c.prompt_tokens, c.completion_tokens, c.seconds)
             for cid, did, ex, failed, c in done])
        self.rederive(db, {m.entity_id for m in mentions}, touched_rel)
        _bump(db)

    def rederive(self, db: Connection, entity_ids: Iterable[int], relation_ids: Iterable[int]) -> None:
        """Recompute derived fields from the mentions that remain (insertion order breaks ties)."""
        for eid in sorted(set(entity_ids)):
            rows = db.execute("SELECT name, type, description FROM entity_mentions WHERE entity_id=? ORDER BY rowid",
                              (eid,)).fetchall()
            if not rows:
                continue
            name = _most_common([r[0] for r in rows])
            type_ = _most_common([r[1] for r in rows])
            desc = merge_texts((r[2] for r in rows), self.description_chars)
            old = db.execute("SELECT name, description FROM entities WHERE id=?", (eid,)).fetchone()
            changed = old is None or old[0] != name or old[1] != desc
            db.execute(
                "UPDATE entities SET name=?, type=?, description=?, n_mentions=?"
                + (", vec=NULL" if changed else "") + (", name_vec=NULL" if old and old[0] != name else "")
                + " WHERE id=?", (name, type_, desc, len(rows), eid))
        for rid in sorted(set(relation_ids)):
            rows = db.execute("SELECT keywords, description, strength FROM relation_mentions WHERE relation_id=? "
                              "ORDER BY rowid", (rid,)).fetchall()
            if not rows:
                continue
            db.execute("UPDATE relations SET keywords=?, description=?, weight=? WHERE id=?",
                       (merge_texts((r[0] for r in rows), 200, ", "),
                        merge_texts((r[1] for r in rows), self.description_chars),
                        float(sum(r[2] for r in rows)), rid))

    def prune_document(self, db: Connection, doc_id: int) -> tuple[set[int], set[int]]:
        """Before a document is deleted: the entities and relations it touches."""
        ents = {r[0] for r in db.execute("SELECT DISTINCT entity_id FROM entity_mentions WHERE doc_id=?", (doc_id,))}
        rels = {r[0] for r in db.execute("SELECT DISTINCT relation_id FROM relation_mentions WHERE doc_id=?",
                                         (doc_id,))}
        return ents, rels

    def after_delete(self, db: Connection, ents: set[int], rels: set[int]) -> None:
        """After the cascade: drop what has no provenance left, re-derive the rest."""
        db.execute("DELETE FROM entities WHERE id NOT IN (SELECT DISTINCT entity_id FROM entity_mentions)")
        db.execute("DELETE FROM relations WHERE id NOT IN (SELECT DISTINCT relation_id FROM relation_mentions)")
        self.rederive(db, ents, rels)
        _bump(db)

    def set_vectors(self, db: Connection, column: str, rows: Sequence[tuple[int, np.ndarray]]) -> None:
        assert column in ("vec", "name_vec")
        db.executemany(f"UPDATE entities SET {column}=? WHERE id=?",
                       [(np.asarray(v, np.float32).tobytes(), i) for i, v in rows])

    def save_vectors(self, column: str, rows: Sequence[tuple[int, np.ndarray]]) -> None:
        """Outside a transaction: vectors computed on read (a name a re-derivation changed)."""
        with self.lock:
            self.set_vectors(self.db, column, rows)

    # --- reading ---
    def entity_for_key(self, key: str) -> int | None:
        rows = self._q("SELECT entity_id FROM entity_mentions WHERE key=? ORDER BY rowid LIMIT 1", (key,))
        return int(rows[0][0]) if rows else None

    def entities(self) -> list[EntityRow]:
        return [EntityRow(*r) for r in self._q(
            "SELECT id, name, type, description, n_mentions FROM entities ORDER BY id")]

    def relations(self) -> list[RelationRow]:
        return [RelationRow(*r) for r in self._q(
            "SELECT id, src, dst, keywords, description, weight FROM relations ORDER BY id")]

    def vectors(self, column: str) -> dict[int, np.ndarray | None]:
        assert column in ("vec", "name_vec")
        return {int(i): (None if b is None else np.frombuffer(b, np.float32))
                for i, b in self._q(f"SELECT id, {column} FROM entities")}

    def entity_mentions(self) -> list[tuple[int, int, list[int]]]:
        """(entity id, chunk id, sentence ids) for every mention."""
        return [(int(e), int(c), json.loads(s)) for e, c, s in self._q(
            "SELECT entity_id, chunk_id, sentence_ids FROM entity_mentions")]

    def relation_mentions(self) -> list[tuple[int, int, list[int]]]:
        return [(int(r), int(c), json.loads(s)) for r, c, s in self._q(
            "SELECT relation_id, chunk_id, sentence_ids FROM relation_mentions")]

    def name_keys(self) -> list[tuple[str, int]]:
        """Every (normalised name, entity id) the text used, aliases included."""
        return [(str(k), int(e)) for k, e in self._q("SELECT DISTINCT key, entity_id FROM entity_mentions")]

    def done_chunks(self, doc_id: int, extractor: str) -> set[int]:
        """Chunks this extractor has done (a fast graph can later be extended by the LLM's)."""
        return {int(r[0]) for r in self._q("SELECT chunk_id FROM graph_chunks WHERE doc_id=? AND extractor=?",
                                           (doc_id, extractor))}

    def keys_of_chunk(self, chunk_id: int) -> list[tuple[int, str]]:
        return [(int(e), str(k)) for e, k in self._q(
            "SELECT entity_id, key FROM entity_mentions WHERE chunk_id=?", (chunk_id,))]

    def cost_by_document(self) -> dict[int, dict[str, float]]:
        out: dict[int, dict[str, float]] = {}
        for row in self._q(
                "SELECT doc_id, COUNT(DISTINCT chunk_id), SUM(failed), SUM(llm_calls), SUM(cache_hits), "
                "SUM(prompt_tokens), "
                "SUM(completion_tokens), SUM(seconds) FROM graph_chunks GROUP BY doc_id"):
            out[int(row[0])] = dict(zip(("chunks", "failed", "llm_calls", "cache_hits", "prompt_tokens",
                                         "completion_tokens", "seconds"), map(float, row[1:]), strict=True))
        return out

    def counts(self) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self._q(sql)[0][0])

        return {"entities": one("SELECT COUNT(*) FROM entities"),
                "relations": one("SELECT COUNT(*) FROM relations"),
                "entity_mentions": one("SELECT COUNT(*) FROM entity_mentions"),
                "relation_mentions": one("SELECT COUNT(*) FROM relation_mentions"),
                "chunks_done": one("SELECT COUNT(DISTINCT chunk_id) FROM graph_chunks"),
                "chunks_failed": one("SELECT COALESCE(SUM(failed), 0) FROM graph_chunks")}

    def generation(self) -> int:
        rows = self._q("SELECT value FROM meta WHERE key='graph_generation'")
        return int(rows[0][0]) if rows else 0


def _most_common(values: Sequence[str]) -> str:
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)  # first seen among the most frequent


def _bump(db: Connection) -> None:
    # text in, text out: PostgreSQL refuses an integer into the text column
    db.execute("INSERT INTO meta(key, value) VALUES ('graph_generation', '1') ON CONFLICT(key) "
               "DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)")

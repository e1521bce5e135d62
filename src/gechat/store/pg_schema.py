"""The PostgreSQL store's tables, as ordered migrations (``gechat.store.pg_conn.migrate``).

The same tables as the SQLite store, with PostgreSQL's types: vectors in pgvector ``vector``
columns (with their dimension beside them, so that workspaces of several embedders can
share a database and each dimension gets its own HNSW index), and each chunk's and
sentence's words in a ``tsvector`` column with a GIN index, the lexical side of hybrid
retrieval. Mention rows carry a ``rowid`` so that "first seen" reads alike on both engines.
Append a script to change the schema; never edit one that has shipped.
"""

from __future__ import annotations

V1 = """
CREATE TABLE IF NOT EXISTS documents (
    id BIGSERIAL PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, kind TEXT NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, n_pages INTEGER NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, number INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, width DOUBLE PRECISION, height DOUBLE PRECISION,
    PRIMARY KEY (doc_id, number));
CREATE TABLE IF NOT EXISTS chunks (
    id BIGSERIAL PRIMARY KEY, doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL, page INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    text TEXT NOT NULL, n_tokens INTEGER NOT NULL, terms TSVECTOR NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS sentences (
    id BIGSERIAL PRIMARY KEY, doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE, ord INTEGER NOT NULL,
    page INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL,
    boxes TEXT NOT NULL, context TEXT NOT NULL DEFAULT '', heading INTEGER NOT NULL DEFAULT 0,
    terms TSVECTOR NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS vectors (
    kind TEXT NOT NULL, item_id BIGINT NOT NULL,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE, dim INTEGER NOT NULL,
    vec public.vector NOT NULL, PRIMARY KEY (kind, item_id));
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE INDEX IF NOT EXISTS sentences_chunk ON sentences(chunk_id);
CREATE INDEX IF NOT EXISTS sentences_doc ON sentences(doc_id);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors(doc_id);
CREATE INDEX IF NOT EXISTS chunks_terms ON chunks USING gin(terms);
CREATE INDEX IF NOT EXISTS sentences_terms ON sentences USING gin(terms);
CREATE TABLE IF NOT EXISTS entities (
    id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    n_mentions INTEGER NOT NULL DEFAULT 0, name_vec BYTEA, vec BYTEA);
CREATE TABLE IF NOT EXISTS entity_mentions (
    rowid BIGSERIAL PRIMARY KEY,
    entity_id BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    key TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    sentence_ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS relations (
    id BIGSERIAL PRIMARY KEY,
    src BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    dst BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    keywords TEXT NOT NULL, description TEXT NOT NULL, weight DOUBLE PRECISION NOT NULL DEFAULT 0,
    UNIQUE (src, dst));
CREATE TABLE IF NOT EXISTS relation_mentions (
    rowid BIGSERIAL PRIMARY KEY,
    relation_id BIGINT NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    keywords TEXT NOT NULL, description TEXT NOT NULL, strength DOUBLE PRECISION NOT NULL, kind TEXT NOT NULL,
    sentence_ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_chunks (
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    doc_id BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    extractor TEXT NOT NULL, failed INTEGER NOT NULL, llm_calls INTEGER NOT NULL,
    cache_hits INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    seconds DOUBLE PRECISION NOT NULL, PRIMARY KEY (chunk_id, extractor));
CREATE INDEX IF NOT EXISTS emention_entity ON entity_mentions(entity_id);
CREATE INDEX IF NOT EXISTS emention_key ON entity_mentions(key);
CREATE INDEX IF NOT EXISTS emention_doc ON entity_mentions(doc_id);
CREATE INDEX IF NOT EXISTS emention_chunk ON entity_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS rmention_rel ON relation_mentions(relation_id);
CREATE INDEX IF NOT EXISTS rmention_doc ON relation_mentions(doc_id);
CREATE INDEX IF NOT EXISTS rmention_chunk ON relation_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS graph_chunks_doc ON graph_chunks(doc_id);
"""

MIGRATIONS: list[str] = [V1]

"""The SQLite store: dedup, one transaction per document, cascading removal, search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gechat.errors import DuplicateDocumentError, StoreError
from gechat.store.base import NewDocument as Indexed
from gechat.store.sqlite import SQLiteStore
from gechat.types import Box, ChunkSpan, PageInfo, ParsedDocument, SentenceSpan, Span


def make_doc(sha: str, text: str = "One two. Three four. Five six.", dim: int = 8, seed: int = 0) -> Indexed:
    spans = [(0, 8), (9, 20), (21, 30)]
    sents = [SentenceSpan(start=a, end=b, text=text[a:b], page=1,
                          boxes=[Box(page=1, x0=1, y0=2, x1=3, y1=4)]) for a, b in spans]
    chunks = [ChunkSpan(sentences=[0, 1], start=0, end=20, text=text[0:20], n_tokens=6),
              ChunkSpan(sentences=[2], start=21, end=30, text=text[21:30], n_tokens=3)]
    parsed = ParsedDocument(text=text, kind="txt", title="t", pages=[PageInfo(number=1, start=0, end=len(text))],
                            blocks=[Span(start=0, end=len(text))])
    rng = np.random.default_rng(seed)
    sv = rng.normal(size=(3, dim)).astype(np.float32)
    cv = rng.normal(size=(2, dim)).astype(np.float32)
    sv /= np.linalg.norm(sv, axis=1, keepdims=True)
    cv /= np.linalg.norm(cv, axis=1, keepdims=True)
    return Indexed(f"/x/{sha}.txt", sha, parsed, sents, chunks, sv, cv)


def counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    out = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
           for t in ("documents", "pages", "chunks", "sentences", "vectors", "chunk_terms", "sentence_terms")}
    db.close()
    return out


def test_insert_read_remove_leaves_no_orphans(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.sqlite")
    a = store.insert(make_doc("a"))
    b = store.insert(make_doc("b", seed=1))
    assert (a.n_sentences, a.n_chunks) == (3, 2)
    assert store.find_sha256("a") == a
    chunks = store.chunks([1, 2])
    assert chunks[0].sentence_ids == [1, 2] and chunks[1].sentence_ids == [3]
    sents = store.sentences_of_chunks([c.id for c in chunks])
    text = store.document_text(a.id)
    assert all(text[s.start:s.end] == s.text for s in sents)
    assert sents[0].boxes[0].x1 == 3
    store.remove(a.id)
    assert [d.id for d in store.documents()] == [b.id]
    assert counts(tmp_path / "g.sqlite") == {"documents": 1, "pages": 1, "chunks": 2, "sentences": 3, "vectors": 5,
                                             "chunk_terms": 2, "sentence_terms": 3}
    store.remove(b.id)
    assert set(counts(tmp_path / "g.sqlite").values()) == {0}


def test_failed_insert_writes_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.sqlite")
    bad = make_doc("bad")
    bad.chunk_vectors = bad.chunk_vectors[:1]  # mismatch -> error inside the transaction
    with pytest.raises(StoreError):
        store.insert(bad)
    assert set(counts(tmp_path / "g.sqlite").values()) == {0}
    store.insert(make_doc("good"))
    assert len(store.documents()) == 1


def test_duplicate_sha_is_rejected_by_the_schema(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.sqlite")
    store.insert(make_doc("a"))
    with pytest.raises(DuplicateDocumentError, match="stored already"):
        store.insert(make_doc("a"))
    assert len(store.documents()) == 1


def test_remove_unknown_is_clear(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no document"):
        SQLiteStore(tmp_path / "g.sqlite").remove(42)


def test_wal_and_foreign_keys(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.sqlite")
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_exact_and_ann_search_agree(tmp_path: Path) -> None:
    exact = SQLiteStore(tmp_path / "e.sqlite", ann_threshold=10_000)
    ann = SQLiteStore(tmp_path / "a.sqlite", ann_threshold=1)
    for i in range(20):
        exact.insert(make_doc(f"d{i}", dim=16, seed=i))
        ann.insert(make_doc(f"d{i}", dim=16, seed=i))
    assert exact.index_is_exact("sentence") and not ann.index_is_exact("sentence")
    q = np.random.default_rng(99).normal(size=16).astype(np.float32)
    q /= np.linalg.norm(q)
    e = exact.search("sentence", q, 5)
    a = ann.search("sentence", q, 5)
    assert [i for i, _ in e][:3] == [i for i, _ in a][:3]
    assert e[0][1] == pytest.approx(a[0][1], abs=1e-4)
    assert list((tmp_path).glob("a.sentence.*.usearch"))  # the ANN index is saved beside the db
    # the index follows removals
    ann.remove(ann.documents()[0].id)
    ids = {i for i, _ in ann.search("sentence", q, 100)}
    assert not ids & {1, 2, 3}


def test_search_empty_store(tmp_path: Path) -> None:
    assert SQLiteStore(tmp_path / "g.sqlite").search("chunk", np.ones(4, np.float32), 3) == []


def test_sentence_context_is_stored_and_old_workspaces_gain_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    # a workspace made before sentences had a heading context
    old = sqlite3.connect(path)
    old.executescript("CREATE TABLE sentences (id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, "
                      "chunk_id INTEGER NOT NULL, ord INTEGER NOT NULL, page INTEGER NOT NULL, "
                      'start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL, boxes TEXT NOT NULL);')
    old.close()
    store = SQLiteStore(path)
    doc = make_doc("a")
    doc.sentences[2].context, doc.sentences[0].heading = "Report > Costs", True
    stored = store.insert(doc)
    sents = store.sentences_of_chunks(store.chunk_ids(stored.id))
    assert [(s.context, s.heading) for s in sents] == [("", True), ("", False), ("Report > Costs", False)]
    store.close()


def test_word_search_finds_stems_and_headings_and_old_workspaces_are_indexed(tmp_path: Path) -> None:
    from gechat.store.lexical import query_terms

    text = "Capital expenditures rose. Revenue fell sharply. Cash was flat."
    doc = make_doc("w", text=text)
    spans = [(0, 26), (27, 48), (49, 63)]
    for sent, (a, b) in zip(doc.sentences, spans, strict=True):
        sent.start, sent.end, sent.text = a, b, text[a:b]
    doc.chunks[0].start, doc.chunks[0].end, doc.chunks[0].text = 0, 48, text[0:48]
    doc.chunks[1].start, doc.chunks[1].end, doc.chunks[1].text = 49, 63, text[49:63]
    doc.sentences[2].context = "Liquidity"  # its section's heading
    path = tmp_path / "w.sqlite"
    store = SQLiteStore(path)
    d = store.insert(doc)
    assert [i for i, _ in store.lexical_search("chunk", "What was the capital expenditure?", 5)] == [1]
    assert [i for i, _ in store.lexical_search("sentence", "liquidity", 5)] == [3]  # by its heading
    assert store.lexical_search("chunk", "the of and", 5) == [] == store.lexical_search("chunk", "", 5)
    assert query_terms('revenue "OR" NEAR(') == '"revenue" OR "near"'  # no word is read as an operator
    store.close()
    # a workspace made before the index: emptied, then opened again
    db = sqlite3.connect(path)
    db.execute("DELETE FROM chunk_terms")
    db.execute("DELETE FROM sentence_terms")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert [i for i, _ in store.lexical_search("sentence", "revenue", 5)] == [2]
    store.remove(d.id)
    assert store.lexical_search("chunk", "revenue", 5) == []

"""Word retrieval and its fusion with the vectors."""

from __future__ import annotations

from pathlib import Path

from gechat.models.embed import HashingEmbedder
from gechat.retrieve import RETRIEVERS
from gechat.retrieve.lexical import RRF_K, rrf
from gechat.settings import Settings
from gechat.store.sqlite import SQLiteStore
from tests.unit.test_store import make_doc


def test_rrf_puts_what_both_find_first_and_keeps_what_one_finds() -> None:
    fused = rrf([(1, 0.9), (2, 0.8), (3, 0.1)], [(3, 12.0), (4, 9.0)])
    assert [i for i, _ in fused] == [3, 1, 2, 4]
    assert fused[0][1] == 1 / (RRF_K + 3) + 1 / (RRF_K + 1)
    assert rrf() == [] == rrf([])


def test_bm25_and_fused_retrievers_from_the_registry(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    doc = make_doc("a", dim=HashingEmbedder().dim)
    embedder = HashingEmbedder()
    doc.chunk_vectors = embedder.embed([c.text for c in doc.chunks])
    doc.sentence_vectors = embedder.embed([s.text for s in doc.sentences])
    store.insert(doc)
    for name in ("bm25", "fused"):
        r = RETRIEVERS.create(name, Settings(), store=store, embedder=embedder)
        hits = r.retrieve("five six", 1)
        assert [h.chunk.id for h in hits] == [2], name
        assert r.rank_sentences("three four", 1)[0][0] == 2
        assert r.for_evidence(["x"], hits, 1) == hits

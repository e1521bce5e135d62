"""Vector retrieval discounts a name that runs through a document (retrieve/names.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gechat.retrieve import RETRIEVERS
from gechat.retrieve.names import common_names, name_words, search_chunks, without
from gechat.settings import Settings
from gechat.store.sqlite import SQLiteStore
from tests.unit.test_store import make_doc

VOCAB = ("acme", "revenue", "overview", "units")


class CountEmbedder:
    """Word counts over a four-word vocabulary, normalised: cosines a test can work out."""

    name, dim = "counts", len(VOCAB)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for w in re.findall(r"[a-z]+", text.lower()):
                if w in VOCAB:
                    out[row, VOCAB.index(w)] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _store(tmp_path: Path, docs: list[tuple[str, str, str]]) -> tuple[SQLiteStore, list[list[int]]]:
    """One document per (sha, first chunk, second chunk), chunk texts as given."""
    store, emb, ids = SQLiteStore(tmp_path / "s.sqlite"), CountEmbedder(), []
    for seed, (sha, one, two) in enumerate(docs):
        text = f"{one} {two}"
        doc = make_doc(sha, text=text, dim=emb.dim, seed=seed)
        spans = [(0, len(one)), (len(one) + 1, len(text))]
        for sent, (a, b) in zip(doc.sentences, [spans[0], spans[1], spans[1]], strict=True):
            sent.start, sent.end, sent.text = a, b, text[a:b]
        doc.sentences = doc.sentences[:2]
        doc.chunks[0].sentences, doc.chunks[1].sentences = [0], [1]
        for chunk, (a, b) in zip(doc.chunks, spans, strict=True):
            chunk.start, chunk.end, chunk.text = a, b, text[a:b]
        doc.chunk_vectors = emb.embed([one, two])
        doc.sentence_vectors = emb.embed([one, two])
        ids.append(store.chunk_ids(store.insert(doc).id))
    return store, ids


def test_names_are_words_with_a_capital_and_leave_the_question_whole() -> None:
    assert name_words("What was Acme's FY2018 revenue? What did the CEO say?") == ["Acme", "FY2018", "CEO"]
    assert without("What was Acme's revenue under Acme Corp?", ["Acme", "Corp"]) == "What was revenue under ?"
    assert without("Was Best Buy's margin steady?", ["Best", "Buy"]) == "Was margin steady?"


def test_a_name_common_in_a_document_no_longer_decides_which_of_its_chunks_answers(tmp_path: Path) -> None:
    store, ((cover, figures),) = _store(tmp_path, [("a", "Acme Acme Acme overview", "revenue revenue units")])
    question = "What was Acme's revenue?"
    assert common_names(store, question, 0.1) == {1: ("Acme",)}
    # the whole question's cosine puts the page that says the name most first
    assert [i for i, _ in search_chunks(store, CountEmbedder(), question, 2, 1.0)] == [cover, figures]
    found = search_chunks(store, CountEmbedder(), question, 2, 0.1)
    assert [i for i, _ in found] == [figures, cover]
    assert abs(found[0][1] - 2 / np.sqrt(5)) < 1e-6  # "What was revenue?" against it
    r = RETRIEVERS.create("vector", Settings(), store=store, embedder=CountEmbedder())
    assert [h.chunk.id for h in r.retrieve(question, 1)] == [figures]
    assert [h.chunk.id for h in RETRIEVERS.create("vector", Settings(common_name_share=1.0), store=store,
                                                  embedder=CountEmbedder()).retrieve(question, 1)] == [cover]


def test_the_name_still_tells_documents_apart(tmp_path: Path) -> None:
    # the same chunk text in a document that never names Acme keeps the whole question's cosine
    store, (a, b) = _store(tmp_path, [("a", "Acme Acme Acme overview", "revenue revenue units"),
                                      ("b", "revenue revenue units", "overview")])
    assert common_names(store, "What was Acme's revenue?", 0.1) == {1: ("Acme",)}
    ranked = [i for i, _ in search_chunks(store, CountEmbedder(), "What was Acme's revenue?", 4, 0.1)]
    assert ranked == [a[1], a[0], b[0], b[1]]
    assert common_names(store, "what was the revenue?", 0.1) == {}  # no name, nothing discounted

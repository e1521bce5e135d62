"""Every store behaviour on both engines: SQLite, and a real PostgreSQL with pgvector
(pgserver, or GECHAT_TEST_POSTGRES_URL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gechat.errors import DuplicateDocumentError, StoreError
from gechat.settings import Settings
from gechat.store.base import NewDocument
from gechat.store.registry import open_store, scheme
from tests.unit.test_store import make_doc as bare_doc


def make_doc(sha: str, text: str = "One two. Three four. Five six.", dim: int = 8, seed: int = 0) -> NewDocument:
    doc = bare_doc(sha, text, dim, seed)
    doc.embedder = f"fake/{dim}"
    return doc


@pytest.fixture
def opener(store_url: str, tmp_path: Path) -> Iterator[tuple[Settings, Path]]:
    """Settings on this engine and a workspace folder; the workspace's rows are dropped after."""
    settings = Settings.load("test", store=store_url, cache_dir=tmp_path / "cache")
    yield settings, tmp_path / "ws"
    leftover = open_store(settings, tmp_path / "ws")
    leftover.drop()


def test_insert_read_remove_leaves_no_orphans(opener: tuple[Settings, Path]) -> None:
    store = open_store(*opener)
    a = store.insert(make_doc("a"))
    b = store.insert(make_doc("b", seed=1))
    assert (a.n_sentences, a.n_chunks) == (3, 2)
    assert store.find_sha256("a") == a
    ids = store.chunk_ids(a.id)
    chunks = store.chunks(ids)
    assert [len(c.sentence_ids) for c in chunks] == [2, 1]
    sents = store.sentences_of_chunks(ids)
    text = store.document_text(a.id)
    assert all(text[s.start:s.end] == s.text for s in sents)
    assert sents[0].boxes[0].x1 == 3 and store.pages(a.id)[0].end == len(text)
    assert store.vectors("sentence", [s.id for s in sents]).shape == (3, 8)
    gen = store.generation()
    store.remove(a.id)
    assert store.generation() == gen + 1
    assert [d.id for d in store.documents()] == [b.id]
    assert store.chunks(ids) == [] and store.problems() == []
    q = make_doc("a").sentence_vectors[0]
    left = {s.id for s in store.sentences_of_chunks(store.chunk_ids(b.id))}
    assert {i for i, _ in store.search("sentence", q, 10)} == left
    store.remove(b.id)
    assert store.documents() == [] and store.search("chunk", q, 5) == []
    with pytest.raises(StoreError, match="no document"):
        store.remove(a.id)
    store.close()


def test_failed_and_duplicate_inserts_write_nothing(opener: tuple[Settings, Path]) -> None:
    store = open_store(*opener)
    bad = make_doc("x")
    bad.chunk_vectors = bad.chunk_vectors[:1]  # one vector short: fails after the rows are written
    with pytest.raises(StoreError, match="do not match"):
        store.insert(bad)
    assert store.documents() == [] and store.generation() == 0 and store.problems() == []
    store.insert(make_doc("a"))
    with pytest.raises(DuplicateDocumentError, match="stored already"):
        store.insert(make_doc("a"))
    assert len(store.documents()) == 1 and store.problems() == []
    store.close()


def test_exact_and_approximate_search_agree(opener: tuple[Settings, Path]) -> None:
    settings, path = opener
    exact = open_store(settings.model_copy(update={"ann_threshold": 10_000}), path)
    for i in range(30):
        exact.insert(make_doc(f"d{i}", dim=16, seed=i))
    ann = open_store(settings.model_copy(update={"ann_threshold": 1}), path)  # same rows, the index path
    assert exact.index_is_exact("sentence") and not ann.index_is_exact("sentence")
    q = np.random.default_rng(99).normal(size=16).astype(np.float32)
    q /= np.linalg.norm(q)
    e, a = exact.search("sentence", q, 5), ann.search("sentence", q, 5)
    assert [i for i, _ in e][:3] == [i for i, _ in a][:3]
    assert e[0][1] == pytest.approx(a[0][1], abs=1e-4)
    first = exact.documents()[0]
    gone = {s for c in exact.chunks(exact.chunk_ids(first.id)) for s in c.sentence_ids}
    exact.remove(first.id)
    assert not {i for i, _ in ann.search("sentence", q, 100)} & gone  # the index follows removals
    exact.close()
    ann.close()


def test_word_search_finds_stems_and_headings(opener: tuple[Settings, Path]) -> None:
    text = "Capital expenditures rose. Revenue fell sharply. Cash was flat."
    doc = make_doc("w", text=text)
    for sent, (a, b) in zip(doc.sentences, [(0, 26), (27, 48), (49, 63)], strict=True):
        sent.start, sent.end, sent.text = a, b, text[a:b]
    doc.chunks[0].start, doc.chunks[0].end, doc.chunks[0].text = 0, 48, text[0:48]
    doc.chunks[1].start, doc.chunks[1].end, doc.chunks[1].text = 49, 63, text[49:63]
    doc.sentences[2].context = "Liquidity"  # its section's heading
    store = open_store(*opener)
    d = store.insert(doc)
    chunk_ids = store.chunk_ids(d.id)
    sentence_ids = [s.id for s in store.sentences_of_chunks(chunk_ids)]
    assert [i for i, _ in store.lexical_search("chunk", "What was the capital expenditure?", 5)] == chunk_ids[:1]
    assert [i for i, _ in store.lexical_search("sentence", "liquidity", 5)] == sentence_ids[2:]
    assert store.lexical_search("chunk", "the of and", 5) == [] == store.lexical_search("chunk", "", 5)
    assert store.lexical_search("chunk", "revenue' | !( OR NEAR(", 5)  # no word is read as an operator
    # each document's share of chunks holding a word, stemmed as searched
    other = store.insert(make_doc("w2", text="Cash rose. Cash fell. Costs rose.", seed=1))
    assert store.word_spread(["expenditure", "cash", "liquidity", "absent", "it's", '"'] ) == {
        d.id: {"expenditure": 0.5, "cash": 0.5, "liquidity": 0.5}, other.id: {"cash": 0.5}}
    store.close()


def test_embedder_is_recorded_and_another_refused(opener: tuple[Settings, Path]) -> None:
    store = open_store(*opener)
    doc = make_doc("a")
    doc.embedder = "fake/8"
    store.insert(doc)
    assert store.get_meta("embedder") == "fake/8"
    store.check_embedder("fake/8")
    with pytest.raises(StoreError, match="indexed with embedder fake/8"):
        store.check_embedder("other/8")
    wider = make_doc("b", dim=16)
    wider.embedder = None  # unnamed: the dimension alone refuses it
    with pytest.raises(StoreError, match="8-dimension"):
        store.insert(wider)
    assert len(store.documents()) == 1
    store.close()


def test_workspaces_are_isolated_and_drop_removes_one(opener: tuple[Settings, Path], tmp_path: Path) -> None:
    settings, path = opener
    one, other = open_store(settings, path), open_store(settings, tmp_path / "other")
    one.insert(make_doc("a"))
    assert other.documents() == [] and other.find_sha256("a") is None
    other.insert(make_doc("a"))  # the same file in another workspace is its own document
    other.drop()
    again = open_store(settings, tmp_path / "other")
    assert again.documents() == [] and len(one.documents()) == 1
    again.drop()
    one.close()


def test_two_openers_of_one_workspace_see_each_others_writes(opener: tuple[Settings, Path]) -> None:
    """Two processes (API replicas) on one store: what one writes, the other reads."""
    first, second = open_store(*opener), open_store(*opener)
    d = first.insert(make_doc("a"))
    assert [x.id for x in second.documents()] == [d.id]
    q = make_doc("a").chunk_vectors[0]
    assert second.search("chunk", q, 1)[0][0] == first.chunk_ids(d.id)[0]
    second.remove(d.id)
    assert first.documents() == [] and first.search("chunk", q, 1) == []
    first.close()
    second.close()


def test_writers_opening_a_new_workspace_at_once_all_open_it(opener: tuple[Settings, Path]) -> None:
    """Ray workers open the workspace together on their first file: each one opens it (none
    fails on the schema another is making), and the schema is made once."""
    if scheme(opener[0].store) == "sqlite":
        pytest.skip("a SQLite workspace is one file, made by its first opener")
    import threading

    settings, folder = opener

    def open_one(where: Path, met: threading.Barrier, opened: list[object]) -> None:
        met.wait()
        try:
            opened.append(open_store(settings, where))
        except Exception as e:  # reported by the assertion below
            opened.append(e)

    for round_ in range(4):  # the race was lost in about half the rounds before the fix
        met, opened, where = threading.Barrier(4, timeout=60), [], folder.with_name(f"new{round_}")
        threads = [threading.Thread(target=open_one, args=(where, met, opened)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not [o for o in opened if isinstance(o, Exception)], opened
        for o in opened:
            o.close()  # type: ignore[attr-defined]
        open_store(settings, where).drop()


def test_workspace_end_to_end_with_the_graph(opener: tuple[Settings, Path], tmp_path: Path) -> None:
    from gechat.pipeline import Workspace

    settings, path = opener
    f = tmp_path / "tower.txt"
    f.write_text("The Eiffel Tower is in Paris. Gustave Eiffel's company built the Eiffel Tower.\n\n"
                 "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.\n")
    ws = Workspace(path, settings.model_copy(update={"graph": "fast", "chunk_tokens": 20}))
    added = ws.add([f])[0]
    assert added.status == "added" and added.document is not None
    assert ws.store.graph.counts()["entities"] > 0
    hits = ws.retriever.retrieve("Where is the Eiffel Tower?", 2)
    assert "Paris" in hits[0].chunk.text
    assert ws.add([f])[0].status == "duplicate"
    ws.remove(added.document.id)
    assert ws.store.graph.counts()["entities"] == 0 and ws.store.problems() == []
    ws.close()


def test_store_urls_choose_the_engine() -> None:
    assert scheme("sqlite") == "sqlite" and scheme("postgres://u@h/db") == "postgresql"
    with pytest.raises(Exception, match="unknown store 'mysql'"):
        open_store(Settings.load("test", store="mysql://x"), Path("/nonexistent"))



def test_messages_never_show_the_password() -> None:
    from gechat.store.pg_conn import redact, schema_name

    assert redact("postgresql://ann:s3cret@db.local:5433/gechat") == "postgresql://ann:***@db.local:5433/gechat"
    assert redact("postgresql://ann@db.local/gechat") == "postgresql://ann@db.local/gechat"
    assert schema_name("My WS") != schema_name("my_ws") and schema_name("My WS").startswith("ws_my_ws_")
    with pytest.raises(StoreError, match=r"cannot connect to PostgreSQL at postgresql://u:\*\*\*@127.0.0.1:1/x"):
        open_store(Settings.load("test", store="postgresql://u:pw@127.0.0.1:1/x"), Path("/nonexistent"))

"""One embedder per workspace, from every path: the store (in the document's own transaction),
the library, the API and the CLI. A workspace already mixed is found on open."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.errors import StoreError
from gechat.models.embed import HashingEmbedder
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.store import consistency
from gechat.store.registry import DB_NAME
from gechat.store.sqlite import SQLiteStore
from tests.unit.api_support import QUESTION, TEXT, fake_workspace, problem, upload, wait_job
from tests.unit.test_store import counts, make_doc

OTHER = "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.\n"


class Wide(HashingEmbedder):
    """Another model: 384 dimensions, as the default embedder makes."""

    name = "wide"

    def __init__(self) -> None:
        super().__init__(dim=384)


def named(sha: str, dim: int, embedder: str | None, seed: int = 0):  # type: ignore[no-untyped-def]
    doc = make_doc(sha, dim=dim, seed=seed)
    doc.embedder = embedder
    return doc


def test_store_records_the_embedder_with_the_first_document(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    store.insert(named("a", 256, "hashing/256"))
    assert store.get_meta("embedder") == "hashing/256"
    store.insert(named("b", 256, "hashing/256", seed=1))
    with pytest.raises(StoreError, match="indexed with embedder hashing/256, not wide/384") as e:
        store.insert(named("c", 384, "wide/384", seed=2))
    assert "new workspace" in e.value.hint and "GECHAT_EMBEDDER=hashing" in e.value.hint
    store.close()
    assert counts(tmp_path / "s.sqlite")["documents"] == 2
    assert consistency.problems(tmp_path / "s.sqlite") == []


def test_store_refuses_another_dimension_even_unnamed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    store.insert(make_doc("a", dim=8))
    with pytest.raises(StoreError, match="holds 8-dimension vectors"):
        store.insert(make_doc("b", dim=16, seed=1))
    # a name given later is recorded against the same dimension only
    with pytest.raises(StoreError, match="the new ones have 16"):
        store.insert(named("c", 16, "x/16", seed=2))
    store.insert(named("d", 8, "x/8", seed=3))
    assert store.get_meta("embedder") == "x/8"
    assert [d.path for d in store.documents()] == ["/x/a.txt", "/x/d.txt"]


def test_the_record_commits_with_the_document_or_not_at_all(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    bad = named("a", 8, "x/8")
    bad.chunk_vectors = bad.chunk_vectors[:1]  # fails after the record, inside the same transaction
    with pytest.raises(StoreError, match="do not match"):
        store.insert(bad)
    assert store.get_meta("embedder") is None and store.documents() == []
    store.insert(named("b", 16, "y/16"))  # nothing held the workspace to the failed one's embedder
    assert store.get_meta("embedder") == "y/16"


def test_an_emptied_workspace_takes_another_embedder(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    doc = store.insert(named("a", 8, "x/8"))
    store.remove(doc.id)
    store.check_embedder("y/16")
    store.insert(named("b", 16, "y/16"))
    assert store.get_meta("embedder") == "y/16"


def write(tmp_path: Path, name: str, text: str) -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def test_library_refuses_another_embedder(tmp_path: Path) -> None:
    s = Settings.load("test", cache_dir=tmp_path / "cache")
    ws = Workspace(tmp_path / "ws", s)
    (res,) = ws.add([write(tmp_path, "a.txt", TEXT)])
    assert res.status == "added" and ws.store.get_meta("embedder") == "hashing/256"
    ws.close()
    other = Workspace(tmp_path / "ws", s, embedder=Wide())
    (res,) = other.add([write(tmp_path, "b.txt", OTHER)])
    assert res.status == "failed" and res.error is not None
    assert "indexed with embedder hashing/256, not wide/384" in res.error.message
    with pytest.raises(StoreError, match="indexed with embedder"):
        other.ask(QUESTION)
    assert [d.title for d in other.documents()] == ["a"]
    other.close()
    assert consistency.problems(tmp_path / "ws" / DB_NAME) == []


@pytest.mark.sqlite_file
def test_a_workspace_from_the_commit_gap_refuses_another_dimension(tmp_path: Path) -> None:
    """Documents committed, the embedder never recorded (the process was killed between the two)."""
    s = Settings.load("test", cache_dir=tmp_path / "cache")
    ws = Workspace(tmp_path / "ws", s)
    ws.add([write(tmp_path, "a.txt", TEXT)])
    ws.close()
    db = sqlite3.connect(tmp_path / "ws" / DB_NAME)
    db.execute("DELETE FROM meta WHERE key = 'embedder'")
    db.commit()
    db.close()
    assert "no embedder recorded" in " ".join(consistency.problems(tmp_path / "ws" / DB_NAME))
    other = Workspace(tmp_path / "ws", s, embedder=Wide())
    (res,) = other.add([write(tmp_path, "b.txt", OTHER)])
    assert res.status == "failed" and res.error is not None
    assert "holds 256-dimension vectors" in res.error.message and "makes 384" in res.error.message
    other.close()
    same = Workspace(tmp_path / "ws", s)  # the same model: accepted, and now recorded
    (res,) = same.add([write(tmp_path, "b.txt", OTHER)])
    assert res.status == "added" and same.store.get_meta("embedder") == "hashing/256"
    same.close()
    assert consistency.problems(tmp_path / "ws" / DB_NAME) == []


def mixed_workspace(tmp_path: Path) -> Path:
    """A workspace as the bug left them: one document's vectors 256-dimensional, one's 384."""
    s = Settings.load("test", cache_dir=tmp_path / "cache")
    ws = Workspace(tmp_path / "ws", s)
    ws.add([write(tmp_path, "a.txt", TEXT), write(tmp_path, "b.txt", OTHER)])
    ws.close()
    db = sqlite3.connect(tmp_path / "ws" / DB_NAME)
    wide = (np.ones(384) / np.sqrt(384)).astype(np.float32)
    db.execute("UPDATE vectors SET vec = ? WHERE doc_id = 2", (wide.tobytes(),))
    db.commit()
    db.close()
    return tmp_path / "ws"


@pytest.mark.sqlite_file
def test_a_mixed_workspace_is_reported_on_open_with_a_way_out(tmp_path: Path) -> None:
    path = mixed_workspace(tmp_path)
    s = Settings.load("test", cache_dir=tmp_path / "cache")
    ws = Workspace(path, s)
    problem_ = ws.store.embedder_problem()  # found on open, before anything asks
    assert problem_ is not None
    assert "mixes 256- and 384-dimension vectors" in problem_.message and "documents 2" in problem_.message
    assert "gechat rm" in problem_.hint and "new one" in problem_.hint
    with pytest.raises(StoreError, match="mixes 256- and 384"):
        ws.ask(QUESTION)
    (res,) = ws.add([write(tmp_path, "c.txt", "Rome is in Italy. It is old.\n")])
    assert res.status == "failed" and res.error is not None and "mixes" in res.error.message
    ws.remove(2)  # the way out the hint names
    assert ws.store.embedder_problem() is None
    assert ws.ask(QUESTION).text
    ws.close()


def test_api_refuses_another_embedder(tmp_path: Path) -> None:
    root = tmp_path / "root"
    hashing = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    with TestClient(create_app(root, hashing, workspace_factory=fake_workspace)) as c:
        c.post("/v1/workspaces", json={"id": "a"})
        assert wait_job(c, upload(c, "a", ("a.txt", TEXT.encode())))["state"] == "done"
    # the same folder served with the default embedder (384 dimensions): refused before it loads
    minilm = hashing.model_copy(update={"embedder": "minilm-int8"})
    with TestClient(create_app(root, minilm, workspace_factory=fake_workspace),
                    raise_server_exceptions=False) as c:
        job = wait_job(c, upload(c, "a", ("b.txt", OTHER.encode())))
        (f,) = job["files"]
        assert f["status"] == "failed" and "indexed with embedder hashing/256" in f["error"]["message"]
        assert "new workspace" in f["error"]["hint"]
        body = problem(c.post("/v1/workspaces/a/ask", json={"question": QUESTION}), 409)
        assert "hashing/256" in body["detail"]
        assert len(c.get("/v1/workspaces/a/documents").json()["documents"]) == 1


def run_cli(*args: str, embedder: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GECHAT_LLM_BACKEND": "fake", "GECHAT_EMBEDDER": embedder,
           "GECHAT_ENTAILMENT": "fake", "GECHAT_LLM_CACHE": "false", "GECHAT_GRAPH": "none"}
    return subprocess.run([sys.executable, "-m", "gechat.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.sqlite_file
def test_cli_add_with_another_embedder_is_refused(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    p = run_cli("add", str(write(tmp_path, "a.txt", TEXT)), "-w", ws, embedder="hashing")
    assert p.returncode == 0, p.stderr
    p = run_cli("add", str(write(tmp_path, "b.txt", OTHER)), "-w", ws, embedder="minilm-int8")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "indexed with embedder hashing/256, not minilm-int8/384" in p.stderr
    assert "hint:" in p.stderr and "new workspace" in p.stderr
    store = SQLiteStore(tmp_path / "ws" / DB_NAME)
    assert len(store.documents()) == 1 and store.embedder_problem() is None
    store.close()


def test_the_consistency_check_finds_what_a_crash_could_leave(tmp_path: Path) -> None:
    """What the kill-point tests rely on: the checker must see each kind of damage."""
    path = tmp_path / "s.sqlite"
    store = SQLiteStore(path)
    store.insert(named("a", 8, "x/8"))
    store.close()
    assert consistency.problems(path) == []
    db = sqlite3.connect(path)
    db.execute("DELETE FROM vectors WHERE kind = 'sentence' AND item_id = (SELECT min(id) FROM sentences)")
    db.execute("DELETE FROM meta WHERE key = 'embedder'")
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("INSERT INTO chunks(doc_id, ord, page, start, \"end\", text, n_tokens) VALUES (99, 0, 1, 0, 1, 'x', 1)")
    db.commit()
    db.close()
    found = " | ".join(consistency.problems(path))
    for what in ("1 sentences without a vector", "no embedder recorded", "point at rows that are gone",
                 "chunks without a vector", "chunks not in the word index"):
        assert what in found, found
    assert consistency.problems(tmp_path / "none.sqlite") == [] and not (tmp_path / "none.sqlite").exists()

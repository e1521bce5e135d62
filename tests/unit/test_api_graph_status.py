"""A document's graph status in listings, a re-upload of a document whose graph is partial,
and the job that finishes it (through the endpoint, and when a killed job resumes)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from gechat.api.job_store import StoredJob, open_jobs
from gechat.api.models import FileProgress, JobOut
from gechat.api.uploads import SavedFile
from gechat.settings import Settings
from gechat.store.registry import open_store
from tests.unit.api_support import TEXT, add_text, make_client, problem, upload, wait_job


def _client(tmp_path: Path, graph: str = "fast") -> TestClient:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20, graph=graph)
    return make_client(tmp_path, settings=settings)


def _docs(c: TestClient) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = c.get("/v1/workspaces/a/documents").json()["documents"]
    return docs


def _cut_graph(tmp_path: Path) -> None:
    """What a kill during the graph stage leaves: the last chunks' units were never written
    (each unit is written with its mentions and its done record in one transaction)."""
    store = open_store(Settings.load("test"), tmp_path / "root" / "a")  # either engine
    with store.transaction() as db:
        ids = [r[0] for r in db.execute("SELECT chunk_id FROM graph_chunks ORDER BY chunk_id").fetchall()]
        cut = ids[len(ids) // 2:]
        for table in ("graph_chunks", "entity_mentions", "relation_mentions"):
            db.executemany(f"DELETE FROM {table} WHERE chunk_id=?", [(i,) for i in cut])
    store.close()


def test_partial_graph_is_listed_named_on_reupload_and_finished(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        add_text(c, "a")
        (doc,) = _docs(c)
        assert doc["graph"]["status"] == "complete" and doc["graph"]["chunks_total"] > 1, doc
        _cut_graph(tmp_path)
        (doc,) = _docs(c)
        g = doc["graph"]
        assert g["status"] == "partial" and 0 < g["chunks_done"] < g["chunks_total"], g
        assert c.get(f"/v1/workspaces/a/documents/{doc['id']}").json()["graph"]["status"] == "partial"

        again = wait_job(c, upload(c, "a", ("tower.txt", TEXT.encode())))
        (f,) = again["files"]
        url = f"/v1/workspaces/a/documents/{doc['id']}/graph"
        assert f["status"] == "duplicate" and "partial" in f["graph_error"]["message"], f
        assert url in f["graph_error"]["hint"]

        r = c.post(url)
        assert r.status_code == 202 and r.headers["location"] == r.json()["status_url"]
        job = wait_job(c, r)
        assert job["state"] == "done" and job["kind"] == "graph", job
        assert job["files"][0]["document"]["graph"]["status"] == "complete"
        assert _docs(c)[0]["graph"]["status"] == "complete"
        problem(c.post("/v1/workspaces/a/documents/999/graph"), 404)


def test_a_job_killed_in_the_graph_stage_finishes_it_when_resumed(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        add_text(c, "a")
    _cut_graph(tmp_path)
    path = (tmp_path / "root" / "a" / "uploads" / "tower.txt").resolve()
    out = JobOut(id="e" * 32, workspace="a", state="running", created_at="2026-01-01T00:00:00+00:00",
                 files=[FileProgress(name="tower.txt", step="graph")])
    db = open_jobs(Settings.load("test", cache_dir=tmp_path / "cache"), tmp_path / "root")
    db.save(StoredJob(out, [SavedFile("tower.txt", path, True)], None, 99))
    db.close()
    with _client(tmp_path) as c:
        deadline = time.monotonic() + 60
        while (job := c.get(f"/v1/jobs/{out.id}").json())["state"] not in ("done", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert job["state"] == "done" and job["resumed"] == 1 and job["files"][0]["status"] == "added", job
        (doc,) = _docs(c)
        assert doc["graph"]["status"] == "complete", doc
    assert path.is_file()


def test_graphs_off(tmp_path: Path) -> None:
    with _client(tmp_path, graph="none") as c:
        add_text(c, "a")
        (doc,) = _docs(c)
        assert doc["graph"] == {"status": "none", "extractor": None, "chunks_done": 0, "chunks_total": 0}
        assert "graph = none" in problem(c.post(f"/v1/workspaces/a/documents/{doc['id']}/graph"), 409)["detail"]

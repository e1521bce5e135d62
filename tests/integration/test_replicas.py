"""Two real API servers (uvicorn processes on 127.0.0.1, fake LLM) on one PostgreSQL store and
one shared root: what one is told, the other sees; each job runs on exactly one of them; a
cancel or a delete sent to one reaches the other; a server killed mid-job leaves the job to
the other, which resumes it once the claim lapses."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from benchmarks.reliability_jobs import SMALL, Server, big_text, free_port, wait_job

pytestmark = pytest.mark.slow
DONE = ("done", "failed", "cancelled")


@pytest.fixture
def servers(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    namespace = "r" + uuid.uuid4().hex[:8]
    env = {"GECHAT_STORE": postgres_url, "GECHAT_STORE_NAMESPACE": namespace, "GECHAT_JOB_LEASE_S": "3"}
    pair = (Server(tmp_path / "root", free_port(), env), Server(tmp_path / "root", free_port(), env))
    for s in pair:
        s.start()
    yield pair
    for s in pair:
        s.stop()
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as db:
        for (schema,) in db.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                    (f"ws_{namespace}_%",)).fetchall():
            db.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _upload(server: Server, ws: str, *files: tuple[str, bytes]) -> str:
    r = httpx.post(f"{server.url}/v1/workspaces/{ws}/documents", timeout=60,
                   files=[("files", (n, data)) for n, data in files])
    assert r.status_code == 202, r.text
    return str(r.json()["job_id"])


def _docs(server: Server, ws: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{server.url}/v1/workspaces/{ws}/documents", timeout=10)
    assert r.status_code == 200, r.text
    docs: list[dict[str, Any]] = r.json()["documents"]
    return docs


def test_two_servers_share_workspaces_jobs_and_deletes(servers: tuple[Server, Server]) -> None:
    a, b = servers
    assert httpx.post(a.url + "/v1/workspaces", json={"id": "team"}, timeout=10).status_code == 201
    assert "team" in httpx.get(b.url + "/v1/workspaces", timeout=10).json()["workspaces"]
    assert httpx.post(b.url + "/v1/workspaces", json={"id": "team"}, timeout=10).status_code == 409

    first = _upload(a, "team", ("tower.txt", SMALL))
    job = wait_job(b.url, first, DONE, 60)  # followed through the other server
    assert job["state"] == "done" and job["files"][0]["status"] == "added", job
    assert [d["file_name"] for d in _docs(b, "team")] == ["tower.txt"]
    r = httpx.post(b.url + "/v1/workspaces/team/ask", json={"question": "When was the Eiffel Tower completed?"},
                   timeout=60)
    assert r.status_code == 200, r.text
    assert any("1889" in c["chunk"]["text"] for c in r.json()["contexts"])  # b reads what a added

    # many jobs through both: each runs once (a job run twice would find its file a duplicate)
    ids = [_upload((a, b)[k % 2], "team", (f"note{k}.txt", f"Note {k}: the value is {k * 7}.\n".encode()))
           for k in range(8)]
    jobs = [wait_job((b, a)[k % 2].url, i, DONE, 120) for k, i in enumerate(ids)]
    assert [(j["state"], j["files"][0]["status"]) for j in jobs] == [("done", "added")] * 8, jobs
    assert len(_docs(a, "team")) == 9
    listed = httpx.get(a.url + "/v1/workspaces/team/jobs", timeout=10).json()["jobs"]
    assert {j["id"] for j in listed} == {first, *ids}
    note0 = next(d for d in _docs(b, "team") if d["file_name"] == "note0.txt")
    assert httpx.delete(f"{a.url}/v1/workspaces/team/documents/{note0['id']}", timeout=60).status_code == 200
    assert "note0.txt" not in [d["file_name"] for d in _docs(b, "team")]  # removed through a, gone at b

    # a cancel sent to one server stops the job the other runs
    big = _upload(a, "team", ("big.txt", big_text(4, "cancel")), ("after.txt", b"After the big one.\n"))
    wait_job(b.url, big, ("running",), 60)
    cancelled = httpx.delete(f"{b.url}/v1/jobs/{big}", timeout=60).json()
    assert cancelled["state"] == "cancelled", cancelled
    assert cancelled["files"][1]["status"] == "cancelled"

    # a delete through one is seen by the other at once
    assert httpx.delete(b.url + "/v1/workspaces/team", timeout=60).status_code == 200
    assert "team" not in httpx.get(a.url + "/v1/workspaces", timeout=10).json()["workspaces"]
    assert httpx.get(a.url + "/v1/workspaces/team/documents", timeout=10).status_code == 404
    assert httpx.get(f"{a.url}/v1/jobs/{first}", timeout=10).status_code == 404


def test_a_job_left_by_a_killed_server_is_resumed_by_the_other(servers: tuple[Server, Server]) -> None:
    a, b = servers
    httpx.post(a.url + "/v1/workspaces", json={"id": "w"}, timeout=10)
    b.stop()  # so that a is the one to claim the job
    job_id = _upload(a, "w", ("big.txt", big_text(3, "kill")), ("small.txt", SMALL))
    wait_job(a.url, job_id, ("running",), 60)
    time.sleep(0.3)
    a.kill()
    b.start()  # another server: it takes the job over once a's claim (3 s) lapses
    # the whole 3 MB file again on b: minutes when other work shares the 2 cores
    job = wait_job(b.url, job_id, DONE, 300)
    assert job["state"] == "done" and job["resumed"] == 1, job
    assert {f["status"] for f in job["files"]} <= {"added", "duplicate"}, job
    assert sorted(d["file_name"] for d in _docs(b, "w")) == ["big.txt", "small.txt"]

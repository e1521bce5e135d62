"""Deleting a workspace while others use it: only 200, 404 and 409 answers, and once a delete
has answered 200 the workspace never comes back (not in the listing, not on disk)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.api.problems import ApiError
from gechat.api.state import ServerState
from gechat.models.llm.base import Message
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.unit.api_support import QUESTION, TEXT, add_text, problem, reply, upload, wait_job

ASK_S = 0.02  # each answer takes this long: asks pile up behind the one model


def slow_reply(messages: list[Message]) -> str:
    time.sleep(ASK_S)
    return reply(messages)


def slow_workspace(path: Path, settings: Settings) -> Workspace:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    return Workspace(path, settings, llm=CachedLLM(FakeLLM(slow_reply), None, Usage()))


def slow_client(tmp_path: Path) -> TestClient:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    app = create_app(tmp_path / "root", settings, workspace_factory=slow_workspace)
    return TestClient(app, raise_server_exceptions=False)


def state_of(c: TestClient) -> ServerState:
    state: ServerState = c.app.state.gechat  # type: ignore[attr-defined]
    return state


def test_delete_while_many_ask_answers_only_200_404_409(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with slow_client(tmp_path) as c:
        add_text(c, "a")
        add_text(c, "keep")
        statuses: Counter[int] = Counter()
        seen_after_delete: list[str] = []
        deleted = threading.Event()
        deleted_at = [float("inf")]
        stop = threading.Event()
        lock = threading.Lock()

        def asker(i: int) -> None:
            while not stop.is_set():
                started = time.monotonic()
                if i % 4 == 0:
                    r = c.post("/v1/workspaces/a/ask?stream=true", json={"question": QUESTION})
                    if r.status_code == 200:  # a stream that started must end with its answer
                        assert "event: answer" in r.text, r.text[-300:]
                elif i % 4 == 1:
                    r = c.get("/v1/workspaces/a/documents")
                elif i % 4 == 2:
                    r = upload(c, "a", (f"n{i}-{time.monotonic_ns()}.txt", b"Paris is in France. It is big."))
                else:
                    r = c.post("/v1/workspaces/a/ask", json={"question": QUESTION})
                with lock:
                    statuses[r.status_code] += 1
                if started > deleted_at[0] and r.status_code != 404:  # asked after the delete answered
                    seen_after_delete.append(f"{r.request.method} {r.request.url.path} {r.status_code}")

        def watcher() -> None:  # the disk and the listing, polled while the others ask
            while not stop.is_set():
                if deleted.is_set():
                    if (root / "a").exists():
                        seen_after_delete.append("folder on disk")
                    if "a" in c.get("/v1/workspaces").json()["workspaces"]:
                        seen_after_delete.append("in the listing")
                time.sleep(0.005)

        threads = [threading.Thread(target=asker, args=(i,)) for i in range(12)] + [threading.Thread(target=watcher)]
        for t in threads:
            t.start()
        time.sleep(0.4)
        r = c.delete("/v1/workspaces/a")
        while r.status_code == 409:  # busy: refused, nothing deleted; retry as the hint says
            assert problem(r, 409)["hint"]
            assert (root / "a").exists()
            r = c.delete("/v1/workspaces/a")
        assert r.status_code == 200, r.text
        deleted_at[0] = time.monotonic()
        deleted.set()
        time.sleep(0.4)
        stop.set()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads)
        assert not seen_after_delete, seen_after_delete
        assert set(statuses) <= {200, 202, 404, 409}, statuses
        assert statuses[404] > 0 and statuses[200] > 0, statuses
        assert not (root / "a").exists()
        assert [p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")] == ["keep"]
        assert c.get("/v1/workspaces").json()["workspaces"] == ["keep"]
        problem(c.post("/v1/workspaces/a/ask", json={"question": QUESTION}), 404)
        problem(c.get("/v1/workspaces/a/documents"), 404)
        # the other workspace never noticed
        assert c.post("/v1/workspaces/keep/ask", json={"question": QUESTION}).status_code == 200
        # the id can be used again: a new, empty workspace
        assert c.post("/v1/workspaces", json={"id": "a"}).status_code == 201
        assert c.get("/v1/workspaces/a/documents").json()["documents"] == []


def test_a_request_in_flight_holds_the_delete_and_new_ones_get_409(tmp_path: Path) -> None:
    with slow_client(tmp_path) as c:
        add_text(c, "a")
        registry = state_of(c).workspaces
        h = registry.get("a")
        done: list[int] = []
        with h.using():
            t = threading.Thread(target=lambda: done.append(c.delete("/v1/workspaces/a").status_code))
            t.start()
            time.sleep(0.3)
            assert t.is_alive() and not done  # waits for the request in flight
            body = problem(c.get("/v1/workspaces/a/documents"), 409)
            assert "being deleted" in body["detail"] and body["hint"]
            assert (tmp_path / "root" / "a").is_dir()
            h.workspace().documents()  # the request in flight still reads its workspace
        t.join(10)
        assert done == [200]
        assert not (tmp_path / "root" / "a").exists()
        # the handle an old request kept cannot reopen the database nor make the folder again
        with pytest.raises(ApiError) as e:
            h.workspace()
        assert e.value.status == 404
        with pytest.raises(ApiError):
            h.using().__enter__()
        assert not (tmp_path / "root" / "a").exists()
        problem(c.delete("/v1/workspaces/a"), 404)


def test_delete_refuses_with_409_when_requests_do_not_finish(tmp_path: Path) -> None:
    with slow_client(tmp_path) as c:
        add_text(c, "a")
        registry = state_of(c).workspaces
        registry.wait_s = 0.2
        h = registry.get("a")
        with h.using():
            body = problem(c.delete("/v1/workspaces/a"), 409)
            assert "busy" in body["detail"] and "nothing was deleted" in body["hint"]
        # refused, so untouched: it answers as before
        assert c.get("/v1/workspaces").json()["workspaces"] == ["a"]
        assert c.post("/v1/workspaces/a/ask", json={"question": QUESTION}).status_code == 200
        assert c.delete("/v1/workspaces/a").status_code == 200


def test_a_request_waiting_to_write_does_not_hold_the_delete(tmp_path: Path) -> None:
    """Removing a document waits for the write lock; the workspace's delete holds it while it
    drains the requests in flight: the waiting one must not count, or both wait out their timeouts."""
    with slow_client(tmp_path) as c:
        add_text(c, "a")
        doc_id = c.get("/v1/workspaces/a/documents").json()["documents"][0]["id"]
        h = state_of(c).workspaces.get("a")
        codes: dict[str, int] = {}
        h.write_lock.acquire()  # as a running ingestion job does
        remove = threading.Thread(target=lambda: codes.update(
            doc=c.delete(f"/v1/workspaces/a/documents/{doc_id}").status_code))
        remove.start()
        time.sleep(0.2)
        drop = threading.Thread(target=lambda: codes.update(ws=c.delete("/v1/workspaces/a").status_code))
        drop.start()
        time.sleep(0.2)
        t0 = time.monotonic()
        h.write_lock.release()
        remove.join(10)
        drop.join(10)
        assert time.monotonic() - t0 < 5
        assert codes["ws"] == 200 and codes["doc"] in (200, 404), codes
        assert not (tmp_path / "root" / "a").exists()


def test_delete_waits_for_the_running_job(tmp_path: Path) -> None:
    with slow_client(tmp_path) as c:
        c.post("/v1/workspaces", json={"id": "a"})
        r = upload(c, "a", *[(f"t{i}.txt", TEXT.replace("1889", str(1800 + i)).encode()) for i in range(5)])
        assert c.delete("/v1/workspaces/a").status_code == 200
        # the job finished before the delete, found the workspace gone, or went with it: never half of each
        status = c.get(r.json()["status_url"])
        if status.status_code != 404:
            assert wait_job(c, r)["state"] in ("done", "failed")
        time.sleep(0.3)  # what the job would still do, it has done by now
        assert not (tmp_path / "root" / "a").exists()
        assert c.get("/v1/workspaces").json()["workspaces"] == []


def test_concurrent_deletes_one_200_the_rest_404(tmp_path: Path) -> None:
    with slow_client(tmp_path) as c:
        add_text(c, "a")
        codes: list[int] = []
        threads = [threading.Thread(target=lambda: codes.append(c.delete("/v1/workspaces/a").status_code))
                   for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(codes) == [200, 404, 404, 404, 404, 404]
        assert not (tmp_path / "root" / "a").exists()


def test_left_over_trash_is_removed_on_start(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".deleted-a-12345678" / "uploads").mkdir(parents=True)
    settings = Settings.load("test", cache_dir=tmp_path / "cache")
    with TestClient(create_app(root, settings, workspace_factory=slow_workspace)) as c:
        assert c.get("/v1/workspaces").json()["workspaces"] == []
    assert not [p for p in root.iterdir() if p.name.startswith(".deleted-")]

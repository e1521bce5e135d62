"""Access control of the REST API: the Host and Origin checks, API keys with per-workspace
grants. Real TestClient and a real `gechat serve`; fake workspaces (the model is not the point).

``count_cross_workspace_reads(tmp_path)`` is also what a benchmark calls: every read route of
one workspace tried with a read key of another; the answer must be 0.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.api.access import Need, need_for, serve_hosts
from gechat.api.keys import KeyStore
from gechat.errors import ConfigError
from gechat.settings import Settings
from tests.conftest import free_port
from tests.unit.api_support import QUESTION, TEXT, Resp, fake_workspace, make_client, problem

EVIL = {"Origin": "http://evil.example"}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post_text(c: TestClient, ws: str, headers: dict[str, str], name: str = "tower.txt") -> Resp:
    return c.post(f"/v1/workspaces/{ws}/documents", files=[("files", (name, TEXT.encode()))], headers=headers)


def wait(c: TestClient, r: Resp, headers: dict[str, str]) -> dict[str, Any]:
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job: dict[str, Any] = c.get(r.json()["status_url"], headers=headers).json()
        if job["state"] in ("done", "failed"):
            assert job["state"] == "done", job
            return job
        time.sleep(0.02)
    raise AssertionError("the job did not finish")


# --- the Origin check: always on ---

def test_cross_origin_writes_are_refused_same_origin_accepted(client: TestClient) -> None:
    body = problem(client.post("/v1/workspaces", json={"id": "a"}, headers=EVIL), 403)
    assert "cors_origins" in body["detail"] and "evil.example" in body["detail"]
    assert client.get("/v1/workspaces").json() == {"workspaces": []}
    r = client.post("/v1/workspaces", json={"id": "a"}, headers={"Origin": "http://testserver"})
    assert r.status_code == 201, r.text
    problem(post_text(client, "a", EVIL), 403)
    assert client.get("/v1/workspaces/a/documents").json() == {"documents": []}
    problem(client.post("/v1/workspaces/a/ask", json={"question": QUESTION}, headers=EVIL), 403)
    problem(client.delete("/v1/workspaces/a", headers=EVIL), 403)
    for other in ("null", "http://testserver:8080", "https://testserver", "http://testserver.evil.example"):
        problem(client.post("/v1/workspaces", json={"id": "b"}, headers={"Origin": other}), 403)
    assert client.get("/v1/workspaces", headers=EVIL).json() == {"workspaces": ["a"]}  # reads are not refused
    assert "access-control-allow-origin" not in client.get("/v1/workspaces", headers=EVIL).headers  # no CORS
    wait(client, post_text(client, "a", {"Origin": "http://testserver"}), {})  # the page's own upload
    assert client.delete("/v1/workspaces/a").status_code == 200  # no Origin (curl): not a browser


def test_cors_origins_are_let_in_with_cors_headers(tmp_path: Path) -> None:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", cors_origins=["https://app.example.com/"])
    app_origin = {"Origin": "https://app.example.com"}
    with make_client(tmp_path, settings=settings) as c:
        pre = c.options("/v1/workspaces", headers={**app_origin, "Access-Control-Request-Method": "POST"})
        assert pre.status_code == 200 and pre.headers["access-control-allow-origin"] == "https://app.example.com"
        r = c.post("/v1/workspaces", json={"id": "a"}, headers=app_origin)
        assert r.status_code == 201 and r.headers["access-control-allow-origin"] == "https://app.example.com"
        problem(c.post("/v1/workspaces", json={"id": "b"}, headers=EVIL), 403)
        assert "access-control-allow-origin" not in c.get("/v1/workspaces", headers=EVIL).headers
    bad = Settings.load("test", cache_dir=tmp_path / "cache", cors_origins=["app.example.com"])
    with pytest.raises(ConfigError, match="cors_origins"):
        create_app(tmp_path / "root2", bad)


# --- the Host check: as `gechat serve` builds the app, while no key is in force ---

def serve_built(tmp_path: Path, **kw: Any) -> TestClient:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", allowed_hosts=["gechat.lan", "*.corp.example"])
    app = create_app(tmp_path / "root", settings, workspace_factory=fake_workspace,
                     allowed_hosts=serve_hosts("127.0.0.1", settings.allowed_hosts), **kw)
    return TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)


def test_serve_built_app_refuses_a_foreign_host(tmp_path: Path) -> None:
    with serve_built(tmp_path) as c:
        assert c.get("/v1/workspaces").status_code == 200
        same_origin = {"Origin": "http://127.0.0.1:8765"}
        assert c.post("/v1/workspaces", json={"id": "a"}, headers=same_origin).status_code == 201
        for bad in ("attacker.example", "attacker.example:8765", "127.0.0.1.attacker.example", "gechat.lan.evil",
                    "corp.example", "[::1"):
            body = problem(c.get("/v1/workspaces", headers={"Host": bad}), 403)
            assert "allowed_hosts" in body["detail"], bad
        problem(c.get("/", headers={"Host": "attacker.example"}), 403)
        problem(c.get("/v1/workspaces/a/documents", headers={"Host": "attacker.example"}), 403)
        for good in ("localhost:9999", "[::1]:8765", "127.0.0.1", "LOCALHOST", "gechat.lan:80", "x.corp.example"):
            assert c.get("/v1/workspaces", headers={"Host": good}).status_code == 200, good
        _, token = KeyStore(tmp_path / "root").add({"*": "read"})
        # with a key in force the key is the guard: a server on another address answers any name
        r = c.get("/v1/workspaces", headers={"Host": "attacker.example", **auth(token)})
        assert r.json() == {"workspaces": ["a"]}
        problem(c.get("/v1/workspaces", headers={"Host": "attacker.example"}), 401)
    with make_client(tmp_path / "lib") as c:  # create_app as a library: no Host check
        assert c.get("/v1/workspaces", headers={"Host": "attacker.example"}).status_code == 200


def test_gechat_serve_checks_host_and_origin(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "GECHAT_API_KEY"}
    server = subprocess.Popen([sys.executable, "-m", "gechat.cli", "serve", "--root", str(tmp_path / "srv"),
                               "--preset", "test", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/v1/health", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
                time.sleep(0.1)
        rebound = httpx.get(f"{base}/v1/workspaces", headers={"Host": f"attacker.example:{port}"})
        assert rebound.status_code == 403 and "allowed_hosts" in rebound.json()["detail"]
        assert httpx.get(f"{base}/v1/workspaces").json() == {"workspaces": []}
        evil = httpx.post(f"{base}/v1/workspaces", json={"id": "a"}, headers=EVIL)
        assert evil.status_code == 403 and evil.headers["content-type"].startswith("application/problem+json")
        same = httpx.post(f"{base}/v1/workspaces", json={"id": "a"}, headers={"Origin": base})
        assert same.status_code == 201
        assert httpx.get(f"{base}/v1/workspaces").json() == {"workspaces": ["a"]}
    finally:
        server.terminate()
        server.wait(10)


# --- keys and grants ---

@dataclass
class Seed:
    ws: str
    doc_id: int
    job_id: str


@contextmanager
def seeded(tmp_path: Path) -> Iterator[tuple[TestClient, KeyStore, dict[str, Seed]]]:
    """Workspaces a and b, one document each, made with an admin key on every workspace."""
    store = KeyStore(tmp_path / "root")
    setup, admin = store.add({"*": "admin"}, label="setup")
    with make_client(tmp_path) as c:
        seeds = {}
        for ws in ("a", "b"):
            assert c.post("/v1/workspaces", json={"id": ws}, headers=auth(admin)).status_code == 201
            job = wait(c, post_text(c, ws, auth(admin)), auth(admin))
            seeds[ws] = Seed(ws, job["files"][0]["document"]["id"], job["id"])
        store.remove(setup.id)
        yield c, store, seeds


def read_probes(s: Seed) -> list[tuple[str, str, dict[str, Any] | None]]:
    docs = f"/v1/workspaces/{s.ws}/documents"
    ask = {"question": QUESTION}
    return [("GET", docs, None), ("GET", f"{docs}/{s.doc_id}", None), ("GET", f"{docs}/{s.doc_id}/text", None),
            ("GET", f"{docs}/{s.doc_id}/pages", None), ("POST", f"/v1/workspaces/{s.ws}/ask", ask),
            ("POST", f"/v1/workspaces/{s.ws}/ask/prepare", ask), ("GET", f"/v1/jobs/{s.job_id}", None),
            ("GET", f"/v1/jobs/{s.job_id}/events", None)]


def reads(c: TestClient, token: str, s: Seed) -> int:
    """How many reads of the seeded workspace the key got an answer to (listing it counts as one)."""
    got = sum(c.request(m, url, json=body, headers=auth(token)).is_success for m, url, body in read_probes(s))
    return got + (s.ws in c.get("/v1/workspaces", headers=auth(token)).json()["workspaces"])


def count_cross_workspace_reads(tmp_path: Path) -> int:
    """Every read of workspace b with a read key of a, and of a with a read key of b: how
    many were answered (0 when the grants hold)."""
    with seeded(tmp_path) as (c, store, seeds):
        _, key_a = store.add({"a": "read"})
        _, key_b = store.add({"b": "read"})
        return reads(c, key_a, seeds["b"]) + reads(c, key_b, seeds["a"])


def test_no_cross_workspace_reads(tmp_path: Path) -> None:
    assert count_cross_workspace_reads(tmp_path) == 0


def test_a_read_key_reads_and_asks_in_its_workspace_only(tmp_path: Path) -> None:
    with seeded(tmp_path) as (c, store, seeds):
        read_a, key = store.add({"a": "read"})
        assert reads(c, key, seeds["a"]) == len(read_probes(seeds["a"])) + 1  # the probes can succeed
        assert c.get("/v1/workspaces", headers=auth(key)).json() == {"workspaces": ["a"]}
        body = problem(c.get("/v1/workspaces/b/documents", headers=auth(key)), 403)
        assert body["detail"] == "this key has no read access to workspace 'b'"
        # a workspace that does not exist answers the same: names cannot be probed
        assert problem(c.get("/v1/workspaces/zz/documents", headers=auth(key)), 403)["detail"].endswith("'zz'")
        assert "no job" in problem(c.get(f"/v1/jobs/{seeds['b'].job_id}", headers=auth(key)), 404)["detail"]
        # nor can it change its own workspace
        assert "write" in problem(post_text(c, "a", auth(key)), 403)["detail"]
        problem(c.delete(f"/v1/workspaces/a/documents/{seeds['a'].doc_id}", headers=auth(key)), 403)
        problem(c.delete("/v1/workspaces/a", headers=auth(key)), 403)
        problem(c.post("/v1/workspaces", json={"id": "c"}, headers=auth(key)), 403)
        assert c.get("/v1/workspaces/a/documents", headers=auth(key)).json()["documents"]
        # no key, a wrong key, a removed key: 401 (while another key keeps keys in force)
        store.add({"b": "read"})
        for headers in ({}, auth("gck_wrong"), {"X-API-Key": ""}):
            r = c.get("/v1/workspaces/a/documents", headers=headers)
            assert problem(r, 401) and r.headers["www-authenticate"] == "Bearer"
        store.remove(read_a.id)
        problem(c.get("/v1/workspaces/a/documents", headers=auth(key)), 401)
        assert c.get("/v1/health").status_code == 200 and c.get("/").status_code == 200  # open paths


def test_write_and_admin_roles(tmp_path: Path) -> None:
    with seeded(tmp_path) as (c, store, seeds):
        _, writer = store.add({"a": "write"})
        _, admin_a = store.add({"a": "admin", "b": "read"})
        _, admin_all = store.add({"*": "admin"})
        job = wait(c, post_text(c, "a", auth(writer), "second.txt"), auth(writer))
        assert job["files"][0]["status"] in ("added", "duplicate")
        problem(post_text(c, "b", auth(writer)), 403)
        doc = seeds["a"].doc_id
        assert c.delete(f"/v1/workspaces/a/documents/{doc}", headers=auth(writer)).status_code == 200
        assert "admin" in problem(c.delete("/v1/workspaces/a", headers=auth(writer)), 403)["detail"]
        problem(c.delete("/v1/workspaces/b", headers=auth(admin_a)), 403)  # read on b only
        problem(c.post("/v1/workspaces", json={"id": "c"}, headers=auth(admin_a)), 403)  # creating needs "*"
        assert c.get("/v1/workspaces", headers=auth(admin_a)).json() == {"workspaces": ["a", "b"]}
        assert c.delete("/v1/workspaces/a", headers=auth(admin_a)).status_code == 200
        assert c.post("/v1/workspaces", json={"id": "c"}, headers=auth(admin_all)).status_code == 201
        assert c.get("/v1/workspaces", headers={"X-API-Key": admin_all}).json() == {"workspaces": ["b", "c"]}


def test_legacy_key_is_admin_everywhere_beside_the_file_keys(tmp_path: Path) -> None:
    _, reader = KeyStore(tmp_path / "root").add({"a": "read"})
    with make_client(tmp_path, api_key="s3cret") as c:
        assert c.post("/v1/workspaces", json={"id": "a"}, headers=auth("s3cret")).status_code == 201
        assert c.post("/v1/workspaces", json={"id": "b"}, headers={"X-API-Key": "s3cret"}).status_code == 201
        assert c.get("/v1/workspaces", headers=auth("s3cret")).json() == {"workspaces": ["a", "b"]}
        assert c.get("/v1/workspaces", headers=auth(reader)).json() == {"workspaces": ["a"]}
        problem(c.post("/v1/workspaces", json={"id": "c"}, headers=auth(reader)), 403)
        assert c.delete("/v1/workspaces/b", headers=auth("s3cret")).status_code == 200


def test_keys_file_holds_hashes_only_mode_0600(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "root")
    key, token = store.add({"a": "read", "*": "write"}, label="ops")
    _, token2 = store.add({"b": "admin"})
    text = store.path.read_text()
    assert token not in text and token2 not in text and token[4:20] not in text
    assert key.hash in text and key.id in text and "ops" in text
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [p.name for p in store.path.parent.iterdir()] == ["keys.json"]  # no temp file left
    assert store.find(token) == key and store.find(token + "x") is None
    assert KeyStore(store.root).find(token2) is not None  # another reader (the server) finds it


def test_a_broken_keys_file_fails_closed(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "root")
    _, token = store.add({"*": "admin"})
    with make_client(tmp_path) as c:
        assert c.get("/v1/workspaces", headers=auth(token)).status_code == 200
        store.path.write_text("{not json")
        body = problem(c.get("/v1/workspaces", headers=auth(token)), 503)
        assert "keys.json" in body["detail"]
        problem(c.get("/v1/workspaces"), 503)
    with pytest.raises(ConfigError, match="not valid"):
        make_client(tmp_path)


@pytest.mark.parametrize(("method", "path", "need"), [
    ("GET", "/v1/workspaces", Need()),
    ("POST", "/v1/workspaces", Need("admin", "*")),
    ("POST", "/v1/workspaces/", Need("admin", "*")),
    ("DELETE", "/v1/workspaces/a", Need("admin", "a")),
    ("GET", "/v1/workspaces/a/documents/3/pages/1.png", Need("read", "a")),
    ("POST", "/v1/workspaces/a/ask", Need("read", "a")),
    ("POST", "/v1/workspaces/a/ask/prepare", Need("read", "a")),
    ("POST", "/v1/workspaces/a/documents", Need("write", "a")),
    ("DELETE", "/v1/workspaces/a/documents/3", Need("write", "a")),
    ("PUT", "/v1/workspaces/a/settings", Need("write", "a")),
    ("GET", "/v1/jobs/abc/events", Need("read", job="abc")),
    ("DELETE", "/v1/jobs/abc", Need("write", job="abc")),
    ("GET", "/v1/somewhere", Need()),
])
def test_need_for(method: str, path: str, need: Need) -> None:
    assert need_for(method, path) == need


def test_serve_hosts() -> None:
    assert serve_hosts("127.0.0.1", ["Gechat.LAN"]) == ["127.0.0.1", "localhost", "[::1]", "gechat.lan"]

"""The REST API with the deterministic fakes (test preset, scripted LLM): no real models."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.api.uploads import safe_name
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.conftest import N18, free_port
from tests.unit.api_support import (
    QUESTION,
    TEXT,
    add_text,
    fake_app,
    make_client,
    problem,
    sse_events,
    upload,
    wait_job,
)


def test_health_and_workspaces(client: TestClient, tmp_path: Path) -> None:
    assert client.get("/v1/health").json()["status"] == "ok"
    assert client.get("/v1/workspaces").json() == {"workspaces": []}
    r = client.post("/v1/workspaces", json={"id": "team_1"})
    assert r.status_code == 201 and r.json() == {"id": "team_1"}
    client.post("/v1/workspaces", json={"id": "b-2"})
    assert client.get("/v1/workspaces").json() == {"workspaces": ["b-2", "team_1"]}
    assert "already exists" in problem(client.post("/v1/workspaces", json={"id": "b-2"}), 409)["detail"]
    assert client.delete("/v1/workspaces/b-2").json() == {"id": "b-2"}
    assert not (tmp_path / "root" / "b-2").exists()
    assert client.get("/v1/workspaces").json() == {"workspaces": ["team_1"]}
    problem(client.get("/v1/workspaces/b-2/documents"), 404)
    problem(upload(client, "b-2", ("a.txt", b"text")), 404)
    problem(client.get("/v1/no-such-route"), 404)


@pytest.mark.parametrize("bad", ["a b", "x" * 65, "../etc", "", "é"])
def test_bad_workspace_id(client: TestClient, bad: str) -> None:
    body = problem(client.post("/v1/workspaces", json={"id": bad}), 422)
    assert body["errors"][0]["loc"] == ["body", "id"]
    assert client.get("/v1/workspaces").json() == {"workspaces": []}
    if bad and "/" not in bad:
        assert problem(client.get(f"/v1/workspaces/{bad}/documents"), 422)["errors"][0]["loc"] == ["path", "ws"]


def test_upload_text_job_and_documents(client: TestClient, tmp_path: Path) -> None:
    job = add_text(client)
    (f,) = job["files"]
    assert f["status"] == "added" and f["step"] == "done" and f["error"] is None
    assert f["document"]["title"] == "tower" and f["document"]["n_sentences"] == 6
    assert job["workspace"] == "a" and job["started_at"] and job["finished_at"]
    with client.stream("GET", f"/v1/jobs/{job['id']}/events") as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        events = sse_events(r.read().decode())
    assert events[-1][0] == "done" and json.loads(events[-1][1])["files"][0]["status"] == "added"
    docs = client.get("/v1/workspaces/a/documents").json()["documents"]
    assert [d["file_name"] for d in docs] == ["tower.txt"]
    assert "path" not in docs[0]  # the server's file system stays private
    doc_id = docs[0]["id"]
    assert client.get(f"/v1/workspaces/a/documents/{doc_id}").json() == docs[0]
    assert client.get(f"/v1/workspaces/a/documents/{doc_id}/text").json()["text"] == TEXT
    pages = client.get(f"/v1/workspaces/a/documents/{doc_id}/pages").json()
    assert pages["kind"] == "txt" and [p["number"] for p in pages["pages"]] == [1]
    assert "only PDFs" in problem(client.get(f"/v1/workspaces/a/documents/{doc_id}/pages/1.png"), 404)["detail"]
    assert (tmp_path / "root" / "a" / "uploads" / "tower.txt").read_text() == TEXT
    problem(client.get("/v1/jobs/" + "0" * 32), 404)


def test_duplicate_upload_is_reported(client: TestClient, tmp_path: Path) -> None:
    first = add_text(client)["files"][0]["document"]
    job = wait_job(client, upload(client, "a", ("copy.txt", TEXT.encode()), ("tower.txt", TEXT.encode())))
    assert [f["status"] for f in job["files"]] == ["duplicate", "duplicate"]
    assert all(f["document"]["id"] == first["id"] for f in job["files"])
    assert sorted(p.name for p in (tmp_path / "root" / "a" / "uploads").iterdir()) == ["tower.txt"]
    assert len(client.get("/v1/workspaces/a/documents").json()["documents"]) == 1
    job = wait_job(client, upload(client, "a", ("tower.txt", b"Rome is in Italy. It has many fountains.")))
    assert job["files"][0]["document"]["file_name"] == "tower-2.txt"  # same name, other content


def test_failed_file_is_reported_per_file(client: TestClient, tmp_path: Path) -> None:
    client.post("/v1/workspaces", json={"id": "a"})
    job = wait_job(client, upload(client, "a", ("empty.md", b"   \n\n  "), ("ok.txt", TEXT.encode())))
    assert job["state"] == "done"
    bad, ok = job["files"]
    assert bad["status"] == "failed" and "empty" in bad["error"]["message"] and bad["error"]["hint"]
    assert ok["status"] == "added"
    assert sorted(p.name for p in (tmp_path / "root" / "a" / "uploads").iterdir()) == ["ok.txt"]


@pytest.mark.parametrize(("name", "data"), [
    ("setup.exe", b"MZ\x90\x00 program"),
    ("paper.pdf", b"<html>not a pdf</html>"),
    ("notes.txt", b"\x7fELF\x02\x01\x01\x00binary"),
    ("report.docx", b"PK\x03\x04 not a real docx"),
    ("noext", b"hello"),
])
def test_wrong_type_is_415_and_nothing_is_kept(client: TestClient, tmp_path: Path, name: str, data: bytes) -> None:
    client.post("/v1/workspaces", json={"id": "a"})
    body = problem(upload(client, "a", ("fine.txt", b"Fine text."), (name, data)), 415)
    assert name in body["detail"] and body["hint"]
    assert not (tmp_path / "root" / "a" / "uploads").exists()


def test_too_large_is_413(tmp_path: Path) -> None:
    with make_client(tmp_path, max_upload_mb=0.001) as c:
        c.post("/v1/workspaces", json={"id": "a"})
        body = problem(upload(c, "a", ("big.txt", b"word " * 400)), 413)
        assert "big.txt" in body["detail"] and "limit" in body["detail"]
        assert upload(c, "a", ("small.txt", b"Small text.")).status_code == 202


def test_delete_document(client: TestClient, tmp_path: Path) -> None:
    doc_id = add_text(client)["files"][0]["document"]["id"]
    assert client.delete(f"/v1/workspaces/a/documents/{doc_id}").json()["id"] == doc_id
    for suffix in ("", "/text", "/pages"):
        problem(client.get(f"/v1/workspaces/a/documents/{doc_id}{suffix}"), 404)
    problem(client.delete(f"/v1/workspaces/a/documents/{doc_id}"), 404)
    assert client.get("/v1/workspaces/a/documents").json() == {"documents": []}
    assert not (tmp_path / "root" / "a" / "uploads" / "tower.txt").exists()


def test_workspaces_are_isolated(client: TestClient) -> None:
    doc_id = add_text(client, "a")["files"][0]["document"]["id"]
    client.post("/v1/workspaces", json={"id": "b"})
    assert client.get("/v1/workspaces/b/documents").json() == {"documents": []}
    problem(client.get(f"/v1/workspaces/b/documents/{doc_id}/text"), 404)
    body = problem(client.post("/v1/workspaces/b/ask", json={"question": QUESTION}), 409)
    assert "no documents" in body["detail"] and "POST /v1/workspaces/{ws}/documents" in body["hint"]
    stream = client.post("/v1/workspaces/b/ask?stream=true", json={"question": QUESTION})
    assert problem(stream, 409)["detail"] == body["detail"]  # refused before any stream starts
    assert client.post("/v1/workspaces/a/ask", json={"question": QUESTION}).status_code == 200


def test_pdf_upload_pages_and_image(client: TestClient) -> None:
    if not N18.exists():
        pytest.skip(f"{N18} not found")
    client.post("/v1/workspaces", json={"id": "p"})
    job = wait_job(client, upload(client, "p", (N18.name, N18.read_bytes())))
    doc = job["files"][0]["document"]
    assert job["files"][0]["status"] == "added" and doc["kind"] == "pdf" and doc["n_pages"] == 8
    base = f"/v1/workspaces/p/documents/{doc['id']}"
    pages = client.get(f"{base}/pages").json()["pages"]
    assert len(pages) == 8 and round(pages[0]["width"]) == 595 and round(pages[0]["height"]) == 842
    r = client.get(f"{base}/pages/2.png", params={"scale": 0.5})
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", r.content[16:24])
    assert abs(width - pages[1]["width"] * 0.5) <= 1 and abs(height - pages[1]["height"] * 0.5) <= 1
    problem(client.get(f"{base}/pages/9.png"), 404)
    problem(client.get(f"{base}/pages/1.png", params={"scale": 10}), 422)
    ans = client.post("/v1/workspaces/p/ask", json={"question": "What does the paper present?"}).json()
    boxes = [b for c in ans["claims"] for e in c["evidence"] for s in e["sentences"] for b in s["boxes"]]
    assert boxes and all(0 <= b["x0"] < b["x1"] <= pages[b["page"] - 1]["width"] for b in boxes)


def test_api_key(tmp_path: Path) -> None:
    with make_client(tmp_path, api_key="s3cret") as c:
        assert c.get("/v1/health").status_code == 200
        assert c.get("/openapi.json").status_code == 200
        r = c.get("/v1/workspaces")
        assert problem(r, 401) and r.headers["www-authenticate"] == "Bearer"
        problem(c.get("/v1/workspaces", headers={"Authorization": "Bearer wrong"}), 401)
        problem(upload(c, "a", ("a.txt", b"text")), 401)
        assert c.get("/v1/workspaces", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert c.get("/v1/workspaces", headers={"X-API-Key": "s3cret"}).status_code == 200
        schemes = c.get("/openapi.json").json()["components"]["securitySchemes"]
        assert set(schemes) == {"bearer", "apiKey"}


def test_unexpected_error_is_a_plain_500(tmp_path: Path) -> None:
    def broken(path: Path, settings: Settings) -> Workspace:
        raise RuntimeError("secret internal detail")

    settings = Settings.load("test", cache_dir=tmp_path / "cache")
    with TestClient(create_app(tmp_path / "root", settings, workspace_factory=broken),
                    raise_server_exceptions=False) as c:
        c.post("/v1/workspaces", json={"id": "a"})
        r = c.get("/v1/workspaces/a/documents")
        assert problem(r, 500) and "secret" not in r.text


ROUTES = [
    ("get", "/v1/health"), ("get", "/v1/workspaces"), ("post", "/v1/workspaces"), ("delete", "/v1/workspaces/{ws}"),
    ("post", "/v1/workspaces/{ws}/documents"), ("get", "/v1/workspaces/{ws}/documents"),
    ("get", "/v1/workspaces/{ws}/documents/{doc_id}"), ("delete", "/v1/workspaces/{ws}/documents/{doc_id}"),
    ("get", "/v1/workspaces/{ws}/documents/{doc_id}/text"), ("get", "/v1/workspaces/{ws}/documents/{doc_id}/pages"),
    ("get", "/v1/workspaces/{ws}/documents/{doc_id}/pages/{n}.png"), ("post", "/v1/workspaces/{ws}/ask"),
    ("post", "/v1/workspaces/{ws}/ask/prepare"),
    ("get", "/v1/jobs/{job_id}"), ("get", "/v1/jobs/{job_id}/events"),
    ("delete", "/v1/jobs/{job_id}"), ("get", "/v1/workspaces/{ws}/jobs"),
    ("post", "/v1/workspaces/{ws}/documents/{doc_id}/graph"),
]


def test_openapi_lists_every_route_with_schemas(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    listed = sorted((m, p) for p, ops in schema["paths"].items() for m in ops)
    assert listed == sorted(ROUTES)
    for method, path in ROUTES:
        op = schema["paths"][path][method]
        ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
        assert ok["content"], (path, method)
        assert any("schema" in media for media in ok["content"].values()) or path.endswith(".png"), (path, method)
        for status, resp in op["responses"].items():
            if status[0] in "45":
                assert resp["content"] == {"application/problem+json": {
                    "schema": {"$ref": "#/components/schemas/Problem"}}}, (path, status)
    assert {"Answer", "JobOut", "Problem", "DocumentOut"} <= set(schema["components"]["schemas"])


def test_safe_names() -> None:
    assert safe_name("../../etc/passwd.txt") == "passwd.txt"
    assert safe_name("C:\\Users\\me\\a report.pdf") == "a report.pdf"
    assert safe_name("..") == "upload" and safe_name(None) == "upload"
    assert safe_name("Bericht über <Q3>.md") == "Bericht über _Q3_.md"
    assert len(safe_name("x" * 300 + ".pdf")) == 120 and safe_name("x" * 300 + ".pdf").endswith(".pdf")


def test_serve_refuses_remote_host_and_serves_loopback(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "gechat.cli", "serve", "--root", str(tmp_path / "srv"), "--preset", "test"]
    p = subprocess.run([*cmd, "--host", "0.0.0.0"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "refusing to listen on 0.0.0.0" in p.stderr and "Traceback" not in p.stderr
    port = free_port()
    server = subprocess.Popen([*cmd, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "GECHAT_API_KEY": "k"})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
                time.sleep(0.1)
        assert r.json()["status"] == "ok"
        assert httpx.get(f"http://127.0.0.1:{port}/v1/workspaces").status_code == 401
        assert httpx.get(f"http://127.0.0.1:{port}/v1/workspaces", headers={"X-API-Key": "k"}).status_code == 200
    finally:
        server.terminate()
        server.wait(10)


def test_job_reports_graph_cost(tmp_path: Path) -> None:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20, graph="fast")
    with TestClient(fake_app(tmp_path, settings=settings)) as c:
        c.post("/v1/workspaces", json={"id": "g"})
        job = wait_job(c, upload(c, "g", ("tower.txt", TEXT.encode())))
    (f,) = job["files"]
    assert f["status"] == "added" and f["graph_error"] is None, f
    g = f["graph"]
    assert g["extractor"] == "fast" and g["chunks_done"] == g["chunks_total"] > 0 and g["llm_calls"] == 0

"""The REST API with the deterministic fakes (test preset, scripted LLM): no real models."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from gechat.api import ask_stream, create_app
from gechat.api.streaming import Final, Stage, Token
from gechat.api.uploads import safe_name
from gechat.models.llm.base import Message
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.conftest import N18

TEXT = """The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.

The tower is 330 metres tall. Gustave Eiffel's company designed and built it.

Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.
"""
QUESTION = "When was the Eiffel Tower completed?"
Resp = Any  # starlette's TestClient answers with httpx2's Response where that is installed, else httpx's


def reply(messages: list[Message]) -> str:
    return ("Answer: The tower was completed in 1889 for the World's Fair.\n"
            "Thoughts:\n1. The excerpt says it was completed in 1889 for the World's Fair.\n"
            "2. The tower is 330 metres tall.")


def fake_workspace(path: Path, settings: Settings) -> Workspace:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    return Workspace(path, settings, llm=CachedLLM(FakeLLM(reply), None, Usage()))


def make_client(tmp_path: Path, **kw: Any) -> TestClient:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    app = create_app(tmp_path / "root", settings, workspace_factory=fake_workspace, **kw)
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:
        yield c


def problem(r: Resp, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert body["status"] == status and body["title"] and body["detail"] and body["type"].startswith("urn:")
    assert "Traceback" not in r.text
    return body


def upload(c: TestClient, ws: str, *files: tuple[str, bytes]) -> Resp:
    return c.post(f"/v1/workspaces/{ws}/documents", files=[("files", (n, data)) for n, data in files])


def wait_job(c: TestClient, r: Resp) -> dict[str, Any]:
    assert r.status_code == 202, r.text
    url = r.json()["status_url"]
    assert r.headers["location"] == url
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job: dict[str, Any] = c.get(url).json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.02)
    raise AssertionError("the job did not finish")


def add_text(c: TestClient, ws: str = "a", name: str = "tower.txt", text: str = TEXT) -> dict[str, Any]:
    c.post("/v1/workspaces", json={"id": ws})
    job = wait_job(c, upload(c, ws, (name, text.encode())))
    assert job["state"] == "done", job
    return job


def sse_events(text: str) -> list[tuple[str, str]]:
    out = []
    for block in text.split("\n\n"):
        lines = [ln for ln in block.splitlines() if not ln.startswith(":")]
        if lines:
            fields = dict(ln.split(": ", 1) for ln in lines)
            out.append((fields["event"], fields["data"]))
    return out


def without_usage(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "usage"}


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


def test_ask_returns_grounded_claims(client: TestClient) -> None:
    doc_id = add_text(client)["files"][0]["document"]["id"]
    r = client.post("/v1/workspaces/a/ask", json={"question": QUESTION})
    assert r.status_code == 200, r.text
    ans = r.json()
    assert ans["text"] == "The tower was completed in 1889 for the World's Fair."
    assert [c["source"] for c in ans["claims"]] == ["answer", "thought", "thought"]
    assert ans["claims"][0]["verdict"] == "supported"
    text = client.get(f"/v1/workspaces/a/documents/{doc_id}/text").json()["text"]
    evidence = [e for c in ans["claims"] for e in c["evidence"]]
    assert evidence and all(text[e["start"]:e["end"]] == e["text"] and e["page"] == 1 for e in evidence)
    assert all(s["text"] == text[s["start"]:s["end"]] for e in evidence for s in e["sentences"])


def test_ask_refusals(client: TestClient) -> None:
    add_text(client)
    problem(client.post("/v1/workspaces/a/ask", json={"question": ""}), 422)
    assert "empty" in problem(client.post("/v1/workspaces/a/ask", json={"question": "   "}), 400)["detail"]
    body = problem(client.post("/v1/workspaces/a/ask", json={"question": QUESTION, "retriever": "magic"}), 422)
    assert "vector" in body["hint"]
    problem(client.post("/v1/workspaces/a/ask", json={}), 422)


def test_ask_streaming_equals_non_streaming(client: TestClient) -> None:
    add_text(client)
    plain = client.post("/v1/workspaces/a/ask", json={"question": QUESTION}).json()
    for headers, params in (({"Accept": "text/event-stream"}, {}), ({}, {"stream": "true"})):
        with client.stream("POST", "/v1/workspaces/a/ask", json={"question": QUESTION}, headers=headers,
                           params=params) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            events = sse_events(r.read().decode())
        kinds = [k for k, _ in events]
        assert kinds[-1] == "answer" and kinds.count("answer") == 1
        tokens = [json.loads(d)["text"] for k, d in events if k == "token"]
        assert len(tokens) > 5 and kinds.index("token") < kinds.index("answer")
        streamed = json.loads(events[-1][1])
        assert "".join(tokens) == streamed["raw"] == plain["raw"]
        assert without_usage(streamed) == without_usage(plain)


def test_ask_stream_equals_workspace_ask(tmp_path: Path) -> None:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    ws = fake_workspace(tmp_path / "ws", settings)
    f = tmp_path / "tower.txt"
    f.write_text(TEXT)
    ws.add([f])
    events = list(ask_stream(ws, QUESTION))
    assert [e.name for e in events if isinstance(e, Stage)] == ["retrieve", "answer", "evidence"]
    assert isinstance(events[-1], Final) and not any(isinstance(e, Final) for e in events[:-1])
    streamed = events[-1].answer
    expected = ws.ask(QUESTION)
    assert "".join(e.text for e in events if isinstance(e, Token)) == expected.raw
    assert streamed.model_dump(exclude={"usage"}) == expected.model_dump(exclude={"usage"})
    assert streamed.claims and streamed.usage.stages["answer"].calls == 1


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
    ("get", "/v1/jobs/{job_id}"), ("get", "/v1/jobs/{job_id}/events"),
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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
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
    with TestClient(create_app(tmp_path / "root", settings, workspace_factory=fake_workspace)) as c:
        c.post("/v1/workspaces", json={"id": "g"})
        job = wait_job(c, upload(c, "g", ("tower.txt", TEXT.encode())))
    (f,) = job["files"]
    assert f["status"] == "added" and f["graph_error"] is None, f
    g = f["graph"]
    assert g["extractor"] == "fast" and g["chunks_done"] == g["chunks_total"] > 0 and g["llm_calls"] == 0


def test_error_during_a_stream_is_an_error_event(tmp_path: Path) -> None:
    from gechat.errors import ModelError
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    def down(messages: list[Message]) -> str:
        raise ModelError("the LLM server is not answering", hint="start it")

    def factory(path: Path, settings: Settings) -> Workspace:
        return Workspace(path, settings, llm=CachedLLM(FakeLLM(down), None, Usage()))

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    with TestClient(create_app(tmp_path / "root", settings, workspace_factory=factory)) as c:
        add_text(c)
        with c.stream("POST", "/v1/workspaces/a/ask?stream=true", json={"question": QUESTION}) as r:
            assert r.status_code == 200
            kind, data = sse_events(r.read().decode())[-1]
        assert kind == "error" and json.loads(data)["status"] == 503 and json.loads(data)["hint"] == "start it"
        body = problem(c.post("/v1/workspaces/a/ask", json={"question": QUESTION}), 503)
        assert body["detail"] == "the LLM server is not answering"

"""Upload bodies are bounded while they stream in: the app is driven at the ASGI level, so
the test sees exactly how much of the body the server read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from gechat.api.body_limit import SLACK
from gechat.settings import Settings
from tests.unit.api_support import fake_app, make_client, problem, upload

CHUNK = 64 * 1024
BOUNDARY = "gechatboundary"


def _app(tmp_path: Path, mb: float = 1) -> FastAPI:
    app = fake_app(tmp_path, settings=Settings.load("test", cache_dir=tmp_path / "cache", max_file_mb=mb))
    (tmp_path / "root" / "a").mkdir(parents=True)
    return app


def _multipart(n_bytes: int) -> Iterator[bytes]:
    """A multipart upload of one text file of ``n_bytes``, in CHUNK pieces, never ending early."""
    yield (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.txt\"\r\n"
           "Content-Type: text/plain\r\n\r\n").encode()
    line = b"word " * (CHUNK // 5)
    sent = 0
    while sent < n_bytes:
        yield line
        sent += len(line)
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


class Call:
    def __init__(self) -> None:
        self.read = 0  # body bytes the server took
        self.messages: list[dict[str, Any]] = []

    @property
    def status(self) -> int:
        return int(self.messages[0]["status"])

    @property
    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(b"".join(m.get("body", b"") for m in self.messages[1:]))
        return data


def _post(app: FastAPI, path: str, body: Iterator[bytes], length: int | None = None) -> Call:
    call = Call()
    headers = [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode()), (b"host", b"testserver")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}

    async def receive() -> dict[str, Any]:
        piece = next(body, None)
        if piece is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        call.read += len(piece)
        return {"type": "http.request", "body": piece, "more_body": True}

    async def send(message: MutableMapping[str, Any]) -> None:
        call.messages.append(dict(message))

    asyncio.run(app(scope, receive, send))
    return call


def test_a_streamed_body_over_the_limit_is_cut_off(tmp_path: Path) -> None:
    app = _app(tmp_path, mb=1)
    call = _post(app, "/v1/workspaces/a/documents", _multipart(50_000_000))
    assert call.status == 413, call.messages
    assert call.body["detail"] == "the upload is larger than max_file_mb = 1 MB (the upload limit)"
    assert call.read <= 1_000_000 + SLACK + 2 * CHUNK, call.read  # not the 50 MB
    uploads = tmp_path / "root" / "a" / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())


def test_a_declared_length_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    call = _post(_app(tmp_path, mb=200), "/v1/workspaces/a/documents", _multipart(10), length=300_000_000)
    assert call.status == 413 and call.read == 0
    assert "larger than max_file_mb = 200 MB" in call.body["detail"]


def test_a_missing_workspace_is_a_404_before_the_body(tmp_path: Path) -> None:
    call = _post(_app(tmp_path), "/v1/workspaces/nope/documents", _multipart(10), length=300_000_000)
    assert call.status == 404 and call.read == 0 and "nope" in call.body["detail"]


def test_a_body_under_the_limit_goes_through(tmp_path: Path) -> None:
    call = _post(_app(tmp_path, mb=1), "/v1/workspaces/a/documents", _multipart(200_000))
    assert call.status == 202, call.messages


def test_a_file_over_the_limit_names_the_setting(tmp_path: Path) -> None:
    with make_client(tmp_path, max_upload_mb=0.001) as c:
        c.post("/v1/workspaces", json={"id": "a"})
        detail = problem(upload(c, "a", ("big.txt", b"word " * 400)), 413)["detail"]
        assert detail == "big.txt is 0.0 MB, larger than max_upload_mb = 0.001 MB (the upload limit)"

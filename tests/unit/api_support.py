"""What the REST API tests share: a TestClient over fake workspaces, and reading its
problems, jobs and server-sent events."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.models.llm.base import Message
from gechat.pipeline import Workspace
from gechat.settings import Settings

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


def fake_app(tmp_path: Path, *, settings: Any = None, **kw: Any) -> FastAPI:
    """The API over fake workspaces in ``tmp_path`` (test preset, small chunks)."""
    settings = settings or Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    return create_app(tmp_path / "root", settings, workspace_factory=fake_workspace, **kw)


def make_client(tmp_path: Path, **kw: Any) -> TestClient:
    return TestClient(fake_app(tmp_path, **kw), raise_server_exceptions=False)


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

"""The REST API's ask: plain and streamed (server-sent events), with the fakes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from gechat.api import ask_stream, create_app
from gechat.api.streaming import Final, Stage, Token
from gechat.models.llm.base import Message
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.unit.api_support import (
    QUESTION,
    TEXT,
    add_text,
    fake_workspace,
    problem,
    sse_events,
    without_usage,
)


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


def fake_llm(client: TestClient, ws: str = "a") -> Any:
    return client.app.state.gechat.workspaces.get(ws).workspace().llm.inner  # type: ignore[attr-defined]


def test_prepare_reads_the_prompt_the_ask_then_sends(client: TestClient) -> None:
    add_text(client)
    r = client.post("/v1/workspaces/a/ask/prepare", json={"question": QUESTION})
    assert r.status_code == 200, r.text
    assert r.json() == {"prepared": True, "busy": False}
    llm = fake_llm(client)
    assert len(llm.prefilled) == 1 and not llm.calls  # read, not answered
    client.post("/v1/workspaces/a/ask?stream=true", json={"question": QUESTION})
    assert llm.calls[-1][0] == llm.prefilled[0]  # the very prompt: llama.cpp reuses all of it


def test_prepare_never_waits_for_a_busy_model(client: TestClient) -> None:
    from gechat.api.locks import LLM_LOCK

    add_text(client)
    with LLM_LOCK:
        r = client.post("/v1/workspaces/a/ask/prepare", json={"question": QUESTION})
    assert r.json() == {"prepared": False, "busy": True}
    assert not fake_llm(client).prefilled


def test_prepare_refuses_what_ask_refuses(client: TestClient) -> None:
    client.post("/v1/workspaces", json={"id": "a"})
    assert "no documents" in problem(client.post("/v1/workspaces/a/ask/prepare", json={"question": QUESTION}),
                                     409)["detail"]
    problem(client.post("/v1/workspaces/nope/ask/prepare", json={"question": QUESTION}), 404)


def test_ask_can_correct_the_answer_plain_and_streamed(client: TestClient) -> None:
    add_text(client)
    plain = client.post("/v1/workspaces/a/ask", json={"question": QUESTION}).json()
    assert plain["corrected"] is None  # the server's default: no correction
    fixed = client.post("/v1/workspaces/a/ask", json={"question": QUESTION, "correct": True}).json()
    # the fake answer is supported: nothing to change, and the correction says so
    assert fixed["corrected"]["text"] == fixed["text"] and fixed["corrected"]["edits"] == []
    with client.stream("POST", "/v1/workspaces/a/ask", json={"question": QUESTION, "correct": True},
                       params={"stream": "true"}) as r:
        events = sse_events(r.read().decode())
    stages = [json.loads(d)["stage"] for k, d in events if k == "stage"]
    assert stages[-1] == "correct"
    assert json.loads(events[-1][1])["corrected"]["text"] == fixed["text"]


def test_ask_with_scopecoe_carries_what_the_model_read(client: TestClient) -> None:
    add_text(client)
    plain = client.post("/v1/workspaces/a/ask", json={"question": QUESTION}).json()
    assert plain["coe"] is None
    ans = client.post("/v1/workspaces/a/ask", json={"question": QUESTION, "retriever": "scopecoe"}).json()
    report = ans["coe"]
    assert report["features"]["intent"] and report["candidates"] >= len(report["snippets"]) >= 1
    assert [s["chunk_id"] for s in report["snippets"]] == [h["chunk"]["id"] for h in ans["contexts"]]

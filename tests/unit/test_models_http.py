"""The OpenAI-compatible and Ollama backends against a real local HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gechat.errors import ModelError
from gechat.models.llm.base import Message
from gechat.models.llm.ollama import OllamaLLM
from gechat.models.llm.openai_compat import OpenAICompatLLM
from tests.conftest import free_port

MSG: list[Message] = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


class Server:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, dict(self.headers), body))
                status, ctype, payload = owner.route(self.path, body)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def route(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if path == "/v1/chat/completions":
            if body["model"] == "nope":
                return 404, "application/json", b'{"error": {"message": "no such model"}}'
            if body.get("stream"):
                events = [{"choices": [{"delta": {"role": "assistant"}}]}] + [
                    {"choices": [{"delta": {"content": w}}]} for w in ["Hel", "lo", "!"]
                ]
                lines = [": keep-alive"] + [f"data: {json.dumps(e)}" for e in events]
                lines.append("data: [DONE]")
                return 200, "text/event-stream", ("\n\n".join(lines) + "\n\n").encode()
            content = '{"a": 1}' if "response_format" in body else "Hello!"
            out = {
                "choices": [{"message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 3},
            }
            return 200, "application/json", json.dumps(out).encode()
        if path == "/api/chat":
            if body["model"] == "missing":
                err = {"error": 'model "missing" not found, try pulling it first'}
                return 404, "application/json", json.dumps(err).encode()
            if body.get("stream"):
                parts = [{"message": {"role": "assistant", "content": w}, "done": False} for w in ["Hel", "lo"]]
                parts.append(
                    {
                        "message": {"role": "assistant", "content": ""},
                        "done": True,
                        "prompt_eval_count": 7,
                        "eval_count": 2,
                    }
                )
                return 200, "application/x-ndjson", "\n".join(map(json.dumps, parts)).encode()
            content = '{"a": 1}' if "format" in body else "Hello!"
            out = {
                "message": {"role": "assistant", "content": content},
                "done": True,
                "prompt_eval_count": 9,
                "eval_count": 4,
            }
            return 200, "application/json", json.dumps(out).encode()
        return 404, "text/plain", b"not found"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def test_openai_complete(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY", "sekret")
    llm = OpenAICompatLLM("m1", base_url=f"http://127.0.0.1:{server.port}/v1/", api_key_env="TEST_KEY", timeout_s=5)
    out = llm.complete(MSG, max_tokens=7, temperature=0.2, stop=["\n"], seed=4)
    assert (out.text, out.prompt_tokens, out.completion_tokens) == ("Hello!", 12, 3)
    path, headers, body = server.requests[-1]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sekret"
    assert body == {
        "model": "m1",
        "messages": MSG,
        "max_tokens": 7,
        "temperature": 0.2,
        "seed": 4,
        "stop": ["\n"],
    }


def test_openai_json_schema_and_no_key(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_KEY", raising=False)
    llm = OpenAICompatLLM("m1", base_url=f"http://127.0.0.1:{server.port}/v1", api_key_env="TEST_KEY")
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert json.loads(llm.complete(MSG, json_schema=schema).text) == {"a": 1}
    _, headers, body = server.requests[-1]
    assert "Authorization" not in headers
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "out", "schema": schema},
    }


def test_openai_stream(server: Server) -> None:
    llm = OpenAICompatLLM("m1", base_url=f"http://127.0.0.1:{server.port}/v1")
    assert list(llm.stream(MSG)) == ["Hel", "lo", "!"]
    assert server.requests[-1][2]["stream"] is True


def test_openai_errors(server: Server) -> None:
    bad = OpenAICompatLLM("nope", base_url=f"http://127.0.0.1:{server.port}/v1")
    with pytest.raises(ModelError) as e:
        bad.complete(MSG)
    assert "404" in e.value.message and "no such model" in e.value.message
    with pytest.raises(ModelError) as e:
        list(bad.stream(MSG))
    assert "404" in e.value.message
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ModelError) as e:
        OpenAICompatLLM("m", base_url=url, timeout_s=3).complete(MSG)
    assert url in e.value.message and "llm_base_url" in e.value.hint
    with pytest.raises(ModelError):
        list(OpenAICompatLLM("m", base_url=url, timeout_s=3).stream(MSG))


def test_ollama_complete_and_format(server: Server) -> None:
    llm = OllamaLLM("qwen", base_url=f"http://127.0.0.1:{server.port}")
    out = llm.complete(MSG, max_tokens=5, temperature=0.0, stop=["x"], seed=2)
    assert (out.text, out.prompt_tokens, out.completion_tokens) == ("Hello!", 9, 4)
    path, _, body = server.requests[-1]
    assert path == "/api/chat" and body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "num_predict": 5, "seed": 2, "stop": ["x"]}
    schema = {"type": "object"}
    assert json.loads(llm.complete(MSG, json_schema=schema).text) == {"a": 1}
    assert server.requests[-1][2]["format"] == schema


def test_ollama_stream(server: Server) -> None:
    llm = OllamaLLM("qwen", base_url=f"http://127.0.0.1:{server.port}")
    assert list(llm.stream(MSG)) == ["Hel", "lo"]


def test_ollama_errors(server: Server) -> None:
    missing = OllamaLLM("missing", base_url=f"http://127.0.0.1:{server.port}")
    with pytest.raises(ModelError) as e:
        missing.complete(MSG)
    assert e.value.hint == "ollama pull missing"
    with pytest.raises(ModelError) as e:
        list(missing.stream(MSG))
    assert e.value.hint == "ollama pull missing"
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelError) as e:
        OllamaLLM("m", base_url=url, timeout_s=3).complete(MSG)
    assert url in e.value.message and "ollama serve" in e.value.hint

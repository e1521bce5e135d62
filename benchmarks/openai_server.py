"""A small OpenAI-compatible HTTP server over a gechat LLM and embedder (standard library only).

It lets a peer system that speaks the OpenAI API (LightRAG in the graph benchmark) use
exactly the model our own pipeline uses, and counts what it was asked for::

    with LocalServer(llm, embedder, "qwen2.5-coder-1.5b") as server:
        run_peer(base_url=server.url)          # http://127.0.0.1:PORT/v1
        print(server.snapshot())               # calls, tokens, seconds, embeddings

Endpoints: ``GET /v1/models``, ``POST /v1/chat/completions`` (plain, ``stream: true`` as
server-sent events, ``response_format`` of type ``json_schema``), ``POST /v1/embeddings``.
The ``/v1`` prefix is optional. The ``model`` field of a request is accepted whatever it
says: the server has one model. A missing ``temperature`` means 0 (greedy, so benchmark
runs repeat), not the OpenAI default of 1.

One lock serialises LLM calls (one llama.cpp model cannot run two at once; requests queue,
and the time they wait counts against the client's time-out); embeddings have their own
lock. Every failure answers ``{"error": {"message": ...}}`` with a 4xx/5xx status.

Usage of a streamed completion is approximate: the completion tokens are the pieces the
model yielded (one a token for llama.cpp, fewer where a multi-byte character spans tokens)
and the prompt tokens a count of the messages' text (the chat template is not counted).
Non-streamed completions report the backend's exact counts.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

from gechat.errors import GechatError
from gechat.models.embed_base import Embedder
from gechat.models.llm.base import LLM, Message

MAX_BODY_BYTES = 64 * 1024 * 1024
_CONTEXT_ERROR = re.compile(r"context (window|length)|exceed", re.IGNORECASE)


@dataclass
class ServerStats:
    """Cumulative counts since start (or the last ``reset``)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # time spent generating, inside the LLM lock
    embed_calls: int = 0
    embed_inputs: int = 0


class ApiError(Exception):
    """An error answered to the client as ``{"error": {...}}`` with this status."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


# --- request parsing ----------------------------------------------------------------------


def _content_text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                raise ApiError(400, "only text content parts are supported")
        return "".join(parts)
    raise ApiError(400, "message content must be a string or a list of text parts")


def _messages(body: dict[str, Any]) -> list[Message]:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ApiError(400, "'messages' must be a non-empty list")
    out: list[Message] = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ApiError(400, f"messages[{i}] must be an object with a string 'role'")
        out.append(Message(role=m["role"], content=_content_text(m.get("content"))))
    return out


def _int(body: dict[str, Any], key: str, default: int, low: int) -> int:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ApiError(400, f"'{key}' must be an integer >= {low}")
    return value


def _float(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, f"'{key}' must be a number")
    return float(value)


def _stop(body: dict[str, Any]) -> list[str] | None:
    stop = body.get("stop")
    if stop is None:
        return None
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        return list(stop)
    raise ApiError(400, "'stop' must be a string or a list of strings")


def _json_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict):
        raise ApiError(400, "'response_format' must be an object")
    kind = fmt.get("type")
    if kind in ("text", "json_object"):
        return None  # json_object: the prompt asks for JSON; no schema to constrain with
    if kind == "json_schema":
        spec = fmt.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise ApiError(400, "response_format.json_schema.schema must be an object")
        return schema
    raise ApiError(400, f"unsupported response_format type {kind!r}")


def _embedding_inputs(body: dict[str, Any]) -> list[str]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        if all(isinstance(x, str) for x in raw):
            return list(raw)
        if all(isinstance(x, int) or (isinstance(x, list) and all(isinstance(t, int) for t in x)) for x in raw):
            raise ApiError(400, "token-id input is not supported: send the text (a string or a list of strings)")
    raise ApiError(400, "'input' must be a string or a list of strings")


def _approx_tokens(text: str) -> int:
    """A rough token count (words and punctuation runs) for streamed prompts."""
    return len(re.findall(r"\w+|[^\w\s]+", text))


# --- the server ---------------------------------------------------------------------------


class LocalServer:
    """An OpenAI-compatible server over one gechat LLM and one embedder, in a thread."""

    def __init__(
        self,
        llm: LLM,
        embedder: Embedder,
        model_id: str,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        default_max_tokens: int = 1024,
    ) -> None:
        self.llm = llm
        self.embedder = embedder
        self.model_id = model_id
        self.host = host
        self.port = port
        self.default_max_tokens = default_max_tokens
        self.stats = ServerStats()
        self._stats_lock = threading.Lock()
        self._llm_lock = threading.Lock()
        self._embed_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.created = int(time.time())

    # lifecycle

    @property
    def url(self) -> str:
        """The base URL clients use, ending in ``/v1`` (valid once started)."""
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> LocalServer:
        if self._httpd is not None:
            return self
        handler = type("BoundHandler", (_Handler,), {"owner": self})
        httpd = ThreadingHTTPServer((self.host, self.port), handler)
        httpd.daemon_threads = True
        self.port = int(httpd.server_address[1])
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, name="openai-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # statistics

    def snapshot(self) -> ServerStats:
        with self._stats_lock:
            return dataclasses.replace(self.stats)

    def reset(self) -> None:
        with self._stats_lock:
            self.stats = ServerStats()

    def _count_llm(self, prompt_tokens: int, completion_tokens: int, seconds: float) -> None:
        with self._stats_lock:
            self.stats.calls += 1
            self.stats.prompt_tokens += prompt_tokens
            self.stats.completion_tokens += completion_tokens
            self.stats.seconds += seconds

    # endpoints

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model_id, "object": "model", "created": self.created, "owned_by": "gechat"}],
        }

    def _params(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "max_tokens": _int(body, "max_tokens", _int(body, "max_completion_tokens", self.default_max_tokens, 1), 1),
            "temperature": _float(body, "temperature", 0.0),
            "stop": _stop(body),
            "seed": _int(body, "seed", 0, -(2**63)),
        }

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = _messages(body)
        params = self._params(body)
        schema = _json_schema(body)
        with self._llm_lock:
            t0 = time.perf_counter()
            completion = _model_call(lambda: self.llm.complete(messages, json_schema=schema, **params))
            seconds = time.perf_counter() - t0
        self._count_llm(completion.prompt_tokens, completion.completion_tokens, seconds)
        finish = "length" if completion.completion_tokens >= params["max_tokens"] else "stop"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_id,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": completion.text},
                    "finish_reason": finish,
                }
            ],
            "usage": _usage(completion.prompt_tokens, completion.completion_tokens),
        }

    def chat_stream(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The SSE events of a streamed completion (validated before the first is yielded)."""
        messages = _messages(body)
        params = self._params(body)
        schema = _json_schema(body)
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        return self._stream_events(messages, params, schema, include_usage)

    def _stream_events(
        self,
        messages: list[Message],
        params: dict[str, Any],
        schema: dict[str, Any] | None,
        include_usage: bool,
    ) -> Iterator[dict[str, Any]]:
        cid = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())

        def event(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model_id,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        with self._llm_lock:
            t0 = time.perf_counter()
            yield event({"role": "assistant", "content": ""}, None)
            if schema is not None:  # the backends constrain only whole completions
                completion = _model_call(lambda: self.llm.complete(messages, json_schema=schema, **params))
                prompt_tokens, completion_tokens = completion.prompt_tokens, completion.completion_tokens
                if completion.text:
                    yield event({"content": completion.text}, None)
            else:
                prompt_tokens = sum(_approx_tokens(m["content"]) for m in messages)
                completion_tokens = 0
                pieces = self.llm.stream(messages, **params)
                try:
                    while True:
                        piece = _model_call(lambda: next(pieces, None))
                        if piece is None:
                            break
                        completion_tokens += 1
                        yield event({"content": piece}, None)
                finally:
                    # a client that goes away must not leave the model's own lock held
                    close = getattr(pieces, "close", None)
                    if close is not None:
                        close()
            seconds = time.perf_counter() - t0
        self._count_llm(prompt_tokens, completion_tokens, seconds)
        finish = "length" if completion_tokens >= params["max_tokens"] else "stop"
        yield event({}, finish)
        if include_usage:
            yield {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model_id,
                "choices": [],
                "usage": _usage(prompt_tokens, completion_tokens),
            }

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = _embedding_inputs(body)
        fmt = body.get("encoding_format", "float")
        if fmt not in ("float", "base64"):
            raise ApiError(400, "'encoding_format' must be 'float' or 'base64'")
        if texts:
            with self._embed_lock:
                vectors = _model_call(lambda: np.asarray(self.embedder.embed(texts), dtype=np.float32))
        else:
            vectors = np.zeros((0, self.embedder.dim), dtype=np.float32)
        with self._stats_lock:
            self.stats.embed_calls += 1
            self.stats.embed_inputs += len(texts)
        data: list[dict[str, Any]] = []
        for i, vector in enumerate(vectors):
            value: Any = (
                base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
                if fmt == "base64"
                else [float(x) for x in vector]
            )
            data.append({"object": "embedding", "index": i, "embedding": value})
        # the embedder exposes no tokenizer counts; usage is reported as zero
        return {"object": "list", "data": data, "model": self.model_id, "usage": _usage(0, 0)}


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _model_call(fn: Any) -> Any:
    """Run a model call, turning gechat's errors into API errors."""
    try:
        return fn()
    except ApiError:
        raise
    except GechatError as e:
        if _CONTEXT_ERROR.search(e.message):
            raise ApiError(400, e.message, "context_length_exceeded") from None
        raise ApiError(500, e.message) from None
    except Exception as e:
        raise ApiError(500, f"{type(e).__name__}: {e}") from None


# --- HTTP ---------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    owner: LocalServer  # set on the per-server subclass
    protocol_version = "HTTP/1.1"
    server_version = "gechat-openai/1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the benchmark prints its own progress

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[len("/v1") :] if path.startswith("/v1/") or path == "/v1" else path

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, error: ApiError) -> None:
        kind = "invalid_request_error" if error.status < 500 else "server_error"
        payload = {"error": {"message": error.message, "type": kind, "code": error.code}}
        with contextlib.suppress(OSError):
            self._send_json(error.status, payload)

    def _body(self) -> dict[str, Any]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise ApiError(411, "send the request body with a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise ApiError(400, "bad Content-Length") from None
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            raise ApiError(413, f"request body over {MAX_BODY_BYTES} bytes")
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return body

    def do_GET(self) -> None:
        try:
            route = self._route()
            if route == "/models":
                self._send_json(200, self.owner.models())
            elif route.startswith("/models/"):
                model = self.owner.models()["data"][0]
                self._send_json(200, {**model, "id": route[len("/models/") :]})
            elif route in ("/health", ""):
                self._send_json(200, {"status": "ok"})
            else:
                raise ApiError(404, f"no such endpoint: GET {self.path}")
        except ApiError as e:
            self._send_error(e)
        except Exception as e:  # never let a request take the server down
            self._send_error(ApiError(500, f"{type(e).__name__}: {e}"))

    def do_POST(self) -> None:
        try:
            route = self._route()
            if route not in ("/chat/completions", "/embeddings"):
                self.close_connection = True  # the body is left unread
                raise ApiError(404, f"no such endpoint: POST {self.path}")
            body = self._body()
            if route == "/embeddings":
                self._send_json(200, self.owner.embeddings(body))
            elif body.get("stream"):
                self._stream(self.owner.chat_stream(body))
            else:
                self._send_json(200, self.owner.chat(body))
        except ApiError as e:
            self._send_error(e)
        except Exception as e:
            self._send_error(ApiError(500, f"{type(e).__name__}: {e}"))

    def _stream(self, events: Iterator[dict[str, Any]]) -> None:
        """Server-sent events in HTTP/1.1 chunked encoding; errors after the start go in-band."""
        started = False

        def chunk(text: str) -> None:
            data = text.encode("utf-8")
            self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")
            self.wfile.flush()

        try:
            for ev in events:
                if not started:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    started = True
                chunk(f"data: {json.dumps(ev)}\n\n")
            chunk("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client left; the generator's finally freed the model
        except Exception as exc:
            e = exc if isinstance(exc, ApiError) else ApiError(500, f"{type(exc).__name__}: {exc}")
            if not started:
                self._send_error(e)
                return
            self.close_connection = True
            with contextlib.suppress(OSError):
                chunk(f"data: {json.dumps({'error': {'message': e.message, 'code': e.code}})}\n\n")
                self.wfile.write(b"0\r\n\r\n")
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()


__all__ = ["ApiError", "LocalServer", "ServerStats"]

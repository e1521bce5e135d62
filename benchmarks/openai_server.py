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
import dataclasses
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

from gechat.models.embed_base import Embedder
from gechat.models.llm.base import LLM, Message
from openai_http import Handler
from openai_protocol import (
    ApiError,
    approx_tokens,
    embedding_inputs,
    model_call,
    read_float,
    read_int,
    read_json_schema,
    read_messages,
    read_stop,
    usage_block,
)


@dataclass
class ServerStats:
    """Cumulative counts since start (or the last ``reset``)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # time spent generating, inside the LLM lock
    embed_calls: int = 0
    embed_inputs: int = 0


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
        handler = type("BoundHandler", (Handler,), {"owner": self})
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
            "max_tokens": read_int(body, "max_tokens",
                                   read_int(body, "max_completion_tokens", self.default_max_tokens, 1), 1),
            "temperature": read_float(body, "temperature", 0.0),
            "stop": read_stop(body),
            "seed": read_int(body, "seed", 0, -(2**63)),
        }

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = read_messages(body)
        params = self._params(body)
        schema = read_json_schema(body)
        with self._llm_lock:
            t0 = time.perf_counter()
            completion = model_call(lambda: self.llm.complete(messages, json_schema=schema, **params))
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
            "usage": usage_block(completion.prompt_tokens, completion.completion_tokens),
        }

    def chat_stream(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The SSE events of a streamed completion (validated before the first is yielded)."""
        messages = read_messages(body)
        params = self._params(body)
        schema = read_json_schema(body)
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
                completion = model_call(lambda: self.llm.complete(messages, json_schema=schema, **params))
                prompt_tokens, completion_tokens = completion.prompt_tokens, completion.completion_tokens
                if completion.text:
                    yield event({"content": completion.text}, None)
            else:
                prompt_tokens = sum(approx_tokens(m["content"]) for m in messages)
                completion_tokens = 0
                pieces = self.llm.stream(messages, **params)
                try:
                    while True:
                        piece = model_call(lambda: next(pieces, None))
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
                "usage": usage_block(prompt_tokens, completion_tokens),
            }

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = embedding_inputs(body)
        fmt = body.get("encoding_format", "float")
        if fmt not in ("float", "base64"):
            raise ApiError(400, "'encoding_format' must be 'float' or 'base64'")
        if texts:
            with self._embed_lock:
                vectors = model_call(lambda: np.asarray(self.embedder.embed(texts), dtype=np.float32))
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
        return {"object": "list", "data": data, "model": self.model_id, "usage": usage_block(0, 0)}


__all__ = ["ApiError", "LocalServer", "ServerStats"]

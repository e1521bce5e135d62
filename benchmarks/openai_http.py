"""The HTTP side of the local OpenAI-compatible server: routing, bodies, JSON and SSE replies.
``LocalServer`` binds a subclass of ``Handler`` to itself (``owner``) and does the model work."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from openai_protocol import ApiError

if TYPE_CHECKING:
    from openai_server import LocalServer

MAX_BODY_BYTES = 64 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
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

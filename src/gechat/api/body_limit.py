"""Bounds request bodies while they stream in, before FastAPI reads (and spools) any of it.

FastAPI parses a multipart upload whole before a route runs: a route's size check comes after
the body was written to a temporary file, and a missing workspace's 404 after the whole body
was read. This middleware answers first:

- an upload to a workspace that does not exist: 404 before a byte of the body is read;
- a declared ``Content-Length`` over the limit: 413 at once, nothing read;
- a body without one (chunked): bytes are counted as they arrive, and past the limit the
  client gets its 413 at once and the app sees a disconnect; so at most about the limit is
  ever read, and the route never saves anything.

The limit is for the whole body: the upload limit plus ``SLACK`` for the multipart framing
around the files. Each file is checked against the upload limit itself by the route.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gechat.api.problems import ApiError, problem_of, problem_response
from gechat.api.uploads import UploadLimit

SLACK = 64 * 1024  # boundaries and part headers: a few hundred bytes a file


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, limit: UploadLimit, workspace_exists: Callable[[str], bool]) -> None:
        self.app, self.limit, self.exists = app, limit, workspace_exists
        self.cap = limit.bytes + SLACK

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ws = upload_workspace(scope)
        if ws is not None and not self.exists(ws):
            await self._problem(ApiError(404, f"no workspace {ws!r}",
                                         hint="GET /v1/workspaces lists them; POST creates one"), scope, receive, send)
            return
        length = content_length(scope)
        if length is not None and length > self.cap:
            await self._problem(self._too_large(), scope, receive, send)
            return
        seen, started, answered = 0, False, False

        async def counting() -> Message:
            nonlocal seen, answered
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.cap:
                    if not started and not answered:
                        answered = True
                        await self._problem(self._too_large(), scope, receive, send)
                    return {"type": "http.disconnect"}  # the app stops reading, and saves nothing
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            if answered:
                return  # the app's answer to the disconnect: the client has its 413
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting, sending)
        except Exception:
            if not answered:
                raise

    def _too_large(self) -> ApiError:
        return ApiError(413, f"the upload is larger than {self.limit.label} (the upload limit)",
                        hint="split the document, or start the server with a higher limit")

    @staticmethod
    async def _problem(e: ApiError, scope: Scope, receive: Receive, send: Send) -> None:
        # close: the client may still be sending a body nobody will read
        await problem_response(problem_of(e), headers={"Connection": "close"})(scope, receive, send)


def upload_workspace(scope: Scope) -> str | None:
    """The workspace of ``POST /v1/workspaces/{ws}/documents``; None for any other request."""
    if scope.get("method") != "POST":
        return None
    parts = str(scope.get("path", "")).split("/")
    if len(parts) == 5 and parts[:3] == ["", "v1", "workspaces"] and parts[4] == "documents":
        return parts[3]
    return None


def content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None

"""The REST API: ``create_app(root, settings)`` gives a FastAPI app over the workspaces in ``root``.

Everything is under ``/v1``; errors are problem+json; an optional API key guards every
route but the health check and the OpenAPI docs.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import gechat
from gechat.api import routes_documents, routes_workspaces
from gechat.api.jobs import JobStore
from gechat.api.problems import PROBLEM_JSON, Problem, install_handlers, problem_response
from gechat.api.state import ServerState
from gechat.api.workspaces import WorkspaceFactory, WorkspaceRegistry
from gechat.settings import Settings

OPEN_PATHS = frozenset({"/v1/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/"})
WEB_DIR = Path(__file__).with_name("web")  # the page: static files, no build step


class GechatAPI(FastAPI):
    """FastAPI, with error responses filed under problem+json in the schema, and the API key
    (when set) declared, so generated clients know both."""

    api_key_required = False

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is not None:
            return self.openapi_schema
        schema = super().openapi()
        for path, ops in schema.get("paths", {}).items():
            for op in ops.values():
                for status, resp in op.get("responses", {}).items():
                    content = resp.get("content", {})
                    if str(status)[0] in "45" and "application/json" in content:
                        content[PROBLEM_JSON] = content.pop("application/json")
                if self.api_key_required and path in OPEN_PATHS:
                    op["security"] = []
        if self.api_key_required:
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            }
            schema["security"] = [{"bearer": []}, {"apiKey": []}]
        return schema


def create_app(root: Path, settings: Settings, *, api_key: str | None = None, max_upload_mb: float | None = None,
               workspace_factory: WorkspaceFactory | None = None) -> FastAPI:
    """``workspace_factory(path, settings)`` builds each workspace (tests pass fakes);
    ``max_upload_mb`` defaults to ``settings.max_file_mb``."""
    state = ServerState(
        settings=settings,
        workspaces=WorkspaceRegistry(Path(root), settings, workspace_factory),
        jobs=JobStore(),
        max_upload_bytes=int((max_upload_mb if max_upload_mb is not None else settings.max_file_mb) * 1024 * 1024),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        state.jobs.close()
        state.workspaces.close()

    app = GechatAPI(title="gechat", version=gechat.__version__, lifespan=lifespan,
                    summary="Answers about your own documents, with verbatim, entailment-checked evidence.")
    app.api_key_required = bool(api_key)
    app.state.gechat = state
    install_handlers(app)
    app.include_router(routes_workspaces.router)
    app.include_router(routes_documents.router)
    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    if api_key:
        app.add_middleware(ApiKeyMiddleware, key=api_key)
    return app


class ApiKeyMiddleware:
    """Checks ``Authorization: Bearer KEY`` or ``X-API-Key: KEY`` before the body is read, so a
    client without the key cannot make the server spool a large upload."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        # the page itself holds no data: it asks for the key when the API answers 401
        if scope["type"] != "http" or path in OPEN_PATHS or path.startswith("/web/") or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        p = Problem(type="urn:gechat:problem:unauthorized", title="Unauthorized", status=401,
                    detail="this server needs an API key",
                    hint="send it as `Authorization: Bearer KEY` or `X-API-Key: KEY`")
        await problem_response(p, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given = []
        for name, value in scope["headers"]:
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                given.append(value[7:].strip())
            elif name == b"x-api-key":
                given.append(value.strip())
        return any(hmac.compare_digest(g, self.key) for g in given)

"""The REST API: ``create_app(root, settings)`` gives a FastAPI app over the workspaces in ``root``.

Everything is under ``/v1``; errors are problem+json; API keys (``gechat.api.keys``) with
per-workspace grants, and the Host and Origin checks, are ``gechat.api.access``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.cors import CORSMiddleware

import gechat
from gechat.api import routes_documents, routes_workspaces
from gechat.api.access import OPEN_PATHS, AccessMiddleware, check_origins
from gechat.api.body_limit import BodyLimitMiddleware
from gechat.api.jobs import JobStore
from gechat.api.keys import KeyStore
from gechat.api.problems import PROBLEM_JSON, ApiError, install_handlers
from gechat.api.state import ServerState
from gechat.api.uploads import UploadLimit
from gechat.api.workspaces import WorkspaceFactory, WorkspaceRegistry
from gechat.settings import Settings

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
               workspace_factory: WorkspaceFactory | None = None, allowed_hosts: list[str] | None = None) -> FastAPI:
    """``workspace_factory(path, settings)`` builds each workspace (tests pass fakes);
    ``max_upload_mb`` defaults to ``settings.max_file_mb``. ``api_key`` is the legacy single
    key (admin on every workspace); the keys file in ``root`` holds the others.
    ``allowed_hosts`` None: no Host check (a library or test app); ``gechat serve`` passes
    ``access.serve_hosts``."""
    keys = KeyStore(Path(root))
    keyed = bool(api_key) or bool(keys.load())  # an unreadable keys file stops the server here
    cors = check_origins(settings.cors_origins)
    state = ServerState(
        settings=settings,
        workspaces=WorkspaceRegistry(Path(root), settings, workspace_factory),
        jobs=JobStore(Path(root), settings),
        upload_limit=UploadLimit.of(settings.max_file_mb, "max_file_mb") if max_upload_mb is None
        else UploadLimit.of(max_upload_mb, "max_upload_mb"),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.jobs.start(state.workspaces)  # resumes what a stopped server left unfinished
        yield
        state.jobs.close()
        state.workspaces.close()

    app = GechatAPI(title="gechat", version=gechat.__version__, lifespan=lifespan,
                    summary="Answers about your own documents, with verbatim, entailment-checked evidence.")
    app.api_key_required = keyed
    app.state.gechat = state
    install_handlers(app)
    app.include_router(routes_workspaces.router)
    app.include_router(routes_documents.router)
    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    # inside the access checks (a client without a key learns nothing), before any body is read
    app.add_middleware(BodyLimitMiddleware, limit=state.upload_limit,
                       workspace_exists=lambda ws: ws in state.workspaces.ids())
    app.add_middleware(AccessMiddleware, keys=keys, legacy_key=api_key, allowed_hosts=allowed_hosts,
                       cors_origins=cors, job_workspace=lambda job_id: _job_workspace(state, job_id))
    if cors:  # outside the access checks: a browser's preflight carries no key
        app.add_middleware(CORSMiddleware, allow_origins=cors, allow_methods=["*"], allow_headers=["*"],
                           expose_headers=["Location"])
    return app


def _job_workspace(state: ServerState, job_id: str) -> str | None:
    try:
        return state.jobs.get(job_id).workspace
    except ApiError:
        return None

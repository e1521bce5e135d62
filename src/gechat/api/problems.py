"""Every error leaves the API as ``application/problem+json`` (RFC 9457) with a hint.

The library's errors already carry a message and a hint a person can act on; this module
only chooses their HTTP status. Anything else is a bug: it is logged with its traceback and
answered with a plain 500 problem, so internals never reach the client.
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from gechat.errors import ConfigError, GechatError, LoadError, ModelError, StoreError, UnsupportedFileError

log = logging.getLogger("gechat.api")
PROBLEM_JSON = "application/problem+json"


class FieldError(BaseModel):
    loc: list[str | int]
    msg: str


class Problem(BaseModel):
    type: str
    title: str
    status: int
    detail: str
    hint: str | None = None
    errors: list[FieldError] | None = None  # request validation only: one entry per bad field


# stable problem types by status (the standard phrases change between Python versions)
_CODES = {400: "bad-request", 401: "unauthorized", 404: "not-found", 405: "method-not-allowed", 409: "conflict",
          413: "too-large", 415: "unsupported-type", 422: "invalid", 500: "internal", 503: "unavailable"}


class ApiError(GechatError):
    """An error of the HTTP layer itself (unknown workspace, file too large, ...)."""

    def __init__(self, status: int, message: str, hint: str | None = None, code: str | None = None) -> None:
        super().__init__(message, hint)
        self.status = status
        self.code = code or code_of(status)


def code_of(status: int) -> str:
    return _CODES.get(status, f"http-{status}")


# most specific first: UnsupportedFileError is a LoadError
_STATUS: tuple[tuple[type[GechatError], int], ...] = (
    (UnsupportedFileError, 415),
    (LoadError, 422),
    (ModelError, 503),  # the model is missing or its server is down: the request itself was fine
    (ConfigError, 400),
    (StoreError, 409),  # the workspace's state forbids it: no documents yet, another embedder
)


def status_for(e: GechatError) -> int:
    if isinstance(e, ApiError):
        return e.status
    return next((status for cls, status in _STATUS if isinstance(e, cls)), 400)


def problem_of(e: GechatError) -> Problem:
    status = status_for(e)
    if isinstance(e, ApiError):
        code = e.code
    elif type(e) is GechatError:
        code = code_of(status)
    else:  # the library's error class says more than the status: store, load, model, config, ...
        code = _slug(type(e).__name__.removesuffix("Error"))
    return Problem(type=f"urn:gechat:problem:{code}", title=HTTPStatus(status).phrase, status=status,
                   detail=e.message, hint=e.hint or None)


def internal_problem() -> Problem:
    return Problem(type="urn:gechat:problem:internal", title=HTTPStatus(500).phrase, status=500,
                   detail="an unexpected error happened; the server log has the details",
                   hint="try again; if it persists, report it with the server log")


def problem_response(p: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(p.model_dump(exclude_none=True), status_code=p.status, media_type=PROBLEM_JSON,
                        headers=headers)


def install_handlers(app: FastAPI) -> None:
    async def gechat_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, GechatError)
        return problem_response(problem_of(exc))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        p = Problem(type=f"urn:gechat:problem:{code_of(exc.status_code)}", title=HTTPStatus(exc.status_code).phrase,
                    status=exc.status_code, detail=str(exc.detail))
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 404:
            p.hint = "GET /docs lists the routes"
        elif exc.status_code == 405:
            # Starlette's Allow names only the first route on the path; a path has one per method
            headers["Allow"] = ", ".join(allowed_methods(request))
        return problem_response(p, headers=headers or None)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [FieldError(loc=list(e.get("loc", ())), msg=str(e.get("msg", ""))) for e in exc.errors()]
        first = errors[0] if errors else None
        where = ".".join(str(x) for x in first.loc) if first else "request"
        p = Problem(type="urn:gechat:problem:invalid", title=HTTPStatus(422).phrase, status=422,
                    detail=f"{where}: {first.msg}" if first else "the request is not valid",
                    hint="GET /openapi.json describes every request", errors=errors)
        return problem_response(p)

    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return problem_response(internal_problem())

    app.add_exception_handler(GechatError, gechat_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, internal_error)


def allowed_methods(request: Request) -> list[str]:
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] != Match.NONE:
            methods |= route.methods
    return sorted(methods)


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for a route's error statuses, all with the Problem schema."""
    out: dict[int | str, dict[str, Any]] = {}
    for s in sorted({*statuses, 422, 500}):
        out[s] = {"model": Problem, "description": HTTPStatus(s).phrase}
    return out  # the app's schema then files them under application/problem+json


def _slug(text: str) -> str:
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")

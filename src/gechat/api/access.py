"""Who may do what on the API server: the Host and Origin checks, and API keys with grants.

One ASGI middleware, acting on the request's headers before its body is read, so a refused
client cannot make the server spool an upload. In order:

1. Host (only as ``gechat serve`` builds the app, and only while no key is in force): a name
   outside ``allowed_hosts`` is refused, so a web page that rebinds its own DNS name to
   127.0.0.1 still cannot read the server (its requests carry its own name).
2. Origin: a state-changing request a browser sends from another site is refused, with or
   without keys, unless its origin is in ``cors_origins``.
3. Keys (when the keys file holds any, or the legacy single key is set): every route but the
   open ones needs a key, and the key a grant on the request's workspace (``need_for``).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from gechat.api.keys import ALL, Grants, KeyStore, Role, rank, role_on
from gechat.api.problems import Problem, problem_response
from gechat.errors import ConfigError, GechatError

OPEN_PATHS = frozenset({"/v1/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/"})
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
GRANTS = "gechat_grants"  # on the request's state: the key's grants, for routes that filter by them
_DEFAULT_PORT = {"http": 80, "https": 443}
KEY_HINT = "send it as `Authorization: Bearer KEY` or `X-API-Key: KEY`"

JobWorkspace = Callable[[str], str | None]  # a job id -> its workspace (None: no such job)
Refusal = tuple[Problem, dict[str, str] | None]


@dataclass(frozen=True)
class Need:
    """What a request needs: a valid key (role None), or a role on a workspace ("*": on every
    workspace), or read on the workspace of a job."""

    role: Role | None = None
    workspace: str | None = None
    job: str | None = None


def need_for(method: str, path: str) -> Need:
    """The grant a request needs, from its method and path alone. Anything not named here
    still needs a valid key; routes the server lacks answer 404 after that."""
    parts = path.split("/")[1:]
    if parts and parts[-1] == "":
        parts.pop()
    if parts[:2] == ["v1", "workspaces"]:
        rest = parts[2:]
        if not rest:  # the list is filtered by the key's grants; creating needs admin on "*"
            return Need("admin", ALL) if method in STATE_CHANGING else Need()
        ws = rest[0]
        if method in SAFE:
            return Need("read", ws)
        if len(rest) == 1:
            return Need("admin", ws)  # deleting the workspace
        if rest[1] == "ask":
            return Need("read", ws)  # asking (and its read-ahead) changes nothing
        return Need("write", ws)  # documents added or removed, or anything else changed inside
    if parts[:2] == ["v1", "jobs"] and len(parts) >= 3:
        return Need("read" if method in SAFE else "write", job=parts[2])
    return Need()


def serve_hosts(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The Host names ``gechat serve`` answers to without a key: the loopback names, the
    address it listens on, and the ``allowed_hosts`` setting."""
    out = [*LOOPBACK_HOSTS, host, *extra]
    return list(dict.fromkeys(h.strip().lower() for h in out if h.strip()))


def visible(request: Request, workspace_ids: list[str]) -> list[str]:
    """The workspaces the request's key has a grant on (all of them when no key is in force)."""
    grants: Grants | None = getattr(request.state, GRANTS, None)
    if grants is None or rank(grants.get(ALL)):
        return workspace_ids
    return [ws for ws in workspace_ids if rank(grants.get(ws))]


def check_origins(origins: Iterable[str]) -> list[str]:
    """``cors_origins`` in the form browsers send (``scheme://host[:port]``, the default port
    left out); anything else is a ConfigError, since a typo would silently allow nothing."""
    out = []
    for o in origins:
        parsed = _origin(o)
        u = urlsplit(o.strip()) if parsed is not None else None
        if parsed is None or u is None or u.path not in ("", "/") or u.query or u.fragment or u.username is not None:
            raise ConfigError(f"bad cors_origins entry {o!r}",
                              hint="write origins as scheme://host[:port], e.g. https://app.example.com")
        scheme, host, port = parsed
        name = f"[{host}]" if ":" in host else host
        out.append(f"{scheme}://{name}" + ("" if port == _DEFAULT_PORT[scheme] else f":{port}"))
    return out


class AccessMiddleware:
    def __init__(self, app: ASGIApp, *, keys: KeyStore, legacy_key: str | None = None,
                 allowed_hosts: list[str] | None = None, cors_origins: Iterable[str] = (),
                 job_workspace: JobWorkspace | None = None) -> None:
        self.app = app
        self.keys = keys
        self.legacy = legacy_key.encode() if legacy_key else None
        self.hosts = None if allowed_hosts is None else [_host_pattern(h) for h in allowed_hosts]
        self.origins = {o for o in (_origin(x) for x in cors_origins) if o is not None}
        self.job_workspace: JobWorkspace = job_workspace or (lambda job_id: None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            refusal = self._refusal(scope)
        except GechatError as e:  # the keys file broke: refuse everything rather than fall open
            refusal = _problem(503, e.message, e.hint or None, "keys-unreadable"), None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        problem, headers = refusal
        await problem_response(problem, headers=headers)(scope, receive, send)

    def keyed(self) -> bool:
        return self.legacy is not None or bool(self.keys.load())

    def _refusal(self, scope: Scope) -> Refusal | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method, path = scope["method"], scope.get("path", "")
        keyed = self.keyed()
        host = _split_host(headers.get("host", ""))
        if self.hosts is not None and not keyed and not (host and any(_host_ok(p, host) for p in self.hosts)):
            name = headers.get("host", "")[:100]
            return _problem(403, f"requests for host {name!r} are refused: it is not in the allowed_hosts setting",
                            "open the server as 127.0.0.1 or localhost, or add the name to allowed_hosts "
                            "(GECHAT_ALLOWED_HOSTS='[\"name\"]'), or set an API key", "host-not-allowed"), None
        origin = headers.get("origin")
        if method in STATE_CHANGING and origin is not None and not self._origin_ok(origin, scope, host):
            detail = f"cross-origin {method} from {origin[:100]} refused: it is not in the cors_origins setting"
            hint = "send it from the server's own page, or add the origin to cors_origins"
            return _problem(403, detail, hint, "cross-origin"), None
        if not keyed or path in OPEN_PATHS or path.startswith("/web/"):
            return None  # the page itself holds no data: it asks for a key when the API answers 401
        grants = self._grants(headers)
        if grants is None:
            unauthorized = _problem(401, "this server needs an API key", KEY_HINT, "unauthorized")
            return unauthorized, {"WWW-Authenticate": "Bearer"}
        scope.setdefault("state", {})[GRANTS] = grants
        return self._denied(grants, need_for(method, path))

    def _origin_ok(self, origin: str, scope: Scope, host: tuple[str, int | None] | None) -> bool:
        given = _origin(origin)
        if given is None:  # "null" (a sandboxed frame, a file) or garbage: never same-origin
            return False
        if given in self.origins:
            return True
        scheme = scope.get("scheme", "http")
        if host is None:
            return False
        name, port = host
        return given == (scheme, name, port if port is not None else _DEFAULT_PORT.get(scheme, 0))

    def _grants(self, headers: dict[str, str]) -> Grants | None:
        token = _token(headers)
        if token is None:
            return None
        if self.legacy is not None and hmac.compare_digest(token.encode("latin-1"), self.legacy):
            return {ALL: "admin"}  # the single key of --api-key-env: everything, as before keys had grants
        key = self.keys.find(token)
        return None if key is None else dict(key.grants)

    def _denied(self, grants: Grants, need: Need) -> Refusal | None:
        if need.role is None:
            return None
        hint = "on the server, `gechat keys add --workspace WS --role ROLE` makes a key with that grant"
        if need.job is not None:
            ws = self.job_workspace(need.job)
            if ws is None:
                return None  # an unknown job is the route's 404
            if not role_on(grants, ws):
                # as unknown as a job that does not exist: the key learns nothing of other workspaces
                return _problem(404, f"no job {need.job!r}", "jobs are kept in memory: a server restart forgets "
                                "them", "not-found"), None
        else:
            ws = need.workspace or ALL
        if ws == ALL:
            if rank(grants.get(ALL)) >= rank(need.role):
                return None
            return _problem(403, f"this needs a key with {need.role} on every workspace ('*')", hint, "forbidden"), None
        if role_on(grants, ws) >= rank(need.role):
            return None
        # the same answer whether the workspace exists or not: a key cannot probe for names
        return _problem(403, f"this key has no {need.role} access to workspace {ws!r}", hint, "forbidden"), None


def _problem(status: int, detail: str, hint: str | None, code: str) -> Problem:
    return Problem(type=f"urn:gechat:problem:{code}", title=HTTPStatus(status).phrase, status=status,
                   detail=detail, hint=hint)


def _token(headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return headers.get("x-api-key", "").strip() or None


def _split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header as (name, port): 'Example.org:80' -> ('example.org', 80), '[::1]' -> ('::1', None)."""
    v = value.strip().lower().rstrip(".")
    if not v:
        return None
    if v.startswith("["):
        end = v.find("]")
        name, rest = v[1:end], v[end + 1:]
        if end < 0 or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    elif v.count(":") > 1:  # a bare IPv6 address (allowed_hosts may write ::1)
        name, port = v, ""
    else:
        name, _, port = v.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return None
    return name, int(port) if port else None


def _host_pattern(entry: str) -> tuple[str, int | None]:
    if entry.strip() == "*":
        return "*", None
    parsed = _split_host(entry)
    if parsed is None:
        raise ConfigError(f"bad allowed_hosts entry {entry!r}", hint="write host names, e.g. gechat.example.com")
    return parsed


def _host_ok(pattern: tuple[str, int | None], host: tuple[str, int | None]) -> bool:
    name, port = pattern
    if port is not None and port != host[1]:
        return False
    if name == "*":
        return True
    if name.startswith("*."):  # every subdomain, not the name itself
        return host[0].endswith(name[1:])
    return host[0] == name


def _origin(value: str) -> tuple[str, str, int] | None:
    try:
        u = urlsplit(value.strip())
        port = u.port
    except ValueError:
        return None
    if u.scheme not in _DEFAULT_PORT or not u.hostname:
        return None
    return u.scheme, u.hostname.rstrip("."), port if port is not None else _DEFAULT_PORT[u.scheme]


__all__ = ["OPEN_PATHS", "AccessMiddleware", "Need", "check_origins", "need_for", "serve_hosts", "visible"]

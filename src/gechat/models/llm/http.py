"""HTTP plumbing shared by the server backends (Ollama, OpenAI-compatible servers).

One place maps transport failures to a ModelError with a hint: an HTTP error status goes
through the backend's own ``on_status`` (it knows what 401 or 404 means for it); a time-out
and an unreachable server read the same for every backend.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from gechat.errors import ModelError

# (status, detail from the body) -> the error to raise
OnStatus = Callable[[int, str], ModelError]


def httpx_module() -> Any:
    try:
        import httpx
    except ImportError:
        raise ModelError("httpx is not installed", hint="pip install httpx") from None
    return httpx


def error_detail(body: str) -> str:
    """The server's own error message from a JSON body (``{"error": ...}``), else the text."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err)[:300]
    if err:
        return str(err)[:300]
    return body.strip()[:300]


class JsonHttp:
    def __init__(self, url: str, *, timeout_s: float, on_status: OnStatus, unreachable_hint: str,
                 headers: Callable[[], dict[str, str]] | None = None) -> None:
        self.url, self.timeout_s = url, timeout_s
        self.on_status, self.unreachable_hint = on_status, unreachable_hint
        self.headers = headers or (lambda: {"Content-Type": "application/json"})

    def _timeout(self) -> Any:
        # connecting should be quick; generating on a slow box may take the full budget
        return httpx_module().Timeout(self.timeout_s, connect=min(10.0, self.timeout_s))

    def _error(self, e: Exception, body: str) -> ModelError:
        httpx = httpx_module()
        if isinstance(e, httpx.HTTPStatusError):
            return self.on_status(e.response.status_code, error_detail(body) or e.response.reason_phrase)
        if isinstance(e, httpx.TimeoutException):
            return ModelError(f"{self.url} timed out after {self.timeout_s:.0f}s",
                              hint="raise llm_timeout_s or use a smaller model")
        return ModelError(f"cannot reach {self.url}: {e}", hint=self.unreachable_hint)

    def post(self, payload: dict[str, Any]) -> Any:
        httpx = httpx_module()
        body = ""
        try:
            r = httpx.post(self.url, json=payload, headers=self.headers(), timeout=self._timeout())
            body = r.text
            r.raise_for_status()
            return r.json()
        except httpx.HTTPError as e:
            raise self._error(e, body) from None
        except ValueError:
            raise ModelError(f"{self.url} did not answer JSON", hint="check llm_base_url") from None

    def lines(self, payload: dict[str, Any]) -> Iterator[str]:
        """The response body line by line (SSE or NDJSON), as the server sends it."""
        httpx = httpx_module()
        try:
            with httpx.stream("POST", self.url, json=payload, headers=self.headers(),
                              timeout=self._timeout()) as r:
                if r.status_code >= 400:
                    body = r.read().decode("utf-8", "replace")
                    try:
                        r.raise_for_status()
                    except httpx.HTTPStatusError as e:
                        raise self._error(e, body) from None
                yield from r.iter_lines()
        except httpx.HTTPError as e:
            raise self._error(e, "") from None

"""Any OpenAI-compatible chat server (llama.cpp server, vLLM, LM Studio, OpenAI itself)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

from gechat.errors import ModelError
from gechat.models.llm.base import Completion, Message
from gechat.models.llm.http import JsonHttp

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"


class OpenAICompatLLM:
    """Chat completions over HTTP, ``{base_url}/chat/completions``."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 600.0,
    ) -> None:
        self.model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        # the server and the model id together identify the weights for the cache
        self.name = f"openai:{self.base_url}:{model}"
        self.http = JsonHttp(self.url, timeout_s=timeout_s, on_status=self._on_status, headers=self._headers,
                             unreachable_hint="start the server or set llm_base_url (e.g. http://127.0.0.1:8080/v1)")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _payload(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
        seed: int,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
        }
        if stop:
            payload["stop"] = list(stop)
        return payload

    def _on_status(self, status: int, detail: str) -> ModelError:
        hint = "check llm_model and the server's logs"
        if status in (401, 403):
            hint = f"set the API key in the environment variable {self.api_key_env}"
        elif status == 404:
            hint = "check llm_base_url (it usually ends in /v1) and llm_model"
        return ModelError(f"{self.url} answered HTTP {status}: {detail}", hint=hint)

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> Completion:
        payload = self._payload(messages, max_tokens, temperature, stop, seed)
        if json_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "out", "schema": json_schema},
            }
        t0 = time.perf_counter()
        data = self.http.post(payload)
        try:
            text = data["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelError(
                f"{self.url} answered without choices[0].message: {str(data)[:200]}",
                hint="is this an OpenAI-compatible /v1 endpoint?",
            ) from None
        usage = data.get("usage") or {}
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            seconds=time.perf_counter() - t0,
        )

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int = 0,
    ) -> Iterator[str]:
        payload = self._payload(messages, max_tokens, temperature, stop, seed)
        payload["stream"] = True
        for line in self.http.lines(payload):
            text = _sse_delta(line)
            if text is None:
                break
            if text:
                yield text


def _sse_delta(line: str) -> str | None:
    """The text in one SSE line; "" for keep-alives and comments, None at ``[DONE]``."""
    line = line.strip()
    if not line.startswith("data:"):
        return ""
    data = line[len("data:") :].strip()
    if data == "[DONE]":
        return None
    try:
        event = json.loads(data)
        return str(event["choices"][0].get("delta", {}).get("content") or "")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""

"""Ollama's native chat API (``/api/chat``): NDJSON streaming, JSON-schema ``format``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from gechat.errors import ModelError
from gechat.models.llm.base import Completion, Message
from gechat.models.llm.http import JsonHttp

DEFAULT_BASE_URL = "http://127.0.0.1:11434"


class OllamaLLM:
    def __init__(self, model: str, *, base_url: str | None = None, timeout_s: float = 600.0) -> None:
        self.model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.url = f"{self.base_url}/api/chat"
        self.timeout_s = timeout_s
        self.name = f"ollama:{self.base_url}:{model}"
        self.http = JsonHttp(self.url, timeout_s=timeout_s, on_status=self._on_status,
                             unreachable_hint="start it with `ollama serve`, or set llm_base_url")

    def _payload(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
        seed: int,
        stream: bool,
    ) -> dict[str, Any]:
        options: dict[str, Any] = {
            "temperature": temperature,
            "num_predict": max_tokens,
            "seed": seed,
        }
        if stop:
            options["stop"] = list(stop)
        return {
            "model": self.model,
            "messages": list(messages),
            "stream": stream,
            "options": options,
        }

    def _on_status(self, status: int, detail: str) -> ModelError:
        if status == 404 or "not found" in detail.lower():
            return ModelError(f"Ollama at {self.base_url} does not have model {self.model!r}: {detail}",
                              hint=f"ollama pull {self.model}")
        return ModelError(f"{self.url} answered HTTP {status}: {detail}", hint="check the Ollama logs")

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
        payload = self._payload(messages, max_tokens, temperature, stop, seed, stream=False)
        if json_schema is not None:
            payload["format"] = json_schema
        t0 = time.perf_counter()
        data = self.http.post(payload)
        if not isinstance(data, dict) or "message" not in data:
            raise ModelError(
                f"unexpected answer from {self.url}: {str(data)[:200]}",
                hint="is llm_base_url an Ollama server?",
            )
        return Completion(
            text=str(data["message"].get("content") or ""),
            prompt_tokens=int(data.get("prompt_eval_count") or 0),
            completion_tokens=int(data.get("eval_count") or 0),
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
        payload = self._payload(messages, max_tokens, temperature, stop, seed, stream=True)
        for line in self.http.lines(payload):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("error"):
                raise ModelError(f"Ollama: {event['error']}", hint="check the Ollama logs")
            text = (event.get("message") or {}).get("content") or ""
            if text:
                yield str(text)
            if event.get("done"):
                break

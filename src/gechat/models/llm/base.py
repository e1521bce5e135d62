"""The LLM protocol: chat messages in, text out, with token counts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, TypedDict

from pydantic import BaseModel


class Message(TypedDict):
    role: str
    content: str


class Completion(BaseModel):
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False


class LLM(Protocol):
    """A chat model. ``name`` identifies the exact weights (it keys the cache)."""

    name: str

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> Completion: ...

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int = 0,
    ) -> Iterator[str]: ...

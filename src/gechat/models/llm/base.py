"""The LLM protocol: chat messages in, text out, with token counts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypedDict, runtime_checkable

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


@runtime_checkable
class Prefiller(Protocol):
    """A model that can read a prompt ahead of the call that answers it: a later call whose
    prompt starts the same way then only reads the rest (llama.cpp keeps the prompt's KV
    cache). Lets a question's excerpts be read while the person is still typing it."""

    def prefill(self, messages: list[Message], stop: Callable[[], bool] | None = None) -> bool:
        """Whether the whole prompt was read: False from a wrapper around a model that cannot,
        or when ``stop()`` turned true first (reading stops soon after; what was read is kept)."""
        ...

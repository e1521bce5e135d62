"""The answer stage: question + context chunks in, answer text and reasoning steps out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from gechat.types import ChunkHit


class Draft(BaseModel):
    """The LLM's answer before grounding."""

    text: str
    thoughts: list[str] = Field(default_factory=list)
    raw: str = ""


class Answerer(Protocol):
    name: str

    def answer(self, question: str, contexts: list[ChunkHit]) -> Draft: ...


@runtime_checkable
class StreamingAnswerer(Protocol):
    """An answerer that can hand out the answer's text as the LLM writes it."""

    def stream(self, question: str, contexts: list[ChunkHit]) -> Iterator[str]: ...

    def parse(self, raw: str) -> Draft: ...


@runtime_checkable
class PrefillingAnswerer(Protocol):
    """An answerer that can have the LLM read a question's prompt ahead of the ask."""

    def prefill(self, question: str, contexts: list[ChunkHit], stop: Callable[[], bool] | None = None) -> bool: ...

"""The answer stage: question + context chunks in, answer text and reasoning steps out."""

from __future__ import annotations

from typing import Protocol

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

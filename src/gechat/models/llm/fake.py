"""A deterministic LLM for tests: scripted replies, a callable, or an echo of the context."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gechat.models.llm.base import Completion, Message

Responder = Callable[[list[Message]], str]

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
_HEADER = re.compile(r"^\[\d+\]\s*\(.*\)\s*$")


def _context_sentences(messages: Sequence[Message]) -> list[str]:
    """Sentences of the excerpts in the last user message (PROMPTS["answer_user"] shape)."""
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    body = user
    if "Excerpts:" in body:
        body = body.split("Excerpts:", 1)[1]
    body = body.split("\n\nQuestion:", 1)[0]
    lines = [ln.strip() for ln in body.splitlines()]
    text = " ".join(ln for ln in lines if ln and not _HEADER.match(ln))
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def default_answer(messages: Sequence[Message]) -> str:
    """``Answer: <first context sentence>`` plus one thought per context sentence (max 2)."""
    sentences = _context_sentences(messages)
    if not sentences:
        return "Answer: The documents do not say.\nThoughts:\n1. The excerpts are empty."
    thoughts = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences[:2], start=1))
    return f"Answer: {sentences[0]}\nThoughts:\n{thoughts}"


def instance_of(schema: dict[str, Any], filler: str) -> Any:
    """A small valid instance of a JSON schema (enough for parse-and-validate tests)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props: dict[str, Any] = schema.get("properties", {})
        return {k: instance_of(v, filler) for k, v in props.items()}
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        return [instance_of(items, filler)] * max(1, int(schema.get("minItems", 1)))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return filler


def count_tokens(text: str) -> int:
    return len(text.split())


class FakeLLM:
    """Replies with, in order of precedence: the scripted list, the callable, the default.

    Every call is recorded in ``calls`` so tests can assert on prompts and parameters.
    """

    def __init__(
        self,
        responses: Sequence[str] | Responder | None = None,
        *,
        name: str = "fake",
    ) -> None:
        self.name = name
        self._script: list[str] | None = None
        self._responder: Responder | None = None
        if callable(responses):
            self._responder = responses
        elif responses is not None:
            self._script = list(responses)
        self._next = 0
        self._lock = threading.Lock()
        self.calls: list[tuple[list[Message], dict[str, Any]]] = []
        self.prefilled: list[list[Message]] = []  # prompts read ahead (Prefiller); they answer nothing

    def _reply(self, messages: list[Message], params: dict[str, Any]) -> str:
        with self._lock:
            self.calls.append((list(messages), params))
            if self._script is not None:
                if self._next >= len(self._script):
                    raise RuntimeError(f"FakeLLM: all {len(self._script)} scripted responses used")
                text = self._script[self._next]
                self._next += 1
                return text
        if self._responder is not None:
            return self._responder(list(messages))
        schema = params.get("json_schema")
        if schema is not None:
            sentences = _context_sentences(messages)
            return json.dumps(instance_of(schema, sentences[0] if sentences else "unknown"))
        return default_answer(messages)

    @staticmethod
    def _clip(text: str, max_tokens: int, stop: list[str] | None) -> str:
        for s in stop or []:
            if s and s in text:
                text = text[: text.index(s)]
        words = re.findall(r"\S+\s*", text)
        if len(words) > max_tokens:
            text = "".join(words[:max_tokens]).rstrip()
        return text

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
        params = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stop": stop,
            "json_schema": json_schema,
            "seed": seed,
        }
        text = self._reply(messages, params)
        if json_schema is None:
            text = self._clip(text, max_tokens, stop)
        prompt = sum(count_tokens(m["content"]) for m in messages)
        return Completion(text=text, prompt_tokens=prompt, completion_tokens=count_tokens(text))

    def prefill(self, messages: list[Message], stop: Callable[[], bool] | None = None) -> bool:
        if stop is not None and stop():
            return False
        with self._lock:
            self.prefilled.append(list(messages))
        return True

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int = 0,
    ) -> Iterator[str]:
        params = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stop": stop,
            "json_schema": None,
            "seed": seed,
            "stream": True,
        }
        text = self._clip(self._reply(messages, params), max_tokens, stop)
        # word-sized pieces, like a real token stream, so consumers see several deltas
        yield from re.findall(r"\s*\S+|\s+$", text)

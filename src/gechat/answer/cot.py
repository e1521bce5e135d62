"""The chain-of-thought answerer: top chunks as numbered excerpts, Answer/Thoughts out."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gechat.answer.base import Draft
from gechat.answer.parser import parse_cot
from gechat.documents.tables import units_once
from gechat.models.llm.base import LLM, Message, Prefiller
from gechat.models.llm.cache import CachedLLM
from gechat.prompts import PROMPTS
from gechat.types import ChunkHit


class CoTAnswerer:
    name = "cot"

    def __init__(self, llm: LLM, *, max_tokens: int, max_thoughts: int, prompt_context: bool = True) -> None:
        self.llm, self.max_tokens, self.max_thoughts = llm, max_tokens, max_thoughts
        # for a guided model (TrustfulLLM): also put the excerpts into the prompt, or not
        self.prompt_context = prompt_context

    def messages(self, question: str, contexts: list[ChunkHit]) -> list[Message]:
        context = "\n\n".join(
            PROMPTS["context_item"].format(n=i, title=h.doc_title, page=h.chunk.page, text=units_once(h.chunk.text))
            for i, h in enumerate(contexts, 1)
        )
        system: Message = {"role": "system",
                           "content": PROMPTS["answer_system"].format(max_thoughts=self.max_thoughts)}
        user: Message = {"role": "user", "content": PROMPTS["answer_user"].format(context=context, question=question)}
        if not getattr(self.llm, "guided", False):
            return [system, user]
        # a guided model reads the excerpts in its own pass: they travel as a context message
        if not self.prompt_context:
            user = {"role": "user", "content": PROMPTS["answer_user_guided"].format(question=question)}
        return [system, {"role": "context", "content": context}, user]

    def answer(self, question: str, contexts: list[ChunkHit]) -> Draft:
        out = self.llm.complete(self.messages(question, contexts), max_tokens=self.max_tokens)
        return self.parse(out.text)

    def stream(self, question: str, contexts: list[ChunkHit]) -> Iterator[str]:
        """Text deltas as they are generated; feed the joined text to ``parse``."""
        yield from self.llm.stream(self.messages(question, contexts), max_tokens=self.max_tokens)

    def prefill(self, question: str, contexts: list[ChunkHit], stop: Callable[[], bool] | None = None) -> bool:
        """Has the model read this answer's prompt ahead of ``stream``/``answer``; False when
        it cannot, or when the answer is already in the LLM cache."""
        messages = self.messages(question, contexts)
        if isinstance(self.llm, CachedLLM) and self.llm.has(messages, max_tokens=self.max_tokens):
            return False
        return isinstance(self.llm, Prefiller) and self.llm.prefill(messages, stop)

    def parse(self, raw: str) -> Draft:
        parsed = parse_cot(raw, self.max_thoughts)
        return Draft(text=parsed.answer, thoughts=parsed.thoughts, raw=raw)

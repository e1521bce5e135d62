"""Reading an answer's prompt ahead of asking (Prefiller): what the answerer passes on, and
when it does nothing."""

from __future__ import annotations

from pathlib import Path

from gechat.answer.cot import CoTAnswerer
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.types import Chunk, ChunkHit

HITS = [ChunkHit(chunk=Chunk(id=1, doc_id=1, ord=0, start=0, end=30, text="The tower was completed in 1889."),
                 score=0.9, doc_title="tower")]
REPLY = "Answer: In 1889.\nThoughts:\n1. The excerpt says 1889."


def test_prefill_passes_the_answer_prompt_through_the_cache_wrapper(tmp_path: Path) -> None:
    fake = FakeLLM([REPLY])
    answerer = CoTAnswerer(CachedLLM(fake, tmp_path / "cache.sqlite"), max_tokens=64, max_thoughts=3)
    assert answerer.prefill("When?", HITS)
    assert fake.prefilled == [answerer.messages("When?", HITS)] and not fake.calls


def test_no_prefill_when_the_answer_is_cached(tmp_path: Path) -> None:
    fake = FakeLLM([REPLY])
    answerer = CoTAnswerer(CachedLLM(fake, tmp_path / "cache.sqlite"), max_tokens=64, max_thoughts=3)
    "".join(answerer.stream("When?", HITS))
    assert not answerer.prefill("When?", HITS)  # the answer comes from the cache: nothing to read
    assert answerer.prefill("And where?", HITS)
    assert len(fake.prefilled) == 1


def test_no_prefill_for_a_model_that_cannot() -> None:
    class Remote:  # like the HTTP backends: complete and stream only
        name = "remote"

        def complete(self, *a: object, **k: object) -> object:
            raise AssertionError

        def stream(self, *a: object, **k: object) -> object:
            raise AssertionError

    answerer = CoTAnswerer(CachedLLM(Remote(), None), max_tokens=64, max_thoughts=3)  # type: ignore[arg-type]
    assert not answerer.prefill("When?", HITS)

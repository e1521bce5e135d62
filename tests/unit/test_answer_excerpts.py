"""The LLM's excerpts cut to the sentences nearest the question (answer_excerpt_tokens)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gechat.answer.excerpts import GAP, focus, keep
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.types import Chunk, ChunkHit, Sentence, Usage


def sentence(i: int, chunk: int, text: str) -> Sentence:
    return Sentence(id=i, doc_id=1, chunk_id=chunk, ord=i, page=1, start=0, end=len(text), text=text)


# Two chunks; sentence i's vector is at angle ANGLES[i] from the query (1, 0).
SENTENCES = [
    sentence(0, 10, "one two three four"),          # 4 tokens, cosine 0.6
    sentence(1, 10, "five six seven eight nine"),   # 5 tokens, cosine 0.9 (chunk 10's best)
    sentence(2, 10, "ten eleven"),                  # 2 tokens, cosine 0.2
    sentence(3, 20, "a b c d e f g h"),             # 8 tokens, cosine 0.8
    sentence(4, 20, "x y z"),                       # 3 tokens, cosine 0.1
]
COSINES = [0.6, 0.9, 0.2, 0.8, 0.1]
VECTORS = np.array([[c, np.sqrt(1 - c * c)] for c in COSINES], np.float32)
QUERY = np.array([1.0, 0.0], np.float32)
HITS = [ChunkHit(chunk=Chunk(id=cid, doc_id=1, ord=n, start=0, end=1, text=f"chunk {cid}"), score=1.0, doc_title="d")
        for n, cid in enumerate((10, 20))]


def test_each_chunk_keeps_its_nearest_sentence_whatever_the_budget() -> None:
    assert keep(HITS, SENTENCES, VECTORS, QUERY, budget=0) == {1, 3}


def test_then_the_nearest_others_while_they_fit() -> None:
    # 5 + 8 kept first (13); 0 (4 tokens) fits in 17; 2 (2 tokens) fits in 19; 4 (3) does not
    assert keep(HITS, SENTENCES, VECTORS, QUERY, budget=19) == {0, 1, 2, 3}
    # a sentence that does not fit is skipped, and a shorter, farther one may still fit
    assert keep(HITS, SENTENCES, VECTORS, QUERY, budget=16) == {1, 2, 3}


def test_focus_marks_each_run_of_left_out_sentences_once() -> None:
    out = focus(HITS, SENTENCES, VECTORS, QUERY, budget=13)
    assert out[0].chunk.text == f"{GAP} five six seven eight nine {GAP}"
    assert out[1].chunk.text == f"a b c d e f g h {GAP}"
    assert [h.chunk.id for h in out] == [10, 20]  # order and identity of the hits kept
    assert HITS[0].chunk.text == "chunk 10"  # the retrieved hits are not changed


def test_a_chunk_read_whole_keeps_its_own_text() -> None:
    out = focus(HITS, SENTENCES, VECTORS, QUERY, budget=100)
    assert out == HITS


def test_vectors_must_match_sentences() -> None:
    with pytest.raises(ValueError, match="5 sentences but 2 vectors"):
        keep(HITS, SENTENCES, VECTORS[:2], QUERY, budget=10)


TEXT = ("The Eiffel Tower is in Paris. Its iron came from Lorraine. "
        "The tower was completed in 1889 for the World's Fair. Visitors climb it every day.")


def test_the_llm_reads_the_budget_and_evidence_still_searches_the_whole_chunk(tmp_path: Path) -> None:
    prompts: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        return ("Answer: The tower was completed in 1889.\nThoughts:\n"
                "1. Its iron came from Lorraine.")

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=200, answer_excerpt_tokens=12)
    fake = FakeLLM(reply)
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(fake, None, Usage()))
    doc = tmp_path / "tower.txt"
    doc.write_text(TEXT)
    ws.add([doc])
    question = "When was the tower completed for the World's Fair?"
    ans = ws.ask(question)
    (prompt,) = prompts
    assert "completed in 1889" in prompt and GAP in prompt
    assert "Visitors climb" not in prompt
    # the step cites a sentence the LLM was not shown; its evidence is still found
    step = next(c for c in ans.claims if c.source == "thought")
    assert step.verdict == "supported" and "Lorraine" in step.evidence[0].text
    assert ans.contexts[0].chunk.text.startswith("The Eiffel Tower")  # the answer keeps the whole chunk


def test_the_read_ahead_reads_exactly_the_prompt_asked(tmp_path: Path) -> None:
    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=200, answer_excerpt_tokens=12)
    fake = FakeLLM(["Answer: In 1889.\nThoughts:\n1. The tower was completed in 1889."])
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(fake, None, Usage()))
    doc = tmp_path / "tower.txt"
    doc.write_text(TEXT)
    ws.add([doc])
    question = "When was the tower completed?"
    assert ws.prepare(question)
    ws.ask(question)
    assert fake.prefilled == [fake.calls[0][0]]
    assert GAP in fake.prefilled[0][-1]["content"]


def test_the_read_ahead_reads_what_an_explaining_retriever_chooses(tmp_path: Path) -> None:
    from gechat.types import CoEFeatures, CoEReport

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=200)
    fake = FakeLLM(["Answer: In 1889.\nThoughts:\n1. The tower was completed in 1889."])
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(fake, None, Usage()))
    doc = tmp_path / "tower.txt"
    doc.write_text(TEXT)
    ws.add([doc])
    plain = ws.retriever
    chosen: list[str] = []

    class Explaining:  # ScopeCoE's shape: it chooses the snippets and says why
        name = "explaining"

        def retrieve(self, question: str, k: int) -> list[ChunkHit]:
            raise AssertionError("an explaining retriever is asked to choose")

        def choose(self, question: str, k: int) -> tuple[list[ChunkHit], CoEReport]:
            chosen.append(question)
            report = CoEReport(features=CoEFeatures(intent="when", relations=[], keywords=[]), snippets=[])
            return plain.retrieve(question, k), report

        def __getattr__(self, name: str) -> object:
            return getattr(plain, name)

    ws.__dict__["retriever"] = Explaining()
    question = "When was the tower completed?"
    hits, report = ws.retrieve(question)
    assert hits and report is not None and report.features.intent == "when"
    assert ws.prepare(question)
    ans = ws.ask(question)
    assert chosen == [question] * 3 and fake.prefilled == [fake.calls[0][0]]
    assert ans.coe is not None

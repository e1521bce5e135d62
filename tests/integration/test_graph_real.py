"""The graph with the real packaged models: the fast extractor on a real PDF (spaCy, MiniLM)
and the LLM extractor with the packaged 1.5B model and its JSON-schema grammar."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.graph.base import ChunkText
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.types import Sentence
from tests.conftest import N18

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not N18.exists(), reason="shared data not found")
def test_fast_graph_on_a_real_pdf_and_hybrid_retrieval(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws", Settings.load("default", graph="fast", retriever="hybrid",
                                                  cache_dir=tmp_path / "cache"))
    (res,) = ws.add([N18])
    assert res.graph is not None and res.graph.complete and res.graph.chunks_failed == 0
    counts = ws.store.graph.counts()
    assert counts["entities"] > 100 and counts["relations"] > 100
    names = {e.name for e in ws.store.graph.entities()}
    assert "Semantic Scholar" in names
    hits = ws.retriever.retrieve("How many nodes does the literature graph in Semantic Scholar have?", 3)
    assert any("280M nodes" in h.chunk.text for h in hits)
    ranked = ws.retriever.rank_sentences("How many nodes does the literature graph have?", 10)
    texts = {s.id: s.text for s in ws.store.sentences_of_chunks([h.chunk.id for h in hits])}
    assert any("280M" in texts.get(sid, "") for sid, _ in ranked)


def test_llm_extractor_with_the_packaged_model_and_grammar(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    from gechat.graph.llm_extract import LLMExtractor
    from gechat.models import build_llm

    llm = build_llm(Settings.load("default", cache_dir=tmp_path / "cache"))  # 0.5B often lists nothing
    text = ["Semantic Scholar is a literature search engine built by the Allen Institute for AI.",
            "Its literature graph links papers, authors and entities such as diseases and drugs."]
    sents = [Sentence(id=i + 1, doc_id=1, chunk_id=1, ord=i, page=1, start=0, end=len(t), text=t)
             for i, t in enumerate(text)]
    (found,) = LLMExtractor(llm).extract([ChunkText(1, 1, " ".join(text), sents)])
    assert not found.failed
    assert found.entities, "the 1.5B model names at least one thing"
    for e in found.entities:  # every kept name is in the text, with the sentences that say it
        assert e.sentence_ids and all(1 <= s <= 2 for s in e.sentence_ids)

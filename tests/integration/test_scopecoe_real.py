"""ScopeCoE with the real packaged models on a real PDF: the 1.5B model's features, the NLI
model's judgments, and the snippets chosen for the demo question."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.pipeline import Workspace
from gechat.retrieve.scopecoe import ScopeCoERetriever
from gechat.settings import Settings
from tests.conftest import N18

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not N18.exists(), reason="shared data not found")
def test_scopecoe_chooses_the_snippet_that_answers_and_says_why(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    ws = Workspace(tmp_path / "ws", Settings.load("default", retriever="scopecoe", cache_dir=tmp_path / "cache"))
    ws.add([N18])
    retriever = ws.retriever
    assert isinstance(retriever, ScopeCoERetriever)
    hits, report = retriever.choose("How many nodes does the literature graph in Semantic Scholar have?", 3)
    f = report.features
    assert f.intent and "Semantic Scholar" in " ".join(f.keywords)
    assert 1 <= len(hits) <= 3 and report.candidates == 10
    assert any("280M" in h.chunk.text for h in hits), [h.chunk.text[:80] for h in hits]
    # every chosen snippet holds at least one feature, and the report names them per snippet
    assert all(s.intent or s.relations or s.keywords for s in report.snippets)
    assert [s.chunk_id for s in report.snippets] == [h.chunk.id for h in hits]
    ws.close()

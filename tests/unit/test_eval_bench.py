"""The evidence bench on two real HotpotQA questions with the deterministic fakes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gechat.eval.bench import Bench, as_claim
from gechat.eval.datasets import DATA, hotpotqa, twowiki
from gechat.eval.summary import summarise
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.settings import Settings
from gechat.types import Usage

pytestmark = pytest.mark.skipif(not (DATA / "hotpotqa_distractor_dev").exists(), reason="shared data not found")


@pytest.fixture
def bench(tmp_path: Path) -> Bench:
    settings = Settings.load("test", cache_dir=tmp_path / "cache")
    return Bench(settings, tmp_path / "work", llm=CachedLLM(FakeLLM(), None, Usage()),
                 selectors=["nli-objective", "reflection", "quote"])


def test_gold_supporting_facts_map_to_our_sentences(bench: Bench) -> None:
    item = hotpotqa(limit=1)[0]
    ws, gold = bench.qa_workspace(item)
    texts = {s.text.strip() for d in ws.documents() for s in ws.store.sentences_of_chunks(ws.store.chunk_ids(d.id))
             if s.id in gold}
    assert len(gold) == len(item.gold)
    assert texts and all(t in item.gold_text() for t in texts)


def test_oracle_and_end_to_end_give_every_selector_a_row(bench: Bench) -> None:
    items = hotpotqa(limit=2)
    results = [r for i, it in enumerate(items) for r in bench.oracle_qa("hotpotqa", it, items[1 - i].answer)]
    results += list(bench.end_to_end_qa("hotpotqa", items[0]))
    assert {(r.mode, r.selector) for r in results} == {(m, s) for m in ("oracle", "e2e")
                                                        for s in ("nli-objective", "reflection", "quote")}
    flat = summarise(results, bench.embedder.embed)
    for key in ("hotpotqa_oracle_f1__nli", "hotpotqa_oracle_f1__reflection", "hotpotqa_oracle_f1__quote",
                "evidence_score__nli", "fabricated_rate__quote", "answer_f1_hotpotqa",
                "hotpotqa_oracle_verdict_balanced_accuracy__nli"):
        assert key in flat and 0.0 <= flat[key] <= 1.0, key


def test_retrieval_strategies_each_get_a_row(bench: Bench) -> None:
    """The graph is built on the way (the bench's workspaces may predate it)."""
    items = hotpotqa(limit=2)
    results = list(bench.retrieved_qa("hotpotqa", items[0], items[1].answer, ("vector", "graph", "hybrid")))
    assert [r.selector for r in results] == ["nli_vector", "nli_graph", "nli_hybrid"]
    assert all(r.mode == "retrieved" and r.not_verbatim == 0 for r in results)
    flat = summarise(results, bench.embedder.embed)
    for s in ("vector", "graph", "hybrid"):
        assert 0.0 <= flat[f"hotpotqa_retrieved_f1__nli_{s}"] <= 1.0


def test_twowiki_splits_and_claim_template() -> None:
    assert len(twowiki("dev")) == 150 and len(twowiki("test")) == 200
    assert not {i.id for i in twowiki("dev")} & {i.id for i in twowiki("test")}
    assert as_claim(" Who? ", " Ann ") == 'The answer to the question "Who?" is: Ann'


def test_llm_subset_rows_also_come_from_kept_llm_questions() -> None:
    from gechat.eval.bench import Result

    def embed(texts: object) -> np.ndarray:
        return np.ones((len(texts), 4), np.float32)  # type: ignore[arg-type]

    rows = [Result("hotpotqa", "oracle", "nli-objective", q, f1=f1) for q, f1 in (("a", 1.0), ("b", 0.0), ("c", 0.0))]
    assert "hotpotqa_oracle_f1_llm_subset__nli" not in summarise(rows, embed)  # no LLM selector rows here
    flat = summarise(rows, embed, {("hotpotqa", "oracle"): {"a"}})  # but kept ones covered question "a"
    assert flat["hotpotqa_oracle_f1_llm_subset__nli"] == 1.0
    assert flat["hotpotqa_oracle_f1__nli"] == pytest.approx(0.3333)

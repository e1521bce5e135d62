"""`gechat bench --quick` end to end with the real packaged models (0.5B LLM, our cross-encoder,
MiniLM embeddings) on one question per suite: every selector gets a row, the key figures are
in range, and no evidence shown is anything but the source's own text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gechat.eval.datasets import DATA

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (DATA / "hotpotqa_distractor_dev").exists(), reason="shared data not found")]


def test_quick_bench_with_real_models(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GECHAT_") or k in (
        "GECHAT_MODELS_DIR", "GECHAT_HOME")}
    p = subprocess.run([sys.executable, "-m", "gechat.cli", "bench", "--quick", "--limit", "1", "--preset", "fast",
                        "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work")],
                       capture_output=True, text=True, env={**env, "GECHAT_CACHE_DIR": str(tmp_path / "cache")},
                       timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    flat = json.loads((tmp_path / "res" / "evidence.json").read_text())
    for key in ("hotpotqa_oracle_f1__nli", "hotpotqa_oracle_f1__reflection", "hotpotqa_oracle_f1__quote",
                "twowiki_test_oracle_f1__nli", "evidence_score__nli", "evidence_score__quote",
                "fabricated_rate__quote", "financebench_page_hit__nli", "answer_f1_hotpotqa"):
        assert key in flat and 0.0 <= flat[key] <= 1.0, key
    assert flat["evidence_spans_shown__nli"] > 0  # the closest sentence is shown even when unsupported
    for sel in ("nli", "reflection", "quote"):
        assert flat[f"not_verbatim_rate__{sel}"] == 0.0  # unlocatable quotes are dropped, never shown
    assert flat["fabricated_rate__nli"] == 0.0
    for strategy in ("vector", "graph", "hybrid"):  # the retrieval-strategy rows (issue 6)
        assert 0.0 <= flat[f"hotpotqa_retrieved_f1__nli_{strategy}"] <= 1.0
        assert flat[f"hotpotqa_retrieved_not_verbatim_rate__nli_{strategy}"] == 0.0
    meta = flat["meta"]
    assert meta["llm"] == "qwen2.5-coder-0.5b" and "machine" in meta and "command" in meta
    md = (tmp_path / "res" / "evidence.md").read_text()
    assert "| nli-objective |" in md and "| reflection |" in md and "| quote |" in md


def test_bench_on_your_own_questions_with_real_models(tmp_path: Path) -> None:
    """`gechat bench --questions FILE`: the document is added, the question asked as a user
    would (the fast preset's 0.5B LLM), and the answer scored with its evidence's page."""
    pytest.importorskip("llama_cpp")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text("# Annual report\n\nAcme Corp reported revenue of $5.2 million in 2023. "
                                    "Its headquarters are in Denver, Colorado.\n")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"question": "What revenue did Acme Corp report in 2023?",
                                     "answer": "$5.2 million", "document": "docs/report.md", "page": 1}) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GECHAT_") or k in (
        "GECHAT_MODELS_DIR", "GECHAT_HOME")}
    p = subprocess.run([sys.executable, "-m", "gechat.cli", "bench", "--questions", str(questions), "--preset", "fast",
                        "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work")],
                       capture_output=True, text=True, env={**env, "GECHAT_CACHE_DIR": str(tmp_path / "cache")},
                       timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    flat = json.loads((tmp_path / "res" / "documents.json").read_text())
    assert flat["documents_e2e_questions"] == 1
    for key in ("answer_accuracy", "supported_rate", "page_hit"):
        assert 0.0 <= flat[f"documents_e2e_{key}"] <= 1.0
    assert flat["documents_e2e_seconds_median"] > 0 and flat["ingest_pages_per_second"] > 0
    (row,) = [json.loads(line) for line in (tmp_path / "res" / "documents_questions.jsonl").read_text().splitlines()]
    assert row["document"] == "report.md" and row["answer"] and row["gold"] == "$5.2 million"
    if "$5.2 million" in row["answer"]:
        assert row["correct"]  # the scoring, on the model's own answer
    assert "| all | 1 |" in (tmp_path / "res" / "documents.md").read_text()

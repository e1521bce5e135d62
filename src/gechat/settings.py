"""One Settings object for the whole pipeline: file, environment (GECHAT_*), flags.

Every stage's implementation is chosen here by name (see ``registry.py``); presets are
named bundles of overrides applied before the environment and explicit values.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from gechat.errors import ConfigError


def default_home() -> Path:
    return Path(os.environ.get("GECHAT_HOME", Path.home() / ".cache" / "gechat"))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GECHAT_", extra="forbid")

    # where things live
    models_dir: Path = Field(default_factory=lambda: default_home() / "models")
    cache_dir: Path = Field(default_factory=lambda: default_home() / "cache")

    # LLM: backend by name; model is a packaged name, a GGUF path, or a server's model id
    llm_backend: str = "llamacpp"
    llm_model: str = "qwen2.5-coder-1.5b"
    llm_base_url: str | None = None
    llm_api_key_env: str = "OPENAI_API_KEY"
    llm_context: int = 4096
    llm_threads: int | None = None
    llm_timeout_s: float = 600.0
    llm_cache: bool = True

    # embeddings
    embedder: str = "minilm-int8"
    embedder_model: str | None = None

    # entailment (evidence scoring)
    entailment: str = "llm"
    entailment_model: str = "qwen2.5-coder-1.5b"
    entailment_batch: int = 32

    # documents
    chunk_tokens: int = 160
    n_chunks: int | None = None  # EvidenceChat's alpha: fixed chunk count per document
    max_file_mb: float = 200.0

    # retrieval
    retriever: str = "vector"
    top_k_chunks: int = 3
    ann_threshold: int = 20_000

    # answer
    answer_max_tokens: int = 320
    max_thoughts: int = 10
    # grounding reasoning steps too costs ~3 s per step with the LLM scorer (benchmarks/results)
    claims_from_thoughts: bool = False

    # evidence (GE-Chat objective F(s) = alpha * P_entail - beta * len_norm(s))
    evidence: str = "nli-objective"
    alpha: float = 0.5
    beta: float = 0.5
    len_norm: str = "words"
    len_ref_words: int = 60
    # the LLM scorer costs ~0.75 s a pair on 2 cores: candidates are pre-ranked by cosine
    evidence_max_candidates: int = 3
    pair_top: int = 3
    supported_threshold: float = 0.5
    contradicted_threshold: float = 0.6

    preset: Literal["default", "fast", "test"] = "default"

    @classmethod
    def load(
        cls, preset: str = "default", file: Path | None = None, **overrides: Any
    ) -> Settings:
        """Preset < file < environment < explicit overrides."""
        values: dict[str, Any] = dict(PRESETS.get(preset, {}))
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}", hint=f"choose one of: {', '.join(PRESETS)}")
        if file is not None:
            try:
                values.update(tomllib.loads(Path(file).read_text()))
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise ConfigError(f"cannot read settings file {file}: {e}") from None
        env_keys = {k[len("GECHAT_"):].lower() for k in os.environ if k.startswith("GECHAT_")}
        for key in env_keys:
            values.pop(key, None)  # the environment wins over preset and file
        values.update({k: v for k, v in overrides.items() if v is not None})
        values["preset"] = preset
        try:
            return cls(**values)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"bad setting {where}: {first['msg']}") from None


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    # the 0.5B model answers fast but scores entailment near chance (AUROC 0.59 on MNLI
    # pairs), so evidence stays with the 1.5B model
    "fast": {"llm_model": "qwen2.5-coder-0.5b"},
    "test": {
        "llm_backend": "fake",
        "llm_model": "fake",
        "embedder": "hashing",
        "entailment": "fake",
        "llm_cache": False,
        "claims_from_thoughts": True,
    },
}

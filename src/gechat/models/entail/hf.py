"""NLI cross-encoders from Hugging Face (any AutoModelForSequenceClassification)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.labels import LabelMap


def allow_download() -> bool:
    return os.environ.get("GECHAT_ALLOW_DOWNLOAD") == "1"


class HFEntailment:
    """Scores (premise, hypothesis) pairs with a sequence classifier, torch on CPU.

    Output columns come from the config's ``id2label`` through ``LabelMap``, never from
    positions, so any checkpoint's label order works.
    """

    name = "hf"

    def __init__(self, model: str, *, batch_size: int = 32, max_tokens: int = 512, threads: int | None = None) -> None:
        self.model_id = model
        self.batch_size = max(1, batch_size)
        self.max_tokens = max_tokens
        self.threads = threads
        self.labels: LabelMap | None = None
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self.pairs_scored = 0
        self.seconds = 0.0

    def load(self) -> HFEntailment:
        with self._lock:
            if self._model is None:
                self._load()
        return self

    def _load(self) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as e:
            raise ModelError(
                f"the hf entailment scorer needs torch and transformers ({e})",
                hint="pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
                " && pip install 'gechat[hf]'",
            ) from None
        local_only = not allow_download()
        try:
            tokenizer = AutoTokenizer.from_pretrained(self.model_id, local_files_only=local_only)
            model = AutoModelForSequenceClassification.from_pretrained(self.model_id, local_files_only=local_only)
        except (OSError, ValueError) as e:
            hint = "give a local model directory"
            if local_only:
                hint += ", or set GECHAT_ALLOW_DOWNLOAD=1 to fetch it from the hub once"
            raise ModelError(f"cannot load NLI model {self.model_id!r}: {e}", hint=hint) from None
        self.labels = LabelMap.from_id2label(model.config.id2label)
        if self.threads:
            torch.set_num_threads(self.threads)
        model.eval()
        self._tokenizer, self._model = tokenizer, model

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        if not premises:
            return np.zeros((0, 3), dtype=np.float32)
        self.load()
        import torch

        assert self.labels is not None
        t0 = time.perf_counter()
        out: list[npt.NDArray[np.float32]] = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(premises), self.batch_size):
                batch = list(premises[i : i + self.batch_size])
                enc = self._tokenizer(
                    batch,
                    [hypothesis] * len(batch),
                    padding=True,
                    # longest_first trims the (usually longer) premise and never fails
                    truncation="longest_first",
                    max_length=self.max_tokens,
                    return_tensors="pt",
                )
                logits = self._model(**enc).logits.float().cpu().numpy()
                out.append(self.labels.logits_to_probs(logits))
        self.pairs_scored += len(premises)
        self.seconds += time.perf_counter() - t0
        return np.concatenate(out, axis=0)

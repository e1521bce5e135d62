"""An NLI cross-encoder exported to ONNX: onnxruntime + a tokenizer.json, no torch.

The directory holds what ``training/export_onnx.py`` writes: model.int8.onnx (or
model.onnx), tokenizer.json, labels.json (id2label) and manifest.json with each file's
sha256, which is checked on load so a damaged or swapped file is refused, not trusted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.labels import LabelMap, load_labels
from gechat.models.manager import sha256_file
from gechat.models.onnx_common import OnnxModel, open_model, sorted_batches


class ONNXEntailment:
    name = "onnx"

    def __init__(self, model_dir: str | Path, *, quantized: bool = True, batch_size: int = 32,
                 threads: int = 2, max_tokens: int = 256) -> None:
        self.dir = Path(model_dir)
        self.file = self.dir / ("model.int8.onnx" if quantized else "model.onnx")
        self.batch_size, self.threads, self.max_tokens = batch_size, threads, max_tokens
        self._model: OnnxModel | None = None
        self.labels: LabelMap | None = None
        self._lock = threading.Lock()
        self.pairs_scored = 0

    def _verify(self) -> None:
        try:
            manifest = json.loads((self.dir / "manifest.json").read_text())
        except (OSError, ValueError) as e:
            raise ModelError(f"{self.dir}: no readable manifest.json ({e})",
                             hint="export the model with training/export_onnx.py") from None
        for name in (self.file.name, "tokenizer.json", "labels.json"):
            want = manifest.get("files", {}).get(name, {}).get("sha256")
            path = self.dir / name
            if not path.is_file():
                raise ModelError(f"{path} is missing", hint="re-export or reinstall the model")
            if want is None or sha256_file(path) != want:
                raise ModelError(f"{path}: sha256 does not match manifest.json",
                                 hint="the file is damaged or was replaced; re-export or reinstall it")

    def load(self) -> ONNXEntailment:
        with self._lock:
            if self._model is not None:
                return self
            self._verify()
            self.labels = load_labels(self.dir / "labels.json")
            self._model = open_model(self.file, self.dir / "tokenizer.json", threads=self.threads,
                                     max_tokens=self.max_tokens)
        return self

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.load()
        assert self.labels is not None
        if not premises:
            return np.zeros((0, 3), dtype=np.float32)
        assert self._model is not None
        out = np.empty((len(premises), 3), dtype=np.float32)
        for idx in sorted_batches(premises, self.batch_size):
            logits, _ = self._model.run(self._model.tokenizer.encode_batch([(premises[i], hypothesis) for i in idx]))
            out[idx] = self.labels.logits_to_probs(logits)
        self.pairs_scored += len(premises)
        return out

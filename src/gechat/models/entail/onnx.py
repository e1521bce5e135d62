"""An NLI cross-encoder exported to ONNX: onnxruntime + a tokenizer.json, no torch.

The directory holds what ``training/export_onnx.py`` writes: model.int8.onnx (or
model.onnx), tokenizer.json, labels.json (id2label) and manifest.json with each file's
sha256, which is checked on load so a damaged or swapped file is refused, not trusted.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.labels import LabelMap, load_labels


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class ONNXEntailment:
    name = "onnx"

    def __init__(self, model_dir: str | Path, *, quantized: bool = True, batch_size: int = 32,
                 threads: int = 2, max_tokens: int = 256) -> None:
        self.dir = Path(model_dir)
        self.file = self.dir / ("model.int8.onnx" if quantized else "model.onnx")
        self.batch_size, self.threads, self.max_tokens = batch_size, threads, max_tokens
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: list[str] = []
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
            if want is None or _sha256(path) != want:
                raise ModelError(f"{path}: sha256 does not match manifest.json",
                                 hint="the file is damaged or was replaced; re-export or reinstall it")

    def load(self) -> ONNXEntailment:
        with self._lock:
            if self._session is not None:
                return self
            self._verify()
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.dir / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            session = ort.InferenceSession(str(self.file), sess_options=opts, providers=["CPUExecutionProvider"])
            self._inputs = [i.name for i in session.get_inputs()]
            self.labels = load_labels(self.dir / "labels.json")
            self._tokenizer, self._session = tokenizer, session
        return self

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.load()
        assert self.labels is not None
        if not premises:
            return np.zeros((0, 3), dtype=np.float32)
        # similar lengths per batch: each batch is padded to its longest pair
        order = sorted(range(len(premises)), key=lambda i: len(premises[i]))
        out = np.empty((len(premises), 3), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            enc = self._tokenizer.encode_batch([(premises[i], hypothesis) for i in idx])
            feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                     "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                     "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
            logits = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            out[idx] = self.labels.logits_to_probs(logits)
        self.pairs_scored += len(premises)
        return out

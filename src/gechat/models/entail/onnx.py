"""An NLI cross-encoder exported to ONNX: onnxruntime + a tokenizer.json, no torch.

The directory holds what ``training/export_onnx.py`` writes: model.int8.onnx (or
model.onnx), tokenizer.json, labels.json (id2label) and manifest.json with each file's
sha256, which is checked on load so a damaged or swapped file is refused, not trusted.
An optional calibration.json (``training/calibrate_nli.py``) holds the verdict thresholds
chosen on a dev split; it is checked like the rest when the manifest lists it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.labels import LabelMap, load_labels
from gechat.models.manager import sha256_file
from gechat.models.onnx_common import OnnxModel, batches, open_model

PACKAGED_NLI = "gechat-nli-minilm"
# Pairs per call: one, with ``threads`` single-core calls side by side. The int8 model
# quantizes its activations with a scale taken from the whole call's tensor, so in a batch a
# pair's score moved with its companions (P_entail by up to 0.15 on evidence candidates, enough
# to flip verdicts and to make a calibration grid fit noise); alone, a pair's score depends on
# the pair only. Two one-core calls at once ran MNLI pairs as fast as batches of 8 on two cores.
ONNX_BATCH = 1
PACKAGED_NLI_DIR = Path(__file__).resolve().parents[1] / "data" / "nli-minilm"


def resolve_nli_dir(name: str | None) -> Path:
    """The packaged cross-encoder by name (or by default), else a directory export_onnx.py wrote."""
    if name is None or name == PACKAGED_NLI:
        return PACKAGED_NLI_DIR
    path = Path(name).expanduser()
    if not path.is_dir():
        raise ModelError(f"entailment model {name!r} is neither {PACKAGED_NLI!r} nor a directory",
                         hint="use the packaged model, or a directory written by training/export_onnx.py")
    return path


class ONNXEntailment:
    name = "onnx"

    def __init__(self, model_dir: str | Path, *, quantized: bool = True, batch_size: int = ONNX_BATCH,
                 threads: int = 2, max_tokens: int = 256) -> None:
        self.dir = Path(model_dir)
        self.file = self.dir / ("model.int8.onnx" if quantized else "model.onnx")
        self.batch_size, self.threads, self.max_tokens = batch_size, threads, max_tokens
        # one pair a call: the threads run calls side by side, one core each; batches: one call
        # at a time on all of them
        self.calls_at_once = max(1, threads) if batch_size == 1 else 1
        self._model: OnnxModel | None = None
        self.labels: LabelMap | None = None
        self._lock = threading.Lock()
        self.pairs_scored = 0
        self.calibration: dict[str, float] = {}

    def _verify(self) -> None:
        try:
            manifest = json.loads((self.dir / "manifest.json").read_text())
        except (OSError, ValueError) as e:
            raise ModelError(f"{self.dir}: no readable manifest.json ({e})",
                             hint="export the model with training/export_onnx.py") from None
        listed = manifest.get("files", {})
        required = [self.file.name, "tokenizer.json", "labels.json"]
        if "calibration.json" in listed or (self.dir / "calibration.json").exists():
            required.append("calibration.json")  # thresholds decide verdicts: trusted only when pinned
        for name in required:
            want = listed.get(name, {}).get("sha256")
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
            calib = self.dir / "calibration.json"
            if calib.is_file():
                self.calibration = {k: float(v) for k, v in json.loads(calib.read_text())["thresholds"].items()}
            self._model = open_model(self.file, self.dir / "tokenizer.json",
                                     threads=max(1, self.threads // self.calls_at_once),
                                     max_tokens=self.max_tokens)
        return self

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        return self.score_pairs([(p, hypothesis) for p in premises])

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        """[contradiction, neutral, entailment] per (premise, hypothesis), in input order."""
        self.load()
        assert self.labels is not None and self._model is not None
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        model, encodings = self._model, self._model.encode(pairs)
        groups = batches(encodings, self.batch_size)

        def run(idx: list[int]) -> npt.NDArray[np.float32]:
            return model.run([encodings[i] for i in idx])[0]

        if self.calls_at_once > 1 and len(groups) > 1:
            with ThreadPoolExecutor(self.calls_at_once) as pool:  # onnxruntime releases the GIL in run
                logits = list(pool.map(run, groups))
        else:
            logits = [run(idx) for idx in groups]
        for idx, lg in zip(groups, logits, strict=True):
            out[idx] = self.labels.logits_to_probs(lg)
        self.pairs_scored += len(pairs)
        return out

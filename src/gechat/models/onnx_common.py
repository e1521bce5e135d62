"""What the ONNX models (the MiniLM embedder, the NLI cross-encoder) share: opening a session
with its tokenizer, building input feeds, and batching texts of similar length."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError

I64 = npt.NDArray[np.int64]


@dataclass
class OnnxModel:
    session: Any
    tokenizer: Any
    inputs: list[str]

    def encode(self, inputs: Sequence[Any]) -> list[Any]:
        """Unpadded encodings of texts or (text, text) pairs: ``batches`` groups them by length."""
        return list(self.tokenizer.encode_batch(list(inputs)))

    def run(self, encodings: Sequence[Any]) -> tuple[npt.NDArray[np.float32], I64]:
        """First output of the model for unpadded encodings (padded here to the longest of
        them, with the tokenizer's pad id 0), and their attention mask."""
        width = max((len(e.ids) for e in encodings), default=0)
        ids, types, mask = (np.zeros((len(encodings), width), dtype=np.int64) for _ in range(3))
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n], types[row, :n], mask[row, :n] = e.ids, e.type_ids, 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        out = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0]
        return np.asarray(out, dtype=np.float32), mask


def open_model(model_path: Path, tokenizer_path: Path, *, threads: int, max_tokens: int) -> OnnxModel:
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as e:
        raise ModelError(f"ONNX models need onnxruntime and tokenizers ({e})",
                         hint="pip install onnxruntime tokenizers") from None
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    tokenizer.no_padding()  # OnnxModel.run pads each batch to its own longest
    opts = ort.SessionOptions()
    # a small fixed pool: these models run next to llama.cpp, which wants the cores
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
    return OnnxModel(session, tokenizer, [i.name for i in session.get_inputs()])


def batches(encodings: Sequence[Any], batch_size: int, tokens: int = 0) -> list[list[int]]:
    """Indices in batches of similar token length: each batch is padded to its longest, and
    one long table row in a batch of short sentences would multiply its cost. (Sorting by
    tokens rather than characters left a third of the positions padding in evidence selection.)
    With ``tokens``, a batch of short texts grows past ``batch_size`` while its padded size
    stays within ``tokens``: a batch of eight names of five tokens costs the model's fixed
    overhead eight times over."""
    order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
    out: list[list[int]] = []
    for i in order:
        width = len(encodings[i].ids)  # the longest so far: the order is by length
        if not out or (len(out[-1]) >= batch_size and (len(out[-1]) + 1) * width > tokens):
            out.append([])
        out[-1].append(i)
    return out

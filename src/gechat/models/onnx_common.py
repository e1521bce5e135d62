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

    def run(self, encodings: Sequence[Any]) -> tuple[npt.NDArray[np.float32], I64]:
        """First output of the model for tokenizer encodings, and their attention mask."""
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64), "attention_mask": mask,
                 "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}
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
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
    opts = ort.SessionOptions()
    # a small fixed pool: these models run next to llama.cpp, which wants the cores
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
    return OnnxModel(session, tokenizer, [i.name for i in session.get_inputs()])


def sorted_batches(texts: Sequence[str], batch_size: int) -> list[list[int]]:
    """Indices in batches of similar length: each batch is padded to its longest text, and
    one long table row in a batch of short sentences would multiply its cost."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]

"""Classifier label names -> gechat's fixed [contradiction, neutral, entailment] columns.

Every NLI checkpoint orders its labels differently (MNLI models alone use at least three
orders), so scorers never trust positions: they read the label names (``id2label`` of a
Hugging Face config, or a labels file next to an ONNX export) and project through here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gechat.errors import ModelError
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL


def classify_label(label: str) -> int | None:
    """Which gechat column a label name belongs to, or None if it is not recognisable."""
    norm = label.strip().lower().replace("-", "_").replace(" ", "_")
    if "contra" in norm:
        return CONTRADICTION
    if "neutral" in norm:
        return NEUTRAL
    if "entail" in norm:
        # 2-label models ("entailment" / "not_entailment"): the negative class is
        # "not settled", which is neutral mass, not evidence of contradiction
        if norm.startswith(("not", "non", "no_")):
            return NEUTRAL
        return ENTAILMENT
    return None


@dataclass(frozen=True)
class LabelMap:
    """``columns[i]`` is the gechat column of model output ``i``."""

    labels: tuple[str, ...]
    columns: tuple[int, ...]

    @classmethod
    def from_labels(cls, labels: Sequence[str]) -> LabelMap:
        columns: list[int] = []
        unknown: list[str] = []
        for name in labels:
            col = classify_label(name)
            if col is None:
                unknown.append(name)
            else:
                columns.append(col)
        if unknown:
            raise ModelError(
                f"cannot tell what the classifier labels {unknown} mean",
                hint="an NLI model needs labels naming entailment / neutral / contradiction "
                "(set id2label in its config.json)",
            )
        if columns.count(ENTAILMENT) != 1 or len(set(columns)) != len(columns):
            raise ModelError(
                f"labels {list(labels)} are not an NLI label set",
                hint="expected entailment/neutral/contradiction or entailment/not_entailment",
            )
        return cls(labels=tuple(labels), columns=tuple(columns))

    @classmethod
    def from_id2label(cls, id2label: Mapping[int | str, str]) -> LabelMap:
        by_id = {int(k): v for k, v in id2label.items()}
        if sorted(by_id) != list(range(len(by_id))):
            raise ModelError(f"id2label ids are not 0..n-1: {sorted(by_id)}")
        return cls.from_labels([by_id[i] for i in range(len(by_id))])

    def project(self, probs: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """(n, k) probabilities in model order -> (n, 3) in gechat order."""
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != len(self.columns):
            raise ValueError(f"expected shape (n, {len(self.columns)}), got {p.shape}")
        out = np.zeros((p.shape[0], 3), dtype=np.float64)
        for i, col in enumerate(self.columns):
            out[:, col] += p[:, i]
        return out.astype(np.float32)

    def logits_to_probs(self, logits: npt.ArrayLike) -> npt.NDArray[np.float32]:
        return self.project(softmax(logits))


def softmax(logits: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Row-wise, numerically stable (float64 so rows sum to 1 after the float32 cast)."""
    x = np.asarray(logits, dtype=np.float64)
    if x.ndim == 1:
        x = x[None, :]
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    result: npt.NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
    return result


def load_labels(path: Path) -> LabelMap:
    """Labels shipped next to an exported model: ``config.json`` (id2label), a JSON list or
    mapping, or a text file with one label per line in output order."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ModelError(f"cannot read labels file {path}: {e}") from None
    if Path(path).suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ModelError(f"labels file {path} is not JSON: {e}") from None
        if isinstance(data, dict) and "id2label" in data:
            data = data["id2label"]
        if isinstance(data, dict):
            return LabelMap.from_id2label(data)
        if isinstance(data, list):
            return LabelMap.from_labels([str(x) for x in data])
        raise ModelError(f"labels file {path}: expected a list or an id2label mapping")
    return LabelMap.from_labels([ln.strip() for ln in text.splitlines() if ln.strip()])

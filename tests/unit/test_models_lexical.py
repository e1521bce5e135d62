"""The model-free pieces: hashing embedder, fake entailment, label mapping, registries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gechat.errors import ConfigError, ModelError
from gechat.models import EMBEDDERS, ENTAILERS, LLMS, build_llm
from gechat.models.embed import HashingEmbedder
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL
from gechat.models.entail.fake import FakeEntailment
from gechat.models.entail.labels import LabelMap, classify_label, load_labels, softmax
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.settings import Settings
from gechat.types import Usage


def test_hashing_embedder_is_normalised_deterministic_and_lexical() -> None:
    emb = HashingEmbedder()
    texts = ["The cat sat on the mat.", "the cat sat on the mat", "Stock prices fell sharply.", ""]
    v = emb.embed(texts)
    assert v.shape == (4, 256) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-6)
    assert np.all(v[3] == 0)
    assert float(v[0] @ v[1]) == pytest.approx(1.0, abs=1e-6)  # case/punctuation-blind
    assert float(v[0] @ v[2]) < 0.3
    # stable across processes (no reliance on PYTHONHASHSEED)
    code = "from gechat.models.embed import HashingEmbedder;print(HashingEmbedder().embed(['hello world']).tolist())"
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert np.allclose(json.loads(out.stdout)[0], emb.embed(["hello world"])[0], atol=1e-7)
    # bigrams make word order matter a little
    a, b = emb.embed(["dog bites man", "man bites dog"])
    assert 0.5 < float(a @ b) < 0.999
    assert emb.embed([]).shape == (0, 256)


def test_fake_entailment() -> None:
    fe = FakeEntailment()
    premises = [
        "Paris is the capital of France.",
        "Paris is not the capital of France.",
        "Bananas are yellow.",
        "The capital of France, Paris, is large.",
    ]
    p = fe.score(premises, "The capital of France is Paris.")
    assert p.shape == (4, 3) and p.dtype == np.float32
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-6)
    assert p[0].argmax() == ENTAILMENT and p[0, ENTAILMENT] > 0.9
    assert p[1].argmax() == CONTRADICTION
    assert p[2].argmax() == NEUTRAL
    assert p[3, ENTAILMENT] > 0.9
    neg = fe.score(["The drug isn't approved for children."], "The drug is approved for children.")
    assert neg[0].argmax() == CONTRADICTION
    assert fe.score([], "x").shape == (0, 3)
    assert fe.pairs_scored == 5
    assert np.array_equal(p, FakeEntailment().score(premises, "The capital of France is Paris."))


@pytest.mark.parametrize(
    ("label", "column"),
    [
        ("ENTAILMENT", ENTAILMENT),
        ("entailment", ENTAILMENT),
        ("Neutral", NEUTRAL),
        ("CONTRADICTION", CONTRADICTION),
        ("contradictory", CONTRADICTION),
        ("not_entailment", NEUTRAL),
        ("not entailment", NEUTRAL),
        ("non-entailment", NEUTRAL),
        ("LABEL_0", None),
    ],
)
def test_classify_label(label: str, column: int | None) -> None:
    assert classify_label(label) == column


def test_label_map_reorders_three_labels() -> None:
    lm = LabelMap.from_id2label({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    logits = np.array([[3.0, 1.0, 0.0], [0.0, 0.0, 5.0]])
    out = lm.logits_to_probs(logits)
    raw = softmax(logits)
    assert np.allclose(out, raw[:, [2, 1, 0]], atol=1e-6)
    assert out.dtype == np.float32 and np.allclose(out.sum(1), 1, atol=1e-6)
    # string keys, as in a config.json
    assert LabelMap.from_id2label({"0": "contradiction", "1": "neutral", "2": "entailment"}).columns == (0, 1, 2)


def test_label_map_two_labels_put_rest_into_neutral() -> None:
    lm = LabelMap.from_labels(["entailment", "not_entailment"])
    out = lm.project([[0.7, 0.3]])
    assert np.allclose(out, [[0.0, 0.3, 0.7]])


@pytest.mark.parametrize(
    "labels",
    [
        ["LABEL_0", "LABEL_1", "LABEL_2"],
        ["neutral", "contradiction"],
        ["entailment", "entailment", "neutral"],
    ],
)
def test_label_map_rejects_non_nli(labels: list[str]) -> None:
    with pytest.raises(ModelError):
        LabelMap.from_labels(labels)


def test_load_labels_files(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}})
    )
    assert load_labels(tmp_path / "config.json").columns == (2, 1, 0)
    (tmp_path / "labels.json").write_text(json.dumps(["contradiction", "entailment", "neutral"]))
    assert load_labels(tmp_path / "labels.json").columns == (0, 2, 1)
    (tmp_path / "labels.txt").write_text("entailment\nnot_entailment\n")
    assert load_labels(tmp_path / "labels.txt").columns == (2, 1)
    with pytest.raises(ModelError):
        load_labels(tmp_path / "missing.txt")


def test_softmax_is_stable() -> None:
    p = softmax([[1000.0, 1000.0, -1000.0]])
    assert np.allclose(p, [[0.5, 0.5, 0.0]])


def test_registries_and_build_llm(tmp_path: Path) -> None:
    assert LLMS.names() == ["fake", "llamacpp", "ollama", "openai", "trustful"]
    assert EMBEDDERS.names() == ["hashing", "minilm-int8", "sentence-transformers"]
    assert ENTAILERS.names() == ["cascade", "fake", "hf", "llm", "onnx"]
    s = Settings.load("test", cache_dir=tmp_path / "cache", models_dir=tmp_path / "models")
    assert EMBEDDERS.create(s.embedder, s).dim == 256
    assert ENTAILERS.create(s.entailment, s).name == "fake"
    usage = Usage()
    llm = build_llm(s, usage)
    assert isinstance(llm, CachedLLM) and isinstance(llm.inner, FakeLLM)
    llm.complete([{"role": "user", "content": "hi"}])
    assert usage.stages["other"].calls == 1
    assert not (tmp_path / "cache").exists()  # llm_cache is off in the test preset
    cached = build_llm(s.model_copy(update={"llm_cache": True}))
    cached.complete([{"role": "user", "content": "hi"}])
    assert (tmp_path / "cache" / "llm-cache.sqlite").is_file()
    with pytest.raises(ConfigError):
        LLMS.create("nope", s)
    with pytest.raises(ModelError) as e:
        ENTAILERS.create("hf", s.model_copy(update={"entailment_model": "qwen2.5-coder-0.5b"}))
    assert "entailment_model" in e.value.hint


def test_import_is_light() -> None:
    code = (
        "import sys, gechat.models, gechat.models.manager;"
        "heavy = {'llama_cpp', 'torch', 'onnxruntime', 'transformers', 'httpx'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

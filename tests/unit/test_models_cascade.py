"""The two-stage scorer (issue 39): the verifier reads the top premises and decides every verdict."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from gechat.errors import ModelError
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT
from gechat.models.entail.cascade import CascadeEntailment
from gechat.models.entail.delta import is_target, merge
from gechat.models.entail.verifier import resolve_verifier_dir


class Table:
    """A scorer that returns fixed rows per premise and records what it read."""

    def __init__(self, rows: dict[str, list[float]], calibration: dict[str, float] | None = None) -> None:
        self.rows, self.read = rows, []  # type: ignore[var-annotated]
        self.name = "table"
        self.calibration = calibration or {}

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.read.extend(premises)
        return np.array([self.rows[p] for p in premises], dtype=np.float32)


FAST = {"a": [0.0, 0.1, 0.9], "b": [0.1, 0.2, 0.7], "c": [0.2, 0.3, 0.5], "d": [0.0, 0.6, 0.4],
        "e": [0.9, 0.1, 0.0]}
SLOW = {"a": [0.05, 0.9, 0.05], "b": [0.0, 0.1, 0.9], "c": [0.1, 0.8, 0.1], "d": [0.0, 0.0, 1.0],
        "e": [0.1, 0.8, 0.1]}


def test_the_verifier_reads_the_top_premises_and_the_most_contradicting_one() -> None:
    fast, slow = Table(FAST), Table(SLOW, {"supported": 0.3, "contradicted": 0.5})
    cascade = CascadeEntailment(fast, slow, top=2)
    probs = cascade.score(list("abcde"), "claim")
    assert slow.read == ["a", "b", "e"]  # top two by P(entail), then the top by P(contradiction)
    assert cascade.pairs_verified == 3
    np.testing.assert_allclose(probs[[0, 1, 4]], np.array([SLOW["a"], SLOW["b"], SLOW["e"]]), atol=1e-6)


def test_a_premise_the_verifier_did_not_read_cannot_decide_a_verdict() -> None:
    cascade = CascadeEntailment(Table(FAST), Table(SLOW, {"supported": 0.3, "contradicted": 0.5}), top=1)
    probs = cascade.score(list("abde"), "claim")
    # b and d entail above 0.3 for the fast model, and e contradicts it; unread, they are held below
    # (the verifier read a, the top entailing, and e, the top contradicting)
    assert probs[0, ENTAILMENT] == pytest.approx(0.05)
    assert (probs[1:3, ENTAILMENT] < 0.3).all() and (probs[1:3, ENTAILMENT] > 0.29).all()
    assert (probs[:, CONTRADICTION] < 0.5).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)


def test_settings_thresholds_win_over_the_verifiers() -> None:
    cascade = CascadeEntailment(Table(FAST), Table(SLOW, {"supported": 0.3}), supported=0.8, contradicted=0.7)
    assert cascade.calibration == {"supported": 0.8, "contradicted": 0.7}
    assert cascade.score([], "claim").shape == (0, 3)
    with pytest.raises(ValueError):
        CascadeEntailment(Table(FAST), Table(SLOW), top=0)


def test_the_delta_adds_low_rank_factors_and_replaces_whole_tensors() -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 3))
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(4, 2))
    base = {"m.encoder.layer.0.attention.attn.q.weight": w, "m.encoder.layer.0.output.LayerNorm.weight": np.ones(4)}
    delta = {"m.encoder.layer.0.attention.attn.q.lora_a": a, "m.encoder.layer.0.attention.attn.q.lora_b": b,
             "m.encoder.layer.0.output.LayerNorm.weight": np.full(4, 2.0), "classifier.out_proj.weight": np.eye(3)}
    out = merge(base, delta, 0.5)
    np.testing.assert_allclose(out["m.encoder.layer.0.attention.attn.q.weight"], w + 0.5 * b @ a)
    assert out["m.encoder.layer.0.output.LayerNorm.weight"].tolist() == [2.0] * 4
    assert "classifier.out_proj.weight" in out and base["m.encoder.layer.0.attention.attn.q.weight"] is w
    with pytest.raises(KeyError, match="does not have"):
        merge({}, delta, 1.0)
    assert is_target("mpnet.encoder.layer.11.intermediate.dense")
    assert not is_target("classifier.dense") and not is_target("mpnet.encoder.layer.1.attention.LayerNorm")


def test_an_unbuilt_verifier_or_a_bad_folder_is_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as e:
        resolve_verifier_dir("gechat-nli-mpnet", tmp_path)
    assert e.value.hint and "gechat models pull gechat-nli-mpnet" in e.value.hint
    with pytest.raises(ModelError, match="neither"):
        resolve_verifier_dir(str(tmp_path), tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    assert resolve_verifier_dir(str(tmp_path), tmp_path) == tmp_path


def test_a_verifier_built_by_an_older_recipe_is_built_again(tmp_path: Path) -> None:
    from gechat.models.entail.verifier import RECIPE, built_dir, is_built

    folder = built_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"files": {}}')  # int8 weights, before the recipe was kept
    assert not is_built(tmp_path)
    with pytest.raises(ModelError, match="older recipe") as e:
        resolve_verifier_dir("gechat-nli-mpnet", tmp_path)
    assert e.value.hint and "gechat models pull gechat-nli-mpnet" in e.value.hint
    (folder / "manifest.json").write_text(f'{{"recipe": "{RECIPE}", "files": {{}}}}')
    assert is_built(tmp_path) and resolve_verifier_dir("gechat-nli-mpnet", tmp_path) == folder


def test_a_verifier_with_a_damaged_manifest_is_built_again(tmp_path: Path) -> None:
    from gechat.models.entail.verifier import built_dir, is_built

    folder = built_dir(tmp_path)
    folder.mkdir(parents=True)
    for damaged in ('{"recipe": ', "[1, 2]"):  # cut off mid-write; not an object
        (folder / "manifest.json").write_text(damaged)
        assert not is_built(tmp_path)
        with pytest.raises(ModelError, match="gechat-nli-mpnet"):
            resolve_verifier_dir("gechat-nli-mpnet", tmp_path)

"""The mpnet verifier (issue 39): built from its base's part packages and the packaged delta,
pinned by sha256, right on plain cases and on a role swap, and the cascade through the
registry the pipeline uses; its training script runs end to end on a tiny slice."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gechat.errors import ModelError
from gechat.models import ENTAILERS
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT
from gechat.models.entail.cascade import CascadeEntailment
from gechat.models.entail.onnx import ONNXEntailment
from gechat.models.entail.verifier import DELTA_DIR, build, check_delta, extract_base
from gechat.settings import Settings
from tests.conftest import REPO, models_dir

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built() -> Path:
    pytest.importorskip("torch")
    return build(models_dir())  # once per models folder: about a minute the first time


def test_the_build_is_pinned_and_its_inputs_are_checked(built: Path, tmp_path: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert {"model.int8.onnx", "tokenizer.json", "labels.json", "calibration.json"} <= set(manifest["files"])
    assert manifest["max_logit_diff_vs_torch"]["model.int8.onnx"] < 1.5
    packaged = json.loads((DELTA_DIR / "manifest.json").read_text())["files"]
    assert manifest["built_from"]["delta"]["delta.safetensors"] == packaged["delta.safetensors"]
    assert (DELTA_DIR / "delta.safetensors").stat().st_size < 10 * 2**20  # the delta ships, not the model
    # a damaged copy is refused when it loads
    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    (copy / "calibration.json").write_text('{"thresholds": {"supported": 0.0}}')
    with pytest.raises(ModelError, match="sha256"):
        ONNXEntailment(copy).load()
    # and a damaged delta is refused before anything is built from it
    delta = tmp_path / "delta"
    shutil.copytree(DELTA_DIR, delta)
    (delta / "labels.json").write_text("{}")
    with pytest.raises(ModelError, match="sha256"):
        check_delta(delta)


def test_the_verifier_reads_plain_pairs_and_a_role_swap(built: Path) -> None:
    model = ONNXEntailment(built).load()
    premise = "The film was directed by Norman Jewison and written by John Patrick Shanley."
    p = model.score([premise, "A man is playing a guitar on stage."], "Norman Jewison directed the film.")
    assert p[0, ENTAILMENT] > 0.8 and p[1, ENTAILMENT] < 0.2
    swap = model.score([premise], "John Patrick Shanley directed the film.")[0]
    assert swap[ENTAILMENT] < p[0, ENTAILMENT] - 0.3
    q = model.score(["Revenue was $5.2 billion in 2022."], "Revenue in 2022 was under $1 billion.")[0]
    assert q[CONTRADICTION] > q[ENTAILMENT]
    assert set(model.calibration) == {"supported", "contradicted"}


def test_the_cascade_through_the_registry(built: Path) -> None:
    scorer = ENTAILERS.create("cascade", Settings(entailment="cascade", models_dir=models_dir(), verifier_top=2))
    assert isinstance(scorer, CascadeEntailment) and scorer.calibration == ONNXEntailment(built).load().calibration
    premises = ["Paris is the capital of France.", "The Eiffel Tower is in Paris.", "Lyon is a city in France.",
                "Berlin is the capital of Germany."]
    p = scorer.score(premises, "The capital of France is Paris.")
    assert scorer.pairs_verified >= 2 and int(np.argmax(p[:, ENTAILMENT])) == 0
    assert p[0, ENTAILMENT] >= scorer.calibration["supported"]


def test_the_training_script_runs_on_a_tiny_slice_and_resumes(built: Path, tmp_path: Path) -> None:
    base = extract_base(models_dir() / "all-mpnet-base-v2.zip", tmp_path / "base")
    pack = tmp_path / "pack"
    p = subprocess.run([sys.executable, str(REPO / "training" / "pack_verifier.py"), "--out", str(pack),
                        "--base", str(base), "--swaps", "50", "--dev-size", "20"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(list(pack.glob("base.part-*"))) >= 3
    out = tmp_path / "run"
    args = [sys.executable, str(REPO / "training" / "train_verifier.py"), "--packed", str(pack), "--out", str(out),
            "--limit", "16", "--batch", "4", "--steps", "4", "--ckpt-every", "2", "--max-len", "48"]
    first = subprocess.run([*args, "--minutes", "0.0001"], capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert json.loads(first.stdout.strip().splitlines()[-1])["steps"] == 1
    again = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    summary = json.loads(again.stdout.strip().splitlines()[-1])
    assert summary["steps"] == 4 and set(summary["eval_accuracy"]) >= {"all"}
    from safetensors import safe_open

    with safe_open(str(out / "delta.safetensors"), "np") as f:
        names = list(f.keys())
        assert f.metadata()["scale"] == "2.0" and any(k.endswith(".lora_a") for k in names)


def test_the_models_commands_know_the_verifier(built: Path) -> None:
    from typer.testing import CliRunner

    from gechat.cli import app

    runner = CliRunner()
    folder = ["--models-dir", str(models_dir())]
    verified = runner.invoke(app, ["models", "verify", "gechat-nli-mpnet", *folder])
    assert verified.exit_code == 0 and "matches its manifest" in verified.output
    where = runner.invoke(app, ["models", "path", "gechat-nli-mpnet", *folder])
    assert where.exit_code == 0 and where.output.strip() == str(built)
    again = runner.invoke(app, ["models", "pull", "gechat-nli-mpnet", *folder])  # built once: nothing to do
    assert again.exit_code == 0 and str(built) in again.output.replace("\n", "")


def test_the_careful_preset_grounds_claims_with_the_verifier(built: Path) -> None:
    from gechat.evidence import SELECTORS, ClaimInput, EvidencePool
    from gechat.models import EMBEDDERS

    settings = Settings.load("careful", models_dir=models_dir())
    assert (settings.entailment, settings.contradicted_threshold) == ("cascade", 0.7)
    scorer = ENTAILERS.create(settings.entailment, settings)
    assert isinstance(scorer, CascadeEntailment)
    selector = SELECTORS.create("nli-objective", settings, scorer=scorer,
                                embedder=EMBEDDERS.create(settings.embedder, settings))
    pool = EvidencePool.from_texts([
        "Moonstruck is a 1987 romantic comedy film. It was directed by Norman Jewison and written by John "
        "Patrick Shanley.",
        "The company reported revenue of $5.2 billion in fiscal 2022, up from $4.8 billion in fiscal 2021. "
        "Its headquarters are in Austin, Texas."])
    claims = ["Norman Jewison directed Moonstruck.", "Revenue in fiscal 2022 was $5.2 billion.",
              "Revenue in fiscal 2022 was $4.8 billion.", "The company is based in Dallas."]
    verdicts = [c.verdict for c in selector.select([ClaimInput(text=t, source="answer") for t in claims], pool)]
    assert verdicts[:2] == ["supported", "supported"]
    assert verdicts[2] != "supported"  # the other year's figure
    assert verdicts[3] != "supported"
    assert scorer.pairs_verified > 0  # the verifier read the deciding sentences


def test_the_default_chain_has_the_verifier_read_a_one_passage_support_again(built: Path) -> None:
    from gechat.evidence import SELECTORS, ClaimInput, EvidencePool
    from gechat.evidence.verify import SecondReading
    from gechat.models import EMBEDDERS

    settings = Settings.load("default", models_dir=models_dir())
    assert settings.entailment == "onnx" and "verify" in settings.evidence_steps
    fast = ENTAILERS.create("onnx", settings)
    selector = SELECTORS.create("nli-objective", settings, scorer=fast,
                                embedder=EMBEDDERS.create(settings.embedder, settings))
    (second,) = [s for s in selector.steps if isinstance(s, SecondReading)]  # type: ignore[attr-defined]
    assert second.verifier is not None and second.threshold == second.verifier.calibration["supported"]  # type: ignore[attr-defined]
    premise = ("Moonstruck is a 1987 romantic comedy film directed by Norman Jewison and written by John "
               "Patrick Shanley.")
    claims = ["Norman Jewison directed Moonstruck.", "Moonstruck was directed by its writer, Norman Jewison.",
              "Moonstruck is a 1987 film.", "Moonstruck was written by Norman Jewison."]
    got = selector.select([ClaimInput(text=t, source="answer") for t in claims], EvidencePool.from_texts([premise]))
    assert got[0].verdict == "supported"
    assert second.read >= 1
    # every claim the fast model passes on that sentence keeps its support only where the
    # verifier reads it at its threshold too
    for claim, text in zip(got, claims, strict=True):
        p_fast = float(fast.score([premise], text)[0, ENTAILMENT])
        p_ver = float(second.verifier.score([premise], text)[0, ENTAILMENT])  # type: ignore[union-attr]
        if claim.verdict == "supported":
            assert p_ver >= second.threshold
        elif p_fast >= 0.5 and "verifier" in claim.note:
            assert p_ver < second.threshold

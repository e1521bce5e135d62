"""The grounding-model training script runs end to end on a tiny mix (issue 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from training.nli_data import NLI_DIR

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not NLI_DIR.exists(), reason="shared NLI data not found")]
REPO = Path(__file__).resolve().parents[2]


def test_tiny_training_run_writes_a_loadable_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, str(REPO / "training" / "train_nli.py"), "--out", str(out),
                        "--max-per-source", "8", "--dev-size", "20", "--minutes", "2"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    summary = json.loads(p.stdout.strip().splitlines()[-1])
    assert summary["steps"] >= 1 and 0.0 <= summary["dev_accuracy"] <= 1.0
    config = json.loads((out / "train_config.json").read_text())
    assert config["train_pairs"] == 8 * len(config["train_sources"])
    assert not {"anli_r1_test", "sick_test", "mnli_mismatched_gold"} & set(config["train_sources"])
    log = [json.loads(line) for line in (out / "run_log.jsonl").read_text().splitlines()]
    assert log[0]["step"] == 1 and all(map(lambda r: r.get("loss", 0) == r.get("loss", 0), log))

    from gechat.models.entail.hf import HFEntailment

    probs = HFEntailment(str(out), batch_size=4).load().score(["A cat sleeps."], "An animal sleeps.")
    assert probs.shape == (1, 3) and abs(float(probs.sum()) - 1.0) < 1e-5


def test_export_to_onnx_matches_torch_and_is_verified(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    import shutil

    from gechat.errors import ModelError
    from gechat.models.entail.hf import HFEntailment
    from gechat.models.entail.onnx import ONNXEntailment

    ckpt, out = tmp_path / "run", tmp_path / "onnx"
    train = subprocess.run([sys.executable, str(REPO / "training" / "train_nli.py"), "--out", str(ckpt),
                            "--max-per-source", "4", "--dev-size", "10", "--minutes", "1"],
                           capture_output=True, text=True, timeout=600)
    assert train.returncode == 0, train.stderr[-2000:]
    p = subprocess.run([sys.executable, str(REPO / "training" / "export_onnx.py"), str(ckpt), str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    diffs = json.loads(p.stdout.strip().splitlines()[-1])
    assert diffs["model.onnx"] < 1e-4 and diffs["model.int8.onnx"] < 0.5
    assert json.loads((out / "manifest.json").read_text())["recipe"].endswith("weights uint8 per matrix")
    per_channel = subprocess.run([sys.executable, str(REPO / "training" / "export_onnx.py"), str(ckpt),
                                  str(tmp_path / "onnx-pc"), "--per-channel"],
                                 capture_output=True, text=True, timeout=600)
    assert per_channel.returncode == 0, per_channel.stderr[-2000:]
    assert json.loads(per_channel.stdout.strip().splitlines()[-1])["model.int8.onnx"] < 0.5
    premises = ["A cat sleeps on the mat.", "Revenue rose to 5 billion dollars in 2022, the annual report says.", "x"]
    ref = HFEntailment(str(ckpt), batch_size=2).load().score(premises, "An animal sleeps.")
    got = ONNXEntailment(out, quantized=False, batch_size=2).score(premises, "An animal sleeps.")
    assert abs(got - ref).max() < 1e-4  # same rows in the same order, despite length-sorted batches
    assert ONNXEntailment(out).score(premises, "An animal sleeps.").shape == (3, 3)
    pairs = [(p, "An animal sleeps.") for p in premises] + [("Paris is in France.", "Paris is in Spain.")]
    # fp32: exact; int8 quantises each batch's activations with one scale, so batch-mates matter
    one_hypothesis = ONNXEntailment(out, quantized=False).score(premises, pairs[0][1])
    assert abs(ONNXEntailment(out, quantized=False).score_pairs(pairs)[:3] - one_hypothesis).max() < 1e-5
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    (bad / "labels.json").write_text('{"id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}}')
    with pytest.raises(ModelError, match="sha256"):
        ONNXEntailment(bad).load()

    # calibration: thresholds chosen on dev pairs, stored beside the model and pinned by the manifest
    p = subprocess.run([sys.executable, str(REPO / "training" / "calibrate_nli.py"), str(out), "--max-pairs", "300"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    calib = json.loads((out / "calibration.json").read_text())
    assert set(calib["thresholds"]) == {"supported", "contradicted"} and sum(calib["dev_pairs"].values()) == 300
    assert "calibration.json" in json.loads((out / "manifest.json").read_text())["files"]
    assert ONNXEntailment(out).load().calibration == calib["thresholds"]
    (out / "calibration.json").write_text(json.dumps({"thresholds": {"supported": 0.01, "contradicted": 0.99}}))
    with pytest.raises(ModelError, match="sha256"):
        ONNXEntailment(out).load()


def test_the_shipped_int8_model_dequantizes_to_a_trainable_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from gechat.models.entail.hf import HFEntailment
    from gechat.models.entail.onnx import PACKAGED_NLI_DIR, ONNXEntailment

    out = tmp_path / "deq"
    p = subprocess.run([sys.executable, str(REPO / "training" / "dequantize_onnx.py"), str(PACKAGED_NLI_DIR), str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    report = json.loads(p.stdout.strip().splitlines()[-1])
    assert report["argmax_agrees"] and report["max_logit_diff_vs_onnx"] < 0.5
    premises = ["Moonstruck is a 1987 film directed by Norman Jewison.", "Paris is the capital of France."]
    got = HFEntailment(str(out), batch_size=2).load().score(premises, "Norman Jewison directed a film.")
    ref = ONNXEntailment(PACKAGED_NLI_DIR).load().score(premises, "Norman Jewison directed a film.")
    assert abs(got - ref).max() < 0.1 and (got.argmax(1) == ref.argmax(1)).all()


def test_swaps_and_inside_claims_join_the_mix(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, str(REPO / "training" / "train_nli.py"), "--out", str(out),
                        "--max-per-source", "4", "--dev-size", "10", "--steps", "2", "--swaps", "5",
                        "--claims", "1", "--claims-inside"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    sources = json.loads((out / "train_config.json").read_text())["train_sources"]
    assert sum(v for k, v in sources.items() if k.startswith("swap_")) == 10  # 5 swaps, 5 originals
    assert sources["claims_2wiki"] > 0 and sources["claims_musique"] > 0
    alone = subprocess.run([sys.executable, str(REPO / "training" / "train_nli.py"), "--out", str(tmp_path / "alone"),
                            "--max-per-source", "4", "--dev-size", "10", "--steps", "1", "--swaps", "5",
                            "--swaps-alone"], capture_output=True, text=True, timeout=600)
    assert alone.returncode == 0, alone.stderr[-2000:]
    sources = json.loads((tmp_path / "alone" / "train_config.json").read_text())["train_sources"]
    assert sum(v for k, v in sources.items() if k.startswith("swap_")) == 5


def test_probe_scores_the_packaged_model_on_dev_swaps_and_held_out_sets() -> None:
    from gechat.models.entail.onnx import PACKAGED_NLI_DIR

    p = subprocess.run([sys.executable, str(REPO / "training" / "probe_nli.py"), str(PACKAGED_NLI_DIR),
                        "--halueval-rows", "2", "--thresholds", "0.25", "0.5"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    row = json.loads(p.stdout.strip().splitlines()[-1])
    assert {"dev_vitaminc_accuracy", "dev_snli_test_accuracy", "dev_cad_snli_dev_accuracy"} <= set(row)
    assert row["swaps"] > 100 and 0.0 <= row["swap_original_above_swap"] <= 1.0
    assert 0.5 < row["mnli_mismatched_accuracy"] < 1.0 and 0.5 < row["scitail_test_accuracy"] < 1.0
    # --thresholds, and the packaged model's own threshold (0.25) among them
    assert sorted(k for k in row if k.startswith("halueval_")) == [
        "halueval_first_2_evidence_step_ba_at_0.25", "halueval_first_2_evidence_step_ba_at_0.5"]
    bad = subprocess.run([sys.executable, str(REPO / "training" / "probe_nli.py"), str(REPO / "training")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "holds no model.int8.onnx" in bad.stderr

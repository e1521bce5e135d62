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

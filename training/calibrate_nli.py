"""Choose the verdict thresholds of an exported NLI model on the dev split, and store them with it.

    python training/calibrate_nli.py MODEL_DIR

Scores every dev pair of ``training_mix`` (VitaminC's held-out pages, SNLI test, the
counterfactual SNLI dev set; never a reported evaluation set) with the ONNX model and picks
the P(entailment) threshold for "supported" and the P(contradiction) threshold for
"contradicted" that maximise balanced accuracy (one class against the other two). Writes
calibration.json and refreshes manifest.json so the loader pins it by sha256.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gechat.eval.metrics import best_threshold
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT
from gechat.models.entail.onnx import ONNXEntailment
from gechat.models.manager import write_manifest
from training.nli_data import NOT_ENTAILMENT, training_mix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--fp32", action="store_true", help="calibrate model.onnx instead of model.int8.onnx")
    ap.add_argument("--max-pairs", type=int, default=None, help="a seeded sample of the dev pairs (tests)")
    args = ap.parse_args()
    calib = args.model_dir / "calibration.json"
    calib.unlink(missing_ok=True)  # the old thresholds must not be trusted while we replace them
    write_manifest(args.model_dir)
    _, dev = training_mix()
    dev = [p for p in dev if p.label != NOT_ENTAILMENT]
    if args.max_pairs is not None:
        dev = random.Random(13).sample(dev, min(args.max_pairs, len(dev)))
    model = ONNXEntailment(args.model_dir, quantized=not args.fp32).load()
    probs = model.score_pairs([(p.premise, p.hypothesis) for p in dev])
    gold = np.array([p.label for p in dev])
    t_sup, ba_sup = best_threshold(probs[:, ENTAILMENT], gold == ENTAILMENT)
    t_con, ba_con = best_threshold(probs[:, CONTRADICTION], gold == CONTRADICTION)
    out = {"thresholds": {"supported": t_sup, "contradicted": t_con},
           "dev_balanced_accuracy": {"supported": round(ba_sup, 4), "contradicted": round(ba_con, 4)},
           "dev_accuracy_3way": round(float((probs.argmax(1) == gold).mean()), 4),
           "dev_pairs": dict(Counter(p.source for p in dev)), "model_file": model.file.name,
           "method": "threshold on a 0.01 grid maximising balanced accuracy, one class vs the other two"}
    calib.write_text(json.dumps(out, indent=1) + "\n")
    write_manifest(args.model_dir)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

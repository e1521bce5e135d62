"""Compare candidate cross-encoders quickly, before a full `benchmarks/nli.py` run.

    python training/probe_nli.py MODEL_DIR [MODEL_DIR ...] [--halueval-rows 1000] [--thresholds 0.25] [--fp32]

For each exported model directory (int8, as shipped): 3-way accuracy on each dev source;
role swaps of the dev split's entailed pairs (training/swap_pairs.py: held-out VitaminC pages,
SNLI test, counterfactual-SNLI dev) against their originals, as mean P(entailment) and how
often the original outscores its swap; MNLI dev-mismatched (gold) 3-way accuracy and SciTail
test (entailment vs not, argmax); and the evidence step's balanced accuracy on the first
--halueval-rows rows of HaluEval-QA (`benchmarks/nli.py`'s evidence step, default Settings)
at each --thresholds value and at the model's own calibrated "supported" threshold.
A probe, not a report: the HaluEval rows it reads are half of those `benchmarks/nli.py`
reports on, so a model is chosen by its dev figures and confirmed by the full benchmark.
Prints one JSON line per model.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gechat.evidence import SELECTORS
from gechat.models import EMBEDDERS
from gechat.models.entail.onnx import ONNXEntailment
from gechat.settings import Settings
from nli import evidence_step, halueval_pairs
from training.nli_data import evaluation_sets, training_mix
from training.swap_pairs import swap_pairs


def probe(model_dir: Path, rows: int, thresholds: list[float], *, fp32: bool = False) -> dict[str, float | str]:
    model = ONNXEntailment(model_dir, quantized=not fp32).load()

    def probs(pairs: list) -> np.ndarray:
        return model.score_pairs([(p.premise, p.hypothesis) for p in pairs])

    out: dict[str, float | str] = {"model": str(model_dir), "file": "model.onnx" if fp32 else "model.int8.onnx"}
    _, dev = training_mix(seed=13)
    for source in sorted({p.source for p in dev}):
        pairs = random.Random(5).sample([p for p in dev if p.source == source and p.label >= 0],
                                        min(800, sum(p.source == source for p in dev)))
        out[f"dev_{source}_accuracy"] = float((probs(pairs).argmax(1) == [p.label for p in pairs]).mean())
    made = swap_pairs(dev, random.Random(2), originals=True)
    orig, swapped = probs(made[0::2])[:, 2], probs(made[1::2])[:, 2]
    out |= {"swaps": len(swapped), "swap_original_p_entail": float(orig.mean()),
            "swap_p_entail": float(swapped.mean()), "swap_original_above_swap": float((orig > swapped).mean())}
    held = evaluation_sets()
    mnli = held["mnli_mismatched_gold"]
    out["mnli_mismatched_accuracy"] = float((probs(mnli).argmax(1) == [p.label for p in mnli]).mean())
    sci = held["scitail_test"]
    out["scitail_test_accuracy"] = float(((probs(sci).argmax(1) == 2) == np.array([p.label == 2 for p in sci])).mean())
    if rows <= 0:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}
    settings = Settings.load("default")
    embedder = EMBEDDERS.create(settings.embedder, settings)
    claims = halueval_pairs(rows)
    for t in [*thresholds, model.calibration.get("supported", 0.5)]:
        point = settings.model_copy(update={"supported_threshold": t})
        sel = SELECTORS.create("nli-objective", point, scorer=model, embedder=embedder)
        ba = evidence_step(sel, {"halueval_qa": claims})["halueval_qa_evidence_step_balanced_accuracy"]
        out[f"halueval_first_{rows}_evidence_step_ba_at_{t}"] = ba
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--halueval-rows", type=int, default=1000)
    ap.add_argument("--thresholds", type=float, nargs="*", default=[0.25])
    ap.add_argument("--fp32", action="store_true", help="probe model.onnx, not model.int8.onnx")
    args = ap.parse_args()
    for d in args.models:
        name = "model.onnx" if args.fp32 else "model.int8.onnx"
        if not (d / name).is_file():
            ap.error(f"{d} holds no {name} (run training/export_onnx.py first)")
        print(json.dumps(probe(d, args.halueval_rows, args.thresholds, fp32=args.fp32)), flush=True)


if __name__ == "__main__":
    main()

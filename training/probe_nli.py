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
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gechat.evidence import SELECTORS, EvidenceSelector
from gechat.models import EMBEDDERS
from gechat.models.entail.onnx import ONNXEntailment
from gechat.settings import Settings
from nli import evidence_step, halueval_pairs
from training.nli_data import Pair, read, training_mix
from training.swap_pairs import swap_pairs


class Inputs(NamedTuple):
    """What every probed model is scored on, read once."""

    dev: dict[str, list[Pair]]  # per dev source, a seeded sample of up to 800
    swaps: list[Pair]  # each original followed by its swap
    mnli: list[Pair]
    scitail: list[Pair]
    claims: list  # HaluEval-QA ClaimPairs (benchmarks/nli.py)


def inputs(rows: int) -> Inputs:
    _, dev = training_mix(seed=13)
    by_source: dict[str, list[Pair]] = {}
    for source in sorted({p.source for p in dev}):
        labelled = [p for p in dev if p.source == source and p.label >= 0]
        by_source[source] = random.Random(5).sample(labelled, min(800, len(labelled)))
    return Inputs(by_source, swap_pairs(dev, random.Random(2), originals=True), list(read("mnli_mismatched_gold")),
                  list(read("scitail_test")), halueval_pairs(rows) if rows > 0 else [])


def probe(model: ONNXEntailment, data: Inputs, rows: int, thresholds: list[float],
          evidence: Callable[[float], EvidenceSelector]) -> dict[str, float]:
    def probs(pairs: list[Pair]) -> np.ndarray:
        return model.score_pairs([(p.premise, p.hypothesis) for p in pairs])

    out: dict[str, float] = {}
    for source, pairs in data.dev.items():
        out[f"dev_{source}_accuracy"] = float((probs(pairs).argmax(1) == [p.label for p in pairs]).mean())
    orig, swapped = probs(data.swaps[0::2])[:, 2], probs(data.swaps[1::2])[:, 2]
    out |= {"swaps": len(swapped), "swap_original_p_entail": float(orig.mean()),
            "swap_p_entail": float(swapped.mean()), "swap_original_above_swap": float((orig > swapped).mean())}
    out["mnli_mismatched_accuracy"] = float((probs(data.mnli).argmax(1) == [p.label for p in data.mnli]).mean())
    sci = data.scitail
    out["scitail_test_accuracy"] = float(((probs(sci).argmax(1) == 2) == np.array([p.label == 2 for p in sci])).mean())
    if data.claims:
        # the model's own threshold is often one of --thresholds (the shipped model's is 0.25)
        for t in dict.fromkeys([*thresholds, model.calibration.get("supported", 0.5)]):
            ba = evidence_step(evidence(t), {"halueval_qa": data.claims})["halueval_qa_evidence_step_balanced_accuracy"]
            out[f"halueval_first_{rows}_evidence_step_ba_at_{t}"] = ba
    return {k: round(v, 4) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--halueval-rows", type=int, default=1000)
    ap.add_argument("--thresholds", type=float, nargs="*", default=[0.25])
    ap.add_argument("--fp32", action="store_true", help="probe model.onnx, not model.int8.onnx")
    args = ap.parse_args()
    name = "model.onnx" if args.fp32 else "model.int8.onnx"
    for d in args.models:
        if not (d / name).is_file():
            ap.error(f"{d} holds no {name} (run training/export_onnx.py first)")
    data = inputs(args.halueval_rows)
    settings = Settings.load("default")
    embedder = EMBEDDERS.create(settings.embedder, settings)
    for d in args.models:
        model = ONNXEntailment(d, quantized=not args.fp32).load()

        def evidence(t: float, model: ONNXEntailment = model) -> EvidenceSelector:
            point = settings.model_copy(update={"supported_threshold": t})
            return SELECTORS.create("nli-objective", point, scorer=model, embedder=embedder)

        row = probe(model, data, args.halueval_rows, args.thresholds, evidence)
        print(json.dumps({"model": str(d), "file": name, **row}), flush=True)


if __name__ == "__main__":
    main()

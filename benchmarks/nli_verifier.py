"""The verifier (gechat-nli-mpnet) alone, and the cascade (fast model ranks, verifier decides),
for ``benchmarks/nli.py --verifier DIR``.

The verifier reads about 45 pairs/s on 2 cores, a ninth of the fast model, so its rows use
every pair of the held-out NLI sets, but a slice of HaluEval-QA: rows 4000 on (the half never
used for tuning), ``rows`` of them, two claims each; and ExpertQA's test half (questions
76-150: the verifier was trained on the tuning half's claims, training/task_pairs.py). The fast
model is scored on the same slices beside it, so the two compare like for like.

A model trained on the tuning half of HaluEval-QA could learn how its hallucinated answers are
*written* instead of whether the knowledge states them. The shortcut check scores each claim
against another row's knowledge: a model that reads the premise cannot tell the right answer
from the wrong one there (AUROC near 0.5); one that learned the style still can.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np
from training.nli_data import Pair, training_mix
from training.swap_pairs import swap_pairs

from gechat.eval.metrics import auroc
from gechat.models.entail.cascade import CascadeEntailment
from gechat.models.entail.onnx import ONNXEntailment
from gechat.settings import Settings
from nli import ClaimPair, default_selector, evaluate, evidence_step, expertqa_pairs

HALUEVAL_TEST_FROM = 4000  # rows before this one tune the evidence defaults
EXPERTQA_TEST = slice(75, None)  # questions 1-75 are the tuning half


def halueval_slice(pairs: Sequence[ClaimPair], rows: int) -> list[ClaimPair]:
    """Rows ``HALUEVAL_TEST_FROM`` .. + ``rows`` of HaluEval-QA (two claims a row)."""
    return list(pairs[2 * HALUEVAL_TEST_FROM : 2 * (HALUEVAL_TEST_FROM + rows)])


def held_out_swaps() -> list[Pair]:
    """Role swaps (subject and object exchanged, training/swap_pairs.py) of the dev split's
    entailed pairs, each after its original; the dev pages are never trained on."""
    _, dev = training_mix(seed=13)
    return swap_pairs(dev, random.Random(2), originals=True)


def shortcut_auroc(model: ONNXEntailment, claims: Sequence[ClaimPair]) -> float:
    """AUROC of P(entailment), right versus hallucinated answer, with each claim scored against
    the knowledge of the next row (two claims a row): near 0.5 when the model reads the premise."""
    moved = [(claims[(i + 2) % len(claims)].premise, c.claim) for i, c in enumerate(claims)]
    probs = model.score_pairs(moved)[:, 2]
    return auroc(probs, np.array([c.supported for c in claims]))


def swap_separation(model: ONNXEntailment, swaps: list[Pair]) -> float:
    """How often an original outscores its role swap in P(entailment)."""
    probs = model.score_pairs([(p.premise, p.hypothesis) for p in swaps])[:, 2]
    return float((probs[0::2] > probs[1::2]).mean())


def pairs_per_second(scorer: CascadeEntailment | ONNXEntailment, premises: list[str], hypotheses: list[str],
                     group: int = 20) -> float:
    """Premises scored per second in calls of ``group`` premises against one hypothesis, as the
    evidence step calls a scorer."""
    t = time.perf_counter()
    for start in range(0, len(premises), group):
        scorer.score(premises[start : start + group], hypotheses[start])
    return round(len(premises) / (time.perf_counter() - t), 1)


def verifier_rows(verifier: ONNXEntailment, fast: ONNXEntailment, sets: dict[str, list], rows: int,
                  ) -> dict[str, float]:
    sliced = dict(sets)
    sliced["halueval_qa"] = halueval_slice(sets["halueval_qa"], rows)
    sliced["expertqa"] = expertqa_pairs(questions=EXPERTQA_TEST)
    out: dict[str, float] = {"expertqa_test_claims": len(sliced["expertqa"])}
    threshold = verifier.calibration.get("supported", 0.5)
    alone = evaluate(verifier.score_pairs, sliced, threshold, windowed_long=True)
    out |= {f"verifier_{k}": v for k, v in alone.items()}
    fast_slice = evaluate(fast.score_pairs, {k: sliced[k] for k in ("halueval_qa", "expertqa")},
                          fast.calibration.get("supported", 0.5), windowed_long=True)
    out |= {f"fast_{k}": v for k, v in fast_slice.items()}
    out["verifier_halueval_shortcut_auroc"] = shortcut_auroc(verifier, sliced["halueval_qa"])
    out["fast_halueval_shortcut_auroc"] = shortcut_auroc(fast, sliced["halueval_qa"])
    swaps = held_out_swaps()
    out["verifier_swap_separation"] = round(swap_separation(verifier, swaps), 4)
    out["fast_swap_separation"] = round(swap_separation(fast, swaps), 4)
    claims = {"halueval_qa": sliced["halueval_qa"], "expertqa": sliced["expertqa"]}
    top = Settings.load("default").verifier_top
    cascade = CascadeEntailment(fast, verifier, top=top)
    out |= {f"cascade_{k}": v for k, v in evidence_step(default_selector(cascade), claims).items()}
    out["cascade_pairs_verified"] = cascade.pairs_verified
    fast_step = evidence_step(default_selector(fast), claims)
    out |= {f"fast_{k}": v for k, v in fast_step.items()}
    mnli = sets["mnli_mismatched"][:1000]
    premises, hyps = [p.premise for p in mnli], [p.hypothesis for p in mnli]
    out["cascade_pairs_per_second"] = pairs_per_second(cascade, premises, hyps)
    out["verifier_pairs_per_second"] = pairs_per_second(verifier, premises, hyps)
    out["verifier_top"] = top
    return {k: round(float(v), 4) if isinstance(v, float | np.floating) else v for k, v in out.items()}


def markdown(flat: dict[str, float], rows: int) -> str:
    def g(key: str) -> str:
        return f"{flat[key]:.3f}" if key in flat else "-"

    lines = [("MNLI dev-mismatched (gold), 3-way acc", "mnli_mismatched_accuracy", "mnli_mismatched_accuracy"),
             ("ANLI r1-r3 test, 3-way acc", "anli_test_accuracy", "anli_test_accuracy"),
             ("SciTail test, entail vs not, acc", "scitail_test_accuracy", "scitail_test_accuracy"),
             ("SICK test, 3-way acc", "sick_test_accuracy", "sick_test_accuracy"),
             (f"HaluEval-QA rows {HALUEVAL_TEST_FROM}-{HALUEVAL_TEST_FROM + rows - 1}, balanced acc",
              "fast_halueval_qa_balanced_accuracy", "halueval_qa_balanced_accuracy"),
             ("  the same, AUROC", "fast_halueval_qa_auroc", "halueval_qa_auroc"),
             ("ExpertQA test half (questions 76-150), balanced acc", "fast_expertqa_balanced_accuracy",
              "expertqa_balanced_accuracy"),
             ("  the same, AUROC", "fast_expertqa_auroc", "expertqa_auroc"),
             ("HaluEval-QA shortcut check: AUROC against another row's knowledge (0.5: reads the premise)",
              "fast_halueval_shortcut_auroc", "halueval_shortcut_auroc"),
             ("Role swaps scored below their original (held-out dev pairs)", "fast_swap_separation",
              "swap_separation")]
    body = ("\n## The verifier (gechat-nli-mpnet) and the cascade\n\n"
            "| set | fast model (MiniLM, int8) | verifier alone (mpnet, int8) |\n|---|---|---|\n")
    for label, fast_key, key in lines:
        body += f"| {label} | {g(fast_key)} | {g('verifier_' + key)} |\n"
    body += ("\n| the evidence step's verdict (default Settings), balanced acc | fast model | cascade |\n"
             "|---|---|---|\n"
             f"| HaluEval-QA rows {HALUEVAL_TEST_FROM}-{HALUEVAL_TEST_FROM + rows - 1} | "
             f"{g('fast_halueval_qa_evidence_step_balanced_accuracy')} | "
             f"{g('cascade_halueval_qa_evidence_step_balanced_accuracy')} |\n"
             f"| ExpertQA test half (questions 76-150) | {g('fast_expertqa_evidence_step_balanced_accuracy')} | "
             f"{g('cascade_expertqa_evidence_step_balanced_accuracy')} |\n"
             f"| seconds per claim, HaluEval-QA slice | "
             f"{g('fast_halueval_qa_evidence_step_seconds_per_claim')} | "
             f"{g('cascade_halueval_qa_evidence_step_seconds_per_claim')} |\n"
             f"\nThe cascade: the fast model scores every candidate, the verifier re-reads the "
             f"{flat.get('verifier_top', '-')} it ranks highest in each call (and the most contradicting one) and "
             f"decides the verdict. Premises per second in calls of 20 (MNLI pairs): cascade "
             f"{flat.get('cascade_pairs_per_second', '-')}, verifier alone "
             f"{flat.get('verifier_pairs_per_second', '-')}."
             f" The fast model is scored on the same slices in this run.\n")
    return body

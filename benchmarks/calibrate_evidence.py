"""Choose the evidence objective's defaults on 2WikiMultihopQA tuning questions 101-150.

Oracle mode, no LLM: each question's gold answer, phrased as a claim, must be supported by
the gold supporting sentences of its ten paragraphs, and another question's answer must not
come out supported. Every (sentence, claim) pair is scored once by the entailment model and
memoised, then the real evidence chain is re-run for each point of the grid:

- len_norm (words / log / none) and beta (alpha = 1: only the ratio moves the argmax),
- set_gain: None (sentence sets only when no single sentence passes) or the entailment gain a
  set needs over the best single to replace it,
- set_top, set_anchors (first-level pairs hold one of the that many strongest; None: any
  two), set_max, and the supported threshold.

Questions 1-100 of the tuning split trained the grounding model (training/claim_pairs.py),
so they are not used here.
A point's score is mean oracle sentence F1 + verdict balanced accuracy (both matter: a low
threshold raises F1 by calling everything supported, and BA catches that). The 200 test
questions are never looked at here. Writes benchmarks/results/evidence_calibration.{md,json}.

    python benchmarks/calibrate_evidence.py [--limit N] [--apply]

--apply writes the chosen supported threshold into the packaged model's calibration.json
(the sentence-level dev value stays beside it) and re-pins the manifest; the other values are
Settings defaults, set by hand from the printed choice.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import write
from gechat.eval.bench import Bench, answer_claim, supported_sentences, wrong_answers
from gechat.eval.datasets import twowiki
from gechat.eval.evidence import prf
from gechat.eval.metrics import balanced_accuracy
from gechat.evidence import SELECTORS, ClaimInput, EvidencePool, candidate_count, verdict_thresholds
from gechat.evidence.chain import EvidenceChain
from gechat.models import build_llm
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import EntailmentScorer
from gechat.settings import Settings
from gechat.types import Usage

PENALTIES = (("words", 0.1), ("words", 0.25), ("words", 0.5), ("words", 1.0), ("log", 0.25), ("log", 0.5),
             ("none", 0.0))
GAINS: tuple[float | None, ...] = (None, 0.05, 0.1, 0.2)
SET_TOPS = (4, 6, 8, 10, 12)
ANCHORS: tuple[int | None, ...] = (None, 2, 3, 4)
SET_MAXES = (2, 3)
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
TOLERANCE = 0.02  # points this close to the best are ties: the cheapest (fewest pairs scored) wins


class MemoScorer:
    """Scores each (premise, claim) pair once; re-runs of the grid read the memo."""

    name = "memo"

    def __init__(self, inner: EntailmentScorer) -> None:
        self.inner, self.requested = inner, 0
        self.memo: dict[tuple[str, str], npt.NDArray[np.float32]] = {}
        self.calibration = getattr(inner, "calibration", None)
        self.default_candidates = getattr(inner, "default_candidates", 60)

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.requested += len(premises)  # what a real run would score: the cost of a grid point
        todo = list(dict.fromkeys(p for p in premises if (p, hypothesis) not in self.memo))
        if todo:
            for p, row in zip(todo, np.asarray(self.inner.score(todo, hypothesis), np.float32), strict=True):
                self.memo[(p, hypothesis)] = row
        return np.stack([self.memo[(p, hypothesis)] for p in premises]) if premises else np.zeros((0, 3), np.float32)


class MemoEmbedder:
    name = "memo"

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.dim = inner, inner.dim
        self.memo: dict[str, npt.NDArray[np.float32]] = {}

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if todo:
            self.memo.update(zip(todo, self.inner.embed(todo), strict=True))
        return np.stack([self.memo[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


@dataclass
class Case:
    claims: list[ClaimInput]
    pool: EvidencePool
    gold: set[int]


def evaluate(sel: EvidenceChain, cases: list[Case], memo: MemoScorer | None = None) -> dict[str, float]:
    """Oracle F1 (P / R), verdict balanced accuracy and pairs per claim; ``memo`` counts the
    pairs when the selector's scorer wraps it."""
    memo = memo or sel.context.scorer  # type: ignore[assignment]
    assert isinstance(memo, MemoScorer)
    before = memo.requested
    scores, preds, golds, contra = [], [], [], [0, 0]
    for case in cases:
        right, wrong = sel.select(case.claims, case.pool)
        contra[0] += right.verdict == "contradicted"
        contra[1] += wrong.verdict == "contradicted"
        scores.append(prf(set(supported_sentences([right])), case.gold))
        preds += [right.verdict == "supported", wrong.verdict == "supported"]
        golds += [True, False]
    f1, ba = float(np.mean([m.f1 for m in scores])), balanced_accuracy(preds, golds)
    pairs = (memo.requested - before) / max(1, 2 * len(cases))
    return {"f1": f1, "precision": float(np.mean([m.precision for m in scores])),
            "recall": float(np.mean([m.recall for m in scores])), "verdict_ba": ba, "objective": f1 + ba,
            "pairs_per_claim": pairs, "contradicted_right": contra[0] / max(1, len(cases)),
            "contradicted_wrong": contra[1] / max(1, len(cases))}


def apply_threshold(supported: float, questions: int) -> None:
    from gechat.models.entail.onnx import PACKAGED_NLI_DIR
    from gechat.models.manager import write_manifest

    path = PACKAGED_NLI_DIR / "calibration.json"
    cal = json.loads(path.read_text())
    cal.setdefault("sentence_level", {"supported": cal["thresholds"]["supported"],
                                      "dev_balanced_accuracy": cal["dev_balanced_accuracy"]["supported"]})
    cal["thresholds"]["supported"] = supported
    cal["supported_from"] = (f"benchmarks/calibrate_evidence.py: answer claims, 2WikiMultihopQA tuning questions "
                             f"101-150 ({questions}), oracle mode, F1 + verdict balanced accuracy")
    path.write_text(json.dumps(cal, indent=1) + "\n")
    write_manifest(PACKAGED_NLI_DIR)
    print(f"wrote supported >= {supported} into {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="calibration questions (default: all 50)")
    ap.add_argument("--work", type=Path, default=Path(".cache/bench/calibrate"))
    ap.add_argument("--apply", action="store_true", help="store the chosen threshold with the packaged model")
    args = ap.parse_args()
    settings = Settings.load("default")
    bench = Bench(settings, args.work, llm=build_llm(settings, Usage()), selectors=[])
    scorer, embedder = MemoScorer(bench.scorer), MemoEmbedder(bench.embedder)
    items = twowiki("calibrate", limit=args.limit)
    wrong = wrong_answers([i.question for i in items], [i.answer for i in items])
    cases = []
    t0 = time.perf_counter()
    for n, item in enumerate(items):
        ws, gold = bench.qa_workspace(item)
        _, pool = ws.whole_pool()
        ws.close()
        cases.append(Case([answer_claim(item.question, item.answer), answer_claim(item.question, wrong[n])],
                          pool, gold))
        if (n + 1) % 25 == 0:
            print(f"workspaces {n + 1}/{len(items)} ({time.perf_counter() - t0:.0f} s)", flush=True)
    n_cands = candidate_count(settings, bench.scorer)
    base_supported, contradicted = verdict_thresholds(settings, bench.scorer)

    def selector(len_norm: str, beta: float, gain: float | None, top: int, anchors: int | None, most: int,
                 thr: float) -> EvidenceChain:
        # the registry's own factory, so a grid point is built exactly as the defaults are
        point = settings.model_copy(update={
            "alpha": 1.0, "beta": beta, "len_norm": len_norm, "set_gain": gain, "set_top": top,
            "set_anchors": anchors, "set_max": most, "supported_threshold": thr,
            "evidence_max_candidates": n_cands, "contradicted_threshold": contradicted})
        sel = SELECTORS.create("nli-objective", point, scorer=scorer, embedder=embedder)
        assert isinstance(sel, EvidenceChain)
        return sel

    t1 = time.perf_counter()
    now = (settings.len_norm, settings.beta / settings.alpha, settings.set_gain, settings.set_top,
           settings.set_anchors, settings.set_max, base_supported)
    current = evaluate(selector(*now), cases)
    print(f"current settings: {current}; scored {len(scorer.memo)} pairs in {time.perf_counter() - t1:.0f} s",
          flush=True)
    grid = []
    points = [(ln, b, g, top, anc, most, thr) for ln, b in PENALTIES
              for g, top, anc, most, thr in itertools.product(GAINS, SET_TOPS, ANCHORS, SET_MAXES, THRESHOLDS)
              if anc is None or anc < top]
    for i, point in enumerate(points):
        grid.append((point, evaluate(selector(*point), cases)))
        if (i + 1) % 100 == 0:
            print(f"grid {i + 1}/{len(points)} ({len(scorer.memo)} pairs scored)", flush=True)
    grid.sort(key=lambda g: -g[1]["objective"])
    top_objective = grid[0][1]["objective"]
    ties = [g for g in grid if g[1]["objective"] >= top_objective - TOLERANCE]
    chosen = min(ties, key=lambda g: (g[1]["pairs_per_claim"], -g[1]["objective"]))
    grid.remove(chosen)
    grid.insert(0, chosen)
    (ln, beta, gain, top, anchors, most, thr), best = grid[0]
    flat: dict[str, object] = {
        "calibration_questions": len(cases), "best_len_norm": ln, "best_beta_over_alpha": beta,
        "best_set_gain": gain, "best_set_top": top, "best_set_anchors": anchors,
        "best_set_max": most, "best_supported_threshold": thr,
        "best_f1": round(best["f1"], 4), "best_pairs_per_claim": round(best["pairs_per_claim"], 1),
        "best_verdict_ba": round(best["verdict_ba"], 4), "settings_f1": round(current["f1"], 4),
        "settings_verdict_ba": round(current["verdict_ba"], 4), "pairs_scored": len(scorer.memo)}
    rows = ["| len_norm | beta/alpha | set_gain | set_top | set_anchors | set_max | supported >= | F1 | "
            "verdict BA | pairs scored per claim |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (p_ln, p_b, p_g, p_top, p_anc, p_max, p_thr), m in grid[:15]:
        rows.append(f"| {p_ln} | {p_b} | {p_g} | {p_top} | {p_anc} | {p_max} | {p_thr} | {m['f1']:.3f} | "
                    f"{m['verdict_ba']:.3f} | {m['pairs_per_claim']:.0f} |")
    body = "\n".join([
        f"2WikiMultihopQA tuning questions 101-150 ({len(cases)} questions), oracle mode, entailment "
        f"{settings.entailment}:{settings.entailment_model or 'default'}; {len(points)} grid points, "
        f"ranked by F1 + verdict balanced accuracy; among the points within {TOLERANCE} of the best, the "
        "one that scores the fewest pairs per claim is chosen (first row), then the best 14 others:",
        "", *rows, "",
        f"With the settings in force when this ran (len_norm, beta/alpha, set_gain, set_top, set_anchors, "
        f"set_max, supported = {now}): F1 {current['f1']:.3f}, verdict BA {current['verdict_ba']:.3f}."])
    meta = {"entailment": settings.entailment,
            "seconds": round(time.perf_counter() - t0, 1)}
    path = write("evidence_calibration", flat, body, meta)
    if args.apply:
        apply_threshold(thr, len(cases))
    print(body)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

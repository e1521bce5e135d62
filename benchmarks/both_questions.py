"""The evidence step on "are A and B both X?" questions, with and without ``evidence_both``
(``--kind which``: on "which is X, A or B?" questions, with and without ``evidence_which``).

    python benchmarks/both_questions.py [--half dev|test|all] [--kind both|which]

HaluEval-QA rows are HotpotQA *train* questions (none of our 70 HotpotQA dev questions is
among them) with their supporting sentences as the knowledge, a right answer and a
hallucinated one. Its yes/no "both" questions are the only labelled ones of this kind here:
2WikiMultihopQA has none. The rule was built on the rows before row 4,000 ("dev") and then
measured once on the rows from 4,000 on ("test"). Each question's two answers, phrased as
claims, are grounded in its knowledge cut into sentences (as ``benchmarks/nli.py``'s evidence
step does); the right answer should come out *supported*, the hallucinated one not.
Writes benchmarks/results/{both,which}_questions.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import write
from gechat.eval.bench import answer_claim
from gechat.eval.datasets import DATA
from gechat.eval.metrics import balanced_accuracy
from gechat.evidence import SELECTORS, EvidencePool, which
from gechat.models import EMBEDDERS, ENTAILERS
from gechat.settings import Settings
from nli import knowledge

SPLIT_ROW = 4000
_BOTH = re.compile(r"^(?:are|were|is|was)\b.*\bboth\b", re.IGNORECASE)


def asks(kind: str, row: dict[str, str]) -> bool:
    """Whether the row's question is of the kind measured."""
    if kind == "which":
        return which.parse(row["question"]) is not None
    return bool(_BOTH.match(row["question"])) and row["right_answer"].strip(" .").lower() in ("yes", "no")


def rows(half: str, kind: str = "both") -> list[dict[str, str]]:
    out = []
    with (DATA / "halueval" / "dataset_halueval_qa.jsonl").open() as f:
        for i, line in enumerate(f):
            if (half == "dev" and i >= SPLIT_ROW) or (half == "test" and i < SPLIT_ROW):
                continue
            row = json.loads(line)
            if asks(kind, row):
                out.append(row)
    return out


def run(items: list[dict[str, str]], kind: str, on: bool) -> dict[str, float]:
    settings = Settings.load("default").model_copy(update={f"evidence_{kind}": on})
    selector = SELECTORS.create("nli-objective", settings, scorer=ENTAILERS.create(settings.entailment, settings),
                                embedder=EMBEDDERS.create(settings.embedder, settings))
    t = time.perf_counter()
    got, gold, noted = [], [], 0
    for row in items:
        pool = EvidencePool.from_texts([knowledge(row["knowledge"])])
        claims = [answer_claim(row["question"], row["right_answer"]),
                  answer_claim(row["question"], row["hallucinated_answer"])]
        for claim, ok in zip(selector.select(claims, pool), (True, False), strict=True):
            got.append(claim.verdict == "supported")
            gold.append(ok)
            noted += bool(claim.note)
    g, y = np.array(got), np.array(gold)
    return {"balanced_accuracy": round(balanced_accuracy(g, y), 4),
            "right_supported": round(float(g[y].mean()), 4),
            "hallucinated_supported": round(float(g[~y].mean()), 4),
            "decided_by_a_rule": noted, "claims": len(got),
            "seconds_per_claim": round((time.perf_counter() - t) / max(1, len(got)), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", choices=["dev", "test", "all"], default="all")
    ap.add_argument("--kind", choices=["both", "which"], default="both")
    args = ap.parse_args()
    halves = ["dev", "test"] if args.half == "all" else [args.half]
    results: dict[str, object] = {}
    lines = ["| half | questions | rule | balanced acc | right answers supported | hallucinated supported "
             "| claims a rule decided |", "|---|---|---|---|---|---|---|"]
    for half in halves:
        items = rows(half, args.kind)
        for on in (False, True):
            r = run(items, args.kind, on)
            key = f"{half}__{args.kind if on else 'off'}"
            results.update({f"{key}_{k}": v for k, v in r.items()})
            results[f"{half}_questions"] = len(items)
            lines.append(f"| {half} | {len(items)} | {'on' if on else 'off'} | {r['balanced_accuracy']:.3f} "
                         f"| {r['right_supported']:.3f} | {r['hallucinated_supported']:.3f} "
                         f"| {r['decided_by_a_rule']} of {r['claims']} |")
            print(lines[-1], flush=True)
    form = "\"are A and B both X?\" (yes or no)" if args.kind == "both" else "\"which is X, A or B?\""
    body = (f"HaluEval-QA's questions of the form {form} (HotpotQA train questions, rows before {SPLIT_ROW} = dev, "
            f"the rule built on them; from {SPLIT_ROW} on = test), each question's right and hallucinated answer "
            f"grounded in its knowledge by the evidence step, default Settings with `evidence_{args.kind}` off and "
            "on. Other rules that decide a claim count in the last column too.\n\n" + "\n".join(lines))
    settings = Settings.load("default")
    print(write(f"{args.kind}_questions", results, body, {"entailment": settings.entailment,
                                                          "embedder": settings.embedder, "halves": halves}))


if __name__ == "__main__":
    main()

"""Hallucination correction (HC) on HaluEval-QA: are wrong answers fixed, right ones left alone?

    python benchmarks/correction.py [--rows 4000:8000] [--dev 0:200] [--own 50 --finance 21]

Each HaluEval-QA row gives a question, its knowledge, the right answer and a hallucinated one.
Both answers go through what `gechat ask --correct` does after the answer is written: their
claims are grounded in the knowledge by the default evidence chain (packaged cross-encoder),
then HC corrects them against it (fast spaCy triplets, MiniLM names). A hallucinated answer
is *fixed* when its corrected text matches the right answer (token F1 >= 0.8), or its wrong
part is gone: the names and numbers it has that neither the right answer nor the question has
("Mumbai" of "The company is based in Mumbai"; its other words when it has no such name), or
the whole answer (corrected to nothing). *Fixed, strict* asks that every word neither has is
gone ("based" too), as the first version of this bench did; a right answer
is *unharmed* when its corrected text still matches it (token F1 >= 0.95). With --dev, the
name-matching threshold is chosen on dev rows first (the one with the most fixed answers
among those leaving >= 0.95 unharmed), then the test rows are run with it. Rows before 4000
are dev, 4000-7999 test. With --own N, gechat's own answers too (benchmarks/correction_own.py:
HotpotQA and 2Wiki test questions end to end with the packaged LLM, and --finance FinanceBench
questions), their per-question rows in benchmarks/results/correction_own_answers.jsonl.
Writes benchmarks/results/correction.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, write
from correction_own import figures, markdown, run_own
from gechat.answer.base import Draft
from gechat.answer.claims import make_claims
from gechat.correct.hc import HallucinationCorrector
from gechat.eval.datasets import DATA
from gechat.eval.qa import answer_f1, normalize_answer
from gechat.evidence import SELECTORS, EvidencePool, verdict_thresholds
from gechat.lexical import missing_words
from gechat.models import EMBEDDERS, ENTAILERS
from gechat.settings import Settings
from gechat.types import Answer
from nli import knowledge

THRESHOLDS = (0.75, 0.8, 0.85, 0.9)


def rows(span: str) -> list[dict[str, str]]:
    a, b = (int(x) for x in span.split(":"))
    with (DATA / "halueval" / "dataset_halueval_qa.jsonl").open() as f:
        out = [json.loads(line) for i, line in enumerate(f) if a <= i < b]
    return out


def wrong_words(row: dict[str, str], strict: bool = False) -> set[str]:
    """The wrong part of the hallucinated answer: its names and numbers that neither the right
    answer nor the question has ("Mumbai" of "The hotel company is based in Mumbai"), or, when
    it has none, its words that neither has; ``strict``: all such words ("based" too)."""
    right = set(normalize_answer(row["right_answer"]).split()) | set(normalize_answer(row["question"]).split())
    wrong = set(normalize_answer(row["hallucinated_answer"]).split()) - right
    names = {w for t in missing_words(row["hallucinated_answer"], row["right_answer"], given=row["question"])
             for w in normalize_answer(t).split()} & wrong
    return wrong if strict or not names else names


class Run:
    def __init__(self, overrides: dict[str, object] | None = None) -> None:
        self.settings = Settings.load("default", **(overrides or {}))
        self.embedder = EMBEDDERS.create(self.settings.embedder, self.settings)
        self.scorer = ENTAILERS.create(self.settings.entailment, self.settings)
        self.selector = SELECTORS.create("nli-objective", self.settings, scorer=self.scorer, embedder=self.embedder)
        self.supported, _ = verdict_thresholds(self.settings, self.scorer)
        self.grounded: dict[tuple[int, str], tuple[Answer, EvidencePool]] = {}

    def answer(self, i: int, row: dict[str, str], key: str) -> tuple[Answer, EvidencePool]:
        """The answer with its claims grounded: once per row and answer, whatever the threshold."""
        if (i, key) not in self.grounded:
            pool = EvidencePool.from_texts([knowledge(row["knowledge"])])
            claims = make_claims(Draft(text=row[key], thoughts=[]), from_thoughts=False, question=row["question"])
            grounded = self.selector.select(claims, pool) if claims else []
            self.grounded[(i, key)] = (Answer(question=row["question"], text=row[key], thoughts=[], claims=grounded),
                                       pool)
        return self.grounded[(i, key)]

    def score(self, data: list[dict[str, str]], threshold: float, desc: str) -> dict[str, float]:
        hc = HallucinationCorrector(self.embedder, self.scorer, self.supported, threshold=threshold,
                                    unsupported=self.settings.correct_unsupported)
        fixed = strict = unharmed = 0
        shares: list[float] = []
        seconds = 0.0
        for i, row in enumerate(tqdm(data, desc=desc, file=sys.stderr)):
            for key in ("hallucinated_answer", "right_answer"):
                answer, pool = self.answer(i, row, key)
                t = time.perf_counter()
                out = hc.correct(answer, pool)
                seconds += time.perf_counter() - t
                shares.append(out.eliminated_share)
                if key == "right_answer":
                    unharmed += answer_f1(out.text, row["right_answer"]) >= 0.95
                    continue
                left = set(normalize_answer(out.text).split())
                matches = answer_f1(out.text, row["right_answer"]) >= 0.8
                gone, every = wrong_words(row), wrong_words(row, strict=True)
                # an answer corrected to nothing has its wrong part removed, whatever it was
                fixed += matches or not left or bool(gone and not gone & left)
                strict += matches or not left or bool(every and not every & left)
        n = max(len(data), 1)
        return {"halueval_fixed_rate": round(fixed / n, 4), "halueval_fixed_strict_rate": round(strict / n, 4),
                "halueval_right_unharmed_rate": round(unharmed / n, 4),
                "eliminated_entity_share": round(sum(shares) / max(len(shares), 1), 4),
                "seconds_per_answer": round(seconds / max(2 * len(data), 1), 4), "rows": len(data)}


def halueval(run: Run, args: argparse.Namespace) -> tuple[dict[str, object], list[str]]:
    """The threshold chosen on dev rows, then the test rows' figures and their Markdown."""
    chosen, dev_lines = run.settings.correct_threshold, []
    if args.dev:
        dev = rows(args.dev)
        results = {th: run.score(dev, th, f"dev, threshold {th}") for th in THRESHOLDS}
        ok = [th for th, r in results.items() if r["halueval_right_unharmed_rate"] >= 0.95] or list(results)
        chosen = max(ok, key=lambda th: (results[th]["halueval_fixed_rate"], -abs(th - run.settings.correct_threshold)))
        dev_lines = ["## Dev rows (threshold chosen here)", "",
                     "| threshold | fixed | right unharmed | eliminated entity share |", "|---|---|---|---|"]
        dev_lines += [f"| {th} | {r['halueval_fixed_rate']:.3f} | {r['halueval_right_unharmed_rate']:.3f} | "
                      f"{r['eliminated_entity_share']:.3f} |" for th, r in results.items()]
        dev_lines += ["", f"Chosen: {chosen} (rows {args.dev}).", ""]
    run.grounded.clear()
    test = run.score(rows(args.rows), chosen, f"test rows {args.rows}")
    flat: dict[str, object] = {**test, "threshold": chosen}
    body: list[str] = [
            "## Test rows", "", f"HaluEval-QA rows {args.rows} ({test['rows']} questions), threshold {chosen}.", "",
            "| figure | measured | target |", "|---|---|---|",
            f"| hallucinated answers fixed or their wrong part removed | {test['halueval_fixed_rate']:.3f} | >= 0.50 |",
            f"| fixed, strict: every word of it neither the right answer nor the question has is gone | "
            f"{test['halueval_fixed_strict_rate']:.3f} | |",
            f"| right answers unharmed | {test['halueval_right_unharmed_rate']:.3f} | >= 0.95 |",
            f"| eliminated entity share | {test['eliminated_entity_share']:.3f} | |",
            f"| HC seconds per answer (after the evidence) | {test['seconds_per_answer']:.3f} | < 1 |", "",
            *dev_lines]
    return flat, body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="4000:8000", help="test rows, a:b (4000-7999 are test); '' to skip HaluEval "
                                                        "(then only --own runs, written to correction_own.*)")
    ap.add_argument("--dev", default="0:200", help="dev rows to choose the threshold on (before 4000); '' to skip")
    ap.add_argument("--own", type=int, default=0, help="also correct gechat's own answers to the first N test "
                                                       "questions of HotpotQA and of 2Wiki")
    ap.add_argument("--finance", type=int, default=0, help="with --own: also the first N FinanceBench test questions")
    ap.add_argument("--work", type=Path, default=Path(".cache/bench"), help="bench workspaces and the rows of --own "
                                                                            "asked so far (asked again with --fresh)")
    ap.add_argument("--fresh", action="store_true", help="ask the --own questions again")
    ap.add_argument("--own-split", choices=("test", "dev"), default="test",
                    help="the --own questions from the test halves (reported) or the dev halves (to choose on)")
    ap.add_argument("--entailment", default=None, help="the entailment backend (default: the settings'; e.g. cascade)")
    ap.add_argument("--unsupported", choices=("keep", "unverified", "delete"), default=None,
                    help="Settings.correct_unsupported for this run (default: the settings')")
    ap.add_argument("--name", default=None, help="results file name (default: correction, or correction_own "
                                                 "when only --own runs)")
    args = ap.parse_args()
    run = Run({k: v for k, v in (("entailment", args.entailment), ("correct_unsupported", args.unsupported)) if v})
    flat: dict[str, object] = {}
    body: list[str] = []
    if args.rows:
        flat, body = halueval(run, args)
    if args.own:
        args.work.mkdir(parents=True, exist_ok=True)
        # a named run (another scorer or setting) keeps its own rows, so --fresh leaves the default's
        stem = "correction_own" if args.name in (None, "correction", "correction_own") else f"{args.name}_own"
        asked = args.work / (f"{stem}.jsonl" if args.own_split == "test" else f"{stem}_dev.jsonl")
        if args.fresh:
            asked.unlink(missing_ok=True)
        own = run_own(run.settings, args.work, args.own, args.finance, asked, split=args.own_split)
        flat.update(figures(own))
        body += ["", *markdown(own), "",
                 "Groundedness by the entailment model is the share of the answer's claims supported; the LLM judge "
                 "is the packaged 1.5B model scoring 1-5 (a weak judge: its agreement with the entailment measure, "
                 f"score >= 4 against every claim supported, is {flat['judge_nli_agreement']:.2f} on the answers "
                 "before correction). Emptied answers have no claims and no judge score."]
        if args.own_split == "test":
            (RESULTS / f"{stem}_answers.jsonl").write_text(asked.read_text())
    scorer = {"onnx": "packaged MiniLM-L6 NLI cross-encoder int8",
              "cascade": "cascade: packaged MiniLM-L6 NLI cross-encoder int8, then the gechat-nli-mpnet verifier"}
    meta = {"models": f"all-MiniLM-L6-v2 int8 (names), "
                      f"{scorer.get(run.settings.entailment, run.settings.entailment)} (verdicts, replacements), "
                      "spaCy en_core_web_sm (fast triplets); "
                      + (f"{run.settings.llm_model} (own answers, judge)" if args.own else "no LLM"),
            "settings": f"entailment {run.settings.entailment}, correct_unsupported "
                        f"{run.settings.correct_unsupported}",
            "data": (f"HaluEval-QA test rows {args.rows}, dev rows {args.dev or 'none'}" if args.rows else
                     "gechat's own answers only")}
    name = args.name or ("correction" if args.rows else "correction_own")
    print(f"wrote {write(name, flat, chr(10).join(body), meta)}")


if __name__ == "__main__":
    main()

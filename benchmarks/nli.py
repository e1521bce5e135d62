"""How good and how fast is the grounding model? Held-out NLI accuracy, claim-support balanced
accuracy on HaluEval-QA and ExpertQA, and the same pairs scored by the LLM scorer.

    python benchmarks/nli.py [--model DIR] [--fp32-from DIR] [--llm-subset 100] [--no-llm]
    python benchmarks/nli.py --evidence-step-from benchmarks/results/nli.json   # the evidence step only
    python benchmarks/nli.py --verifier DIR --verifier-only   # the verifier and cascade rows only

Cross-encoder: the packaged int8 model (or --model DIR), every pair of every set. Binary
decisions use the "supported" threshold calibrated on the dev split (calibration.json);
AUROC is reported beside it because it needs no threshold. --fp32-from DIR also scores
the fp32 export in DIR on the same sets, to show what int8 costs.
LLM scorer (1.5B and 0.5B Qwen GGUF): a fixed subset (the first --llm-subset rows of each
set; 1-7 s a pair on 2 cores, the long ExpertQA passages costing most), threshold 0.5,
and the cross-encoder on that same subset for a like-for-like row. Writes benchmarks/results/nli.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.nli_data import NOT_ENTAILMENT, evaluation_sets

from common import write
from gechat.answer.claims import split_text
from gechat.eval.bench import as_claim
from gechat.eval.datasets import DATA
from gechat.eval.metrics import accuracy, auroc, balanced_accuracy
from gechat.evidence import SELECTORS, ClaimInput, EvidencePool, EvidenceSelector
from gechat.lexical import uncovered
from gechat.models import EMBEDDERS, ENTAILERS
from gechat.models.entail.base import ENTAILMENT
from gechat.models.entail.onnx import PACKAGED_NLI_DIR, ONNXEntailment
from gechat.settings import Settings
from nli_report import markdown

Probs = npt.NDArray[np.float32]
PairScorer = Callable[[Sequence[tuple[str, str]]], Probs]


class ClaimPair(NamedTuple):
    premise: str
    claim: str
    supported: bool
    given: str  # what the claim repeats from the question: it needs no evidence (evidence_coverage)


# HaluEval joins its knowledge sentences with no space ("...British Columbia.Kings of Leon is
# ..."), which no sentence splitter cuts and no document writes
_JOINED = re.compile(r"([a-z0-9)\"”’'])\.([A-Z])")


def knowledge(text: str) -> str:
    """HaluEval's knowledge as a document writes it: a space after each sentence's full stop."""
    return _JOINED.sub(r"\1. \2", text)


def halueval_pairs(limit: int | None = None) -> list[ClaimPair]:
    """(knowledge, claim, supported, given): the right and the hallucinated answer of each row,
    phrased with one fixed template chosen before any scoring; the knowledge's sentences
    spaced (:func:`knowledge`)."""
    out: list[ClaimPair] = []
    with (DATA / "halueval" / "dataset_halueval_qa.jsonl").open() as f:
        for i, line in enumerate(f):
            if limit is not None and i >= limit:
                break
            row = json.loads(line)
            for key, ok in (("right_answer", True), ("hallucinated_answer", False)):
                out.append(ClaimPair(knowledge(row["knowledge"]), as_claim(row["question"], row[key]), ok,
                                     as_claim(row["question"], "")))
    return out


def expertqa_pairs(limit: int | None = None, questions: slice = slice(None)) -> list[ClaimPair]:
    """(cited evidence, claim, supported, question): support "Complete" is supported; "Incomplete",
    "Partial" and "Missing" are not; "N/A" and claims citing nothing are left out. ``questions``
    picks rows of the file: the first 75 are the tuning half, the rest the test half."""
    out: list[ClaimPair] = []
    with (DATA / "expertqa" / "rand_test.jsonl").open() as f:
        for line in list(f)[questions]:
            row = json.loads(line)
            for answer in row["answers"].values():
                for c in answer["claims"]:
                    if c.get("support") in (None, "N/A") or not c.get("evidence"):
                        continue
                    # each passage starts "[n] URL"; some are nothing else
                    evidence = " ".join(re.sub(r"^\s*\[\d+\]\s*\S+", "", e).strip() for e in c["evidence"]).strip()
                    if not evidence:
                        continue
                    claim = re.sub(r"\s*\[\d+\]", "", c["claim_string"]).strip()
                    out.append(ClaimPair(evidence, claim, c["support"] == "Complete", row["question"]))
    return out[:limit] if limit is not None else out


def windows(text: str, size: int = 3, max_words: int = 90) -> list[str]:
    """Overlapping runs of `size` sentences: the model was trained on 128 tokens, and a long
    passage is scored as its best-supporting window, as the evidence step does."""
    if len(text.split()) <= max_words:
        return [text]
    sents = split_text(text)
    return [" ".join(sents[i : i + size]) for i in range(0, max(1, len(sents) - size + 1))]


def score_windowed(score: PairScorer, pairs: Sequence[tuple[str, str]]) -> Probs:
    """Scores each pair as the window with the highest P(entailment)."""
    flat: list[tuple[str, str]] = []
    owner: list[int] = []
    for i, (premise, hyp) in enumerate(pairs):
        for w in windows(premise):
            flat.append((w, hyp))
            owner.append(i)
    probs = score(flat)
    out = np.zeros((len(pairs), 3), dtype=np.float32)
    best = np.full(len(pairs), -1.0)
    for row, i in enumerate(owner):
        if probs[row, ENTAILMENT] > best[i]:
            best[i], out[i] = probs[row, ENTAILMENT], probs[row]
    return out


def llm_pair_scorer(model: str) -> PairScorer:
    scorer = ENTAILERS.create("llm", Settings.load("default", entailment="llm", entailment_model=model))

    def score(pairs: Sequence[tuple[str, str]]) -> Probs:
        return np.stack([scorer.score([p], h)[0] for p, h in pairs]) if pairs else np.zeros((0, 3), np.float32)

    return score


def evaluate(score: PairScorer, sets: dict[str, list], threshold: float, *, windowed_long: bool) -> dict[str, float]:
    """Every metric of one scorer on the given sets (3-way NLI sets and binary claim sets)."""
    r: dict[str, float] = {}
    for name, rows in sets.items():
        if not rows:
            continue
        if name in ("halueval_qa", "expertqa"):
            pairs = [(c.premise, c.claim) for c in rows]
            gold = np.array([c.supported for c in rows])
            probs = score_windowed(score, pairs) if windowed_long else score(pairs)
            entails = probs[:, ENTAILMENT] >= threshold
            r[f"{name}_balanced_accuracy"] = balanced_accuracy(entails, gold)
            r[f"{name}_auroc"] = auroc(probs[:, ENTAILMENT], gold)
            # the evidence step's verdict: the model, and the claim's names and numbers in the
            # premise (evidence_coverage "facts"; the whole premise, not only the best window)
            covered = np.array([not uncovered(c.claim, c.premise, given=c.given) for c in rows])
            r[f"{name}_verdict_balanced_accuracy"] = balanced_accuracy(entails & covered, gold)
            continue
        probs = score([(p.premise, p.hypothesis) for p in rows])
        labels = np.array([p.label for p in rows])
        if (labels == NOT_ENTAILMENT).any():  # two-way set: entailment vs the rest
            pred = probs.argmax(1) == ENTAILMENT
            r[f"{name}_accuracy"] = accuracy(pred.astype(int), (labels == ENTAILMENT).astype(int))
        else:
            r[f"{name}_accuracy"] = accuracy(probs.argmax(1), labels)
            sources = np.array([p.source for p in rows])
            for src in sorted(set(sources)) if len(set(sources)) > 1 else []:  # ANLI: each round too
                r[f"{src}_accuracy"] = accuracy(probs.argmax(1)[sources == src], labels[sources == src])
    return {k: round(v, 4) for k, v in r.items()}


def all_sets(ev: dict[str, list]) -> dict[str, list]:
    """Every set the cross-encoders are scored on: held-out NLI sets and the claim sets."""
    return {"mnli_mismatched": ev["mnli_mismatched_gold"],
            "anli_test": ev["anli_r1_test"] + ev["anli_r2_test"] + ev["anli_r3_test"],
            "scitail_test": ev["scitail_test"], "sick_test": ev["sick_test"],
            "halueval_qa": halueval_pairs(), "expertqa": expertqa_pairs()}


def default_selector(model: ONNXEntailment) -> EvidenceSelector:
    """The evidence step as a user of gechat gets it: the nli-objective selector with the
    default Settings (its default steps: sentence sets, names and numbers in the evidence,
    typed values) over ``model``."""
    settings = Settings.load("default")
    embedder = EMBEDDERS.create(settings.embedder, settings)
    return SELECTORS.create("nli-objective", settings, scorer=model, embedder=embedder)


def evidence_step(selector: EvidenceSelector, sets: dict[str, list[ClaimPair]]) -> dict[str, float]:
    """The verdict the user sees: each claim grounded by ``selector``, its premise cut into
    sentences as a loader cuts a document; *supported* against the gold label."""
    r: dict[str, float] = {}
    for name, rows in sets.items():
        t = time.perf_counter()
        by_premise: dict[str, list[int]] = {}  # a HaluEval knowledge grounds its two answers at once
        for i, c in enumerate(rows):
            by_premise.setdefault(c.premise, []).append(i)
        supported = np.zeros(len(rows), dtype=bool)
        for premise, idx in tqdm(by_premise.items(), desc=f"evidence step, {name}", unit="passage"):
            pool = EvidencePool.from_texts([premise])
            claims = [ClaimInput(text=rows[i].claim, source="answer", given=rows[i].given) for i in idx]
            for i, claim in zip(idx, selector.select(claims, pool), strict=True):
                supported[i] = claim.verdict == "supported"
        gold = np.array([c.supported for c in rows])
        r[f"{name}_evidence_step_balanced_accuracy"] = round(balanced_accuracy(supported, gold), 4)
        r[f"{name}_evidence_step_seconds_per_claim"] = round((time.perf_counter() - t) / max(1, len(rows)), 4)
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=PACKAGED_NLI_DIR)
    ap.add_argument("--fp32-from", type=Path, default=None, help="a directory holding model.onnx (fp32)")
    ap.add_argument("--llm-subset", type=int, default=40, help="rows per set scored by the LLM scorers")
    ap.add_argument("--llm", default="qwen2.5-coder-1.5b,qwen2.5-coder-0.5b")
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--llm-from", type=Path, default=None,
                    help="copy the LLM scorers' rows from an earlier nli.json (they do not depend on our "
                         "model; the subset is the same) instead of re-running them")
    ap.add_argument("--no-evidence-step", action="store_true",
                    help="skip grounding the claim sets through the evidence step (a few minutes)")
    ap.add_argument("--evidence-step-from", type=Path, default=None,
                    help="re-run only the evidence step (after a change to it) and copy every other figure "
                         "from this earlier nli.json: the model and the pairs are the same")
    ap.add_argument("--evidence-step-sets", default="halueval_qa,expertqa",
                    help=f"with --evidence-step-from: the claim sets to ground ({', '.join(EVIDENCE_STEP_SETS)}; "
                         "the _test ones are HaluEval-QA rows 4000 on and ExpertQA questions 76 on)")
    ap.add_argument("--verifier", type=Path, default=None,
                    help="also score the verifier in DIR (gechat models path gechat-nli-mpnet) alone and as the "
                         "cascade's second stage (benchmarks/nli_verifier.py)")
    ap.add_argument("--verifier-rows", type=int, default=500, help="HaluEval-QA test rows for the verifier rows")
    ap.add_argument("--verifier-only", action="store_true",
                    help="with --verifier: run only its rows and copy every other figure from results/nli.json")
    args = ap.parse_args()
    if args.evidence_step_from is not None:
        rerun_evidence_step(args.evidence_step_from, args.evidence_step_sets.split(","))
        return
    if args.verifier_only:
        if args.verifier is None:
            ap.error("--verifier-only needs --verifier DIR")
        rerun_verifier(args.verifier, args.verifier_rows)
        return

    ev = evaluation_sets()
    sets = all_sets(ev)
    counts = {k: len(v) for k, v in sets.items()}
    model = ONNXEntailment(args.model).load()
    threshold = model.calibration.get("supported", 0.5)
    flat: dict[str, float] = {}
    t0 = time.perf_counter()
    flat.update(evaluate(model.score_pairs, sets, threshold, windowed_long=True))
    seconds = time.perf_counter() - t0
    print(json.dumps(flat), flush=True)  # the cross-encoder's figures, before the slow LLM part
    if not args.no_evidence_step:
        flat.update(evidence_step(default_selector(model), {k: sets[k] for k in ("halueval_qa", "expertqa")}))

    # throughput: batched, MNLI-mm pairs, after the run above warmed the session
    probe = [(p.premise, p.hypothesis) for p in sets["mnli_mismatched"][:2000]]
    t = time.perf_counter()
    model.score_pairs(probe)
    flat["pairs_per_second"] = round(len(probe) / (time.perf_counter() - t), 1)
    flat["model_megabytes"] = round(sum(f.stat().st_size for f in args.model.iterdir() if f.is_file()) / 2**20, 1)

    if args.fp32_from is not None:
        fp32 = ONNXEntailment(args.fp32_from, quantized=False).load()
        for k, v in evaluate(fp32.score_pairs, sets, threshold, windowed_long=True).items():
            flat[f"fp32_{k}"] = v

    subset = {k: v[: args.llm_subset] for k, v in sets.items()
              if k in ("mnli_mismatched", "anli_test", "halueval_qa", "expertqa")}
    subset["anli_test"] = [p for r in ("anli_r1_test", "anli_r2_test", "anli_r3_test")
                           for p in ev[r][: args.llm_subset // 3]]
    for k, v in evaluate(model.score_pairs, subset, threshold, windowed_long=True).items():
        flat[f"subset_{k}"] = v
    llm_seconds: dict[str, float] = {}
    llm_source = "run here"
    if args.llm_from is not None:
        old = json.loads(args.llm_from.read_text())
        if old["meta"].get("llm_subset_rows") != args.llm_subset:
            sys.exit(f"{args.llm_from} scored a different LLM subset")
        flat.update({k: v for k, v in old.items() if k.startswith("llm_")})
        llm_seconds = old["meta"].get("llm_seconds", {})
        llm_source = f"copied from the run of {old['meta']['date']} ({old['meta'].get('llm_rows', 'run there')})"
    elif not args.no_llm:
        for name in args.llm.split(","):
            tag = "llm_" + name.split("-")[-1].replace(".", "_")  # llm_1_5b, llm_0_5b
            print(f"LLM scorer {name} on the subset...", flush=True)
            t = time.perf_counter()
            for k, v in evaluate(llm_pair_scorer(name), subset, 0.5, windowed_long=False).items():
                flat[f"{tag}_{k}"] = v
            llm_seconds[tag] = round(time.perf_counter() - t, 1)

    body = markdown(flat, counts, args.llm_subset, threshold)
    if args.verifier is not None:
        from nli_verifier import verifier_rows

        flat.update(verifier_rows(ONNXEntailment(args.verifier).load(), model, sets, args.verifier_rows))
        body += verifier_section(flat, args.verifier_rows)
    meta = {"model": f"{args.model.name}/{model.file.name} (gechat cross-encoder from all-MiniLM-L6-v2)",
            "threshold_supported": threshold, "pairs": counts, "llm_subset_rows": args.llm_subset,
            "cross_encoder_seconds_all_sets": round(seconds, 1), "llm_seconds": llm_seconds,
            "llm_rows": llm_source,
            "threads": model.threads, "batch_size": model.batch_size}
    write("nli", flat, body, meta)
    print(json.dumps(flat, indent=1))


def earlier_run(path: Path, rerun: Callable[[str], bool]) -> tuple[dict, dict, dict]:
    """An earlier nli.json's figures less those about to be ``rerun``, its meta less the
    date, command and machine (they describe the copied figures, not this run), and its meta."""
    old = json.loads(path.read_text())
    earlier = old.pop("meta")
    meta = {k: v for k, v in earlier.items() if k not in ("date", "command", "machine")}
    return {k: v for k, v in old.items() if not rerun(k)}, meta, earlier


EVIDENCE_STEP_SETS = {"halueval_qa": halueval_pairs, "expertqa": expertqa_pairs,
                      # the halves the issues report on: rows 4000 on, questions 76 on
                      "halueval_qa_test": lambda: halueval_pairs()[8000:],
                      "expertqa_test": lambda: expertqa_pairs(questions=slice(75, None))}


def rerun_evidence_step(old_path: Path, sets: Sequence[str] = ("halueval_qa", "expertqa")) -> None:
    flat, meta, earlier = earlier_run(old_path, lambda k: k.startswith(tuple(f"{n}_evidence_step_" for n in sets)))
    model = ONNXEntailment(PACKAGED_NLI_DIR).load()
    pairs = {name: EVIDENCE_STEP_SETS[name]() for name in sets}
    flat.update(evidence_step(default_selector(model), pairs))
    meta["evidence_step"] = ("re-run here; every other figure copied from the run of "
                             f"{earlier['date']} ({earlier['command']}, {earlier['machine']})")
    body = markdown(flat, meta["pairs"], meta["llm_subset_rows"], meta["threshold_supported"])
    # the verifier's section, as the run that measured it wrote it
    rows = re.search(r"--verifier-rows (\d+)", str(meta.get("verifier_rows", "")) + earlier["command"])
    write("nli", flat, body + verifier_section(flat, int(rows.group(1)) if rows else 500), meta)
    print(json.dumps({k: v for k, v in flat.items() if "_evidence_step_" in k}, indent=1))


def verifier_section(flat: dict[str, float], rows: int) -> str:
    """The Markdown of the verifier's and the cascade's rows, when ``flat`` holds them."""
    if not any(k.startswith("verifier_") for k in flat):
        return ""
    from nli_verifier import markdown as verifier_markdown

    return verifier_markdown(flat, rows)


def rerun_verifier(verifier_dir: Path, rows: int) -> None:
    """The verifier's and the cascade's rows, run here; every other figure copied from nli.json."""
    from nli_verifier import verifier_rows

    flat, meta, earlier = earlier_run(Path(__file__).resolve().parent / "results" / "nli.json",
                                      lambda k: k.startswith(("verifier_", "cascade_", "fast_")))
    sets = all_sets(evaluation_sets())
    flat.update(verifier_rows(ONNXEntailment(verifier_dir).load(), ONNXEntailment(PACKAGED_NLI_DIR).load(),
                              sets, rows))
    meta["verifier_rows"] = ("run here; every other figure copied from the run of "
                             f"{earlier['date']} ({earlier['command']}, {earlier['machine']})")
    body = markdown(flat, meta["pairs"], meta["llm_subset_rows"], meta["threshold_supported"])
    write("nli", flat, body + verifier_section(flat, rows), meta)
    print(json.dumps({k: v for k, v in flat.items() if k.startswith(("verifier_", "cascade_", "fast_"))}, indent=1))


if __name__ == "__main__":
    main()

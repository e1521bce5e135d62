"""Latency of one question end to end, per stage, on one real PDF with the packaged LLM.

    python benchmarks/latency.py [--pdf PATH] [--llm qwen2.5-coder-1.5b]

Ingests the PDF into a fresh workspace (cold LLM cache), asks 10 questions with known
answers, and records seconds per stage, LLM calls and tokens. Then re-runs evidence
selection for the same claims with each other entailment backend, so each backend's cost
per answer is shown on identical inputs, and with claims split into facts by the LLM
(claim_atoms = "llm") against the default rules, for the LLM's extra cost. Writes benchmarks/results/latency.{md,json}.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, write
from gechat.answer.base import Draft
from gechat.answer.claims import make_claims
from gechat.evidence import SELECTORS
from gechat.models import ENTAILERS
from gechat.pipeline import Workspace
from gechat.settings import Settings

REPO = Path(__file__).resolve().parents[1]
PDF = REPO.parent / "shared" / "data" / "pdfs" / "N18-3011.pdf"
# (question, a string the right answer contains); the check is a sanity signal, not a metric.
QUESTIONS = [
    ("How many nodes does the literature graph in Semantic Scholar have?", "280"),
    ("Which two knowledge bases are used to ground entity mentions?", "UMLS"),
    ("What kind of graph is the literature graph?", "property graph"),
    ("How many F1 points did the LM embeddings add to the entity extraction model?", "4.2"),
    ("On how many papers were the entity extraction and linking components evaluated?", "500"),
    ("What F1 score does ScienceParse reach for paper titles?", "85.5"),
    ("How many documents are in the held-out PubMed Central test set?", "54"),
    ("Metadata for how many papers is made publicly available?", "20 million"),
    ("Who funds the UMLS metathesaurus?", "National Library of Medicine"),
    ("Why do the authors report yield instead of recall?", "annotation"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdf", type=Path, default=PDF)
    ap.add_argument("--llm", default="qwen2.5-coder-1.5b")
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    ap.add_argument("--backends", default="onnx,llm:qwen2.5-coder-1.5b,llm:qwen2.5-coder-0.5b",
                    help="entailment backends compared on the same claims, name:model,...")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gechat-latency-"))
    settings = Settings.load("default", llm_model=args.llm, cache_dir=tmp / "cache")
    ws = Workspace(tmp / "ws", settings)

    t = time.perf_counter()
    (res,) = ws.add([args.pdf])
    ingest = time.perf_counter() - t
    if res.error is not None:
        sys.exit(f"ingest failed: {res.error}")
    doc = res.document
    assert doc is not None

    rows, asks, drafts = [], [], []
    for q, expect in QUESTIONS[: args.questions]:
        t = time.perf_counter()
        ans = ws.ask(q)
        total = time.perf_counter() - t
        st = ans.usage.stages
        tot = ans.usage.total
        rows.append({
            "question": q, "total": total,
            **{f"{k}_s": st[k].seconds if k in st else 0.0 for k in ("retrieve", "answer", "evidence")},
            "calls": tot.calls, "prompt_tokens": st["answer"].prompt_tokens if "answer" in st else 0,
            "entail_tokens": st["evidence"].prompt_tokens if "evidence" in st else 0,
            "completion_tokens": tot.completion_tokens,
            "claims": len(ans.claims), "supported": sum(c.verdict == "supported" for c in ans.claims),
            "contains_expected": expect.lower() in ans.text.lower(),
        })
        asks.append(ans)
        drafts.append(Draft(text=ans.text, thoughts=ans.thoughts, raw=ans.raw))
        print(f"{total:6.1f}s  {q}  ->  {ans.text[:80]!r}", flush=True)

    # each backend on identical claims and candidates: the answer's sentences, then with
    # the reasoning steps grounded too (claims_from_thoughts)
    backends: dict[str, dict[str, float]] = {}
    for spec in [b for b in args.backends.split(",") if b]:
        name, _, model = spec.partition(":")
        bs = settings.model_copy(update={"entailment": name, "entailment_model": model or settings.entailment_model})
        scorer = ENTAILERS.create(name, bs)
        selector = SELECTORS.create(bs.evidence, bs, scorer=scorer, embedder=ws.embedder)
        for thoughts in (False, True):
            per_answer, n_claims, n_pairs = [], [], []
            for ans, draft in zip(asks, drafts, strict=True):
                claims = make_claims(draft, from_thoughts=thoughts, question=ans.question)
                pool = ws.evidence_pool(ans.contexts)
                before = getattr(scorer, "pairs_scored", 0)
                t = time.perf_counter()
                selector.select(claims, pool)
                per_answer.append(time.perf_counter() - t)
                n_claims.append(float(len(claims)))
                n_pairs.append(float(getattr(scorer, "pairs_scored", 0) - before))
            key = f"{spec}{'+thoughts' if thoughts else ''}"
            backends[key] = {"median_s": median(per_answer), "max_s": max(per_answer),
                             "claims": sum(n_claims) / len(n_claims), "pairs": sum(n_pairs) / len(n_pairs)}
            print(f"evidence with {key}: median {backends[key]['median_s']:.1f}s per answer", flush=True)

    # the issue-4 budget: 5 claims x 60 candidates per answer, with the default scorer
    scorer = ws.scorer
    wide = settings.model_copy(update={"evidence_max_candidates": 60})
    selector = SELECTORS.create(wide.evidence, wide, scorer=scorer, embedder=ws.embedder)
    wide_s = []
    for ans, draft in zip(asks, drafts, strict=True):
        claims = make_claims(draft, from_thoughts=True, question=ans.question)[:5]
        pool = ws.evidence_pool(ws.retriever.retrieve(ans.question, 12))
        t = time.perf_counter()
        selector.select(claims, pool)
        wide_s.append(time.perf_counter() - t)
    print(f"5 claims x 60 candidates: median {median(wide_s):.2f}s", flush=True)

    # atomic claims written by the LLM (claim_atoms = "llm") against the default split, on the
    # same answers with their reasoning steps (at most 5 claims): the LLM's extra cost
    atoms_s: dict[str, list[float]] = {}
    for mode in ("rules", "llm"):
        chosen = settings.model_copy(update={"claim_atoms": mode})
        selector = SELECTORS.create(chosen.evidence, chosen, scorer=scorer, embedder=ws.embedder, llm=ws.llm)
        atoms_s[mode] = []
        for ans, draft in zip(asks, drafts, strict=True):
            claims = make_claims(draft, from_thoughts=True, question=ans.question)[:5]
            pool = ws.evidence_pool(ans.contexts)
            t = time.perf_counter()
            selector.select(claims, pool)
            atoms_s[mode].append(time.perf_counter() - t)
        print(f"atoms {mode}: median {median(atoms_s[mode]):.2f}s per answer", flush=True)

    n = len(rows)
    flat = {
        "ingest_seconds": round(ingest, 2),
        "ingest_pages": doc.n_pages, "ingest_sentences": doc.n_sentences, "ingest_chunks": doc.n_chunks,
        "ask_seconds_median": round(median([r["total"] for r in rows]), 2),
        "ask_seconds_max": round(max(r["total"] for r in rows), 2),
        "retrieve_seconds_median": round(median([r["retrieve_s"] for r in rows]), 3),
        "answer_seconds_median": round(median([r["answer_s"] for r in rows]), 2),
        "evidence_seconds_per_answer_median": round(median([r["evidence_s"] for r in rows]), 2),
        "llm_calls_per_question": round(sum(r["calls"] for r in rows) / n, 2),
        "prompt_tokens_per_question": round(sum(r["prompt_tokens"] for r in rows) / n, 1),
        "completion_tokens_per_question": round(sum(r["completion_tokens"] for r in rows) / n, 1),
        "entailment_tokens_per_question": round(sum(r["entail_tokens"] for r in rows) / n, 1),
        "claims_per_question": round(sum(r["claims"] for r in rows) / n, 2),
        "answers_containing_expected": sum(r["contains_expected"] for r in rows),
        "questions": n,
        "evidence_seconds_5_claims_x_60_candidates_median": round(median(wide_s), 3),
        "evidence_seconds_5_claims_x_60_candidates_max": round(max(wide_s), 3),
        "evidence_seconds_per_answer_median__atoms_rules": round(median(atoms_s["rules"]), 3),
        "evidence_seconds_per_answer_median__atoms_llm": round(median(atoms_s["llm"]), 3),
        "atoms_llm_extra_seconds_per_answer_median": round(
            median([b - a for a, b in zip(atoms_s["rules"], atoms_s["llm"], strict=True)]), 3),
        **{f"evidence_seconds_per_answer_median__{k.replace(':', '_').replace('+', '_with_')}": round(v["median_s"], 2)
           for k, v in backends.items()},
    }
    md = ["| # | question | total s | retrieve s | answer s | evidence s | LLM calls | answer prompt tok | "
          "completion tok | entailment tok | claims (supported) | expected in answer |", "|" + "---|" * 12]
    for i, r in enumerate(rows, 1):
        md.append(f"| {i} | {r['question']} | {r['total']:.1f} | {r['retrieve_s']:.2f} | {r['answer_s']:.1f} | "
                  f"{r['evidence_s']:.1f} | {r['calls']} | {r['prompt_tokens']} | {r['completion_tokens']} | "
                  f"{r['entail_tokens']} | "
                  f"{r['claims']} ({r['supported']}) | {'yes' if r['contains_expected'] else 'no'} |")
    md += ["", f"Ingest: {ingest:.1f} s for {doc.n_pages} pages, {doc.n_sentences} sentences, "
           f"{doc.n_chunks} chunks.", "",
           f"Median ask: {flat['ask_seconds_median']} s; median evidence per answer: "
           f"{flat['evidence_seconds_per_answer_median']} s.", "",
           "## Evidence selection per answer, by entailment backend (same claims and candidates)", "",
           f"Default scorer at the issue-4 budget (5 claims x up to 60 candidates from 12 chunks): median "
           f"{median(wide_s):.2f} s, max {max(wide_s):.2f} s per answer.", "",
           f"Atomic claims (at most 5 claims, reasoning steps included): split by the rules (default) median "
           f"{median(atoms_s['rules']):.2f} s per answer; written by the LLM ({args.llm}, cold cache) median "
           f"{median(atoms_s['llm']):.2f} s, {flat['atoms_llm_extra_seconds_per_answer_median']} s more per answer.",
           "",
           "| backend (+thoughts: reasoning steps grounded too) | median s / answer | max s | claims / answer | "
           "pairs scored / answer |", "|---|---|---|---|---|"]
    md += [f"| {k} | {v['median_s']:.2f} | {v['max_s']:.2f} | {v['claims']:.1f} | {v['pairs']:.1f} |"
           for k, v in backends.items()]
    meta = {"llm": args.llm, "embedder": settings.embedder,
            "entailment": f"{settings.entailment}:{settings.entailment_model}",
            "pdf": args.pdf.name, "settings": settings.model_dump(mode="json", exclude={"models_dir", "cache_dir"})}
    print(write("latency", flat, "\n".join(md), meta))


if __name__ == "__main__":
    main()

"""What ScopeCoE gives the LLM to read, without the LLM's answer: the share of the gold evidence
sentences inside the chunks it reads, against naive RAG's top 5, for each judge threshold and
candidate pool. Cheap (one feature call per question, no answer), so it can be run on many
more tuning questions than the accuracy benchmark, and it says which setting reads more of
what a question needs before any answer is generated.

    python benchmarks/scopecoe_recall.py --dev                  # 2Wiki 101-150, HotpotQA 1-35
    python benchmarks/scopecoe_recall.py --dev --report         # the grid again from kept rows

Each question's corpus is built as in ``benchmarks/scopecoe.py`` (its own paragraphs plus
``--level`` % of other questions' passages; with --misinformation also the 2Wiki corpus with a
planted wrong answer). The first pass keeps, per question, the base retriever's top
``--pool`` candidates with the judge's probabilities (intent, each relation) and the keywords
each holds; the grid then replays the selection for every threshold and pool size. Writes
benchmarks/results/scopecoe_recall[_dev].{md,json}.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import write
from gechat.eval.bench import Bench, add_paragraphs
from gechat.eval.datasets import QAItem
from gechat.models import build_llm
from gechat.retrieve import RETRIEVERS
from gechat.retrieve.coe import FeatureJudge, Scores, select
from gechat.retrieve.scopecoe import ScopeCoERetriever
from gechat.settings import Settings
from gechat.types import CoEFeatures, Usage
from scopecoe import K, noise_for, planted, questions

THRESHOLDS = (0.2, 0.35, 0.5, 0.65, 0.8)
POOLS = (10, 20)


def collect(bench: Bench, judge: FeatureJudge, dataset: str, item: QAItem, level: int, pool: list[QAItem],
            mis: bool, size: int, base_name: str) -> dict[str, Any] | None:
    extra = noise_for(item, pool, level)
    wrong, planted_text = "", ""
    if mis:
        found = planted(item)
        if found is None:
            return None
        extra, wrong, planted_text = [*extra, found[0]], found[1], found[0].sentences[0].strip()
    ws = bench.workspace(f"coe-{item.id}-{level}{'-mis' if wrong else ''}")
    try:
        gold = add_paragraphs(ws, replace(item, paragraphs=[*item.paragraphs, *extra]))
        base = RETRIEVERS.create(base_name, bench.settings, store=ws.store, embedder=bench.embedder)
        hits, f, scores = ScopeCoERetriever(base, ws.store, bench.llm, judge).scored(item.question, size)
        return {"dataset": dataset, "id": item.id, "level": level, "planted": bool(wrong), "gold": len(gold),
                "base": base_name,
                "features": f.model_dump(), "intent": scores.intent, "relations": scores.relations,
                "keywords": [sorted(k) for k in scores.keywords],
                "gold_in": [len(set(h.chunk.sentence_ids) & gold) for h in hits],
                "is_planted": [bool(planted_text) and planted_text in h.chunk.text for h in hits]}
    finally:
        ws.close()


def read(row: dict[str, Any], method: str, threshold: float, size: int) -> list[int]:
    """The candidate places the LLM would read."""
    if method == "naive":
        return list(range(min(K, len(row["gold_in"]))))
    n = min(size, len(row["gold_in"]))
    scores = Scores(row["intent"][:n], row["relations"][:n], [set(k) for k in row["keywords"][:n]])
    chosen, extra, _ = select(scores.judgments(threshold), CoEFeatures(**row["features"]), K,
                              fill=method != "minimal", by_rank=method == "fill-rank")
    return [j.rank for j in chosen + extra]


def measure(rows: list[dict[str, Any]], method: str, threshold: float, size: int) -> dict[str, float]:
    recall, complete, snippets, planted_read = [], [], [], []
    for row in rows:
        places = read(row, method, threshold, size)
        got = sum(row["gold_in"][i] for i in places)
        recall.append(got / row["gold"] if row["gold"] else 1.0)
        complete.append(float(got >= row["gold"]))
        snippets.append(len(places))
        planted_read.append(float(any(row["is_planted"][i] for i in places)))
    return {"n": len(rows), "recall": round(mean(recall), 4), "complete": round(mean(complete), 4),
            "snippets": round(mean(snippets), 2), "planted_read": round(mean(planted_read), 4)}


def report(rows: list[dict[str, Any]], name: str, settings: Settings) -> None:
    lines = ["Recall: the share of a question's gold evidence sentences inside the chunks the LLM reads; "
             "complete: all of them read. Naive RAG reads the base retriever's top 5.", ""]
    flat: dict[str, object] = {}
    for dataset, mis in sorted({(r["dataset"], r["planted"]) for r in rows}):
        part = [r for r in rows if r["dataset"] == dataset and r["planted"] == mis]
        label = f"{dataset}{' + planted wrong answer' if mis else ''}"
        lines += [f"## {label} ({part[0]['level']}% irrelevant text)", "",
                  "| base | method | pool | threshold | questions | recall | complete | snippets | planted read |",
                  "|---|---|---|---|---|---|---|---|---|"]
        key = dataset + ("_mis" if mis else "")
        for base in sorted({r["base"] for r in part}):
            these = [r for r in part if r["base"] == base]
            cells = [("naive", 0.0, max(POOLS))]
            cells += [(m, t, n) for m in ("minimal", "fill") for n in POOLS for t in THRESHOLDS]
            # topped up in the retriever's order (before the ninth session), at the default threshold and pool
            cells.append(("fill-rank", settings.scopecoe_threshold, settings.scopecoe_candidates))
            for method, t, size in cells:
                got = measure(these, method, t, size)
                naive = method == "naive"
                planted_cell = f"{got['planted_read']:.3f}" if mis else "-"
                lines.append(f"| {base} | {method} | {'-' if naive else size} | {'-' if naive else f'{t:.2f}'} | "
                             f"{got['n']} | {got['recall']:.3f} | {got['complete']:.3f} | {got['snippets']:.2f} | "
                             f"{planted_cell} |")
                if naive or (t == settings.scopecoe_threshold and size == settings.scopecoe_candidates):
                    flat[f"{key}_{base}_{method}_recall"] = got["recall"]
                    flat[f"{key}_{base}_{method}_complete"] = got["complete"]
        lines.append("")
    meta: dict[str, object] = {
        "models": f"{settings.llm_model} (CoE features), {settings.embedder} (retrieval, keywords), "
                  f"{settings.entailment} NLI cross-encoder (intent and relation judgments)",
        "settings": f"k={K}, scopecoe_keyword_threshold={settings.scopecoe_keyword_threshold}; "
                    f"the flat keys at scopecoe_threshold={settings.scopecoe_threshold}, "
                    f"scopecoe_candidates={settings.scopecoe_candidates}"}
    print(f"wrote {write(name, flat, chr(10).join(lines), meta)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dev", action="store_true", help="the tuning questions (2Wiki 101-150, HotpotQA 1-35)")
    ap.add_argument("--n", type=int, default=50, help="2Wiki questions")
    ap.add_argument("--hotpotqa", type=int, default=35, help="HotpotQA questions")
    ap.add_argument("--level", type=int, default=50, help="irrelevant text, %% of the corpus")
    ap.add_argument("--misinformation", action="store_true", help="also the 2Wiki corpus with a planted answer")
    ap.add_argument("--work", type=Path, default=None,
                    help="workspaces and kept rows (default .cache/bench-coe-recall)")
    ap.add_argument("--report", action="store_true", help="only the grid, from the rows kept in --work")
    ap.add_argument("--base", default="vector", help="the retriever whose candidates ScopeCoE chooses from "
                    "(vector, hybrid, mixed, fused, bm25)")
    args = ap.parse_args()
    if not 0 <= args.level < 100:
        ap.error("--level: a share of the corpus from 0 to 99")
    work = args.work or Path(".cache/bench-coe-recall" + ("-dev" if args.dev else ""))
    work.mkdir(parents=True, exist_ok=True)
    kept = work / "rows.jsonl"
    rows = [json.loads(line) for line in kept.read_text().splitlines()] if kept.exists() else []
    settings = Settings.load("default")
    name = "scopecoe_recall_dev" if args.dev else "scopecoe_recall"
    if not args.report:
        asked = questions(args.dev, args.n, args.hotpotqa)
        plan = [(dataset, it, pool, False) for dataset, it, pool in asked]
        # last: the planted corpus asks the same questions, so their features come from the cache
        plan += [(d, it, pool, True) for d, it, pool in asked if d.startswith("twowiki")] if args.misinformation else []
        done = {(r["dataset"], r["id"], r["planted"], r.get("base")) for r in rows}
        skipped = {(r["dataset"], r["id"]) for r in rows if r.get("skipped")}
        bench = Bench(settings, work, llm=build_llm(settings, Usage()), selectors=[])
        judge = FeatureJudge(bench.scorer, bench.embedder, threshold=settings.scopecoe_threshold,
                             keyword_threshold=settings.scopecoe_keyword_threshold)
        with kept.open("a") as f:
            for dataset, item, pool, mis in tqdm(plan, desc="questions", file=sys.stderr):
                if (dataset, item.id, mis, args.base) in done or (mis and (dataset, item.id) in skipped):
                    continue
                row = collect(bench, judge, dataset, item, args.level, pool, mis, max(POOLS), args.base)
                if row is None:  # no gold sentence states the answer: nothing to plant
                    f.write(json.dumps({"dataset": dataset, "id": item.id, "planted": True, "skipped": True}) + "\n")
                    continue
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
    report([r for r in rows if not r.get("skipped")], name, settings)


if __name__ == "__main__":
    main()

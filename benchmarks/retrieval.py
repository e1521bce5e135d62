"""Recall of gold evidence sentences for each retrieval strategy; gold pages on FinanceBench.

    python benchmarks/retrieval.py [--limit N] [--only financebench]

HotpotQA (70, distractor) and 2WikiMultihopQA (the 200 test questions): each question's ten
paragraphs form their own workspace (one document each, indexed with the default settings:
MiniLM int8 embeddings and the fast spaCy graph). Each strategy ranks the workspace's
sentences for the question; recall@k is the share of the gold supporting sentences among
the first k. No LLM is involved. Writes benchmarks/results/retrieval.{md,json}.

FinanceBench (long filings, the bench's workspaces under --bench-work, indexed there if not
yet): each strategy retrieves chunks for the question; a page hit@k is a chunk on a gold page
among the first k (k = 3 is what the answer reads by default). Dev / test: the filings whose
names sort in the first / second half.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tqdm import tqdm

from common import RESULTS
from gechat.eval import report
from gechat.eval.bench import add_paragraphs
from gechat.eval.datasets import QAItem, hotpotqa, twowiki
from gechat.pipeline import Workspace
from gechat.retrieve import RETRIEVERS, load_synonyms
from gechat.settings import Settings

REPO = Path(__file__).resolve().parents[1]
STRATEGIES = ("vector", "bm25", "fused", "mixed", "graph", "hybrid")
CHUNK_STRATEGIES = ("vector", "bm25", "fused", "mixed")
CHUNK_KS = (3, 5, 10)
KS = (5, 10)


def evaluate(name: str, items: list[QAItem], settings: Settings, work: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    embedder = None
    for item in tqdm(items, desc=name, file=sys.stderr):
        ws = Workspace(work / name / item.id, settings, embedder=embedder)
        embedder = ws.embedder
        gold = add_paragraphs(ws, item)
        if not gold:
            ws.close()
            continue
        row: dict[str, object] = {"id": item.id, "type": item.kind, "gold": len(gold)}
        for strategy in STRATEGIES:
            retriever = RETRIEVERS.create(strategy, settings, store=ws.store, embedder=embedder)
            t = time.perf_counter()
            retriever.rank_sentences(item.question, max(KS))
            row[f"seconds__{strategy}"] = time.perf_counter() - t
            for k in KS:  # asked for k each time: what a strategy puts in its first k places may depend on k
                ranked = [sid for sid, _ in retriever.rank_sentences(item.question, k)]
                row[f"recall{k}__{strategy}"] = len(set(ranked[:k]) & gold) / len(gold)
        rows.append(row)
        ws.close()
    return rows


def summarise(dataset: str, rows: list[dict[str, object]]) -> tuple[dict[str, object], list[str]]:
    flat: dict[str, object] = {f"{dataset}_questions": len(rows)}
    groups: dict[str, list[dict[str, object]]] = defaultdict(list)
    for r in rows:
        groups[str(r["type"])].append(r)
    lines = [f"## {dataset} ({len(rows)} questions)", "",
             "| questions | n | " + " | ".join(f"R@{k} {s}" for s in STRATEGIES for k in KS) + " |",
             "|---|---|" + "---|" * (len(STRATEGIES) * len(KS))]
    for label, rs in [("all", rows), *sorted(groups.items())]:
        cells = []
        for s in STRATEGIES:
            for k in KS:
                value = round(sum(float(r[f"recall{k}__{s}"]) for r in rs) / len(rs), 3)  # type: ignore[arg-type]
                cells.append(f"{value:.3f}")
                flat[f"{dataset}_recall{k}__{s}" + ("" if label == "all" else f"__{label}")] = value
        lines.append(f"| {label} | {len(rs)} | " + " | ".join(cells) + " |")
    for s in STRATEGIES:
        ms = sorted(float(r[f"seconds__{s}"]) for r in rows)  # type: ignore[arg-type]
        flat[f"{dataset}_search_ms__{s}"] = round(1000 * ms[len(ms) // 2], 1)
    lines += ["", "Median search time (ms): " + ", ".join(f"{s} {flat[f'{dataset}_search_ms__{s}']}"
                                                          for s in STRATEGIES)]
    return flat, lines


def financebench_pages(settings: Settings, work: Path) -> tuple[dict[str, object], list[str]]:
    """Page hit@k of each chunk strategy on FinanceBench, per split."""
    from gechat.eval.bench import FILE_LAYOUT
    from gechat.eval.datasets import financebench, financebench_split

    rows = []
    embedder = None
    for item in tqdm(financebench(), desc="financebench", file=sys.stderr):
        ws = Workspace(work / f"fin-{item.pdf.stem}.{FILE_LAYOUT}", settings, embedder=embedder)
        embedder = ws.embedder
        if not ws.documents():
            ws.add([item.pdf])
        gold = {p for _, p in item.evidence}
        row: dict[str, object] = {"split": financebench_split(item)}
        # as a workspace searches: the question with the other names of its terms
        query = load_synonyms(settings.query_synonyms).expand(item.question)
        for strategy in CHUNK_STRATEGIES:
            retriever = RETRIEVERS.create(strategy, settings, store=ws.store, embedder=embedder)
            for k in CHUNK_KS:
                pages = [h.chunk.page for h in retriever.retrieve(query, k)]
                row[f"hit{k}__{strategy}"] = float(bool(set(pages[:k]) & gold))
        rows.append(row)
        ws.close()
    flat: dict[str, object] = {}
    lines = [f"## financebench ({len(rows)} questions; page hit@k)", "",
             "| split | n | " + " | ".join(f"@{k} {s}" for s in CHUNK_STRATEGIES for k in CHUNK_KS) + " |",
             "|---|---|" + "---|" * (len(CHUNK_STRATEGIES) * len(CHUNK_KS))]
    for split in ("dev", "test"):
        rs = [r for r in rows if r["split"] == split]
        cells = []
        for strategy in CHUNK_STRATEGIES:
            for k in CHUNK_KS:
                value = round(sum(float(str(r[f"hit{k}__{strategy}"])) for r in rs) / max(1, len(rs)), 3)
                flat[f"financebench_page_hit{k}_{split}__{strategy}"] = value
                cells.append(f"{value:.3f}")
        lines.append(f"| {split} | {len(rs)} | " + " | ".join(cells) + " |")
    return flat, lines


def dev_recall(settings: Settings, bench_work: Path, calibrate_work: Path) -> tuple[dict[str, object], list[str]]:
    """Sentence recall@5/@10 on the tuning questions (HotpotQA 1-35, 2Wiki dev 1-150), in the
    workspaces `gechat bench` and `benchmarks/evidence_ablations.py` keep (the ones a default
    was chosen on); the graph strategies are left out (those workspaces may lack a graph)."""
    from gechat.eval.bench import Bench
    from gechat.eval.suite import HOTPOTQA_DEV
    from gechat.models import build_llm
    from gechat.types import Usage

    flat: dict[str, object] = {}
    lines = ["## dev questions (sentence recall@k)", "",
             "| set | n | " + " | ".join(f"R@{k} {s}" for s in CHUNK_STRATEGIES for k in KS) + " |",
             "|---|---|" + "---|" * (len(CHUNK_STRATEGIES) * len(KS))]
    for name, work, items in (("hotpotqa_dev", bench_work, hotpotqa(HOTPOTQA_DEV)),
                              ("twowiki_dev", calibrate_work, twowiki("dev"))):
        bench = Bench(settings, work, llm=build_llm(settings, Usage()), selectors=[])
        rec: dict[tuple[str, int], list[float]] = defaultdict(list)
        for item in tqdm(items, desc=name, file=sys.stderr):
            ws, gold = bench.qa_workspace(item)
            if gold:
                for strategy in CHUNK_STRATEGIES:
                    r = RETRIEVERS.create(strategy, settings, store=ws.store, embedder=bench.embedder)
                    for k in KS:
                        ranked = [i for i, _ in r.rank_sentences(item.question, k)]
                        rec[(strategy, k)].append(len(set(ranked[:k]) & gold) / len(gold))
            ws.close()
        cells = []
        for strategy in CHUNK_STRATEGIES:
            for k in KS:
                value = round(sum(rec[(strategy, k)]) / max(1, len(rec[(strategy, k)])), 3)
                flat[f"{name}_recall{k}__{strategy}"] = value
                cells.append(f"{value:.3f}")
        lines.append(f"| {name} | {len(rec[(CHUNK_STRATEGIES[0], KS[0])])} | " + " | ".join(cells) + " |")
    return flat, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="at most this many questions per data set")
    ap.add_argument("--work", type=Path, default=REPO / ".cache" / "retrieval")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--bench-work", type=Path, default=REPO / ".cache" / "bench" / "default",
                    help="where `gechat bench` keeps its FinanceBench workspaces (reused; indexed if missing)")
    ap.add_argument("--calibrate-work", type=Path, default=REPO / ".cache" / "bench" / "calibrate",
                    help="where benchmarks/evidence_ablations.py keeps the 2Wiki dev workspaces")
    ap.add_argument("--only", choices=("qa", "financebench"), default=None, help="one part only")
    ap.add_argument("--dev", action="store_true",
                    help="the tuning questions instead (HotpotQA 1-35, 2Wiki dev, FinanceBench dev filings in its "
                         "table): writes retrieval_dev.{md,json}")
    args = ap.parse_args()
    settings = Settings.load("default", graph="fast")
    flat: dict[str, object] = {}
    body: list[str] = []
    if args.dev:
        f, lines = dev_recall(settings, args.bench_work, args.calibrate_work)
        f2, lines2 = financebench_pages(settings, args.bench_work)
        flat = {**f, **{k: v for k, v in f2.items() if "_dev__" in k}}
        path = report.write("retrieval_dev", flat, "\n".join([*lines, "", *lines2]),
                            {"unit": "recall of gold sentences among the first k; FinanceBench: a gold page among "
                                     "the first k chunks (its dev row is the tuning one)"}, results=args.out)
        print(f"wrote {path}")
        return
    if args.only != "financebench":
        for dataset, items in (("hotpotqa", hotpotqa(args.limit)), ("twowiki", twowiki("test", args.limit))):
            f, lines = summarise(dataset, evaluate(dataset, items, settings, args.work))
            flat.update(f)
            body += [*lines, ""]
    if args.only != "qa":
        f, lines = financebench_pages(settings, args.bench_work)
        flat.update(f)
        body += [*lines, ""]
    meta = {"models": "all-MiniLM-L6-v2 int8 (vector, entity vectors); spaCy en_core_web_sm (fast graph); no LLM",
            "settings": f"graph hops {settings.graph_hops}, seeds {settings.graph_seeds}, max nodes "
                        f"{settings.graph_max_nodes}, decay {settings.graph_decay}; hybrid = vector + graph, fused = "
                        "vector + bm25 (FTS5), both by reciprocal-rank fusion; mixed = the vectors' first "
                        "two thirds of the places, then the best bm25 hits not among them",
            "unit": "recall of gold supporting sentences among the first k sentences ranked"}
    path = report.write("retrieval", flat, "\n".join(body), meta, results=args.out)
    print(f"wrote {path}")
    for key in sorted(k for k in flat if "recall10" in k and k.count("__") == 1):
        print(f"  {key}: {flat[key]}")


if __name__ == "__main__":
    main()

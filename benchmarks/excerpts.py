"""What the LLM still reads when its excerpts are cut to a token budget (answer_excerpt_tokens).

    python benchmarks/excerpts.py [--limit N] [--budgets 400,320,240] [--llm N]

Each question's paragraphs form their own workspace (as in `gechat bench`; with --joined, as
one document, so chunks fill up to chunk_tokens as in a long file); the question
retrieves top_k_chunks chunks (vector) as `gechat ask` does. For the whole chunks and for
each budget: the share of the gold supporting sentences the LLM reads (of all gold
sentences, and of those retrieval found), how often the gold answer's words are in what it
reads (yes/no answers aside), and the tokens it reads (as chunking counts them). No LLM:
seconds. The budget is chosen on the 2Wiki dev questions (1-150); HotpotQA and the 2Wiki
test questions report it.

With --llm N, the first N HotpotQA questions are also answered by the LLM (default settings)
with whole chunks and with each budget: answer F1 and exact match (HotpotQA's
normalisation), whether the answer holds the gold answer, prompt tokens and seconds.
Writes benchmarks/results/excerpts.{md,json}.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tqdm import tqdm

from common import RESULTS
from gechat.answer.excerpts import keep
from gechat.documents.chunking import count_tokens
from gechat.eval import report
from gechat.eval.bench import add_paragraphs
from gechat.eval.datasets import QAItem, hotpotqa, twowiki
from gechat.eval.qa import answer_f1, exact_match, normalize_answer
from gechat.pipeline import Workspace
from gechat.settings import Settings

REPO = Path(__file__).resolve().parents[1]
WHOLE = "whole"


def add_joined(ws: Workspace, item: QAItem) -> set[int]:
    """The question's paragraphs as one document, a blank line apart, so chunks fill up to
    chunk_tokens as in a long file (one document a paragraph gives a chunk a paragraph,
    ~70 tokens); our gold sentence ids."""
    text, spans = "", []
    for p in item.paragraphs:
        if text:
            text += "\n\n"
        for i, raw in enumerate(p.sentences):
            piece = raw.strip()
            if not piece:
                continue
            text += piece if i == 0 else " " + piece
            if (p.title, i) in item.gold:
                spans.append((len(text) - len(piece), len(text)))
    path = ws.path / "joined.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    ws.add([path])
    (doc,) = ws.documents()
    return {s.id for s in ws.store.sentences_of_chunks(ws.store.chunk_ids(doc.id))
            if any(s.start < b and a < s.end for a, b in spans)}


def reading(items: list[QAItem], name: str, settings: Settings, budgets: list[int],
            work: Path, joined: bool) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    embedder = None
    for item in tqdm(items, desc=name, file=sys.stderr):
        ws = Workspace(work / ("joined" if joined else "paragraphs") / name / item.id, settings, embedder=embedder)
        embedder = ws.embedder
        gold = add_joined(ws, item) if joined else add_paragraphs(ws, item)
        hits = ws.retriever.retrieve(item.question, settings.top_k_chunks)
        sentences = ws.store.sentences_of_chunks([h.chunk.id for h in hits])
        vectors = ws.store.vectors("sentence", [s.id for s in sentences])
        query = embedder.embed([item.question])[0]
        found = {s.id for s in sentences} & gold
        answer = normalize_answer(item.answer)
        has_answer = answer not in ("yes", "no") and bool(answer)
        row: dict[str, object] = {"id": item.id, "gold": len(gold), "found": len(found)}
        variants: list[tuple[str, set[int]]] = [(WHOLE, set(range(len(sentences))))]
        variants += [(str(b), keep(hits, sentences, vectors, query, b)) for b in budgets]
        for label, kept in variants:
            read = [sentences[i] for i in sorted(kept)]
            ids = {s.id for s in read}
            text = " ".join(s.text for s in read)
            row[f"gold_recall__{label}"] = len(ids & gold) / len(gold) if gold else 0.0
            row[f"found_kept__{label}"] = len(ids & found) / len(found) if found else None
            row[f"answer_read__{label}"] = (answer in normalize_answer(text)) if has_answer else None
            row[f"tokens__{label}"] = sum(count_tokens(s.text) for s in read)
        rows.append(row)
        ws.close()
    return rows


def answering(items: list[QAItem], budgets: list[int | None], work: Path, joined: bool) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for budget in budgets:
        label = WHOLE if budget is None else str(budget)
        settings = Settings.load("default", answer_excerpt_tokens=budget)
        shared: Workspace | None = None
        for item in tqdm(items, desc=f"answers {label}", file=sys.stderr):
            # one LLM and embedder for all questions: each workspace would load its own
            ws = Workspace(work / ("llm-joined" if joined else "llm") / item.id, settings,
                           llm=shared.llm if shared else None,
                           embedder=shared.embedder if shared else None, scorer=shared.scorer if shared else None)
            shared = shared or ws
            (add_joined if joined else add_paragraphs)(ws, item)
            t = time.perf_counter()
            ans = ws.ask(item.question)
            stage = ans.usage.stages.get("answer")
            rows.append({"id": item.id, "budget": label, "f1": answer_f1(ans.text, item.answer),
                         "em": exact_match(ans.text, item.answer),
                         "holds": normalize_answer(item.answer) in normalize_answer(ans.text),
                         "prompt_tokens": stage.prompt_tokens if stage else 0,
                         "seconds": time.perf_counter() - t})
            if ws is not shared:
                ws.close()
    return rows


def mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 3) if values else float("nan")


def summarise_reading(dataset: str, rows: list[dict[str, object]],
                      labels: list[str]) -> tuple[dict[str, object], list[str]]:
    flat: dict[str, object] = {f"{dataset}_questions": len(rows)}
    lines = [f"## {dataset} ({len(rows)} questions)", "",
             "| the LLM reads | gold sentences read (of all) | of those retrieval found | gold answer in it "
             "| tokens (median) |",
             "|---|---|---|---|---|"]
    for label in labels:
        recall = mean([float(r[f"gold_recall__{label}"]) for r in rows])  # type: ignore[arg-type]
        kept = mean([float(r[f"found_kept__{label}"]) for r in rows  # type: ignore[arg-type]
                     if r[f"found_kept__{label}"] is not None])
        answers = [bool(r[f"answer_read__{label}"]) for r in rows if r[f"answer_read__{label}"] is not None]
        answer = mean([float(a) for a in answers])
        tokens = report.median([float(r[f"tokens__{label}"]) for r in rows])  # type: ignore[arg-type]
        flat.update({f"{dataset}_gold_recall__{label}": recall, f"{dataset}_found_kept__{label}": kept,
                     f"{dataset}_answer_read__{label}": answer, f"{dataset}_tokens_median__{label}": tokens})
        what = "whole chunks" if label == WHOLE else f"budget {label}"
        lines.append(f"| {what} | {recall:.3f} | {kept:.3f} | {answer:.3f} ({len(answers)} q.) | {tokens:.0f} |")
    return flat, lines


def summarise_answers(rows: list[dict[str, object]], labels: list[str]) -> tuple[dict[str, object], list[str]]:
    flat: dict[str, object] = {}
    n = len({r["id"] for r in rows})
    lines = [f"## HotpotQA answered by the LLM ({n} questions)", "",
             "| the LLM reads | answer F1 | EM | answer holds the gold answer | prompt tokens (median) "
             "| seconds (median) |",
             "|---|---|---|---|---|---|"]
    for label in labels:
        rs = [r for r in rows if r["budget"] == label]
        if not rs:
            continue
        f1, em = mean([float(r["f1"]) for r in rs]), mean([float(r["em"]) for r in rs])  # type: ignore[arg-type]
        holds = mean([float(bool(r["holds"])) for r in rs])
        tokens = report.median([float(r["prompt_tokens"]) for r in rs])  # type: ignore[arg-type]
        seconds = report.median([float(r["seconds"]) for r in rs])  # type: ignore[arg-type]
        flat.update({f"llm_answer_f1__{label}": f1, f"llm_answer_em__{label}": em, f"llm_answer_holds__{label}": holds,
                     f"llm_prompt_tokens_median__{label}": tokens, f"llm_seconds_median__{label}": seconds})
        what = "whole chunks" if label == WHOLE else f"budget {label}"
        lines.append(f"| {what} | {f1:.3f} | {em:.3f} | {holds:.3f} | {tokens:.0f} | {seconds:.1f} |")
    return flat, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="at most this many questions per data set")
    ap.add_argument("--budgets", default="400,320,280,240,160", help="token budgets to compare, comma-separated")
    ap.add_argument("--joined", action="store_true",
                    help="each question's paragraphs as one document (full chunks, as in a long file)")
    ap.add_argument("--llm", type=int, default=0, help="also answer the first N HotpotQA questions with the LLM")
    ap.add_argument("--llm-budgets", default=None, help="budgets for --llm (default: --budgets)")
    ap.add_argument("--work", type=Path, default=REPO / ".cache" / "excerpts")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
        llm_budgets = budgets if args.llm_budgets is None else [
            int(b) for b in args.llm_budgets.split(",") if b.strip()]
    except ValueError:
        ap.error("budgets are whole numbers of tokens, e.g. --budgets 400,320,240")
    labels = [WHOLE, *map(str, budgets)]
    settings = Settings.load("default", graph="none")
    flat: dict[str, object] = {}
    body: list[str] = []
    for dataset, items in (("twowiki_dev", twowiki("dev", args.limit)), ("hotpotqa", hotpotqa(args.limit)),
                           ("twowiki_test", twowiki("test", args.limit))):
        rows = reading(items, dataset, settings, budgets, args.work, args.joined)
        f, lines = summarise_reading(dataset, rows, labels)
        flat.update(f)
        body += [*lines, ""]
    if args.llm:
        rows = answering(hotpotqa(args.llm), [None, *llm_budgets], args.work, args.joined)
        f, lines = summarise_answers(rows, [WHOLE, *map(str, llm_budgets)])
        flat.update(f)
        body += [*lines, ""]
    meta = {"models": "all-MiniLM-L6-v2 int8 (retrieval and sentence cosine)"
                      + ("; qwen2.5-coder-1.5b Q4_K_M (answers)" if args.llm else "; no LLM"),
            "settings": f"vector retrieval, top_k_chunks {settings.top_k_chunks}, chunk_tokens {settings.chunk_tokens}",
            "documents": "each question's paragraphs joined into one document" if args.joined
                         else "one document per paragraph",
            "unit": "tokens as chunking counts them (word runs and punctuation marks)"}
    path = report.write("excerpts", flat, "\n".join(body), meta, results=args.out)
    print(f"wrote {path}")
    print("\n".join(body))


if __name__ == "__main__":
    main()

"""Chain-of-Evidence retrieval (ScopeCoE) against naive RAG, clean and under noise.

    python benchmarks/scopecoe.py [--n 20] [--hotpotqa 10] [--levels 0,50] [--misinformation]

Each question's corpus is its own paragraphs plus passages of other questions that share
words with it (irrelevant text), at each level's share of all the text: 0%, 25%, 50%, 75%.
Naive RAG gives the packaged LLM the embedder's top 5 chunks; ScopeCoE gives it the minimal
set of the top 10 that covers the question's intent, relations and keywords (at most 5).
The LLM answers with gechat's own prompt either way. Scored: exact match, token F1, the gold
answer contained in the answer; snippets read, LLM tokens and seconds per question.

With --misinformation, the 50% corpus also holds a planted passage: a gold sentence that
states the answer, with the answer replaced by another of the same kind from the question's
paragraphs (a year for a year, a name for a name); the following rate is the share of answers
that give the planted answer. 2Wiki's test questions (after the first 150) and HotpotQA's
test half (after the first 35) are used. Rows are kept in --work, so a run can be stopped and
continued; writes benchmarks/results/scopecoe.{md,json,png}.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from statistics import mean

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, write
from gechat.eval.bench import Bench, add_paragraphs
from gechat.eval.datasets import Paragraph, QAItem, hotpotqa, twowiki
from gechat.eval.negatives import same_kind
from gechat.eval.qa import answer_f1, exact_match, normalize_answer
from gechat.lexical import content_keys
from gechat.models import build_llm
from gechat.retrieve.coe import FeatureJudge
from gechat.retrieve.scopecoe import ScopeCoERetriever
from gechat.retrieve.vector import VectorRetriever
from gechat.settings import Settings
from gechat.types import Usage

HOTPOTQA_DEV = 35
K, CANDIDATES = 5, 10


@dataclass
class Row:
    dataset: str
    id: str
    level: int  # irrelevant text, % of all the text
    planted: str  # the misinformation's wrong answer ("" without)
    method: str
    answer: str
    gold: str
    em: float
    f1: float
    contained: bool
    followed: bool
    snippets: int
    tokens: int
    seconds: float


def noise_for(item: QAItem, pool: list[QAItem], level: int) -> list[Paragraph]:
    """Paragraphs of other questions, those sharing most words with the question first, until
    they make ``level`` % of all the text."""
    if level <= 0:
        return []
    own = sum(len(" ".join(p.sentences)) for p in item.paragraphs)
    want = own * level / (100 - level)
    titles, keys = {p.title for p in item.paragraphs}, content_keys(item.question)
    others = [p for other in pool if other.id != item.id for p in other.paragraphs if p.title not in titles]
    others.sort(key=lambda p: -len(keys & content_keys(" ".join(p.sentences))))
    out, size = [], 0
    for p in others:
        if size >= want:
            break
        if p.title not in {q.title for q in out}:
            out.append(p)
            size += len(" ".join(p.sentences))
    return out


def planted(item: QAItem) -> tuple[Paragraph, str] | None:
    """A gold sentence that states the answer, with another answer of the same kind in its place."""
    gold = normalize_answer(item.answer)
    if not gold or gold in ("yes", "no"):
        return None
    passages = " ".join(" ".join(p.sentences) for p in item.paragraphs)
    wrong = same_kind(item.answer, item.question, passages, item.id)
    if not wrong:
        return None
    for p in item.paragraphs:
        for i, s in enumerate(p.sentences):
            if (p.title, i) in item.gold and item.answer in s:
                return Paragraph(p.title + " (report)", [s.replace(item.answer, wrong)]), wrong
    return None


class Run:
    def __init__(self, work: Path) -> None:
        self.settings = Settings.load("default")
        self.bench = Bench(self.settings, work, llm=build_llm(self.settings, Usage()), selectors=[])
        self.judge = FeatureJudge(self.bench.scorer, self.bench.embedder, threshold=self.settings.scopecoe_threshold,
                                  keyword_threshold=self.settings.scopecoe_keyword_threshold)

    def ask(self, dataset: str, item: QAItem, level: int, extra: list[Paragraph], wrong: str) -> list[Row]:
        name = f"coe-{item.id}-{level}{'-mis' if wrong else ''}"
        ws = self.bench.workspace(name)
        try:
            add_paragraphs(ws, replace(item, paragraphs=[*item.paragraphs, *extra]))
            base = VectorRetriever(ws.store, self.bench.embedder)
            scope = ScopeCoERetriever(base, ws.store, self.bench.llm, self.judge, candidates=CANDIDATES)
            out = []
            for method in ("naive", "scopecoe"):
                with self.bench._cost() as cost:
                    hits = base.retrieve(item.question, K) if method == "naive" else scope.choose(item.question, K)[0]
                    draft = ws.answerer.answer(item.question, hits)
                text = draft.text
                out.append(Row(dataset, item.id, level, wrong, method, text, item.answer,
                               exact_match(text, item.answer), answer_f1(text, item.answer),
                               normalize_answer(item.answer) in normalize_answer(text),
                               bool(wrong) and normalize_answer(wrong) in normalize_answer(text),
                               len(hits), int(cost["tokens"]), round(float(cost["seconds"]), 2)))
            return out
        finally:
            ws.close()


def figures(rows: list[Row], dataset: str, level: int, method: str, mis: bool = False) -> dict[str, float]:
    part = [r for r in rows if r.dataset == dataset and r.level == level and r.method == method
            and bool(r.planted) == mis]
    if not part:
        return {}

    def avg(values: list[float], digits: int) -> float:
        return round(mean(values), digits)

    return {"n": len(part), "accuracy": avg([r.contained for r in part], 4), "em": avg([r.em for r in part], 4),
            "f1": avg([r.f1 for r in part], 4), "snippets": avg([r.snippets for r in part], 2),
            "tokens": avg([r.tokens for r in part], 1), "seconds": avg([r.seconds for r in part], 1),
            "following": avg([r.followed for r in part], 4)}


def plot(rows: list[Row], levels: list[int], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (pip install 'gechat[bench]'): no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for dataset in sorted({r.dataset for r in rows}):
        for method, style in (("naive", "--"), ("scopecoe", "-")):
            pts = [(lv, figures(rows, dataset, lv, method)) for lv in levels]
            pts = [(lv, f["accuracy"]) for lv, f in pts if f]
            if len(pts) > 1:
                ax.plot(*zip(*pts, strict=True), style, marker="o", label=f"{dataset} {method}")
    ax.set_xlabel("irrelevant text, % of the corpus")
    ax.set_ylabel("accuracy (gold answer contained)")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20, help="2Wiki test questions")
    ap.add_argument("--hotpotqa", type=int, default=10, help="HotpotQA test questions")
    ap.add_argument("--levels", default="0,50", help="irrelevant text levels, %% of the corpus (0,25,50,75)")
    ap.add_argument("--misinformation", action="store_true", help="also the 50%% corpus with a planted wrong answer")
    ap.add_argument("--work", type=Path, default=Path(".cache/bench-coe"), help="workspaces and rows so far")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    args.work.mkdir(parents=True, exist_ok=True)
    kept = args.work / "rows.jsonl"
    rows = [Row(**json.loads(line)) for line in kept.read_text().splitlines()] if kept.exists() else []
    done = {(r.dataset, r.id, r.level, bool(r.planted)) for r in rows}
    wiki_pool = twowiki("all")
    hot_pool = hotpotqa()
    plan = [("twowiki_test", it, wiki_pool) for it in twowiki("test", limit=args.n)]
    plan += [("hotpotqa", it, hot_pool) for it in hot_pool[HOTPOTQA_DEV:HOTPOTQA_DEV + args.hotpotqa]]
    run = Run(args.work)
    with kept.open("a") as f:
        for dataset, item, pool in tqdm(plan, desc="questions", file=sys.stderr):
            todo: list[tuple[int, list[Paragraph], str]] = [(lv, noise_for(item, pool, lv), "") for lv in levels]
            if args.misinformation and dataset == "twowiki_test" and (mis := planted(item)) is not None:
                todo.append((50, [*noise_for(item, pool, 50), mis[0]], mis[1]))
            for level, extra, wrong in todo:
                if (dataset, item.id, level, bool(wrong)) in done:
                    continue
                for r in run.ask(dataset, item, level, extra, wrong):
                    rows.append(r)
                    f.write(json.dumps(asdict(r)) + "\n")
                    f.flush()
    report(rows, levels, args)


def report(rows: list[Row], levels: list[int], args: argparse.Namespace) -> None:
    flat: dict[str, float] = {}
    lines = ["## Accuracy by irrelevant text", "",
             "Accuracy: the gold answer contained in the answer (normalised); EM and F1 against the gold answer.", "",
             "| set | irrelevant % | method | questions | accuracy | EM | F1 | snippets | LLM tokens | s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for dataset in ("twowiki_test", "hotpotqa"):
        for lv in levels:
            for method in ("naive", "scopecoe"):
                f = figures(rows, dataset, lv, method)
                if f:
                    lines.append(f"| {dataset} | {lv} | {method} | {f['n']:.0f} | {f['accuracy']:.3f} | "
                                 f"{f['em']:.3f} | {f['f1']:.3f} | {f['snippets']:.2f} | {f['tokens']:.0f} | "
                                 f"{f['seconds']:.1f} |")
    usability = 50 if 50 in levels else levels[-1]
    for dataset, key in (("twowiki_test", "twowiki"), ("hotpotqa", "hotpotqa")):
        for method in ("naive", "scopecoe"):
            f = figures(rows, dataset, usability, method)
            if f:
                flat[f"{key}_accuracy_{method}"] = f["accuracy"]
    for method in ("naive", "scopecoe"):
        at = [figures(rows, d, usability, method) for d in ("twowiki_test", "hotpotqa")]
        n = sum(f.get("n", 0) for f in at)
        if n:
            flat[f"snippets_{method}"] = round(sum(f["snippets"] * f["n"] for f in at if f) / n, 2)
        mis = figures(rows, "twowiki_test", 50, method, mis=True)
        if mis:
            flat[f"following_rate_{method}"] = mis["following"]
            flat[f"misinformation_accuracy_{method}"] = mis["accuracy"]
    if any(r.planted for r in rows):
        lines += ["", "## Misinformation (2Wiki, 50% irrelevant text and one planted wrong answer)", "",
                  "| method | questions | accuracy | following rate |", "|---|---|---|---|"]
        for method in ("naive", "scopecoe"):
            f = figures(rows, "twowiki_test", 50, method, mis=True)
            if f:
                lines.append(f"| {method} | {f['n']:.0f} | {f['accuracy']:.3f} | {f['following']:.3f} |")
    if plot(rows, levels, RESULTS / "scopecoe.png"):
        lines += ["", "![accuracy by irrelevant text](scopecoe.png)"]
    settings = Settings.load("default")
    meta = {"models": f"{settings.llm_model} (answers, CoE features), {settings.embedder} (retrieval, keywords), "
                      f"{settings.entailment} NLI cross-encoder (intent and relation judgments)",
            "settings": f"k={K}, candidates={CANDIDATES}, scopecoe_threshold={settings.scopecoe_threshold}, "
                        f"scopecoe_keyword_threshold={settings.scopecoe_keyword_threshold}",
            "usability level": f"{usability}% irrelevant text (the flat *_accuracy_* keys)"}
    print(f"wrote {write('scopecoe', flat, chr(10).join(lines), meta)}")


if __name__ == "__main__":
    main()

"""Chain-of-Evidence retrieval (ScopeCoE) against naive RAG, clean and under noise.

    python benchmarks/scopecoe.py [--n 20] [--hotpotqa 10] [--levels 0,50] [--misinformation]
    python benchmarks/scopecoe.py --dev --n 16 --hotpotqa 8 --levels 0,50   # tuning questions only

Each question's corpus is its own paragraphs plus passages of other questions that share
words with it (irrelevant text), at each level's share of all the text: 0%, 25%, 50%, 75%.
Naive RAG gives the packaged LLM the embedder's top 5 chunks; ScopeCoE gives it the minimal
set of the top 10 candidates of ``scopecoe_base`` (hybrid retrieval by default) that covers
the question's intent, relations and keywords (at most 5), and
"scopecoe-fill" (``scopecoe_fill``) that set topped up with the next-ranked chunks to 5. The
flat ``*_scopecoe`` keys are the variant the default Settings use.
The LLM answers with gechat's own prompt either way. Scored: exact match, token F1, the gold
answer contained in the answer; snippets read, LLM tokens and seconds per question.

With --misinformation, the 50% corpus also holds a planted passage: a gold sentence that
states the answer, with the answer replaced by another of the same kind from the question's
paragraphs (a year for a year, a name for a name); the following rate is the share of answers
that give the planted answer. 2Wiki's test questions (after the first 150) and HotpotQA's
test half (after the first 35) are used; with --dev, the tuning questions instead (2Wiki
101-150, HotpotQA's first 35), written to scopecoe_dev.*. Rows are kept in --work, so a run
can be stopped and continued; writes benchmarks/results/scopecoe.{md,json,png}.
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
from gechat.retrieve import RETRIEVERS
from gechat.retrieve.coe import FeatureJudge
from gechat.retrieve.scopecoe import ScopeCoERetriever
from gechat.retrieve.vector import VectorRetriever
from gechat.settings import Settings
from gechat.types import Usage

HOTPOTQA_DEV = 35
K, CANDIDATES = 5, 10
METHODS = ("naive", "scopecoe", "scopecoe-fill")


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


def questions(dev: bool, n: int, hot: int) -> list[tuple[str, QAItem, list[QAItem]]]:
    """(set name, question, the pool its irrelevant text comes from): 2Wiki first, then HotpotQA."""
    wiki_set, hot_set = ("twowiki_dev", "hotpotqa_dev") if dev else ("twowiki_test", "hotpotqa")
    wiki_pool, hot_pool = twowiki("all"), hotpotqa()
    wiki = twowiki("calibrate", limit=n) if dev else twowiki("test", limit=n)
    start = 0 if dev else HOTPOTQA_DEV
    return ([(wiki_set, it, wiki_pool) for it in wiki]
            + [(hot_set, it, hot_pool) for it in hot_pool[start:start + min(hot, HOTPOTQA_DEV)]])


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
    def __init__(self, work: Path, methods: list[str]) -> None:
        self.methods = methods
        self.settings = Settings.load("default")
        self.bench = Bench(self.settings, work, llm=build_llm(self.settings, Usage()), selectors=[])
        self.judge = FeatureJudge(self.bench.scorer, self.bench.embedder, threshold=self.settings.scopecoe_threshold,
                                  keyword_threshold=self.settings.scopecoe_keyword_threshold)

    def ask(self, dataset: str, item: QAItem, level: int, extra: list[Paragraph], wrong: str) -> list[Row]:
        name = f"coe-{item.id}-{level}{'-mis' if wrong else ''}"
        ws = self.bench.workspace(name)
        try:
            add_paragraphs(ws, replace(item, paragraphs=[*item.paragraphs, *extra]))
            naive = VectorRetriever(ws.store, self.bench.embedder)  # the paper's naive RAG: the embedder's top k
            base = RETRIEVERS.create(self.settings.scopecoe_base, self.settings, store=ws.store,
                                     embedder=self.bench.embedder)
            out = []
            for method in self.methods:
                scope = ScopeCoERetriever(base, ws.store, self.bench.llm, self.judge, candidates=CANDIDATES,
                                          fill=method == "scopecoe-fill")
                with self.bench._cost() as cost:
                    hits = naive.retrieve(item.question, K) if method == "naive" else scope.choose(item.question, K)[0]
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
    if len(levels) < 2:  # one level is a table row, not a curve
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (pip install 'gechat[bench]'): no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for dataset in sorted({r.dataset for r in rows}):
        for method, style in (("naive", "--"), ("scopecoe", "-"), ("scopecoe-fill", ":")):
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
    ap.add_argument("--work", type=Path, default=None,
                    help="workspaces and rows so far (default .cache/bench-coe, with --dev .cache/bench-coe-dev)")
    ap.add_argument("--methods", default=",".join(METHODS), help="of: " + ", ".join(METHODS))
    ap.add_argument("--dev", action="store_true", help="the tuning questions (2Wiki 101-150, HotpotQA 1-35) instead")
    ap.add_argument("--report", action="store_true",
                    help="only write the results from the rows kept in --work (runs of several sizes together)")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    methods = [m for m in args.methods.split(",") if m]
    if not set(methods) <= set(METHODS):
        ap.error(f"--methods: choose from {', '.join(METHODS)}")
    args.work = args.work or Path(".cache/bench-coe-dev" if args.dev else ".cache/bench-coe")
    wiki_set, hot_set = ("twowiki_dev", "hotpotqa_dev") if args.dev else ("twowiki_test", "hotpotqa")
    args.work.mkdir(parents=True, exist_ok=True)
    kept = args.work / "rows.jsonl"
    rows = [Row(**json.loads(line)) for line in kept.read_text().splitlines()] if kept.exists() else []
    done = {(r.dataset, r.id, r.level, bool(r.planted), r.method) for r in rows}
    if args.report:
        report(rows, levels, (wiki_set, hot_set), "scopecoe_dev" if args.dev else "scopecoe")
        return
    plan = questions(args.dev, args.n, args.hotpotqa)
    run = Run(args.work, methods)
    with kept.open("a") as f:
        for dataset, item, pool in tqdm(plan, desc="questions", file=sys.stderr):
            todo: list[tuple[int, list[Paragraph], str]] = [(lv, noise_for(item, pool, lv), "") for lv in levels]
            if args.misinformation and dataset == wiki_set and (mis := planted(item)) is not None:
                todo.append((50, [*noise_for(item, pool, 50), mis[0]], mis[1]))
            for level, extra, wrong in todo:
                if all((dataset, item.id, level, bool(wrong), m) in done for m in methods):
                    continue
                for r in run.ask(dataset, item, level, extra, wrong):
                    if (dataset, item.id, level, bool(wrong), r.method) in done:
                        continue
                    rows.append(r)
                    f.write(json.dumps(asdict(r)) + "\n")
                    f.flush()
    report(rows, levels, (wiki_set, hot_set), "scopecoe_dev" if args.dev else "scopecoe")


def report(rows: list[Row], levels: list[int], sets: tuple[str, str], name: str) -> None:
    wiki_set, hot_set = sets
    default = "scopecoe-fill" if Settings.load("default").scopecoe_fill else "scopecoe"
    flat: dict[str, float] = {}
    lines = ["## Accuracy by irrelevant text", "",
             "Accuracy: the gold answer contained in the answer (normalised); EM and F1 against the gold answer.", "",
             "| set | irrelevant % | method | questions | accuracy | EM | F1 | snippets | LLM tokens | s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for dataset in sets:
        for lv in levels:
            for method in METHODS:
                f = figures(rows, dataset, lv, method)
                if f:
                    lines.append(f"| {dataset} | {lv} | {method} | {f['n']:.0f} | {f['accuracy']:.3f} | "
                                 f"{f['em']:.3f} | {f['f1']:.3f} | {f['snippets']:.2f} | {f['tokens']:.0f} | "
                                 f"{f['seconds']:.1f} |")
    usability = 50 if 50 in levels else levels[-1]
    # the flat keys: "_scopecoe" is the variant the default Settings use; both variants as well
    keys = {"naive": ["naive"], "scopecoe": ["scopecoe_minimal"], "scopecoe-fill": ["scopecoe_fill"]}
    keys[default].append("scopecoe")
    for dataset, key in ((wiki_set, "twowiki"), (hot_set, "hotpotqa")):
        for method in METHODS:
            f = figures(rows, dataset, usability, method)
            for k in keys[method] if f else []:
                flat[f"{key}_accuracy_{k}"] = f["accuracy"]
    for method in METHODS:
        at = [figures(rows, d, usability, method) for d in sets]
        n = sum(f.get("n", 0) for f in at)
        mis = figures(rows, wiki_set, 50, method, mis=True)
        for k in keys[method]:
            if n:
                flat[f"snippets_{k}"] = round(sum(f["snippets"] * f["n"] for f in at if f) / n, 2)
            if mis:
                flat[f"following_rate_{k}"] = mis["following"]
                flat[f"misinformation_accuracy_{k}"] = mis["accuracy"]
    if any(r.planted for r in rows):
        lines += ["", "## Misinformation (2Wiki, 50% irrelevant text and one planted wrong answer)", "",
                  "| method | questions | accuracy | following rate |", "|---|---|---|---|"]
        for method in METHODS:
            f = figures(rows, wiki_set, 50, method, mis=True)
            if f:
                lines.append(f"| {method} | {f['n']:.0f} | {f['accuracy']:.3f} | {f['following']:.3f} |")
    if plot(rows, levels, RESULTS / f"{name}.png"):
        lines += ["", f"![accuracy by irrelevant text]({name}.png)"]
    settings = Settings.load("default")
    meta = {"models": f"{settings.llm_model} (answers, CoE features), {settings.embedder} (retrieval, keywords), "
                      f"{settings.entailment} NLI cross-encoder (intent and relation judgments)",
            "settings": f"k={K}, candidates={CANDIDATES} of {settings.scopecoe_base}, "
                        f"scopecoe_threshold={settings.scopecoe_threshold}, "
                        f"scopecoe_keyword_threshold={settings.scopecoe_keyword_threshold}, "
                        f"scopecoe_fill={settings.scopecoe_fill} (the flat *_scopecoe keys)",
            "usability level": f"{usability}% irrelevant text (the flat *_accuracy_* keys)"}
    print(f"wrote {write(name, flat, chr(10).join(lines), meta)}")


if __name__ == "__main__":
    main()

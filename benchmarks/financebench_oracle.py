"""FinanceBench oracle, on its own: each question's gold answer as a claim (and a hard wrong one,
its figure changed by 5-50%), grounded in what retrieval finds in the filing; no LLM.

    python benchmarks/financebench_oracle.py [--split dev|test] [--retriever NAME] [--work DIR]

Issue 35's oracle figures (gold answer supported, wrong answers supported, evidence on a gold
page) without the whole `gechat bench`, which takes hours with its LLM selectors; the same
code (``Bench.oracle_finance``, the nli-objective chain). Dev: the filings whose names sort
in the first half, where changes are tuned; test: the second half, to report a change. The
filings are added to ``--work`` when missing (`gechat bench --documents` keeps them in
``.cache/bench/default``). Writes benchmarks/results/financebench_oracle_<split>.{md,json}
(``_<retriever>`` appended for a retriever other than the default), one row per question.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tqdm import tqdm

from common import write
from gechat.eval.bench import Bench
from gechat.eval.datasets import financebench, financebench_split
from gechat.models import build_llm
from gechat.settings import Settings
from gechat.types import Usage

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--retriever", default=None, help="a retrieval strategy (default: the settings' default)")
    ap.add_argument("--work", type=Path, default=REPO / ".cache" / "bench" / "default",
                    help="the bench's workspaces (the filings are added there when missing)")
    args = ap.parse_args()
    settings = Settings.load("default", **({"retriever": args.retriever} if args.retriever else {}))
    bench = Bench(settings, args.work, llm=build_llm(settings, Usage()), selectors=["nli-objective"])
    items = [f for f in financebench() if financebench_split(f) == args.split]
    rows: list[tuple[str, bool, list[bool], float]] = []
    for item in tqdm(items, desc=f"financebench {args.split}", file=sys.stderr):
        for r in bench.oracle_finance(item, with_llm=False):
            rows.append((item.id, r.verdicts[0][1], [p for _, p in r.verdicts[1:]], r.page_hit or 0.0))
    wrong = [w for _, _, ws, _ in rows for w in ws]
    flat: dict[str, object] = {  # issue 34's key names
        "financebench_oracle_questions": len(rows),
        "financebench_oracle_supported_rate": round(sum(g for _, g, _, _ in rows) / len(rows), 4),
        "financebench_oracle_wrong_claims": len(wrong),
        "financebench_oracle_wrong_supported_rate": round(sum(wrong) / max(1, len(wrong)), 4),
        "financebench_oracle_page_hit": round(sum(p for *_, p in rows) / len(rows), 4)}
    lines = ["| questions | gold answer supported | wrong answers supported | evidence on a gold page |",
             "|---|---|---|---|",
             f"| {len(rows)} | {flat['financebench_oracle_supported_rate']:.3f} | "
             f"{flat['financebench_oracle_wrong_supported_rate']:.3f} ({sum(wrong)} of {len(wrong)}) | "
             f"{flat['financebench_oracle_page_hit']:.3f} |", "",
             "| question | gold supported | wrong supported | gold page |", "|---|---|---|---|"]
    lines += [f"| {i} | {'yes' if g else 'no'} | {', '.join('yes' if w else 'no' for w in ws) or '-'} | {p:.0f} |"
              for i, g, ws, p in rows]
    name = f"financebench_oracle_{args.split}" + (f"_{args.retriever}" if args.retriever else "")
    path = write(name, flat, "\n".join(lines), {
        "questions": f"FinanceBench, the {args.split} half of the filings", "retriever": settings.retriever,
        "models": f"{settings.embedder} embeddings, {settings.entailment} entailment; no LLM",
        "unit": "the gold answer as a claim must come out supported, the hard wrong one (its figure changed by "
                "5-50%) must not; a gold page: the gold claim's evidence cites one"})
    print(f"wrote {path}")
    print({k: v for k, v in flat.items()})


if __name__ == "__main__":
    main()

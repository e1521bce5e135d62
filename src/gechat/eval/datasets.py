"""The public evaluation sets of ../shared/data, read into one shape.

HotpotQA (distractor, first 70 of dev) and 2WikiMultihopQA (350 of dev: the first 150 are
our tuning split, the other 200 the reported test split) give each question its own ten
paragraphs, as lists of sentences, and gold supporting facts as (title, sentence index).
FinanceBench gives questions over long real PDFs with the gold evidence text and its page.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"
TWOWIKI_DEV = 150  # the first 150 2Wiki questions tune; the remaining 200 are reported
# of the tuning 150: 1-100 give claim-style training pairs to the grounding model
# (training/claim_pairs.py), 101-150 calibrate the evidence defaults (benchmarks/calibrate_evidence.py)
TWOWIKI_CLAIM_TRAIN = 100


@dataclass(frozen=True)
class Paragraph:
    title: str
    sentences: list[str]


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    answer: str
    kind: str  # bridge / comparison / compositional / inference ...
    paragraphs: list[Paragraph] = field(default_factory=list)
    gold: frozenset[tuple[str, int]] = frozenset()  # (title, sentence index)

    def gold_text(self) -> str:
        by_title = {p.title: p.sentences for p in self.paragraphs}
        return " ".join(by_title[t][i].strip() for t, i in sorted(self.gold)
                        if t in by_title and i < len(by_title[t]))


@dataclass(frozen=True)
class FinanceItem:
    id: str
    question: str
    answer: str
    pdf: Path
    evidence: list[tuple[str, int]]  # (gold text, 1-based page)


def _facts(raw: list[list[object]]) -> frozenset[tuple[str, int]]:
    return frozenset((str(t), int(i)) for t, i in raw)  # type: ignore[call-overload]


def _listed(value: object) -> list[Any]:
    """Some 2Wiki cells hold a list, some the repr of one."""
    out = ast.literal_eval(value) if isinstance(value, str) else value
    return list(out)  # type: ignore[arg-type]


def hotpotqa(limit: int | None = None, root: Path = DATA) -> list[QAItem]:
    rows = json.loads((root / "hotpotqa_distractor_dev" / "hotpot_dev_distractor_v1_first70.json").read_text())
    return [QAItem(r["_id"], r["question"], r["answer"], r["type"],
                   [Paragraph(t, list(s)) for t, s in r["context"]], _facts(r["supporting_facts"]))
            for r in rows[:limit]]


def twowiki(split: Literal["dev", "test", "all", "calibrate"] = "test", limit: int | None = None,
            root: Path = DATA) -> list[QAItem]:
    cols = json.loads((root / "2wikimultihopqa_dev" / "sampled_ds_first350.json").read_text())
    rows = sorted(cols["question"], key=int)
    items = []
    for r in rows:
        ctx, facts = _listed(cols["context"][r]), _listed(cols["supporting_facts"][r])
        items.append(QAItem(cols["_1"][r], cols["question"][r], cols["answer"][r], cols["type"][r],
                            [Paragraph(t, list(s)) for t, s in ctx], _facts(facts)))
    if split == "dev":
        items = items[:TWOWIKI_DEV]
    elif split == "calibrate":
        items = items[TWOWIKI_CLAIM_TRAIN:TWOWIKI_DEV]
    elif split == "test":
        items = items[TWOWIKI_DEV:]
    return items[:limit]


def financebench(limit: int | None = None, root: Path = DATA) -> list[FinanceItem]:
    """The questions whose PDF is here; gold pages made 1-based like ours."""
    base = root / "financebench"
    items = []
    for line in (base / "financebench_open_source.jsonl").read_text().splitlines():
        r = json.loads(line)
        pdf = base / "pdfs" / f"{r['doc_name']}.pdf"
        if not pdf.is_file():
            continue
        ev = [(e["evidence_text"], int(e["evidence_page_num"]) + 1) for e in r.get("evidence", [])]
        items.append(FinanceItem(r["financebench_id"], r["question"], str(r["answer"]), pdf, ev))
    return items[:limit]


def financebench_split(item: FinanceItem, root: Path = DATA) -> str:
    """"dev" for a question on a filing whose name sorts in the first half of the filings
    here, else "test": tune on dev, report test."""
    names = _filings(root)
    return "dev" if names.index(item.pdf.stem) < len(names) // 2 else "test"


@lru_cache(maxsize=4)
def _filings(root: Path) -> list[str]:
    return sorted({i.pdf.stem for i in financebench(root=root)})

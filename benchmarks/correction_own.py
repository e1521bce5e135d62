"""HC on gechat's own answers: the packaged LLM answers, HC corrects, both are measured.

Used by ``benchmarks/correction.py --own N``. Each question is asked as `gechat ask --correct`
asks it (retrieval, the LLM's answer, the evidence chain, HC). Then the answer before and
after correction is measured the same way:

- answer F1 (token F1 against the gold answer, as the evidence bench scores answers), and the
  share of answers right (every figure of the gold answer stated within 1%, or the gold answer's
  text contained, as the long-document bench scores them): token F1 gives a wrong answer that
  names the gold entity ("A is older than B" for gold "B") some credit, so removing it lowers F1;
- groundedness by the entailment model: the answer's claims grounded again in the same
  retrieved sentences with the default chain; the share of claims supported (a correction
  that empties an answer leaves no claim: such answers are counted apart);
- groundedness by an LLM judge: a 1-5 score from the packaged LLM with a prompt of our own
  (``PROMPTS["groundedness_*"]``, after the paper's appendix A.4). An unchanged answer keeps
  its score; an emptied one gets none.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from gechat.answer.base import Draft
from gechat.answer.claims import make_claims
from gechat.eval.bench import FILE_LAYOUT, Bench
from gechat.eval.datasets import hotpotqa, twowiki
from gechat.eval.long_docs import answer_correct, financebench_questions
from gechat.eval.qa import answer_f1
from gechat.graph.llm_extract import parse_partial
from gechat.models import build_llm
from gechat.models.llm.base import LLM
from gechat.pipeline import Workspace
from gechat.prompts import PROMPTS
from gechat.settings import Settings
from gechat.types import Answer, Usage

HOTPOTQA_DEV = 35  # HotpotQA's first 35 questions tune; its test half is the other 35
CONTEXT_CHARS = 6000  # what the judge reads of the excerpts (its prompt must fit 4k tokens)
JUDGE_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
                                "required": ["score"]}


@dataclass
class OwnRow:
    dataset: str
    id: str
    question: str
    gold: str
    answer: str
    corrected: str
    edits: int
    f1_before: float
    f1_after: float
    claims_before: int
    supported_before: int
    claims_after: int
    supported_after: int
    judge_before: int | None
    judge_after: int | None
    seconds_answer: float
    seconds_correct: float
    eliminated: list[str] = field(default_factory=list)


class OwnAnswers:
    def __init__(self, settings: Settings, work: Path) -> None:
        self.settings = settings
        self.llm = build_llm(settings, Usage())
        self.bench = Bench(settings, work, llm=self.llm, selectors=[])

    def row(self, dataset: str, item_id: str, question: str, gold: str, ws: Workspace) -> OwnRow:
        answer = ws.ask(question, correct=True)
        stages = answer.usage.stages if answer.usage else {}
        pool_hits = answer.contexts
        corrected = answer.corrected.text if answer.corrected else answer.text
        before, after = self.grounded(ws, answer, answer.text), self.grounded(ws, answer, corrected)
        judge_before = self.judge(answer.text, pool_hits)
        judge_after = judge_before if corrected == answer.text else self.judge(corrected, pool_hits)
        return OwnRow(dataset, item_id, question, gold, answer.text, corrected,
                      len(answer.corrected.edits) if answer.corrected else 0,
                      answer_f1(answer.text, gold), answer_f1(corrected, gold) if corrected.strip() else 0.0,
                      before[0], before[1], after[0], after[1], judge_before, judge_after,
                      round(sum(s.seconds for k, s in stages.items() if k != "correct"), 2),
                      round(stages["correct"].seconds if "correct" in stages else 0.0, 3),
                      answer.corrected.eliminated if answer.corrected else [])

    def grounded(self, ws: Workspace, answer: Answer, text: str) -> tuple[int, int]:
        """(claims, supported) of ``text`` grounded in the answer's retrieved sentences."""
        if not text.strip():
            return 0, 0
        claims = make_claims(Draft(text=text, thoughts=[]), from_thoughts=False, question=answer.question)
        if not claims:
            return 0, 0
        out = ws.selector.select(claims, ws.evidence_pool(answer.contexts))
        return len(out), sum(c.verdict in ("supported", "no fact") for c in out)

    def judge(self, text: str, hits: Iterable[Any]) -> int | None:
        return judge_groundedness(self.llm, [h.chunk.text for h in hits], text)


def judge_groundedness(llm: LLM, passages: list[str], answer: str) -> int | None:
    """The LLM judge's 1-5 groundedness of ``answer`` in ``passages``; None for no answer."""
    if not answer.strip():
        return None
    context = "\n\n".join(passages)[:CONTEXT_CHARS]
    done = llm.complete([{"role": "system", "content": PROMPTS["groundedness_system"]},
                         {"role": "user", "content": PROMPTS["groundedness_user"].format(
                             context=context, answer=answer)}], max_tokens=12, json_schema=JUDGE_SCHEMA)
    data = parse_partial(done.text)
    score = data.get("score") if isinstance(data, dict) else None
    return score if isinstance(score, int) and 1 <= score <= 5 else None


def run_own(settings: Settings, work: Path, n: int, finance: int, out: Path,
            tick: Callable[[str], None] = print, split: str = "test") -> list[OwnRow]:
    """HotpotQA's test half and 2Wiki's test split (first ``n`` of each), and the first
    ``finance`` FinanceBench test questions (each filing added to its own workspace); with
    ``split`` "dev", the dev halves instead (to choose a setting on). Rows are appended to
    ``out`` as they come; rows already there are not asked again."""
    own = OwnAnswers(settings, work)
    done = {(r["dataset"], r["id"]): r for r in map(json.loads, out.read_text().splitlines())} if out.exists() else {}
    rows = [OwnRow(**r) for r in done.values()]
    if split == "dev":
        qa = [("hotpotqa_dev", it) for it in hotpotqa()[:min(n, HOTPOTQA_DEV)]] + \
             [("twowiki_dev", it) for it in twowiki("dev", limit=n)]
    else:
        qa = [("hotpotqa", it) for it in hotpotqa()[HOTPOTQA_DEV:HOTPOTQA_DEV + n]] + \
             [("twowiki_test", it) for it in twowiki("test", limit=n)]
    fin = [q for q in financebench_questions() if q.split == split][:finance]
    todo = len(qa) + len(fin)
    with out.open("a") as f:
        def keep(r: OwnRow) -> None:
            rows.append(r)
            f.write(json.dumps(asdict(r)) + "\n")
            f.flush()

        for i, (dataset, item) in enumerate(qa):
            if (dataset, item.id) in done:
                continue
            tick(f"{dataset} {i + 1}/{todo}")
            ws, _ = own.bench.qa_workspace(item)
            try:
                keep(own.row(dataset, item.id, item.question, item.answer, ws))
            finally:
                ws.close()
        for j, q in enumerate(fin):
            if ("financebench_e2e", q.id) in done:
                continue
            tick(f"financebench {len(qa) + j + 1}/{todo}")
            ws = own.bench.workspace(q.workspace_name(), FILE_LAYOUT)
            try:
                if not ws.documents():
                    ws.add([q.document])
                keep(own.row("financebench_e2e", q.id, q.question, q.answer, ws))
            finally:
                ws.close()
    return rows


def figures(rows: list[OwnRow]) -> dict[str, float]:
    def share(a: int, b: int) -> float:
        return round(a / b, 4) if b else 0.0

    kept = [r for r in rows if r.corrected.strip()]
    judged = [r for r in kept if r.judge_before is not None and r.judge_after is not None]
    both = [(r.judge_before, r.supported_before / r.claims_before) for r in rows
            if r.judge_before is not None and r.claims_before]
    return {
        "own_answers": len(rows),
        "answer_f1_before": round(mean(r.f1_before for r in rows), 4) if rows else 0.0,
        "answer_f1_after": round(mean(r.f1_after for r in rows), 4) if rows else 0.0,
        "answer_right_before": share(sum(answer_correct(r.answer, r.gold) for r in rows), len(rows)),
        "answer_right_after": share(sum(answer_correct(r.corrected, r.gold) for r in rows), len(rows)),
        "groundedness_nli_before": share(sum(r.supported_before for r in rows), sum(r.claims_before for r in rows)),
        "groundedness_nli_after": share(sum(r.supported_after for r in rows), sum(r.claims_after for r in rows)),
        "own_answers_edited": share(sum(r.edits > 0 for r in rows), len(rows)),
        "own_answers_emptied": share(len(rows) - len(kept), len(rows)),
        "groundedness_llm_before": round(mean(r.judge_before for r in judged if r.judge_before), 3) if judged else 0.0,
        "groundedness_llm_after": round(mean(r.judge_after for r in judged if r.judge_after), 3) if judged else 0.0,
        "judge_nli_agreement": share(sum((j >= 4) == (s >= 1.0) for j, s in both), len(both)),
        "own_seconds_correct": round(mean(r.seconds_correct for r in rows), 3) if rows else 0.0,
    }


def markdown(rows: list[OwnRow]) -> list[str]:
    lines = ["## Our own answers (packaged LLM), before and after HC", "",
             "| set | answers | edited | emptied | answer F1 before | after | right before | after | "
             "NLI grounded before | after | LLM judge before | after | HC s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in [*sorted({r.dataset for r in rows}), "all"]:
        part = [r for r in rows if name in ("all", r.dataset)]
        f = figures(part)
        lines.append(f"| {name} | {len(part)} | {f['own_answers_edited']:.2f} | {f['own_answers_emptied']:.2f} | "
                     f"{f['answer_f1_before']:.3f} | {f['answer_f1_after']:.3f} | "
                     f"{f['answer_right_before']:.3f} | {f['answer_right_after']:.3f} | "
                     f"{f['groundedness_nli_before']:.3f} | {f['groundedness_nli_after']:.3f} | "
                     f"{f['groundedness_llm_before']:.2f} | {f['groundedness_llm_after']:.2f} | "
                     f"{f['own_seconds_correct']:.2f} |")
    return lines


__all__ = ["OwnAnswers", "OwnRow", "figures", "judge_groundedness", "markdown", "run_own"]

"""`gechat bench`: the evidence suites, run and written to results/evidence.{md,json}."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gechat.eval.bench import SELECTOR_KEYS, Bench, Result, summarise
from gechat.eval.datasets import financebench, hotpotqa, twowiki
from gechat.eval.report import write
from gechat.models import build_llm
from gechat.settings import Settings
from gechat.types import Usage


@dataclass(frozen=True)
class Plan:
    hotpotqa_oracle: int
    hotpotqa_e2e: int
    twowiki_oracle: int
    financebench_oracle: int

    def capped(self, limit: int | None) -> Plan:
        if limit is None:
            return self
        return Plan(*(min(n, limit) for n in (self.hotpotqa_oracle, self.hotpotqa_e2e, self.twowiki_oracle,
                                              self.financebench_oracle)))


FULL = Plan(hotpotqa_oracle=70, hotpotqa_e2e=70, twowiki_oracle=200, financebench_oracle=40)
QUICK = Plan(hotpotqa_oracle=8, hotpotqa_e2e=3, twowiki_oracle=8, financebench_oracle=2)
Tick = Callable[[str], None]


def _wrong_answers(answers: Sequence[str]) -> list[str]:
    """Another question's answer for each question (the next different one): a claim that must
    not come out supported. yes/no answers get the opposite."""
    out = []
    for i, a in enumerate(answers):
        if a.lower() in ("yes", "no"):
            out.append("no" if a.lower() == "yes" else "yes")
            continue
        j = (i + 1) % len(answers)
        while answers[j].lower() in (a.lower(), "yes", "no") and j != i:
            j = (j + 1) % len(answers)
        out.append(answers[j])
    return out


def run(settings: Settings, *, plan: Plan, work: Path, results: Path, selectors: Sequence[str],
        tick: Tick = lambda _: None) -> tuple[dict[str, float], Path]:
    llm = build_llm(settings, Usage())
    bench = Bench(settings, work, llm=llm, selectors=selectors)
    out: list[Result] = []
    hot = hotpotqa(limit=max(plan.hotpotqa_oracle, plan.hotpotqa_e2e))
    wrong = _wrong_answers([i.answer for i in hot])
    for i, item in enumerate(hot[: plan.hotpotqa_oracle]):
        tick(f"HotpotQA oracle {i + 1}/{plan.hotpotqa_oracle}")
        out += bench.oracle_qa("hotpotqa", item, wrong[i])
    for i, item in enumerate(hot[: plan.hotpotqa_e2e]):
        tick(f"HotpotQA end to end {i + 1}/{plan.hotpotqa_e2e}")
        out += bench.end_to_end_qa("hotpotqa", item)
    wiki = twowiki("test", limit=plan.twowiki_oracle)
    wrong = _wrong_answers([i.answer for i in wiki])
    for i, item in enumerate(wiki):
        tick(f"2Wiki test oracle {i + 1}/{len(wiki)}")
        out += bench.oracle_qa("twowiki_test", item, wrong[i])
    for i, fin in enumerate(financebench(limit=plan.financebench_oracle)):
        tick(f"FinanceBench oracle {i + 1}/{plan.financebench_oracle} ({fin.pdf.name})")
        out += bench.oracle_finance(fin)
    flat = summarise(out, bench.embedder.embed)
    meta = {"plan": plan.__dict__, "selectors": list(selectors), "llm": settings.llm_model,
            "entailment": f"{settings.entailment}:{settings.entailment_model or 'default'}",
            "embedder (evidence score)": settings.embedder,
            "settings": settings.model_dump(mode="json", exclude={"models_dir", "cache_dir"})}
    path = write("evidence", flat, markdown(flat, selectors), meta, results=results)
    return flat, path


def markdown(flat: dict[str, float], selectors: Sequence[str]) -> str:
    columns = [("HotpotQA oracle F1", "hotpotqa_oracle_f1"), ("P", "hotpotqa_oracle_precision"),
               ("R", "hotpotqa_oracle_recall"), ("verdict bal. acc", "hotpotqa_oracle_verdict_balanced_accuracy"),
               ("2Wiki test oracle F1", "twowiki_test_oracle_f1"),
               ("HotpotQA e2e F1", "hotpotqa_e2e_f1"), ("answer F1", "hotpotqa_e2e_answer_f1"),
               ("FinanceBench page hit", "financebench_page_hit"),
               ("FinanceBench token recall", "financebench_token_recall"),
               ("evidence score", "evidence_score"), ("fabricated", "fabricated_rate"),
               ("s / question (oracle)", "hotpotqa_oracle_seconds_per_question"),
               ("LLM tokens / question (oracle)", "hotpotqa_oracle_llm_tokens_per_question")]
    lines = ["| selector | " + " | ".join(c for c, _ in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for sel in selectors:
        key = SELECTOR_KEYS.get(sel, sel)
        cells = [flat.get(f"{col}__{key}") for _, col in columns]
        lines.append(f"| {sel} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in cells) + " |")
    lines += ["", "Oracle: the gold answer, phrased as a claim, is grounded in all sentences of the question's "
              "paragraphs (FinanceBench: in the chunks retrieved for it); a wrong answer must not come out "
              "supported. e2e: retrieval, the LLM's answer and steps, then each selector on the same claims. "
              "Evidence score: mean cos(E, E_gt) * min(1, L_gt / L), lengths in words, embeddings of the "
              "configured embedder; no evidence scores 0. Fabricated: quotes the LLM returned that are not in "
              "the source (dropped, never shown)."]
    return "\n".join(lines)

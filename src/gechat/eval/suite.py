"""`gechat bench`: the evidence suites, run and written to results/evidence.{md,json}."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gechat.errors import GechatError
from gechat.eval.bench import SELECTOR_KEYS, Bench, Result, wrong_answers
from gechat.eval.datasets import QAItem, financebench, hotpotqa, twowiki
from gechat.eval.report import write
from gechat.eval.summary import summarise
from gechat.models import build_llm
from gechat.settings import Settings
from gechat.types import Usage


@dataclass(frozen=True)
class Plan:
    """Questions per suite. LLM selectors (reflection, quote: seconds per claim on a CPU) run
    on the first ``llm_questions`` of each suite only; the nli-objective runs on all."""

    hotpotqa_oracle: int
    hotpotqa_e2e: int
    twowiki_oracle: int
    financebench_oracle: int
    llm_questions: int
    retrieved: int = 0  # questions per QA set whose evidence comes from each retrieval strategy
    smallest_pdfs: bool = False  # FinanceBench questions on the smallest filings first (quick runs)

    def capped(self, limit: int | None) -> Plan:
        if limit is None:
            return self
        counts = ("hotpotqa_oracle", "hotpotqa_e2e", "twowiki_oracle", "financebench_oracle", "llm_questions",
                  "retrieved")
        return dataclasses.replace(self, **{k: min(getattr(self, k), limit) for k in counts})


# The full run takes about an hour on 2 cores with the 1.5B LLM, most of it in the LLM selectors
# (about a minute per question: the quote prompt holds all ten paragraphs).
FULL = Plan(hotpotqa_oracle=70, hotpotqa_e2e=10, twowiki_oracle=200, financebench_oracle=40, llm_questions=10,
            retrieved=70)
# quick: the LLM selectors on 2 questions a suite (about a minute each) and FinanceBench on the
# smallest filings, so a cold run (nothing cached, nothing indexed) stays within minutes
QUICK = Plan(hotpotqa_oracle=8, hotpotqa_e2e=3, twowiki_oracle=8, financebench_oracle=2, llm_questions=2,
             retrieved=3, smallest_pdfs=True)
STRATEGIES = ("vector", "fused", "graph", "hybrid")
Tick = Callable[[str], None]


HOTPOTQA_DEV = 35


def run(settings: Settings, *, plan: Plan, work: Path, results: Path, selectors: Sequence[str],
        tick: Tick = lambda _: None, keep_others: bool = False) -> tuple[dict[str, float], Path]:
    """Runs the suites in order; the results files are rewritten after each suite, so a long
    run that is stopped still leaves what it measured. ``keep_others``: the selectors not run
    now keep their figures and rows from the results already in ``results`` (re-running only
    what a change touched; the meta says which run each row is from)."""
    llm = build_llm(settings, Usage())
    bench = Bench(settings, work, llm=llm, selectors=selectors)
    out: list[Result] = []
    meta: dict[str, object] = {
        "plan": plan.__dict__, "selectors": list(selectors), "llm": settings.llm_model,
        "entailment": f"{settings.entailment}:{settings.entailment_model or 'default'}",
        "embedder (evidence score)": settings.embedder,
        "settings": settings.model_dump(mode="json", exclude={"models_dir", "cache_dir"})}
    kept_flat: dict[str, float] = {}
    kept_rows: list[str] = []
    kept_llm: dict[tuple[str, str], set[str]] = {}
    shown = list(selectors)
    if keep_others:
        kept_flat, kept_rows, kept_meta = kept_results(results, selectors)
        shown = [s for s in SELECTOR_KEYS if s in selectors or s in kept_meta]
        meta["kept from an earlier run"] = kept_meta
        kept_llm = llm_questions(kept_rows)

    def save(done: str) -> tuple[dict[str, float], Path]:
        flat = {**kept_flat, **summarise(out, bench.embedder.embed, kept_llm)}
        results.mkdir(parents=True, exist_ok=True)
        with (results / "evidence_questions.jsonl").open("w") as f:  # one row per question and selector
            for r in out:
                f.write(json.dumps({k: v for k, v in dataclasses.asdict(r).items() if k != "gold_text"}) + "\n")
            f.writelines(kept_rows)
        return flat, write("evidence", flat, markdown(flat, shown, plan), {**meta, "suites done": done},
                           results=results)

    hot = hotpotqa(limit=max(plan.hotpotqa_oracle, plan.hotpotqa_e2e))
    wrong = hard_wrong(hot)
    for i, item in enumerate(hot[: plan.hotpotqa_oracle]):
        tick(f"HotpotQA oracle {i + 1}/{plan.hotpotqa_oracle}")
        # HotpotQA's first 35 questions tune, the rest are reported (issue 34's data discipline)
        split = "dev" if i < HOTPOTQA_DEV else "test"
        out += bench.oracle_qa("hotpotqa", item, wrong[i], with_llm=i < plan.llm_questions, split=split)
    for i, item in enumerate(hot[: plan.hotpotqa_e2e]):
        tick(f"HotpotQA end to end {i + 1}/{plan.hotpotqa_e2e}")
        out += bench.end_to_end_qa("hotpotqa", item, with_llm=i < plan.llm_questions)
    save("HotpotQA")
    wiki = twowiki("test", limit=plan.twowiki_oracle)
    wrong = hard_wrong(wiki)
    for i, item in enumerate(wiki):
        tick(f"2Wiki test oracle {i + 1}/{len(wiki)}")
        out += bench.oracle_qa("twowiki_test", item, wrong[i], with_llm=i < plan.llm_questions)
    save("HotpotQA, 2Wiki")
    if "nli-objective" in selectors:
        for dataset, items in (("hotpotqa", hot), ("twowiki_test", wiki)):
            wrong = hard_wrong(items)
            for i, item in enumerate(items[: plan.retrieved]):
                tick(f"{dataset} by retrieval strategy {i + 1}/{min(plan.retrieved, len(items))}")
                out += bench.retrieved_qa(dataset, item, wrong[i], STRATEGIES)
        save("HotpotQA, 2Wiki, retrieval strategies")
    fins = financebench()
    if plan.smallest_pdfs:
        fins.sort(key=lambda f: f.pdf.stat().st_size)
    for i, fin in enumerate(fins[: plan.financebench_oracle]):
        tick(f"FinanceBench oracle {i + 1}/{plan.financebench_oracle} ({fin.pdf.name})")
        out += bench.oracle_finance(fin, with_llm=i < plan.llm_questions)
    return save("all")


def hard_wrong(items: Sequence[QAItem]) -> list[str]:
    """Each question's hard wrong answer, drawn from its own passages where it can be."""
    passages = [" ".join(s for p in i.paragraphs for s in p.sentences) for i in items]
    return wrong_answers([i.question for i in items], [i.answer for i in items], passages=passages)


def kept_results(results: Path, running: Sequence[str]) -> tuple[dict[str, float], list[str], dict[str, Any]]:
    """The figures (flat keys ``...__<selector>``, the nli-objective's retrieval rows too) and
    per-question rows of the selectors that are not run now, from the results in ``results``,
    read before this run overwrites them; and, per selector, the run that measured it."""
    path = results / "evidence.json"
    if not path.is_file():
        raise GechatError(f"--keep-others: no earlier results at {path}",
                          hint="run the bench once without --keep-others, or point --out at its results folder")
    old = json.loads(path.read_text())
    this_run = {k: old["meta"].get(k) for k in ("date", "command", "machine")}
    runs = {s: this_run for s in old["meta"].get("selectors", [])}
    earlier = old["meta"].get("kept from an earlier run") or {}  # what that run had itself kept
    if isinstance(earlier.get("selectors"), list):  # written before 2026-11-24: one run for all
        earlier = {s: {k: earlier.get(k) for k in ("date", "command", "machine")} for s in earlier["selectors"]}
    runs |= earlier
    kept = {s: run for s, run in runs.items() if s not in running}
    keys = [SELECTOR_KEYS.get(s, s) for s in kept]
    flat = {k: v for k, v in old.items() if k != "meta" and _owner(k.rpartition("__")[2]) in keys}
    rows_path = results / "evidence_questions.jsonl"
    rows = [line for line in rows_path.read_text().splitlines(keepends=True)
            if _owner(SELECTOR_KEYS.get(s := json.loads(line)["selector"], s)) in keys] if rows_path.is_file() else []
    return flat, rows, kept


def _owner(key: str) -> str:
    """The selector key that a flat key's or row's suffix belongs to: the retrieval-strategy
    rows (nli_vector, nli_graph, ...) are the nli-objective's."""
    return "nli" if key.startswith("nli_") else key


def llm_questions(rows: Sequence[str]) -> dict[tuple[str, str], set[str]]:
    """(dataset, mode) -> the questions that LLM selector rows (kept from an earlier run) cover."""
    out: dict[tuple[str, str], set[str]] = {}
    for line in rows:
        r = json.loads(line)
        if SELECTOR_KEYS.get(r["selector"]) in ("reflection", "quote"):
            out.setdefault((r["dataset"], r["mode"]), set()).add(r["question_id"])
    return out


def markdown(flat: dict[str, float], selectors: Sequence[str], plan: Plan) -> str:
    columns = [("HotpotQA oracle F1", "hotpotqa_oracle_f1"), ("P", "hotpotqa_oracle_precision"),
               ("R", "hotpotqa_oracle_recall"), ("HotpotQA F1, test half", "hotpotqa_oracle_test_f1"),
               ("verdict bal. acc", "hotpotqa_oracle_verdict_balanced_accuracy"),
               ("2Wiki test oracle F1", "twowiki_test_oracle_f1"),
               ("HotpotQA e2e F1", "hotpotqa_e2e_f1"), ("answer F1", "hotpotqa_e2e_answer_f1"),
               ("FinanceBench page hit", "financebench_page_hit"),
               ("FinanceBench token recall", "financebench_token_recall"),
               ("FinanceBench gold supported (test)", "financebench_test_supported_rate"),
               ("hard wrong supported (test)", "financebench_test_wrong_supported_rate"),
               ("evidence score", "evidence_score"), ("fabricated", "fabricated_rate"),
               ("not verbatim", "not_verbatim_rate"),
               ("s / question (oracle)", "hotpotqa_oracle_seconds_per_question"),
               ("LLM tokens / question (oracle)", "hotpotqa_oracle_llm_tokens_per_question")]
    lines = ["| selector | " + " | ".join(c for c, _ in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for sel in selectors:
        key = SELECTOR_KEYS.get(sel, sel)
        for label, suffix in ((sel, ""), (f"{sel}, on the LLM selectors' questions", "_llm_subset")):
            cells = [flat.get(f"{col}{suffix}__{key}") for _, col in columns]
            if suffix and all(v is None for v in cells):
                continue
            lines.append(f"| {label} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in cells) + " |")
    retrieval = [("HotpotQA F1", "hotpotqa_retrieved_f1"), ("P", "hotpotqa_retrieved_precision"),
                 ("R", "hotpotqa_retrieved_recall"), ("2Wiki test F1", "twowiki_test_retrieved_f1"),
                 ("P", "twowiki_test_retrieved_precision"), ("R", "twowiki_test_retrieved_recall"),
                 ("verdict bal. acc (2Wiki)", "twowiki_test_retrieved_verdict_balanced_accuracy")]
    if any(f"hotpotqa_retrieved_f1__nli_{s}" in flat for s in STRATEGIES):
        lines += ["", f"By retrieval strategy (nli-objective; first {plan.retrieved} questions of each set): the "
                  "question retrieves top_k chunks, the gold claim searches again as a reasoning step would, "
                  "and is grounded in what was found.", "",
                  "| retrieval | " + " | ".join(c for c, _ in retrieval) + " |", "|---" * (len(retrieval) + 1) + "|"]
        for s in STRATEGIES:
            cells = [flat.get(f"{col}__nli_{s}") for _, col in retrieval]
            lines.append(f"| {s} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in cells) + " |")
    for sel in selectors:
        key = SELECTOR_KEYS.get(sel, sel)
        bins = sorted({k.split("_")[1] for k in flat if k.startswith("reliability_") and k.endswith(f"__{key}")})
        if bins:
            lines += ["", f"Reliability ({sel}, oracle HotpotQA + 2Wiki claims, right and wrong; confidence = "
                      "P_entail of the evidence, 0 when contradicted): expected calibration error "
                      + ", ".join(f"{d} {flat[f'{d}_oracle_expected_calibration_error__{key}']:.3f}"
                                  for d in ("hotpotqa", "twowiki_test")
                                  if f"{d}_oracle_expected_calibration_error__{key}" in flat), "",
                      "| confidence bin | mean confidence | share true | claims |", "|---|---|---|---|"]
            lines += [f"| {b}-{float(b) + 0.1:.1f} | {flat[f'reliability_{b}_confidence__{key}']:.3f} | "
                      f"{flat[f'reliability_{b}_true__{key}']:.3f} | {flat[f'reliability_{b}_claims__{key}']:.0f} |"
                      for b in bins]
    lines += ["", f"Questions: HotpotQA oracle {plan.hotpotqa_oracle}, end to end {plan.hotpotqa_e2e}, 2Wiki test "
              f"{plan.twowiki_oracle}, FinanceBench {plan.financebench_oracle}; the LLM selectors (reflection, "
              f"quote) run on the first {plan.llm_questions} of each (see the per-row question counts in the "
              "JSON, keys ending _questions__<selector>).", "",
              "Oracle: the gold answer, phrased as a claim, is grounded in all sentences of the question's "
              "paragraphs (FinanceBench: in the chunks retrieved for it); a wrong answer must not come out "
              "supported (FinanceBench: the gold answer with its figure changed by 5-50%; dev / test: the "
              "questions on the filings whose names sort in the first / second half). e2e: retrieval, the "
              "LLM's answer and steps, then each selector on the same claims. "
              "Evidence score: mean cos(E, E_gt) * min(1, L_gt / L), lengths in words, embeddings of the "
              "configured embedder; no evidence scores 0. Fabricated: quotes the LLM returned that are not in "
              "the source (dropped, never shown). Not verbatim: evidence spans shown whose text is not the "
              "source's text at their offsets, checked on every span of every suite."]
    return "\n".join(lines)

"""TrustfulLLM's dual decoder against RAG with the same base model (the paper's Table 1 set-up,
with our models), on held-apart rows: HaluEval-QA rows 4000+, 2Wiki's test split, HotpotQA's
test half (the first n of each, a fixed sample).

    python benchmarks/trustful.py [--halueval 60 --twowiki 25 --hotpotqa 25] [--judge] [--hc 6]
    python benchmarks/trustful.py --report          # only rewrite the results from kept rows

Every row gets the same context: the item's gold passages and its first two non-gold ones (for
HaluEval, its knowledge text). ``base`` answers from the question alone; ``rag`` puts the
context in the prompt; ``trustful`` reads it in the guided pass only; ``trustful_prompt`` does
both; ``lora_rag`` is the same adapter with the context in the prompt and no guided pass
(what the LoRA factors alone give); ``trustful_clean`` is the adapter trained without noise
passages (the ablation);
``rag_1.5b`` is the 1.5B default through llama.cpp. The 0.5B rows run in PyTorch on the same
dequantised weights. ``--hc N`` adds HC + RAG and HC + TrustfulLLM: ``gechat ask --correct``
on N questions of each Wikipedia set with each backend. Rows are kept in
.cache/bench-trustful/rows.jsonl, so a stopped run goes on.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write
from correction_own import OwnAnswers, judge_groundedness
from gechat.answer.base import Draft
from gechat.answer.claims import as_answer_to, is_abstention, make_claims, split_text
from gechat.eval.qa import answer_f1, exact_match
from gechat.eval.textsim import chrf, rouge_l
from gechat.models import EMBEDDERS, ENTAILERS, LLMS
from gechat.models.entail.base import ENTAILMENT
from gechat.settings import Settings
from gechat.trustful import data, text
from gechat.trustful.load import PACKAGED_ADAPTER, load_base, load_trained, read_card
from gechat.trustful.model import DualDecoder

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "bench-trustful"
CLEAN_ADAPTER = CACHE.parent / "trustful-clean"  # the no-noise ablation: rebuilt by its command, not shipped
ROWS = ["base", "rag", "trustful", "trustful_prompt", "lora_rag", "trustful_clean", "rag_1.5b"]
MAX_NEW = 48


def claims_of(question: str, answer: str) -> list[str]:
    """The answer's claims as the evidence stage forms them; a short answer is checked as the
    answer to the question (the stage drops claims under three words)."""
    if not answer.strip() or is_abstention(answer):
        return []
    got = [c.text for c in make_claims(Draft(text=answer), from_thoughts=False, question=question)]
    return got or [as_answer_to(question, answer)]


class Scorer:
    def __init__(self, settings: Settings) -> None:
        from gechat.evidence import verdict_thresholds

        self.nli = ENTAILERS.create(settings.entailment, settings)
        self.supported, _ = verdict_thresholds(settings, self.nli)
        self.embedder = EMBEDDERS.create(settings.embedder, settings)

    def grounded(self, question: str, answer: str, passages: list[str]) -> tuple[int, int]:
        """(claims, supported): a claim is supported when one context sentence or passage entails it."""
        claims = claims_of(question, answer)
        premises = [s for p in passages for s in split_text(p)] + passages
        ok = sum(float(self.nli.score(premises, c)[:, ENTAILMENT].max()) >= self.supported for c in claims)
        return len(claims), ok

    def similarity(self, a: str, b: str) -> float:
        if not a.strip():
            return 0.0
        v = np.asarray(self.embedder.embed([a, b]), dtype=np.float32)
        return float(v[0] @ v[1] / (np.linalg.norm(v[0]) * np.linalg.norm(v[1]) + 1e-9))


def big_llm(settings: Settings) -> Any:
    """The 1.5B default through llama.cpp: the ``rag_1.5b`` row and the judge."""
    return LLMS.create("llamacpp", settings.model_copy(update={"llm_model": "qwen2.5-coder-1.5b"}))


class Answerers:
    """The 0.5B rows in PyTorch (one dequantised base, copied per adapter) and the 1.5B row."""

    def __init__(self, settings: Settings, rows: list[str]) -> None:
        lm, self.tok = load_base("qwen2.5-coder-0.5b", settings.models_dir)
        self.models: dict[str, DualDecoder] = {}
        if {"trustful", "trustful_prompt", "lora_rag"} & set(rows):
            self.models["trustful"] = load_trained(copy.deepcopy(lm), PACKAGED_ADAPTER)[0]
        if "trustful_clean" in rows:
            self.models["trustful_clean"] = load_trained(copy.deepcopy(lm), CLEAN_ADAPTER)[0]
        self.models["base"] = DualDecoder(lm, (0,)).eval()  # its block is never used: no guide
        self.big = big_llm(settings) if "rag_1.5b" in rows else None

    def answer(self, row: str, question: str, passages: list[str]) -> str:
        import torch

        in_prompt = row in ("rag", "trustful_prompt", "lora_rag", "rag_1.5b")
        messages = text.question_messages(question, passages if in_prompt else None)
        if row == "rag_1.5b":
            assert self.big is not None
            return self.big.complete(messages, max_tokens=MAX_NEW).text.strip()
        model = self.models["trustful" if row in ("trustful_prompt", "lora_rag") else
                            row if row.startswith("trustful") else "base"]
        guide = None
        if row.startswith("trustful"):
            ctx = text.context_ids(self.tok, text.context_text(passages), 1024)
            guide = model.encode(torch.tensor([ctx]))
        prompt = torch.tensor([text.prompt_ids(self.tok, messages)])
        ids = list(model.generate(prompt, guide, max_new_tokens=MAX_NEW, stop_ids=text.stop_ids(self.tok)))
        return str(self.tok.decode(ids, skip_special_tokens=True)).strip()


def run(args: argparse.Namespace, settings: Settings, kept: Path) -> None:
    done = {(r["row"], r["source"], r["id"]) for r in map(json.loads, kept.read_text().splitlines())} \
        if kept.exists() else set()
    rows = [r for r in args.rows.split(",") if r]
    items = data.test_set(args.halueval, args.twowiki, args.hotpotqa)
    todo = [(row, ex) for row in rows for ex in items if (row, ex.source, ex.id) not in done]
    if not todo:
        return
    gen, scorer = Answerers(settings, rows), Scorer(settings)
    judge_llm = (gen.big or big_llm(settings)) if args.judge else None
    with kept.open("a") as f:
        for i, (row, ex) in enumerate(todo, 1):
            passages = data.test_context(ex)
            t = time.monotonic()
            answer = gen.answer(row, ex.question, passages)
            seconds = time.monotonic() - t
            claims, ok = scorer.grounded(ex.question, answer, passages)
            rec = {"row": row, "source": ex.source, "id": ex.id, "question": ex.question, "gold": ex.answer,
                   "answer": answer, "seconds": round(seconds, 2), "claims": claims, "supported": ok,
                   "rouge_l": round(rouge_l(answer, ex.answer), 4), "chrf": round(chrf(answer, ex.answer), 4),
                   "embed_sim": round(scorer.similarity(answer, ex.answer), 4),
                   "em": exact_match(answer, ex.answer), "f1": round(answer_f1(answer, ex.answer), 4),
                   "judge": judge_groundedness(judge_llm, passages, answer)
                   if judge_llm and row in args.judge_rows else None}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{i}/{len(todo)} {row} {ex.source} {seconds:.1f}s f1={rec['f1']:.2f} :: {answer[:60]!r}", flush=True)


def run_hc(n: int, settings: Settings, kept: Path) -> None:
    """HC + RAG (llama.cpp 0.5B) and HC + TrustfulLLM: ``ask --correct`` end to end."""
    from dataclasses import asdict

    from gechat.eval.datasets import hotpotqa, twowiki

    class NoJudge(OwnAnswers):
        def judge(self, text: str, hits: Any) -> int | None:
            return None

    done = {(r["backend"], r["id"]) for r in map(json.loads, kept.read_text().splitlines())} if kept.exists() else set()
    items = [("hotpotqa", it) for it in hotpotqa()[data.HOTPOTQA_TRAIN:data.HOTPOTQA_TRAIN + n]] + \
            [("twowiki", it) for it in twowiki("test", limit=n)]
    backends = {"hc_rag": {"llm_backend": "llamacpp", "llm_model": "qwen2.5-coder-0.5b"},
                "hc_trustful": {"llm_backend": "trustful"}}
    for name, update in backends.items():
        if all((name, it.id) in done for _, it in items):
            continue
        own = NoJudge(settings.model_copy(update=update), CACHE / f"work-{name}")
        with kept.open("a") as f:
            for source, it in items:
                if (name, it.id) in done:
                    continue
                ws, _ = own.bench.qa_workspace(it)
                try:
                    rec = {"backend": name, **asdict(own.row(source, it.id, it.question, it.answer, ws))}
                finally:
                    ws.close()
                f.write(json.dumps(rec) + "\n")
                f.flush()
                print(f"{name} {source} {it.id}: {rec['answer'][:60]!r} -> {rec['corrected'][:60]!r}", flush=True)


def _agg(recs: list[dict[str, Any]]) -> dict[str, float]:
    judged = [r["judge"] for r in recs if r.get("judge")]
    return {"n": len(recs),
            "rouge_l": mean(r["rouge_l"] for r in recs), "chrf": mean(r["chrf"] for r in recs),
            "embed_sim": mean(r["embed_sim"] for r in recs), "em": mean(r["em"] for r in recs),
            "answer_f1": mean(r["f1"] for r in recs),
            "groundedness_nli": sum(r["supported"] for r in recs) / max(1, sum(r["claims"] for r in recs)),
            "judge": mean(judged) if judged else float("nan"),
            "seconds_per_answer": mean(r["seconds"] for r in recs)}


def _num(x: float) -> str:
    return "—" if x != x else f"{x:.2f}"


def report(kept: Path, hc_kept: Path, settings: Settings) -> None:
    recs = [json.loads(x) for x in kept.read_text().splitlines()] if kept.exists() else []
    rows = [r for r in ROWS if any(x["row"] == r for x in recs)]
    # only the questions every row answered, so the rows compare like with like
    answered = [{(x["source"], x["id"]) for x in recs if x["row"] == r} for r in rows]
    common = set.intersection(*answered) if answered else set()
    recs = [x for x in recs if (x["source"], x["id"]) in common]
    flat: dict[str, Any] = {}
    lines = ["## Answers with the same context (paper's Table 1 set-up, our models)", "",
             "| row | set | n | ROUGE-L | chrF | embed sim | EM | answer F1 | grounded (NLI) | judge 1-5 | s/answer |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for source in ["all", "halueval", "twowiki", "hotpotqa"]:
            part = [x for x in recs if x["row"] == row and source in ("all", x["source"])]
            if not part:
                continue
            a = _agg(part)
            if source == "all":
                flat.update({f"{k}_{row}": round(v, 4) for k, v in a.items() if k != "n" and v == v})
            lines.append(f"| {row} | {source} | {a['n']} | {a['rouge_l']:.3f} | {a['chrf']:.3f} | "
                         f"{a['embed_sim']:.3f} | {a['em']:.3f} | {a['answer_f1']:.3f} | {a['groundedness_nli']:.3f} | "
                         f"{_num(a['judge'])} | {a['seconds_per_answer']:.2f} |")
    flat["questions"] = len(common)
    hc = [json.loads(x) for x in hc_kept.read_text().splitlines()] if hc_kept.exists() else []
    if hc:
        lines += ["", "## HC on gechat's own answers (`ask --correct`, CoT prompt, retrieval from the 10 "
                  "paragraphs)", "",
                  "| backend | n | answer F1 before | after | grounded (NLI) before | after | edited |",
                  "|---|---|---|---|---|---|---|"]
        for name in ("hc_rag", "hc_trustful"):
            part = [r for r in hc if r["backend"] == name]
            if not part:
                continue
            g0 = sum(r["supported_before"] for r in part) / max(1, sum(r["claims_before"] for r in part))
            g1 = sum(r["supported_after"] for r in part) / max(1, sum(r["claims_after"] for r in part))
            f0, f1 = mean(r["f1_before"] for r in part), mean(r["f1_after"] for r in part)
            flat.update({f"groundedness_nli_{name}_before": round(g0, 4), f"groundedness_nli_{name}": round(g1, 4),
                         f"answer_f1_{name}_before": round(f0, 4), f"answer_f1_{name}": round(f1, 4)})
            lines.append(f"| {name} | {len(part)} | {f0:.3f} | {f1:.3f} | {g0:.3f} | {g1:.3f} | "
                         f"{sum(r['edits'] > 0 for r in part) / len(part):.2f} |")
    for key, folder in (("", PACKAGED_ADAPTER), ("_clean", CLEAN_ADAPTER)):
        if folder.is_dir():
            run_info = read_card(folder)["run"]
            flat[f"train_minutes{key}"] = run_info["train_minutes"]
            flat[f"train_steps{key}"] = run_info["steps"]
    meta = {"models": "qwen2.5-coder-0.5b (dequantised GGUF, PyTorch) with the packaged trustful adapter; "
                      "qwen2.5-coder-1.5b (llama.cpp) for rag_1.5b and the judge; "
                      f"{settings.entailment} NLI for groundedness; {settings.embedder} for embed sim",
            "metrics": "chrF in place of METEOR (no WordNet offline); embedding cosine in place of BERTScore; "
                       "grounded = share of the answer's claims entailed by a context sentence or passage",
            "adapter": json.dumps(read_card(PACKAGED_ADAPTER)["run"]) if PACKAGED_ADAPTER.is_dir() else "none"}
    print(f"wrote {write('trustful', flat, chr(10).join(lines), meta)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--halueval", type=int, default=60)
    ap.add_argument("--twowiki", type=int, default=25)
    ap.add_argument("--hotpotqa", type=int, default=25)
    ap.add_argument("--rows", default=",".join(ROWS), help=f"some of {','.join(ROWS)}")
    ap.add_argument("--judge", action="store_true", help="also the 1-5 groundedness judge (1.5B model)")
    ap.add_argument("--judge-rows", default="rag,trustful", help="rows the judge reads")
    ap.add_argument("--hc", type=int, default=0, help="questions of each Wikipedia set for the HC rows")
    ap.add_argument("--report", action="store_true", help="only rewrite the results from kept rows")
    args = ap.parse_args()
    settings = Settings()
    CACHE.mkdir(parents=True, exist_ok=True)
    kept, hc_kept = CACHE / "rows.jsonl", CACHE / "hc_rows.jsonl"
    if not args.report:
        run(args, settings, kept)
        if args.hc:
            run_hc(args.hc, settings, hc_kept)
    report(kept, hc_kept, settings)


if __name__ == "__main__":
    main()

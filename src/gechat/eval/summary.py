"""The bench's figures: per (data set, mode, selector) metrics from the per-question results,
flat keys ``<dataset>_<mode>_<metric>__<selector>``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gechat.eval.bench import SELECTOR_KEYS, Result
from gechat.eval.evidence import evidence_scores
from gechat.eval.metrics import balanced_accuracy, expected_calibration_error, reliability


def _group_metrics(dataset: str, mode: str, rs: Sequence[Result],
                   embed: Callable[[Sequence[str]], npt.NDArray[np.float32]]) -> dict[str, float]:
    m: dict[str, float] = {
        "evidence_score": float(np.mean(evidence_scores([r.evidence_text for r in rs], [r.gold_text for r in rs],
                                                        embed))),
        "seconds_per_question": float(np.mean([r.seconds for r in rs])),
        "llm_tokens_per_question": float(np.mean([r.llm_tokens for r in rs])),
        "fabricated_rate": sum(r.fabricated for r in rs) / max(1, sum(r.quotes for r in rs)),
        "not_verbatim_rate": sum(r.not_verbatim for r in rs) / max(1, sum(r.shown for r in rs)),
        "questions": float(len(rs)),
    }
    verdicts = [v for r in rs for v in r.verdicts]
    if verdicts:
        m["verdict_balanced_accuracy"] = balanced_accuracy([p for _, p in verdicts], [g for g, _ in verdicts])
    conf = [v for r in rs for v in r.confidence]
    if conf:
        m["expected_calibration_error"] = expected_calibration_error([p for _, p in conf], [g for g, _ in conf])
    if dataset == "financebench":
        m["page_hit"] = float(np.mean([r.page_hit or 0.0 for r in rs]))
        m["token_recall"] = float(np.mean([r.token_recall or 0.0 for r in rs]))
        for split in ("dev", "test"):
            gold = [p for r in rs if r.split == split for g, p in r.verdicts if g]
            wrong = [p for r in rs if r.split == split for g, p in r.verdicts if not g]
            if gold:
                m[f"{split}_supported_rate"] = sum(gold) / len(gold)
            if wrong:
                m[f"{split}_wrong_supported_rate"] = sum(wrong) / len(wrong)
    else:
        m |= {"precision": float(np.mean([r.precision for r in rs])),
              "recall": float(np.mean([r.recall for r in rs])), "f1": float(np.mean([r.f1 for r in rs]))}
        for split in ("dev", "test"):
            if any(r.split == split for r in rs):
                m[f"{split}_f1"] = float(np.mean([r.f1 for r in rs if r.split == split]))
    if mode == "e2e":
        m["answer_em"] = float(np.mean([r.answer_em or 0.0 for r in rs]))
        m["answer_f1"] = float(np.mean([r.answer_f1 or 0.0 for r in rs]))
    return m


def summarise(results: Sequence[Result], embed: Callable[[Sequence[str]], npt.NDArray[np.float32]],
              llm_questions: Mapping[tuple[str, str], set[str]] | None = None) -> dict[str, float]:
    """Flat metrics per (dataset, mode, selector): ``<dataset>_<mode>_<metric>__<selector>``; the
    evidence score and fabricated rate over all oracle QA results also get short keys. Where
    the LLM selectors ran on fewer questions, every other selector is also scored on exactly
    those (``..._<metric>_llm_subset__<selector>``), so the comparison is like for like;
    ``llm_questions`` adds the questions of LLM selector rows kept from an earlier run."""
    groups: dict[tuple[str, str, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.dataset, r.mode, r.selector), []).append(r)
    flat: dict[str, float] = {}
    for (dataset, mode, selector), rs in groups.items():
        key = SELECTOR_KEYS.get(selector, selector)
        pre = f"{dataset}_{mode}" if dataset != "financebench" else dataset
        m = _group_metrics(dataset, mode, rs, embed)
        if mode == "e2e":
            flat.setdefault(f"answer_f1_{dataset}", round(m["answer_f1"], 4))
        llm_ids = {r.question_id for (d, mo, sel), group in groups.items() if (d, mo) == (dataset, mode)
                   and SELECTOR_KEYS.get(sel) in ("reflection", "quote") for r in group}
        llm_ids |= (llm_questions or {}).get((dataset, mode), set())
        if llm_ids and len(llm_ids) < len({r.question_id for r in rs}):
            sub = _group_metrics(dataset, mode, [r for r in rs if r.question_id in llm_ids], embed)
            m |= {f"{name}_llm_subset": v for name, v in sub.items()}
        for name, v in m.items():
            flat[f"{pre}_{name}__{key}"] = round(v, 4)
        if dataset == "financebench" and key == "nli":
            # the headline keys: the default selector on the test half of the filings
            for name in ("supported_rate", "wrong_supported_rate"):
                if f"test_{name}" in m:
                    flat[f"financebench_oracle_{name}"] = round(m[f"test_{name}"], 4)
    for selector, key in SELECTOR_KEYS.items():
        rs = [r for r in results if r.selector == selector and r.mode == "oracle" and r.dataset != "financebench"]
        if rs:
            flat[f"evidence_score__{key}"] = round(float(np.mean(evidence_scores(
                [r.evidence_text for r in rs], [r.gold_text for r in rs], embed))), 4)
            quotes = sum(r.quotes for r in rs)
            flat[f"fabricated_rate__{key}"] = round(sum(r.fabricated for r in rs) / max(1, quotes), 4)
            conf = [v for r in rs for v in r.confidence]
            if conf:  # one reliability table over the oracle QA claims
                for lo, mean, true, n in reliability([p for _, p in conf], [g for g, _ in conf]):
                    flat |= {f"reliability_{lo:.1f}_{x}__{key}": v for x, v in (
                        ("confidence", round(mean, 4)), ("true", round(true, 4)), ("claims", n))}
        every = [r for r in results if r.selector == selector]
        if every:
            flat[f"evidence_spans_shown__{key}"] = sum(r.shown for r in every)
            flat[f"not_verbatim_rate__{key}"] = round(sum(r.not_verbatim for r in every)
                                                      / max(1, sum(r.shown for r in every)), 4)
    return flat

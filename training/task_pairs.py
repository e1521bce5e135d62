"""Claim-support pairs from the tuning halves of the two claim sets the verifier is judged on.

The first verifier run read sentences well (MNLI-mm 0.80) but told HaluEval-QA's right
answers from its hallucinated ones barely better than the fast model: those wrong answers are
fluent, on-topic and seldom contradicted, a shape no NLI set has. Both sets have halves that
the data discipline of the evidence issue leaves for tuning, so the verifier may learn from
them without touching what is reported:

- HaluEval-QA rows 200-3999 (train; HotpotQA *train* questions, MIT licence): the knowledge =>
  the right answer as a claim (entailment) and => the hallucinated one (not entailment).
  Rows 0-199 are dev (run log only); rows 4000 on are the reported test rows, never read here.
  Those two pairs alone teach how a hallucinated answer is *written*: a model trained on them
  told right from wrong answers against another row's knowledge with AUROC 0.95 (the
  shortcut check of benchmarks/nli_verifier.py). So each answer also appears with the other
  label: where the knowledge states the right answer word for word, a counterfactual
  knowledge with the hallucinated answer in its place => the hallucinated claim (entailment)
  and => the right one (not entailment); elsewhere the right answer against the next row's
  knowledge (not entailment). Only the premise then tells the labels apart.
- ExpertQA questions 1-75 (train; MIT licence): each claim with its cited passages, "Complete"
  support as entailment, anything less as not entailment; passages over ``max_words`` are
  left out, since a model reading 192 tokens would see only their start. Questions 76-150 are
  the test half the benchmark reports.

The claims use the benchmark's own phrasing (``benchmarks/nli.py``), so what is trained is
what is scored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from gechat.eval.bench import as_claim
from gechat.eval.datasets import DATA
from nli import ClaimPair, expertqa_pairs, knowledge
from training.nli_data import LABELS, NOT_ENTAILMENT, Pair

ENTAIL = LABELS.index("entailment")
HALUEVAL_DEV_ROWS = 200
HALUEVAL_TEST_FROM = 4000
EXPERTQA_TUNING_QUESTIONS = 75
LICENCES = {"halueval_tune": "MIT (HaluEval; HotpotQA CC BY-SA 4.0 knowledge)", "expertqa_tune": "MIT (ExpertQA)"}


def _pair(c: ClaimPair, source: str, group: str) -> Pair:
    return Pair(c.premise, c.claim, ENTAIL if c.supported else NOT_ENTAILMENT, source, group)


def halueval_rows(rows: list[dict[str, str]], source: str, first: int) -> list[Pair]:
    """Four pairs a row where the answer can be swapped in the knowledge, three elsewhere;
    ``first``: the file's row number of ``rows[0]`` (each pair's group)."""
    out: list[Pair] = []
    for i, row in enumerate(rows):
        k, right, wrong = knowledge(row["knowledge"]), row["right_answer"], row["hallucinated_answer"]
        yes, no = as_claim(row["question"], right), as_claim(row["question"], wrong)
        g = str(first + i)
        out += [Pair(k, yes, ENTAIL, source, g), Pair(k, no, NOT_ENTAILMENT, source, g)]
        if right in k and wrong not in k and right.lower() not in ("yes", "no"):
            swapped = k.replace(right, wrong)
            out += [Pair(swapped, no, ENTAIL, source, g), Pair(swapped, yes, NOT_ENTAILMENT, source, g)]
        else:
            other = knowledge(rows[(i + 1) % len(rows)]["knowledge"])
            out.append(Pair(other, yes, NOT_ENTAILMENT, source, g))
    return out


def task_pairs(*, max_words: int = 150) -> tuple[list[Pair], list[Pair]]:
    """(train, dev) claim pairs from the tuning halves; nothing from a reported test row."""
    with (DATA / "halueval" / "dataset_halueval_qa.jsonl").open() as f:
        rows = [json.loads(line) for _, line in zip(range(HALUEVAL_TEST_FROM), f, strict=False)]
    train = halueval_rows(rows[HALUEVAL_DEV_ROWS:], "halueval_tune", HALUEVAL_DEV_ROWS)
    dev = halueval_rows(rows[:HALUEVAL_DEV_ROWS], "halueval_tune", 0)
    train += [_pair(c, "expertqa_tune", c.given) for c in expertqa_pairs(questions=slice(EXPERTQA_TUNING_QUESTIONS))
              if len(c.premise.split()) <= max_words]
    return train, dev

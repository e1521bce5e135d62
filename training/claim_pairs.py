"""Claim-style training pairs from our own task (issue 4's "pairs derived from our task").

The evidence step asks "do these source sentences entail this answer claim?", where the claim
often needs two or more sentences (multi-hop). Generic NLI sets rarely have that shape, so we
add it from tuning data that no benchmark reports on:

- 2WikiMultihopQA dev, questions 1-100 (gechat.eval.datasets: the first 150 are the tuning
  split; 101-150 stay unseen here so the evidence defaults can be calibrated on them),
- MuSiQue-Ans train sample (100 questions; the gold hop sentences are the ones of each hop's
  supporting paragraph that name the hop's answer).

Per question: all gold sentences => the answer claim (entailment); the same plus up to two
distractor sentences (entailment: extra context must not hurt); the gold sentences => a wrong
answer (not entailment; the other option of an "A or B?" question when there is one); the
gold minus one hop => the claim (not entailment: one hop alone does not establish the
answer); with ``inside``, the gold sentences => another name or number they hold (a wrong
answer the passage itself offers, see training/swap_pairs.py). HotpotQA and 2Wiki's
questions 151-350 are never read here.
Licences: 2WikiMultihopQA Apache-2.0, MuSiQue CC BY 4.0.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from gechat.answer.claims import split_text
from gechat.eval.bench import as_claim, wrong_answers
from gechat.eval.datasets import DATA, TWOWIKI_CLAIM_TRAIN, QAItem, twowiki
from training.nli_data import LABELS, NOT_ENTAILMENT, Pair
from training.swap_pairs import names, related

ENTAIL = LABELS.index("entailment")
LICENCES = {"claims_2wiki": "Apache-2.0 (2WikiMultihopQA)", "claims_musique": "CC BY 4.0 (MuSiQue)"}


def _pairs(source: str, group: str, question: str, answer: str, wrong: str, hops: list[list[str]],
           distractors: list[str], rng: random.Random, inside: random.Random | None = None) -> list[Pair]:
    gold = [s for hop in hops for s in hop]
    premise = " ".join(gold)
    claim = as_claim(question, answer)
    out = [Pair(premise, claim, ENTAIL, source, group),
           Pair(premise, as_claim(question, wrong), NOT_ENTAILMENT, source, group)]
    if distractors:
        extra = rng.sample(distractors, min(2, len(distractors)))
        mixed = gold + extra
        rng.shuffle(mixed)
        out.append(Pair(" ".join(mixed), claim, ENTAIL, source, group))
    if len(hops) > 1:
        for drop in range(len(hops)):
            part = [s for i, hop in enumerate(hops) if i != drop for s in hop]
            out.append(Pair(" ".join(part), claim, NOT_ENTAILMENT, source, group))
    if inside is not None:
        out += inside_wrong(source, group, question, answer, gold, inside)
    return out


def inside_wrong(source: str, group: str, question: str, answer: str, gold: list[str],
                 rng: random.Random) -> list[Pair]:
    """The gold sentences => an answer they name but that is not the answer (a name or number of
    the answer's kind that the question does not hold): the wrong answer a passage itself offers,
    which shares every word with its evidence."""
    premise = " ".join(gold)
    kinds = {k for k, _ in names(answer)} or {"name"}
    options = [s for k, s in dict.fromkeys(names(premise)) if k in kinds and s.lower() not in question.lower()
               and not related(s, answer)]
    if not options:
        return []
    return [Pair(premise, as_claim(question, rng.choice(options)), NOT_ENTAILMENT, source, group)]


def twowiki_pairs(rng: random.Random, items: list[QAItem] | None = None,
                  inside: random.Random | None = None) -> list[Pair]:
    items = items if items is not None else twowiki("dev", limit=TWOWIKI_CLAIM_TRAIN)
    wrong = wrong_answers([i.question for i in items], [i.answer for i in items], rng)
    out: list[Pair] = []
    for item, w in zip(items, wrong, strict=True):
        by_title = {p.title: p.sentences for p in item.paragraphs}
        hops: dict[str, list[str]] = {}
        for title, i in sorted(item.gold):
            if title in by_title and i < len(by_title[title]):
                hops.setdefault(title, []).append(by_title[title][i].strip())
        if not hops:
            continue
        distractors = [s.strip() for p in item.paragraphs for i, s in enumerate(p.sentences)
                       if (p.title, i) not in item.gold and s.strip()]
        out += _pairs("claims_2wiki", item.id, item.question, item.answer, w, list(hops.values()), distractors, rng,
                      inside)
    return out


def musique_pairs(rng: random.Random, root: Path = DATA, inside: random.Random | None = None) -> list[Pair]:
    rows = json.loads((root / "musique_train_sample" / "musique_train.json").read_text())
    wrong = wrong_answers([r["question"] for r in rows], [r["answer"] for r in rows], rng)
    out: list[Pair] = []
    for row, w in zip(rows, wrong, strict=True):
        paras = {p["idx"]: p for p in row["paragraphs"]}
        hops = []
        for step in row["question_decomposition"]:
            sents = split_text(paras[step["paragraph_support_idx"]]["paragraph_text"])
            named = [s for s in sents if re.search(re.escape(step["answer"]), s, re.I)]
            if not named:
                break
            hops.append(named[:1])
        if len(hops) != len(row["question_decomposition"]):
            continue  # a hop whose answer is not named in one sentence: no clean gold
        distractors = [s for p in row["paragraphs"] if not p["is_supporting"]
                       for s in split_text(p["paragraph_text"])[:2]]
        out += _pairs("claims_musique", row["id"], row["question"], row["answer"], w, hops, distractors, rng, inside)
    return out


def claim_pairs(seed: int = 13, *, inside: bool = False) -> list[Pair]:
    """The claim pairs; ``inside`` adds :func:`inside_wrong`'s, drawn with a random stream of
    their own so that the other pairs stay what they were without them."""
    rng = random.Random(seed)
    extra = random.Random(seed + 1) if inside else None
    return twowiki_pairs(rng, inside=extra) + musique_pairs(rng, inside=extra)

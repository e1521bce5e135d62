"""Training and test examples for the dual decoder, from the public QA sets in ../shared/data.

Training uses only rows kept apart from every reported test: HaluEval-QA rows before 4000,
2WikiMultihopQA's tuning split (its first 150), HotpotQA's first 35 and MuSiQue's sample.
The guided context of a training example is its gold passages plus passages drawn from other
examples (the noise the model must learn to ignore), shuffled together.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from gechat.eval.datasets import DATA, QAItem, hotpotqa, twowiki

HALUEVAL_TRAIN = 4000  # rows 0..3999 train; 4000..7999 are the held-apart test rows
HOTPOTQA_TRAIN = 35  # as the evidence suite's split: the first 35 tune, the rest are reported


@dataclass(frozen=True)
class Example:
    source: str
    id: str
    question: str
    answer: str
    passages: tuple[str, ...]  # the gold context, one passage each
    distractors: tuple[str, ...] = ()  # the item's own non-gold passages (test contexts)


def halueval(start: int, stop: int, root: Path = DATA) -> list[Example]:
    lines = (root / "halueval" / "dataset_halueval_qa.jsonl").read_text().splitlines()[start:stop]
    out = []
    for i, line in enumerate(lines, start):
        r = json.loads(line)
        out.append(Example("halueval", str(i), r["question"], r["right_answer"], (r["knowledge"].strip(),)))
    return out


def _from_qa(source: str, item: QAItem) -> Example:
    gold_titles = {t for t, _ in item.gold}
    text = {p.title: f"{p.title}: {' '.join(s.strip() for s in p.sentences)}" for p in item.paragraphs}
    gold = tuple(text[t] for t in text if t in gold_titles)
    other = tuple(text[t] for t in text if t not in gold_titles)
    return Example(source, item.id, item.question, item.answer, gold, other)


def musique(root: Path = DATA) -> list[Example]:
    rows = json.loads((root / "musique_train_sample" / "musique_train.json").read_text())
    out = []
    for r in rows:
        if not r.get("answerable", True):
            continue
        gold = tuple(f"{p['title']}: {p['paragraph_text']}" for p in r["paragraphs"] if p["is_supporting"])
        other = tuple(f"{p['title']}: {p['paragraph_text']}" for p in r["paragraphs"] if not p["is_supporting"])
        out.append(Example("musique", r["id"], r["question"], r["answer"], gold, other))
    return out


def training_set(root: Path = DATA) -> list[Example]:
    """Examples whose gold passages are all missing (a title the paragraphs lack) are left out."""
    return [ex for ex in _all_training(root) if ex.passages]


def _all_training(root: Path) -> list[Example]:
    return (halueval(0, HALUEVAL_TRAIN, root)
            + [_from_qa("twowiki", it) for it in twowiki("dev", root=root)]
            + [_from_qa("hotpotqa", it) for it in hotpotqa(root=root)[:HOTPOTQA_TRAIN]]
            + musique(root))


def test_set(halueval_n: int, twowiki_n: int, hotpotqa_n: int, root: Path = DATA) -> list[Example]:
    """A fixed sample of the held-apart rows: the first n of each test split."""
    wiki = twowiki("test", root=root)[:twowiki_n]
    hot = hotpotqa(root=root)[HOTPOTQA_TRAIN:HOTPOTQA_TRAIN + hotpotqa_n]
    return (halueval(HALUEVAL_TRAIN, HALUEVAL_TRAIN + halueval_n, root)
            + [_from_qa("twowiki", it) for it in wiki] + [_from_qa("hotpotqa", it) for it in hot])


def with_noise(ex: Example, pool: list[Example], ratio: float, rng: random.Random) -> list[str]:
    """The example's gold passages plus ``ratio`` times as many from other examples, shuffled."""
    k = round(len(ex.passages) * ratio)
    noise: list[str] = []
    while len(noise) < k and len(pool) > 1:
        other = rng.choice(pool)
        if other.id != ex.id or other.source != ex.source:
            noise.append(rng.choice(other.passages))
    passages = [*ex.passages, *noise]
    rng.shuffle(passages)
    return passages


def test_context(ex: Example, distractors: int = 2) -> list[str]:
    """What retrieval would hand over at test time: the gold passages and the item's own first
    ``distractors`` non-gold passages (same topic, so harder than random noise)."""
    return [*ex.passages, *ex.distractors[:distractors]]


def mix_summary(examples: list[Example]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ex in examples:
        counts[ex.source] = counts.get(ex.source, 0) + 1
    return counts


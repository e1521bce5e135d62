"""The NLI training mix for gechat's grounding cross-encoder (issue 4), and its held-out sets.

Every file of ../shared/data/nli has one role here: ``train`` (its licence allows shipping a
derived model), ``dev`` (threshold calibration and early stopping; never reported), or
``eval`` (reported, never trained on). Sets whose licence forbids a shipped derivative (ANLI,
SICK: non-commercial; the TaxiNLI-agreement MNLI subset) or is not stated are eval or
unused. MNLI dev-mismatched NONGOLD holds the same pairs as the gold evaluation subset, so
it is not used at all. VitaminC's claims come in contrastive pairs about one page, so it is
split by page, never at random.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

NLI_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "nli"
LABELS = ("contradiction", "neutral", "entailment")  # gechat's column order
NOT_ENTAILMENT = -1  # two-way sets: "not entailment" is contradiction OR neutral

Role = Literal["train", "dev", "eval"]


@dataclass(frozen=True)
class Source:
    file: str
    role: Role
    licence: str
    unanimous_only: bool = False  # crowd-labelled sets: keep pairs every annotator agreed on


SOURCES: dict[str, Source] = {
    # train: redistributable derivatives
    "vitaminc": Source("vitaminc/vitaminc_bigbench.jsonl.gz", "train",
                       "CC BY-SA 3.0 (VitaminC), Apache-2.0 (BIG-bench)"),
    "mnli_dev_matched": Source("mnli/mnli_dev_matched.jsonl.gz", "train", "MNLI (OANC-based; its own terms)"),
    "snli_dev": Source("snli/snli_dev.jsonl.gz", "train", "CC BY-SA 4.0"),
    "cad_snli_train": Source("snli_counterfactual/cad_snli_train.jsonl.gz", "train", "Apache-2.0"),
    "semi_auto_base": Source("semi_automatic_nli/base_wiki_train.jsonl.gz", "train", "CC BY-SA 3.0"),
    "semi_auto_sim": Source("semi_automatic_nli/sim_wiki_train.jsonl.gz", "train", "CC BY-SA 3.0"),
    "semi_auto_translate": Source("semi_automatic_nli/translate_wiki_train.jsonl.gz", "train", "CC BY-SA 3.0"),
    # licence not stated upstream; the shared data README lists both as usable for training
    "mpe_train": Source("mpe/mpe_train.jsonl.gz", "train", "not stated (shared README: train)"),
    "climate_fever": Source("climate_fever/climate_fever_evidence_pairs.jsonl.gz", "train",
                            "not stated (shared README: train or dev)", unanimous_only=True),
    # dev: calibration and model selection only
    "cad_snli_dev": Source("snli_counterfactual/cad_snli_dev.jsonl.gz", "dev", "Apache-2.0"),
    "snli_test": Source("snli/snli_test_tokenized.jsonl.gz", "dev", "CC BY-SA 4.0"),
    # eval: reported, never trained on
    "mnli_mismatched_gold": Source("mnli/mnli_dev_mismatched_gold_subset.jsonl.gz", "eval", "via TaxiNLI / TextFooler"),
    "anli_r1_test": Source("anli/anli_r1_test.jsonl.gz", "eval", "CC BY-NC 4.0"),
    "anli_r2_test": Source("anli/anli_r2_test.jsonl.gz", "eval", "CC BY-NC 4.0"),
    "anli_r3_test": Source("anli/anli_r3_test.jsonl.gz", "eval", "CC BY-NC 4.0"),
    "scitail_test": Source("scitail/scitail_test.jsonl.gz", "eval", "not stated"),
    "sick_test": Source("sick/sick_test.jsonl.gz", "eval", "CC BY-NC-SA 3.0"),
}
NEVER_USED = ("mnli/mnli_dev_mismatched_NONGOLD_labels.jsonl.gz",)


@dataclass(frozen=True)
class Pair:
    premise: str
    hypothesis: str
    label: int  # index into LABELS, or NOT_ENTAILMENT
    source: str
    group: str = ""  # pairs that must stay on one side of a split (VitaminC page)


def _label(raw: str) -> int:
    if raw in LABELS:
        return LABELS.index(raw)
    if raw == "not_entailment":
        return NOT_ENTAILMENT
    raise ValueError(f"unknown label {raw!r}")


def read(name: str, root: Path = NLI_DIR) -> Iterator[Pair]:
    src = SOURCES[name]
    with gzip.open(root / src.file, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if src.unanimous_only and row.get("entropy", 0.0) > 0:
                continue
            yield Pair(row["premise"], row["hypothesis"], _label(row["label"]), name, str(row.get("page", "")))


def _in_dev(group: str, dev_share: float) -> bool:
    # a stable hash, not random(): the split must not change with the seed or Python's hash seed
    h = int.from_bytes(hashlib.sha256(group.encode()).digest()[:8], "big")
    return h / 2**64 < dev_share


def training_mix(*, seed: int = 13, max_per_source: int | None = None, dev_share: float = 0.05,
                 repeat: dict[str, int] | None = None, root: Path = NLI_DIR) -> tuple[list[Pair], list[Pair]]:
    """(train, dev): the train sources (each ``repeat[name]`` times, default once), a page-grouped
    VitaminC dev slice, and the dev sources."""
    repeat = repeat or {}
    trainable = sorted(n for n, s in SOURCES.items() if s.role == "train")
    unknown = sorted(set(repeat) - set(trainable))
    if unknown:
        raise ValueError(f"not a train source: {', '.join(unknown)} (train sources: {', '.join(trainable)})")
    rng = random.Random(seed)
    train: list[Pair] = []
    dev: list[Pair] = []
    for name, src in SOURCES.items():
        if src.role == "eval":
            continue
        pairs = list(read(name, root))
        if src.role == "dev":
            dev += pairs
            continue
        if name == "vitaminc":
            held = [p for p in pairs if _in_dev(p.group, dev_share)]
            dev += held
            pairs = [p for p in pairs if not _in_dev(p.group, dev_share)]
        rng.shuffle(pairs)
        train += (pairs[:max_per_source] if max_per_source else pairs) * repeat.get(name, 1)
    rng.shuffle(train)
    return train, dev


def evaluation_sets(root: Path = NLI_DIR) -> dict[str, list[Pair]]:
    return {name: list(read(name, root)) for name, src in SOURCES.items() if src.role == "eval"}

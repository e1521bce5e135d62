"""Length-bucketed batches and padding of the training script (issue 4)."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from training.train_nli import bucketed, collate  # noqa: E402


def test_bucketed_batches_cover_every_pair_once_and_group_lengths() -> None:
    lengths = [random.Random(i).randint(5, 120) for i in range(1000)]
    out = bucketed(lengths, 32, random.Random(1), window=10)
    flat = [i for b in out for i in b]
    assert sorted(flat) == list(range(1000))
    spread = sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in out) / len(out)
    assert spread < 20  # random batches of 32 would span ~100 tokens
    assert out == bucketed(lengths, 32, random.Random(1), window=10)  # seeded


def test_collate_pads_and_masks() -> None:
    feed = collate([{"input_ids": [101, 7, 102], "token_type_ids": [0, 0, 0]},
                    {"input_ids": [101, 102], "token_type_ids": [0, 1]}], pad_id=0)
    assert feed["input_ids"].tolist() == [[101, 7, 102], [101, 102, 0]]
    assert feed["attention_mask"].tolist() == [[1, 1, 1], [1, 1, 0]]
    assert feed["token_type_ids"].tolist() == [[0, 0, 0], [0, 1, 0]]

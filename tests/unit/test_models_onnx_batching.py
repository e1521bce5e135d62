"""How the ONNX models batch and pad: by token length, each batch padded to its own longest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gechat.models.onnx_common import OnnxModel, batches


@dataclass
class Enc:
    ids: list[int]
    type_ids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.type_ids = self.type_ids or [0] * len(self.ids)


class Session:
    def __init__(self) -> None:
        self.feeds: list[dict[str, Any]] = []

    def run(self, _: object, feeds: dict[str, Any]) -> list[Any]:
        self.feeds.append(feeds)
        return [np.zeros((len(feeds["input_ids"]), 3), dtype=np.float32)]


def test_batches_group_by_tokens_not_characters() -> None:
    # ordered by token count (what padding costs), whatever the texts' lengths in characters
    encs = [Enc([1, 2, 3, 4, 5]), Enc([7]), Enc([1, 2, 3]), Enc([9, 9]), Enc([1, 2, 3, 4])]
    assert batches(encs, 2) == [[1, 3], [2, 4], [0]]
    assert sorted(i for b in batches(encs, 3) for i in b) == list(range(5))


def test_short_texts_go_more_to_a_batch_within_a_padded_size() -> None:
    names = [Enc([1] * (2 + n % 3)) for n in range(40)]  # entity names: 2-4 tokens
    sentences = [Enc([1] * 60) for _ in range(6)]
    grouped = batches(names + sentences, 4, tokens=64)
    assert sorted(i for b in grouped for i in b) == list(range(46))
    widths = [max(len((names + sentences)[i].ids) for i in b) for b in grouped]
    # names fill batches up to 64 padded tokens; long texts keep the batch size
    assert all(len(b) * w <= 64 or len(b) <= 4 for b, w in zip(grouped, widths, strict=True))
    assert len(grouped) < len(batches(names + sentences, 4))
    assert [len(b) for b in grouped] == [21, 16, 4, 4, 1]


def test_run_pads_each_batch_to_its_longest_and_masks_the_padding() -> None:
    session = Session()
    model = OnnxModel(session, tokenizer=None, inputs=["input_ids", "attention_mask", "token_type_ids"])
    _, mask = model.run([Enc([5, 6, 7], [0, 1, 1]), Enc([8])])
    feeds = session.feeds[0]
    assert feeds["input_ids"].tolist() == [[5, 6, 7], [8, 0, 0]]
    assert feeds["token_type_ids"].tolist() == [[0, 1, 1], [0, 0, 0]]
    assert mask.tolist() == feeds["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]


def test_run_feeds_only_the_inputs_the_model_has() -> None:
    session = Session()
    OnnxModel(session, tokenizer=None, inputs=["input_ids", "attention_mask"]).run([Enc([1, 2])])
    assert set(session.feeds[0]) == {"input_ids", "attention_mask"}

"""The verifier's pairs from the claim sets' tuning halves: never a test row, and each answer
seen with both labels so that only the premise separates them."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from training.nli_data import LABELS, NOT_ENTAILMENT
from training.task_pairs import EXPERTQA_TUNING_QUESTIONS, HALUEVAL_DEV_ROWS, HALUEVAL_TEST_FROM, task_pairs

from gechat.eval.datasets import DATA

pytestmark = pytest.mark.skipif(not (DATA / "halueval").exists(), reason="shared data not found")
ENTAIL = LABELS.index("entailment")


def test_no_test_row_and_dev_rows_apart() -> None:
    train, dev = task_pairs()
    halu = [p for p in train if p.source == "halueval_tune"]
    assert {int(p.group) for p in dev} == set(range(HALUEVAL_DEV_ROWS))
    assert {int(p.group) for p in halu} == set(range(HALUEVAL_DEV_ROWS, HALUEVAL_TEST_FROM))
    with (DATA / "halueval" / "dataset_halueval_qa.jsonl").open() as f:
        test_questions = [json.loads(line)["question"] for i, line in enumerate(f) if i >= HALUEVAL_TEST_FROM]
    claims = {p.hypothesis for p in train + dev}
    assert not any(f'"{q}"' in c for q in test_questions[:500] for c in claims)
    with (DATA / "expertqa" / "rand_test.jsonl").open() as f:
        held = [json.loads(line)["question"] for line in f][EXPERTQA_TUNING_QUESTIONS:]
    assert not {p.group for p in train if p.source == "expertqa_tune"} & set(held)


def test_each_answer_has_both_labels_where_the_knowledge_can_be_changed() -> None:
    train, _ = task_pairs()
    by_row: dict[str, list] = defaultdict(list)
    for p in train:
        if p.source == "halueval_tune":
            by_row[p.group].append(p)
    four = [pairs for pairs in by_row.values() if len(pairs) == 4]
    assert len(four) > 0.8 * len(by_row) and all(len(v) in (3, 4) for v in by_row.values())
    for pairs in four:
        labels: dict[str, set[int]] = defaultdict(set)
        for p in pairs:
            labels[p.hypothesis].add(p.label)
        assert all(v == {ENTAIL, NOT_ENTAILMENT} for v in labels.values())  # style alone cannot tell
        original, changed = pairs[0].premise, pairs[2].premise
        assert original != changed and pairs[2].label == ENTAIL
    for pairs in (v for v in by_row.values() if len(v) == 3):
        assert pairs[2].premise != pairs[0].premise and pairs[2].label == NOT_ENTAILMENT

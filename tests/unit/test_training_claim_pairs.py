"""Claim-style training pairs: only from tuning data, labelled the way the evidence step asks."""

from __future__ import annotations

import random

import pytest
from training.claim_pairs import claim_pairs
from training.nli_data import LABELS, NOT_ENTAILMENT

from gechat.eval.bench import wrong_answers
from gechat.eval.datasets import DATA, TWOWIKI_CLAIM_TRAIN, hotpotqa, twowiki

pytestmark = pytest.mark.skipif(not (DATA / "2wikimultihopqa_dev").exists(), reason="shared data not found")


def test_never_built_from_reported_or_calibration_questions() -> None:
    pairs = claim_pairs()
    groups = {p.group for p in pairs}
    trained = {i.id for i in twowiki("dev", limit=TWOWIKI_CLAIM_TRAIN)}
    held = {i.id for i in twowiki("test")} | {i.id for i in twowiki("calibrate")} | {i.id for i in hotpotqa()}
    assert not groups & held
    assert {p.group for p in pairs if p.source == "claims_2wiki"} <= trained
    questions = {i.question for i in twowiki("test")} | {i.question for i in twowiki("calibrate")}
    assert not any(q in p.hypothesis for p in pairs for q in questions)


def test_labels_and_shapes() -> None:
    pairs = claim_pairs()
    assert {p.source for p in pairs} == {"claims_2wiki", "claims_musique"}
    assert {p.label for p in pairs} == {LABELS.index("entailment"), NOT_ENTAILMENT}
    entail = [p for p in pairs if p.label == LABELS.index("entailment")]
    assert all(p.hypothesis.startswith("The answer to the question") for p in pairs)
    assert 300 <= len(entail) <= len(pairs) // 2
    assert claim_pairs(seed=13) == claim_pairs(seed=13)


def test_wrong_answer_is_the_other_option_when_there_is_one() -> None:
    rng = random.Random(0)
    qs = ["Which film came out first, Alpha Beta or Gamma?", "Is it red?", "Who wrote it?"]
    assert wrong_answers(qs, ["Gamma", "yes", "Ann"], rng)[:2] == ["Alpha Beta", "no"]
    assert wrong_answers(qs, ["Gamma", "yes", "Ann"], rng)[2] == "Gamma"
    assert wrong_answers(qs, ["Gamma", "yes", "Ann"]) == ["Alpha Beta", "no", "Gamma"]


def test_inside_adds_wrong_answers_the_gold_sentences_name_and_keeps_the_rest() -> None:
    plain, inside = claim_pairs(), claim_pairs(inside=True)
    seen = {(p.premise, p.hypothesis) for p in plain}
    assert seen <= {(p.premise, p.hypothesis) for p in inside}  # the old pairs are untouched
    extra = [p for p in inside if (p.premise, p.hypothesis) not in seen]
    assert len(extra) >= 100 and all(p.label == NOT_ENTAILMENT for p in extra)
    answers = {i.id: i.answer for i in twowiki("dev", limit=TWOWIKI_CLAIM_TRAIN)}
    for p in extra:
        wrong = p.hypothesis.split('" is: ', 1)[1]
        assert wrong in p.premise  # a name the passage itself offers
        if p.source == "claims_2wiki":
            assert wrong.lower() != answers[p.group].lower()

"""Metrics on hand-made cases with known values."""

from __future__ import annotations

import numpy as np
import pytest

from gechat.eval.metrics import accuracy, auroc, balanced_accuracy, best_threshold


def test_balanced_accuracy_known_values() -> None:
    gold = [True, True, True, False]
    assert balanced_accuracy([True, True, True, True], gold) == 0.5  # constant predictor
    assert balanced_accuracy([True, False, True, False], gold) == pytest.approx((2 / 3 + 1) / 2)
    assert balanced_accuracy(gold, gold) == 1.0
    assert balanced_accuracy([False, True], [True, True]) == pytest.approx((0.5 + 0.5) / 2)
    with pytest.raises(ValueError):
        balanced_accuracy([True], [True, False])


def test_accuracy() -> None:
    assert accuracy([0, 1, 2, 2], [0, 1, 1, 2]) == 0.75
    assert accuracy([], []) == 0.0


def test_best_threshold_separates_and_takes_plateau_middle() -> None:
    scores = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    gold = np.array([False, False, False, True, True, True])
    t, ba = best_threshold(scores, gold)
    assert ba == 1.0 and 0.3 < t <= 0.7
    assert t == pytest.approx(0.5, abs=0.011)  # middle of the (0.31 .. 0.70) plateau


def test_auroc_known_values() -> None:
    assert auroc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert auroc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5  # a tie counts half
    assert auroc([0.9, 0.3, 0.5, 0.1], [True, True, False, False]) == 0.75
    assert auroc([0.2], [True]) == 0.5

"""Verdict thresholds and candidate counts follow the scorer unless Settings say otherwise."""

from __future__ import annotations

from typing import ClassVar

from gechat.evidence import SELECTORS, verdict_thresholds
from gechat.models.entail.fake import FakeEntailment
from gechat.settings import Settings


class Calibrated(FakeEntailment):
    calibration: ClassVar[dict[str, float]] = {"supported": 0.42, "contradicted": 0.77}
    default_candidates = 7


def test_thresholds_come_from_the_model_unless_set() -> None:
    s = Settings.load("test")
    assert verdict_thresholds(s, FakeEntailment()) == (0.5, 0.6)  # uncalibrated scorer
    assert verdict_thresholds(s, Calibrated()) == (0.42, 0.77)
    pinned = s.model_copy(update={"supported_threshold": 0.9})
    assert verdict_thresholds(pinned, Calibrated()) == (0.9, 0.77)


def test_candidate_count_follows_the_scorer() -> None:
    s = Settings.load("test")
    assert SELECTORS.create("nli-objective", s, scorer=Calibrated()).max_candidates == 7  # type: ignore[attr-defined]
    assert SELECTORS.create("nli-objective", s, scorer=FakeEntailment()).max_candidates == 60  # type: ignore[attr-defined]
    s3 = s.model_copy(update={"evidence_max_candidates": 3})
    assert SELECTORS.create("nli-objective", s3, scorer=Calibrated()).max_candidates == 3  # type: ignore[attr-defined]


def test_defaults_use_the_packaged_cross_encoder() -> None:
    s = Settings()
    assert (s.entailment, s.entailment_model, s.claims_from_thoughts) == ("onnx", None, True)


def test_set_contribution_and_contra_overlap_are_on_by_default_and_can_be_turned_off() -> None:
    s = Settings.load("test")
    on = SELECTORS.create("nli-objective", s, scorer=FakeEntailment())
    assert (on.set_contribution, on.contra_overlap) == (True, True)  # type: ignore[attr-defined]
    off = SELECTORS.create("nli-objective", s.model_copy(update={"set_contribution": False, "contra_overlap": False}),
                           scorer=FakeEntailment())
    assert (off.set_contribution, off.contra_overlap) == (False, False)  # type: ignore[attr-defined]

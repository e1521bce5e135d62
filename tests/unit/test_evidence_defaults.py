"""Verdict thresholds and candidate counts follow the scorer unless Settings say otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from gechat.errors import ConfigError
from gechat.evidence import SELECTORS, verdict_thresholds
from gechat.evidence.chain import EvidenceChain
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


def step(settings: Settings, name: str, scorer: FakeEntailment | None = None) -> Any:
    """The step called ``name`` of the nli-objective chain the settings build."""
    chain = SELECTORS.create("nli-objective", settings, scorer=scorer or FakeEntailment())
    assert isinstance(chain, EvidenceChain)
    (found,) = [s for s in chain.steps if s.name == name]
    return found


def test_candidate_count_follows_the_scorer() -> None:
    s = Settings.load("test")
    assert step(s, "candidates", Calibrated()).max_candidates == 7
    assert step(s, "candidates").max_candidates == 60
    s3 = s.model_copy(update={"evidence_max_candidates": 3})
    assert step(s3, "candidates", Calibrated()).max_candidates == 3


def test_the_default_chain_and_its_order_come_from_settings() -> None:
    s = Settings.load("test")
    chain = SELECTORS.create("nli-objective", s, scorer=FakeEntailment())
    assert [x.name for x in chain.steps] == [  # type: ignore[attr-defined]
        "facts", "candidates", "nli", "sets", "verify", "values", "lookup", "derived", "verdict"]
    no_sets = s.model_copy(update={"evidence_steps": ["candidates", "nli", "verdict"]})
    chain = SELECTORS.create("nli-objective", no_sets, scorer=FakeEntailment())
    assert [x.name for x in chain.steps] == ["candidates", "nli", "verdict"]  # type: ignore[attr-defined]


def test_an_unknown_step_is_a_clear_error() -> None:
    bad = Settings.load("test").model_copy(update={"evidence_steps": ["candidates", "magic"]})
    with pytest.raises(ConfigError, match="unknown evidence step 'magic'"):
        SELECTORS.create("nli-objective", bad, scorer=FakeEntailment())


def test_retired_switches_in_a_settings_file_are_ignored_with_a_warning(tmp_path: Path) -> None:
    f = tmp_path / "gechat.toml"
    f.write_text("evidence_kin = true\nevidence_both = false\nset_top = 9\n")
    with pytest.warns(UserWarning, match="evidence_both no longer exists"):
        s = Settings.load("test", file=f)
    assert s.set_top == 9 and not hasattr(s, "evidence_kin")


def test_defaults_use_the_packaged_cross_encoder() -> None:
    s = Settings()
    assert (s.entailment, s.entailment_model, s.claims_from_thoughts) == ("onnx", None, True)


def test_set_contribution_and_contra_overlap_are_on_by_default_and_can_be_turned_off() -> None:
    s = Settings.load("test")
    assert (step(s, "sets").contribution, step(s, "verdict").overlap) == (True, True)
    off = s.model_copy(update={"set_contribution": False, "contra_overlap": False})
    assert (step(off, "sets").contribution, step(off, "verdict").overlap) == (False, False)

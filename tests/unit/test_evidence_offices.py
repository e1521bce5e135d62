"""An officer's title is one name: a Chief Product Officer is no chief executive officer."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput
from gechat.evidence.offices import another_office, offices
from gechat.evidence.steps import holds
from tests.unit.test_evidence_objective import Scripted, context

BELSKY = "Scott Belsky 42 Chief Product Officer and Executive Vice President, Creative Cloud"


def test_a_title_is_read_whole_and_by_its_initials() -> None:
    assert offices(BELSKY) == {"P"}
    assert offices("Shantanu Narayen, Chair and CEO; Dan Durn, Chief Financial Officer") == {"E", "F"}
    assert offices("Gloria Chen, Chief Human Resources Officer, met Cato Cho.") == {"HR"}  # names are no titles


def test_a_claims_office_must_be_the_one_the_text_names() -> None:
    assert another_office("Scott Belsky is Adobe's chief executive officer.", "", BELSKY) == [
        "chief executive officer"]
    assert not another_office("Shantanu Narayen is the CEO.", "", "Shantanu Narayen, Chair and Chief Executive Officer")
    assert not another_office("Dan Durn is the CFO.", "", "Mr. Durn leads finance.")  # no office named: the model's
    claim = ClaimInput(text="Scott Belsky is Adobe's chief executive officer.", source="answer")
    assert not holds(claim, BELSKY)
    ctx = context(Scripted({BELSKY: (0.91, 0.02)}), coverage="facts")
    assert not ctx.covers(claim, BELSKY)
    assert ctx.missing(claim, BELSKY)[-1] == "chief executive officer (the text names another office)"

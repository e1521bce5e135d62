"""The default evidence chain with the real packaged models on a document with headings: a
sentence that points back ("These obligations ...") is read under the heading that says what
it is about, and its own text is what the reader is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.evidence import ClaimInput
from gechat.pipeline import Workspace
from gechat.settings import Settings

pytestmark = pytest.mark.slow

AGREEMENT = ("""# Master Services Agreement

## 2. Fees and Payment

2.1 Customer shall pay Provider a monthly fee of $48,500 for the base services.

## 4. Confidentiality

4.1 Each party shall protect the other's Confidential Information with at least reasonable care. """
             """These obligations survive for five (5) years after termination.

## 6. Governing Law

6.1 This Agreement is governed by the laws of the State of New York.
""")


def test_a_sentence_that_points_back_is_read_under_its_heading(tmp_path: Path) -> None:
    doc = tmp_path / "msa.md"
    doc.write_text(AGREEMENT)
    ws = Workspace(tmp_path / "ws", Settings.load("default", graph="none", cache_dir=tmp_path / "cache"))
    ws.add([doc])
    _, pool = ws.whole_pool()
    question = "How long do confidentiality obligations last after termination?"
    right, wrong = ws.selector.select(
        [ClaimInput(text="Confidentiality obligations survive for five (5) years after termination.",
                    source="answer", given=question),
         ClaimInput(text="Confidentiality obligations survive for ten (10) years after termination.",
                    source="answer", given=question)], pool)
    ws.close()
    assert right.verdict == "supported", right.note
    assert [e.text for e in right.evidence] == ["These obligations survive for five (5) years after termination."]
    assert "Confidentiality" in right.evidence[0].context
    assert wrong.verdict != "supported"

"""A document that takes far longer to read than its size warrants is stopped (issue 33).

The clock is a counter here (each reading one second later), so where a stage stops is exact.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gechat.documents import Deadline, IngestTimeoutError, load_document, split_sentences
from gechat.documents.text import markdown_blocks
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.conftest import N18
from tests.unit.test_cli import assert_clean_error, run


def ticking(stage: str, seconds: float) -> Deadline:
    clock = itertools.count().__next__
    return Deadline("report.pdf", stage, seconds, why="test budget", clock=lambda: float(clock()))


def test_a_deadline_names_the_stage_and_where_it_stopped() -> None:
    d = ticking("parsing", 2.5)
    d.check("page 1 of 9")
    d.check("page 2 of 9")
    with pytest.raises(IngestTimeoutError) as e:
        d.check("page 3 of 9")
    assert "report.pdf: parsing was stopped at page 3 of 9 after 3.0 s" in str(e.value)
    assert "budget of 2.5 s (test budget)" in str(e.value)
    assert "ingest_budget_s" in e.value.hint


def test_the_budget_grows_with_the_size() -> None:
    d = Deadline.for_size("a.txt", "parsing", 2_000_000, 60.0, 30.0)
    assert d.seconds == pytest.approx(120.0)
    assert "60 s + 30 s per MB x 2.00 MB" in d.why
    assert Deadline.for_size("a.txt", "parsing", 10**9, None, 30.0).seconds is None  # no limit
    assert Deadline.for_size("a.txt", "parsing", 10**9, 0.0, 30.0).seconds is None


def test_sentence_splitting_stops_between_paragraphs() -> None:
    text = "\n\n".join(f"Paragraph {i} says something." for i in range(10))
    from gechat.types import PageInfo, ParsedDocument, Span
    spans, pos = [], 0
    for para in text.split("\n\n"):
        spans.append(Span(start=pos, end=pos + len(para)))
        pos += len(para) + 2
    doc = ParsedDocument(text=text, kind="txt", title="t", pages=[PageInfo(number=1, start=0, end=len(text))],
                         blocks=spans)
    assert len(split_sentences(doc, ticking("sentence splitting", 100))) == 10
    with pytest.raises(IngestTimeoutError, match="sentence splitting was stopped at paragraph 4 of 10"):
        split_sentences(doc, ticking("sentence splitting", 3.5))


def test_pdf_parsing_stops_between_pages() -> None:
    if not N18.exists():
        pytest.skip("shared data not found")
    with pytest.raises(IngestTimeoutError, match=r"parsing was stopped at page 3 of 8 \(reading words\)"):
        load_document(N18, deadline=ticking("parsing", 2.5))
    # reading all 8 pages' words and laying out 8 pages: 16 checks
    with pytest.raises(IngestTimeoutError, match=r"page 4 of 8 \(layout\)"):
        load_document(N18, deadline=ticking("parsing", 11.5))
    assert load_document(N18, deadline=ticking("parsing", 100)).pages


def test_markdown_stops_between_lines() -> None:
    with pytest.raises(IngestTimeoutError, match="at line 3"):
        markdown_blocks("# A\n\nB\n\nC\n", ticking("parsing", 2.5))


def test_a_stopped_document_is_reported_and_not_stored(tmp_path: Path) -> None:
    slow = tmp_path / "slow.txt"
    slow.write_text("One sentence here. Another one there.\n")
    settings = Settings.load("test", ingest_budget_s=1e-12, ingest_budget_s_per_mb=0.0)
    ws = Workspace(tmp_path / "ws", settings)
    [res] = ws.add([slow])
    assert res.status == "failed" and isinstance(res.error, IngestTimeoutError)
    assert "slow.txt: parsing was stopped" in str(res.error)
    assert ws.documents() == []
    ws.close()
    # the same file within the default budget is added
    ws = Workspace(tmp_path / "ws", Settings.load("test"))
    assert [r.status for r in ws.add([slow])] == ["added"]
    ws.close()


def test_the_cli_says_which_stage_was_too_slow(tmp_path: Path) -> None:
    if not N18.exists():
        pytest.skip("shared data not found")
    # 8 pages take far more than a millisecond to read
    p = run("add", str(N18), "-w", str(tmp_path / "ws"),
            env={"GECHAT_INGEST_BUDGET_S": "0.001", "GECHAT_INGEST_BUDGET_S_PER_MB": "0"})
    assert_clean_error(p, "N18-3011.pdf: parsing was stopped at page")

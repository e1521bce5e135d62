"""The long-documents suite: answer scoring, the questions file, the figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gechat.errors import GechatError
from gechat.eval.long_docs import DocQuestion, answer_correct, figures, read_questions, score
from gechat.types import Answer, Claim, Evidence


@pytest.mark.parametrize(("answer", "gold", "right"), [
    ("Capital expenditure was $1.58 billion in FY2018.", "$1577.00", True),  # scale read, within 1%
    ("Capital expenditure was $1,577 million.", "$1577.00", True),
    ("Capital expenditure was $1.7 billion.", "$1577.00", False),
    ("The margin was 24.3%.", "24.26%", True),
    ("The margin was 0.2426.", "24.26%", True),  # a percentage as a fraction
    ("The margin fell 1.9% in 2022.", "1.9%", True),
    ("It rose 2.9% in 2022.", "1.9%", False),
    ("In 2022 the ratio was 0.69.", "0.67 to 0.69", False),  # every figure of the gold answer
    ("No. Operating margins declined from 36.8% to 33.0%.", "No the operating margins have declined", True),
    ("Yes, they improved.", "No the operating margins have declined", False),
    ("It is Amcor Flexibles North America.", "Amcor Flexibles North America", True),
    ("It is Amcor.", "Amcor Flexibles North America", False),
    ("", "$8.70", False),
])
def test_answer_correct(answer: str, gold: str, right: bool) -> None:
    assert answer_correct(answer, gold) is right


def test_read_questions_resolves_documents_and_refuses_bad_rows(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nRevenue was $5 million.\n")
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"question": "Revenue?", "answer": "$5 million", "document": "docs/a.md", "page": 1})
                 + "\n\n" + json.dumps({"question": "Pages?", "answer": "2", "document": "docs/a.md",
                                        "page": [1, 2], "id": "x"}) + "\n")
    a, b = read_questions(f)
    assert a.document == (tmp_path / "docs" / "a.md").resolve() and a.pages == (1,) and a.id == "1"
    assert b.pages == (1, 2) and b.id == "x"
    assert a.workspace_name() == b.workspace_name() != DocQuestion("", "", "", tmp_path / "b.md").workspace_name()
    f.write_text(json.dumps({"question": "Revenue?", "document": "docs/a.md"}) + "\n")
    with pytest.raises(GechatError, match=r"q.jsonl:1: no answer"):
        read_questions(f)
    f.write_text('{"question": "x", "answer": "y", "document": "missing.pdf"}\n')
    with pytest.raises(GechatError, match=r":1: no document at"):
        read_questions(f)
    f.write_text("{not json\n")
    with pytest.raises(GechatError, match=r":1: not JSON"):
        read_questions(f)
    with pytest.raises(GechatError, match="no questions file"):
        read_questions(tmp_path / "none.jsonl")


def _evidence(page: int) -> Evidence:
    return Evidence(sentences=[], doc_id=1, doc_title="f.pdf", page=page, start=0, end=1, text="x", p_entail=0.9,
                    p_contradict=0.0, score=0.9, selector="nli-objective")


def _answer(text: str, *claims: tuple[str, str, int]) -> Answer:
    return Answer(question="q", text=text, thoughts=[], claims=[
        Claim(text=t, source=source, verdict="supported" if page else "unsupported",  # type: ignore[arg-type]
              evidence=[_evidence(page)] if page else []) for t, source, page in claims])


def test_score_reads_the_answers_claims_only() -> None:
    item = DocQuestion("1", "Revenue?", "$5 million", Path("f.pdf"), pages=(4,), split="test")
    row = score(item, _answer("Revenue was $5 million.", ("Revenue was $5 million.", "answer", 4),
                              ("Step one.", "thought", 0)), 3.0, 100)
    assert row.correct and row.supported and row.page_hit == 1.0 and row.claims == 1 and row.pages_cited == [4]
    row = score(item, _answer("Revenue was $6 million.", ("Revenue was $6 million.", "answer", 9),
                              ("It was $6 million.", "answer", 0)), 3.0, 100)
    assert not row.correct and not row.supported and row.page_hit == 0.0
    row = score(item, _answer("I cannot tell."), 1.0, 10)
    assert not row.supported and row.claims == 0


def test_figures_report_the_test_half_and_each_split() -> None:
    def row(split: str, correct: bool, supported: bool, hit: float) -> object:
        item = DocQuestion("1", "q", "$5", Path("f.pdf"), pages=(1,), split=split)
        r = score(item, _answer("$5" if correct else "$9", ("c", "answer", 1 if hit else 0)), 2.0, 10)
        r.supported = supported
        return r

    rows = [row("test", True, True, 1.0), row("test", False, True, 0.0), row("test", False, False, 0.0),
            row("dev", True, True, 1.0)]
    flat = figures(rows, "fin_e2e")  # type: ignore[arg-type]
    assert flat["fin_e2e_questions"] == 3 and flat["fin_e2e_answer_accuracy"] == round(1 / 3, 4)
    assert flat["fin_e2e_wrong_supported_rate"] == 0.5 and flat["fin_e2e_supported_rate"] == round(2 / 3, 4)
    assert flat["fin_e2e_page_hit"] == round(1 / 3, 4) and flat["fin_e2e_questions_dev"] == 1
    assert "fin_e2e_wrong_supported_rate_dev" not in flat  # no wrong answer there


def test_a_corrected_answer_is_scored_beside_the_answer() -> None:
    from gechat.eval.long_docs import markdown
    from gechat.types import Correction

    item = DocQuestion("1", "Revenue in 2018?", "$5 million", Path("f.pdf"))
    wrong = _answer("Revenue was $6 million.", ("Revenue was $6 million.", "answer", 0))
    fixed = wrong.model_copy(update={"corrected": Correction(text="Revenue was $5 million.", edits=[])})
    emptied = wrong.model_copy(update={"corrected": Correction(text="", edits=[])})
    rows = [score(item, a, 1.0, 1) for a in (fixed, emptied, _answer("Revenue was $5 million."))]
    assert rows[0].correct_after and rows[0].corrected == "Revenue was $5 million." and not rows[0].correct
    assert rows[1].correct_after is False and rows[2].correct_after is None and rows[2].correct
    flat = figures(rows, "d")
    assert flat["d_answer_accuracy"] == round(1 / 3, 4) and flat["d_answer_accuracy_corrected"] == round(2 / 3, 4)
    assert "Answer accuracy after correction (`correct`): 0.667 (before: 0.333)." in markdown(flat, "d", rows, "x")
    assert "d_answer_accuracy_corrected" not in figures(rows[2:], "d")  # nothing was corrected


def test_a_run_that_adds_no_document_keeps_the_last_measured_ingest_rate(tmp_path: Path) -> None:
    from gechat.eval.long_docs import _earlier_ingest, markdown

    path = tmp_path / "long_documents.json"
    assert _earlier_ingest(path) is None  # no earlier run
    path.write_text('{"ingest_pages_per_second": 2.476, "meta": {"date": "2026-11-30T08:48:53+00:00"}}')
    assert _earlier_ingest(path) == (2.476, "2026-11-30T08:48:53+00:00")
    # kept once more: the date stays that of the run that added the documents
    path.write_text('{"ingest_pages_per_second": 2.476, "meta": {"date": "2026-12-01T00:00:00+00:00", '
                    '"ingest measured": "2026-11-30T08:48:53+00:00"}}')
    assert _earlier_ingest(path) == (2.476, "2026-11-30T08:48:53+00:00")
    path.write_text("not json")
    assert _earlier_ingest(path) is None
    text = markdown({"ingest_pages_per_second": 2.476}, "fin", [], "long_documents", "2026-11-30T08:48:53+00:00")
    assert "Documents added in the run of 2026-11-30T08:48:53+00:00" in text and "2.48 pages per second" in text
    assert "Documents added in this run: 2.48" in markdown({"ingest_pages_per_second": 2.476}, "fin", [], "x")


def test_the_committed_user_questions_name_filings_that_exist_and_answers_that_score() -> None:
    path = Path(__file__).parents[2] / "benchmarks" / "questions" / "financebench_dev_user.jsonl"
    items = read_questions(path)
    assert len(items) == 26 and all(i.pages for i in items)
    assert {i.document.name for i in items} <= {p.name for p in items[0].document.parent.glob("*.pdf")}
    # each gold answer is right against itself, and its figure is the one a wrong answer lacks
    assert all(answer_correct(i.answer, i.answer) for i in items)
    assert not answer_correct("Net sales were $150 million.", items[13].answer)
    pdfs = read_questions(path.parent / "pdfs_dev_user.jsonl")
    assert len(pdfs) == 24 and all(i.pages and i.document.is_file() for i in pdfs)
    assert all(answer_correct(i.answer, i.answer) for i in pdfs)

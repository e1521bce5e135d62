"""The web page in headless Chromium, over the real API with a scripted LLM: upload a PDF,
ask, click a claim, and check the highlight lies on the right page over the evidence text.

The PDF is made here, so where every sentence stands on its page is known independently of
gechat's own extraction (PyMuPDF's search of the drawn text).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from tests.e2e.web_support import browser_page, page_rect, serve
from tests.unit.api_support import QUESTION, fake_app

EVIDENCE = "It was completed in 1889 for the World's Fair."
PAGE_1 = "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin. The river Spree flows through it."
PAGE_2 = ("The Eiffel Tower is in Paris. " + EVIDENCE + " The tower is 330 metres tall. "
          "Gustave Eiffel's company designed and built it.")


def make_pdf(path: Path) -> None:
    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    for text in (PAGE_1, PAGE_2):
        page = doc.new_page(width=595, height=842)  # type: ignore[no-untyped-call]
        page.insert_textbox(pymupdf.Rect(72, 300, 523, 600), text, fontsize=13)  # type: ignore[no-untyped-call]
    doc.save(path)  # type: ignore[no-untyped-call]


def line_rects(pdf: Path, page_no: int, text: str) -> list[tuple[float, float, float, float]]:
    """Where the text stands on the page, one rectangle per line, as fractions of the page size."""
    with pymupdf.open(pdf) as doc:  # type: ignore[no-untyped-call]
        page = doc[page_no - 1]
        hits = page.search_for(text)
        assert hits, f"{text!r} not found on page {page_no}"
        w, h = page.rect.width, page.rect.height
        return [(r.x0 / w, r.y0 / h, r.x1 / w, r.y1 / h) for r in hits]


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over union of two rectangles."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area else 0.0


def highlight_rects(page: Any, page_no: int) -> list[tuple[float, ...]]:
    n = page.locator(f".page[data-page='{page_no}'] .hl").count()
    rects = [page_rect(page, f".page[data-page='{page_no}'] .hl >> nth={i}") for i in range(n)]
    return [(r["x0"], r["y0"], r["x1"], r["y1"]) for r in rects]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    with serve(fake_app(tmp_path)) as url:
        yield url


def upload_and_ask(page: Any, pdf: Path) -> None:
    page.wait_for_selector("#doc-list li")  # the workspace is loaded ("No documents yet")
    page.set_input_files("#files", str(pdf))
    page.wait_for_selector("#doc-list button.doc:has-text('sample')")
    page.wait_for_selector(".page[data-page='2']")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")  # Enter asks, as the placeholder says
    page.wait_for_selector("button.claim")


def test_upload_ask_click_claim_highlights_the_evidence_on_its_page(site: str, tmp_path: Path) -> None:
    pdf = tmp_path / "sample.pdf"
    make_pdf(pdf)
    with browser_page(site) as page:
        upload_and_ask(page, pdf)
        claim = page.locator("#claims button.claim").first
        assert claim.get_attribute("data-verdict") == "supported"
        assert "entailment 0." in claim.inner_text()
        assert page.locator("#steps li").count() == 2
        claim.click()
        page.wait_for_selector(".page .hl")
        shown = page.locator("#evidence-list button.evidence.current")
        sentence = shown.locator("q").inner_text()
        assert sentence in PAGE_2 and "p. 2" in shown.inner_text()
        assert "entailment 0." in page.inner_text("#evidence-list")  # per passage, or for a set together
        assert page.locator(".page[data-page='1'] .hl").count() == 0
        got = highlight_rects(page, 2)
        want = line_rects(pdf, 2, sentence)
        # every line of the sentence is highlighted, and nothing else: each rectangle on the
        # screen matches one from the PDF's own search for the sentence's text
        assert len(got) == len(want), (got, want)
        for r in got:
            assert max(overlap(r, w) for w in want) > 0.6, (r, want)
        for w in want:
            assert max(overlap(r, w) for r in got) > 0.6, (w, got)
        assert page.locator(".page[data-page='2'] img").get_attribute("src")  # the page image was loaded
        in_view = page.eval_on_selector(".page .hl", """el => {
            const v = document.getElementById('pages').getBoundingClientRect(), r = el.getBoundingClientRect();
            return r.top >= v.top && r.bottom <= v.bottom; }""")
        assert in_view, "the view did not scroll to the evidence"


def test_claims_work_from_the_keyboard(site: str, tmp_path: Path) -> None:
    pdf = tmp_path / "sample.pdf"
    make_pdf(pdf)
    with browser_page(site) as page:
        upload_and_ask(page, pdf)
        page.focus("#claims button.claim")
        page.keyboard.press("ArrowDown")  # to the first reasoning step's claim
        focused = page.evaluate("document.activeElement.closest('ol').id")
        assert focused == "steps"
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        page.wait_for_selector(".page[data-page='2'] .hl")
        assert page.get_attribute("#claims button.claim", "aria-pressed") == "true"


def test_text_documents_are_highlighted_by_offsets(site: str, tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    # a character outside the BMP first: its offsets differ between Python and JavaScript
    note.write_text("\U0001F5FC Notes.\n\n" + PAGE_2 + "\n", encoding="utf-8")
    with browser_page(site) as page:
        page.set_input_files("#files", str(note))
        page.wait_for_selector(".text-doc")
        page.fill("#question", QUESTION)
        page.click("#ask")
        page.click("#claims button.claim")
        page.wait_for_selector(".text-doc mark.hl")
        marked = page.locator(".text-doc mark.hl").all_inner_texts()
        evidence = page.locator("#evidence-list button.evidence.current q").inner_text()
        # the evidence's sentences, each marked exactly (wrong offsets would shift every mark)
        assert " ".join(marked) == evidence and evidence in PAGE_2


def test_errors_are_shown_not_thrown(site: str, tmp_path: Path) -> None:
    bad = tmp_path / "fake.pdf"
    bad.write_text("not a pdf at all")
    with browser_page(site) as page:
        page.set_input_files("#files", str(bad))
        notice = page.wait_for_selector("#notice:not([hidden])")
        assert "fake.pdf" in notice.inner_text()
        page.fill("#question", QUESTION)
        page.click("#ask")  # no documents yet: the API's problem is shown
        page.wait_for_function("document.getElementById('notice').innerText.includes('no documents')")


@contextlib.contextmanager
def text_doc_page(tmp_path: Path, text: str = PAGE_2) -> Iterator[tuple[Any, Any]]:
    """The page with a text document (PAGE_2) uploaded, and the fake LLM behind it."""
    app = fake_app(tmp_path)
    note = tmp_path / "note.txt"
    note.write_text(text)
    with serve(app) as url, browser_page(url) as page:
        page.set_input_files("#files", str(note))
        page.wait_for_selector(".text-doc")
        yield page, app.state.gechat.workspaces.get("default").workspace().llm.inner


def test_typing_a_question_has_the_model_read_its_excerpts_ahead(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        page.type("#question", QUESTION, delay=40)  # keystrokes, as a person types
        deadline = time.monotonic() + 10
        while not any(QUESTION in m[-1]["content"] for m in llm.prefilled) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any(QUESTION in m[-1]["content"] for m in llm.prefilled), llm.prefilled
        assert not llm.calls  # read ahead, nothing answered yet
        page.press("#question", "Enter")
        page.wait_for_selector("#claims button.claim")
        assert llm.calls[-1][0] == llm.prefilled[-1]  # the ask's prompt is the one read ahead


def test_a_claim_whose_year_is_not_in_its_evidence_says_which_word_is_missing(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        llm._responder = lambda messages: "Answer: The Eiffel Tower was completed in 1925 for the World's Fair."
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        claim = page.locator("#claims button.claim").first
        claim.wait_for()
        assert claim.get_attribute("data-verdict") != "supported"
        assert "not in the evidence: 1925" in claim.inner_text()
        assert "not in the evidence: 1925" in (claim.get_attribute("aria-label") or "")


def test_a_reasoning_step_that_states_no_fact_is_greyed_and_not_checked(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        llm._responder = lambda messages: ("Answer: The Eiffel Tower was completed in 1889.\nThoughts:\n"
                                           "1. This information is given in the first sentence of the excerpt.")
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        step = page.locator("#steps button.claim").first
        step.wait_for()
        assert step.get_attribute("data-verdict") == "no fact"
        assert "no-fact" in (step.get_attribute("class") or "")
        assert "not checked" in step.inner_text() and "states no fact" in step.inner_text()
        # the note wraps on a line of its own: beside the score it had squeezed the step's text
        # into a narrow column and run out of the card
        assert step.locator(".score").inner_text() == "not checked"
        assert "states no fact" in step.locator(".claim-note").inner_text()
        note, text = step.locator(".claim-note").bounding_box(), step.locator(".claim-text").bounding_box()
        assert note and text and note["y"] >= text["y"] + text["height"] - 1
        card = step.bounding_box()
        assert card and note["x"] + note["width"] <= card["x"] + card["width"] + 1
        assert "1 no fact" in page.locator("#usage").inner_text()



def test_a_claim_of_several_facts_shows_each_fact_with_its_own_verdict(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        llm._responder = lambda messages: "Answer: The tower was designed by Gustave Eiffel and Maurice Koechlin."
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        page.locator("#claims button.claim").first.wait_for()
        facts = page.locator("#claims ul.atoms button.claim.atom")
        assert facts.count() == 2
        texts = [facts.nth(i).inner_text() for i in range(2)]
        assert "Gustave Eiffel" in texts[0] and "Maurice Koechlin" in texts[1]
        # the document names Eiffel's company, not Koechlin: that fact is not supported
        assert facts.nth(1).get_attribute("data-verdict") != "supported"
        facts.nth(0).click()
        page.wait_for_selector("#evidence-list button.evidence")


def ask_corrected(page: Any, llm: Any, answer: str) -> None:
    """Asks QUESTION with correction on, the scripted LLM answering ``answer``."""
    llm._responder = lambda messages: answer
    page.check("#correct")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")


def test_a_corrected_answer_is_a_tracked_change_whose_new_value_shows_its_evidence(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        ask_corrected(page, llm, "Answer: The Eiffel Tower was completed in 1925 for the World's Fair.")
        page.wait_for_selector("#corrected:not([hidden]) button.edit")
        assert page.locator("#corrected del").inner_text() == "1925"
        new = page.locator("#corrected button.edit")
        assert new.inner_text() == "1889" and "1889" in (new.get_attribute("title") or "")
        new.click()  # the replacement's source, marked on the document by its offsets
        page.wait_for_selector(".text-doc mark.hl")
        assert "1889" in " ".join(page.locator(".text-doc mark.hl").all_inner_texts())


def test_an_answer_the_correction_takes_out_whole_says_so(tmp_path: Path) -> None:
    with text_doc_page(tmp_path) as (page, llm):
        ask_corrected(page, llm, "Answer: Gustave Acme painted the tower green on Mars.")
        page.wait_for_selector("#corrected:not([hidden]) .emptied")
        assert "Mars" in page.locator("#corrected del").first.inner_text()
        assert "all of it was taken out" in page.locator("#corrected .emptied").inner_text()


def test_asking_with_scopecoe_shows_what_the_model_read_and_why(tmp_path: Path) -> None:
    from gechat.prompts import PROMPTS

    def reply(messages: list[dict[str, str]]) -> str:
        if messages[0]["content"] == PROMPTS["coe_system"]:
            return json.dumps({"intent": "The Eiffel Tower was completed in some year.",
                               "keywords": ["Eiffel Tower", "Mars"], "relations": []})
        return "Answer: The Eiffel Tower was completed in 1889."

    with text_doc_page(tmp_path) as (page, llm):
        llm._responder = reply
        page.select_option("#retriever", "scopecoe")
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        page.wait_for_selector("#coe:not([hidden])")
        page.click("#coe summary")
        assert "not covered: keyword: Mars" in page.locator("#coe-sum").inner_text()
        assert "Eiffel Tower" in page.locator("#coe-features").inner_text()
        items = page.locator("#coe-snippets li")
        assert items.count() >= 1 and "Eiffel Tower" in items.first.inner_text()

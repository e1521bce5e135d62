"""The web page end to end with the real packaged models on a real PDF, in headless Chromium:
upload N18-3011.pdf, ask the demo question, click the claim with the answer, and check the
highlight lies on the evidence's page over the evidence sentence's own words (read back
from the PDF under the highlighted rectangles, independently of gechat's extraction).

With GECHAT_SCREENSHOT_DIR set, the page in that state is saved there (docs/ holds the one
the README shows: `GECHAT_SCREENSHOT_DIR=docs pytest tests/e2e/test_web_real.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from gechat.api import create_app
from gechat.settings import Settings
from tests.conftest import N18, models_dir
from tests.e2e.web_support import browser_page, page_rect, serve

pytestmark = pytest.mark.slow

QUESTION = "How many nodes does the literature graph in Semantic Scholar have?"


def words(text: str) -> list[str]:
    text = re.sub(r"-\s*\n\s*", "", text).replace("ﬁ", "fi").replace("ﬂ", "fl")
    return re.findall(r"\w+", text.lower())


def words_under(pdf: Path, page_no: int, rects: list[dict[str, float]]) -> list[str]:
    """The PDF's words whose centres lie inside the highlighted rectangles, in reading order."""
    with pymupdf.open(pdf) as doc:  # type: ignore[no-untyped-call]
        page = doc[page_no - 1]
        w, h = page.rect.width, page.rect.height
        joined = ""
        for x0, y0, x1, y1, text, *_ in page.get_text("words"):
            cx, cy = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
            if any(r["x0"] <= cx <= r["x1"] and r["y0"] <= cy <= r["y1"] for r in rects):
                joined += text[:-1] if text.endswith("-") else text + " "  # "pa-" "pers": papers
        return words(joined)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not N18.exists():
        pytest.skip("shared PDFs not found")
    tmp = tmp_path_factory.mktemp("web-real")
    settings = Settings.load("default", cache_dir=tmp / "llm-cache", models_dir=models_dir())
    with serve(create_app(tmp / "root", settings)) as url:
        yield url


def test_answer_claim_click_highlights_the_evidence_words_on_the_pdf_page(site: str) -> None:
    with browser_page(site) as page:
        page.set_default_timeout(600_000)  # the first question loads the models
        page.set_input_files("#files", str(N18))
        page.wait_for_selector(".page[data-page='8']")  # the viewer opened the added document
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        page.wait_for_selector("#claims button.claim")
        assert "280" in page.inner_text("#answer-text")
        claim = page.locator("#claims button.claim[data-verdict='supported']", has_text="280").first
        claim.click()
        page.wait_for_selector(".page .hl")
        shown = page.locator("#evidence-list button.evidence.current")
        meta = shown.locator(".ev-meta").inner_text()
        page_no = int(re.search(r"p\. (\d+)", meta).group(1))  # type: ignore[union-attr]
        evidence = shown.locator("q").inner_text()
        assert "280" in evidence
        hls = page.locator(".page .hl")
        assert {hls.nth(i).get_attribute("data-page") for i in range(hls.count())} == {str(page_no)}
        rects = [page_rect(page, f".page[data-page='{page_no}'] .hl >> nth={i}") for i in range(hls.count())]
        under = words_under(N18, page_no, rects)
        said = words(evidence)
        # the highlighted words are the evidence's words: all of them, and (almost) only them
        assert sum(w in said for w in under) >= 0.9 * len(under), (under, said)
        assert sum(w in under for w in said) >= 0.9 * len(said), (under, said)
        shot_dir = os.environ.get("GECHAT_SCREENSHOT_DIR")
        if shot_dir:
            shot(page, Path(shot_dir) / "web-evidence.png")


def shot(page: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    page.wait_for_function("[...document.querySelectorAll('.page img')].some(i => i.complete && i.naturalWidth)")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))

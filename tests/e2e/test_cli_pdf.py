"""End to end through the CLI with the real packaged models on a real PDF.

The question has a known answer ("more than 280M nodes", page 1 of N18-3011.pdf). The
evidence printed must be verbatim PDF text, on the page it names, at the offsets it names,
and its boxes must lie over those words on that page.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import N18, models_dir

pytestmark = pytest.mark.slow

QUESTION = "How many nodes does the literature graph in Semantic Scholar have?"


def norm(text: str) -> str:
    text = re.sub(r"-\s*\n\s*", "", text)  # the PDF's line-end hyphenation
    text = text.replace("ﬁ", "fi").replace("ﬀ", "ff").replace("ﬂ", "fl")
    return re.sub(r"\W+", "", text).lower()


def gechat(*args: str, ws: Path) -> subprocess.CompletedProcess[str]:
    # a cache of its own: the first ask really runs the model; the second reuses that answer
    env = {**os.environ, "GECHAT_MODELS_DIR": str(models_dir()), "GECHAT_CACHE_DIR": str(ws.parent / "llm-cache")}
    return subprocess.run([sys.executable, "-m", "gechat.cli", *args, "-w", str(ws)],
                          capture_output=True, text=True, env=env, timeout=1200)


@pytest.fixture(scope="module")
def answer(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:  # type: ignore[type-arg]
    if not N18.exists():
        pytest.skip("shared PDFs not found")
    ws = tmp_path_factory.mktemp("ws")
    p = gechat("add", str(N18), ws=ws)
    assert p.returncode == 0, p.stderr
    p = gechat("ask", QUESTION, "--json", ws=ws)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), ws


def test_answer_is_right_and_supported(answer: tuple[dict, Path]) -> None:  # type: ignore[type-arg]
    ans, _ = answer
    assert "280" in ans["text"]
    supported = [c for c in ans["claims"] if c["verdict"] == "supported"]
    assert any("280" in c["text"] for c in supported)


def test_evidence_is_verbatim_with_right_page_offsets_and_boxes(answer: tuple[dict, Path]) -> None:  # type: ignore[type-arg]
    ans, ws = answer
    db = sqlite3.connect(ws / "gechat.sqlite")
    (doc_text,) = db.execute("SELECT text FROM documents").fetchone()
    pdf = pymupdf.open(N18)
    evidence = [e for c in ans["claims"] for e in c["evidence"]]
    assert evidence
    hit = [e for e in evidence if "280M" in e["text"]]
    assert hit, "the known evidence sentence was not selected"
    assert hit[0]["page"] == 1
    for e in evidence:
        assert doc_text[e["start"]:e["end"]] == e["text"]
        page = pdf[e["page"] - 1]
        assert norm(e["text"]) in norm(page.get_text()), "evidence is not verbatim text of its page"
        boxes = [b for s in e["sentences"] for b in s["boxes"]]
        assert boxes and all(b["page"] == e["page"] for b in boxes)
        under = " ".join(page.get_text("text", clip=pymupdf.Rect(b["x0"], b["y0"], b["x1"], b["y1"]))
                         for b in boxes)
        words = re.findall(r"\w{4,}", e["text"])
        found = sum(norm(w) in norm(under) for w in words)
        assert found >= 0.9 * len(words), "the boxes do not lie over the evidence's words"


def test_human_output_shows_locator(answer: tuple[dict, Path]) -> None:  # type: ignore[type-arg]
    _, ws = answer
    p = gechat("ask", QUESTION, ws=ws)  # cached LLM answer: fast
    assert p.returncode == 0, p.stderr
    assert re.search(r"N18-3011\.pdf:1:\d+-\d+", p.stdout)
    assert "supported" in p.stdout

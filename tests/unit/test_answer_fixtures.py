"""The CoT parser on real outputs of the packaged 1.5B and 0.5B models.

tests/fixtures/llm_outputs/outputs.json holds the raw replies (collected by collect.py
beside it, three prompt variants). expected.json holds the parse of each, reviewed by hand;
re-freeze it with `python tests/unit/test_answer_fixtures.py --freeze` only after reading
every changed entry.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from gechat.answer.parser import parse_cot

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "llm_outputs"
OUTPUTS = json.loads((HERE / "outputs.json").read_text())
EXPECTED_PATH = HERE / "expected.json"
EXPECTED = json.loads(EXPECTED_PATH.read_text()) if EXPECTED_PATH.exists() else {}


def key(o: dict[str, str]) -> str:
    return f"{o['model']}|{o['variant']}|{o['id']}"


def test_fixtures_cover_both_models_and_all_variants() -> None:
    assert {o["model"] for o in OUTPUTS} == {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"}
    assert {o["variant"] for o in OUTPUTS} == {"gechat", "paper_style", "plain"}
    assert set(EXPECTED) == {key(o) for o in OUTPUTS}


@pytest.mark.parametrize("out", OUTPUTS, ids=key)
def test_parse_matches_reviewed_expectation(out: dict[str, str]) -> None:
    got = parse_cot(out["raw"])
    exp = EXPECTED[key(out)]
    assert got.answer == exp["answer"]
    assert got.thoughts == exp["thoughts"]


@pytest.mark.parametrize("out", OUTPUTS, ids=key)
def test_parse_invariants(out: dict[str, str]) -> None:
    got = parse_cot(out["raw"])
    assert got.answer, "every real reply yields an answer"
    assert len(got.thoughts) <= 10
    for text in [got.answer, *got.thoughts]:
        assert not re.match(r"^\s*(answer|thoughts?)\s*:", text, re.I), "a header leaked into the text"
        assert not re.match(r"^\s*(\d{1,2}[.)]|[-*•])\s", text), "a list marker leaked into the text"
        assert "**" not in text and "{" not in text[:1]


if __name__ == "__main__" and "--freeze" in sys.argv:
    frozen = {key(o): parse_cot(o["raw"]).model_dump(include={"answer", "thoughts"}) for o in OUTPUTS}
    EXPECTED_PATH.write_text(json.dumps(frozen, indent=1, ensure_ascii=False) + "\n")
    print(f"froze {len(frozen)} expectations to {EXPECTED_PATH}")

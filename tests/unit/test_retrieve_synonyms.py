"""A question searched by the other names of its terms."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.errors import ConfigError
from gechat.pipeline import Workspace
from gechat.retrieve.synonyms import FINANCE, Synonyms, load_synonyms
from gechat.settings import Settings


def test_a_term_brings_the_other_names_of_its_group_and_nothing_else() -> None:
    s = Synonyms([("capital expenditure", "capex", "purchases of property and equipment"),
                  ("balance sheet", "statement of financial position")])
    assert s.expand("What were 3M's Capital  Expenditures in FY2018?") == \
        "What were 3M's Capital  Expenditures in FY2018? (capex; purchases of property and equipment)"
    assert s.expand("What does the balance sheet say?").endswith("(statement of financial position)")
    # whole words only: "capexes" is no name here, nor "sheet" alone
    assert s.expand("How many capexes? Which sheet?") == "How many capexes? Which sheet?"
    # a name the question holds already is not added again; a one-name group adds nothing
    both = s.expand("capex, or capital expenditure?")
    assert both == "capex, or capital expenditure? (purchases of property and equipment)"
    assert Synonyms([("alone",)]).expand("alone") == "alone"


def test_names_with_marks_are_matched_whole() -> None:
    s = load_synonyms("finance")
    assert "property, plant and equipment" in s.expand("Net PP&E at year end?")
    assert s.expand("What steps did it take?") == "What steps did it take?"  # not "EPS"
    assert load_synonyms("none").expand("Net PP&E?") == "Net PP&E?"
    assert all(len(g) > 1 for g in FINANCE)


def test_a_users_vocabulary_file_and_a_bad_name(tmp_path: Path) -> None:
    f = tmp_path / "contract.txt"
    f.write_text("# parties\nLicensee; Customer\n\nterm ;  duration\n", encoding="utf-8")
    s = load_synonyms(str(f))
    assert s.groups == [("Licensee", "Customer"), ("term", "duration")]
    assert s.expand("When does the term end?") == "When does the term end? (duration)"
    with pytest.raises(ConfigError, match="no vocabulary 'legal'"):
        load_synonyms("legal")


def test_asking_searches_the_other_names_and_the_llm_reads_the_question_as_asked(tmp_path: Path) -> None:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    seen: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        seen.append(messages[-1]["content"])
        return "Answer: 1,577.\nThoughts:\n1. The row states 1,577."

    doc = tmp_path / "filing.txt"
    doc.write_text("The board met four times and discussed the weather at length.\n\n"
                   "Purchases of property, plant and equipment were 1,577 in 2018.\n", encoding="utf-8")
    question = "What was the capex?"
    for vocabulary, found in (("finance", True), ("none", False)):
        settings = Settings.load("test", cache_dir=tmp_path / vocabulary, chunk_tokens=12, top_k_chunks=1,
                                 query_synonyms=vocabulary)
        ws = Workspace(tmp_path / f"ws-{vocabulary}", settings, llm=CachedLLM(FakeLLM(reply), None, Usage()))
        ws.add([doc])
        hits, _ = ws.retrieve(question)
        assert ("1,577" in hits[0].chunk.text) is found, vocabulary
        ws.ask(question)
        assert f"Question: {question}\n" in seen[-1]
        ws.close()

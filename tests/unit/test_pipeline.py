"""The Workspace end to end with the deterministic fakes (test preset): no real models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gechat.errors import GechatError, LoadError, StoreError
from gechat.pipeline import Workspace
from gechat.settings import Settings

TEXT = """The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.

The tower is 330 metres tall. Gustave Eiffel's company designed and built it.

Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.
"""


def scripted_llm_reply(messages: list[dict[str, str]]) -> str:
    return ("Answer: The tower was completed in 1889 for the World's Fair.\n"
            "Thoughts:\n1. The excerpt says it was completed in 1889 for the World's Fair.\n"
            "2. The tower is 330 metres tall.")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20)
    llm = CachedLLM(FakeLLM(scripted_llm_reply), None, Usage())
    return Workspace(tmp_path / "ws", settings, llm=llm)


def test_add_ask_remove(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "tower.txt"
    f.write_text(TEXT)
    steps: list[str] = []
    (res,) = ws.add([f], progress=lambda path, step: steps.append(step))
    assert res.status == "added" and res.document is not None
    assert res.document.n_sentences == 6
    # the progress names each stage, the pages read and how far the embedding is
    assert steps[:2] == ["reading", "parsing"]
    assert "1 pages read; embedding 0/9 sentences and chunks" in steps and "storing" in steps
    (dup,) = ws.add([f])
    assert dup.status == "duplicate"
    # read again (a newer reader): the new reading replaces the stored one, nothing doubled
    (again,) = ws.add([f], again=True)
    assert again.status == "added" and again.document is not None
    assert [d.id for d in ws.documents()] == [again.document.id]
    res = again
    ans = ws.ask("When was the Eiffel Tower completed?")
    assert ans.text == "The tower was completed in 1889 for the World's Fair."
    assert len(ans.thoughts) == 2
    assert [c.source for c in ans.claims] == ["answer", "thought", "thought"]
    text = ws.store.document_text(res.document.id)
    for c in ans.claims:
        for e in c.evidence:
            assert text[e.start:e.end] == e.text  # verbatim, located by offsets
            assert e.doc_title == "tower.txt" and e.page == 1
    first = ans.claims[0]
    assert first.verdict == "supported"
    assert "1889" in first.evidence[0].text
    assert ans.usage.stages["answer"].calls == 1
    json.loads(ans.model_dump_json())  # the library's JSON form
    ws.remove("tower.txt")
    assert ws.documents() == []
    with pytest.raises(StoreError, match="no documents"):
        ws.ask("anything?")


def test_bad_file_is_reported_and_nothing_written(ws: Workspace, tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 this is not really a pdf")
    good = tmp_path / "good.txt"
    good.write_text(TEXT)
    res = ws.add([bad, good, tmp_path / "missing.txt"])
    assert [r.status for r in res] == ["failed", "added", "failed"]
    assert isinstance(res[0].error, LoadError)
    assert len(ws.documents()) == 1


def test_empty_question(ws: Workspace) -> None:
    with pytest.raises(GechatError, match="empty"):
        ws.ask("   ")


def test_embedder_mismatch_is_refused(ws: Workspace, tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text(TEXT)
    ws.add([f])
    ws.store.set_meta("embedder", "other-model/999")
    with pytest.raises(StoreError, match="indexed with embedder"):
        ws.ask("When?")


def test_abstention_makes_no_claims(tmp_path: Path) -> None:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    llm = CachedLLM(FakeLLM(lambda m: "Answer: The documents do not say."), None, Usage())
    ws = Workspace(tmp_path / "ws", Settings.load("test", cache_dir=tmp_path / "c"), llm=llm)
    f = tmp_path / "a.txt"
    f.write_text(TEXT)
    ws.add([f])
    ans = ws.ask("Who won the 1990 World Cup?")
    assert ans.claims == []


@pytest.mark.parametrize("selector", ["reflection", "quote"])
def test_llm_selectors_through_the_workspace(tmp_path: Path, selector: str) -> None:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.prompts import PROMPTS
    from gechat.types import Usage

    def reply(messages: list[dict[str, str]]) -> str:
        if messages[0]["content"] in (PROMPTS["reflect_system"], PROMPTS["quote_system"]):
            key = "supporting" if selector == "reflection" else "quotes"
            return json.dumps({key: ["It was completed in 1889 for the World's Fair.", "It is made of cheese."]})
        return scripted_llm_reply(messages)

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20, evidence=selector)
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(FakeLLM(reply), None, Usage()))
    f = tmp_path / "tower.txt"
    f.write_text(TEXT)
    ws.add([f])
    ans = ws.ask("When was the Eiffel Tower completed?")
    text = ws.store.document_text(ws.documents()[0].id)
    first = ans.claims[0]
    assert first.verdict == "supported" and [e.text for e in first.evidence] == [
        "It was completed in 1889 for the World's Fair."]
    assert all(text[e.start:e.end] == e.text for c in ans.claims for e in c.evidence)
    assert ans.usage.stages["evidence"].calls == len(ans.claims)


def test_a_store_that_calls_a_file_stored_but_holds_nothing_of_it_reports_an_error(
        ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared store's writer raced by another: 'duplicate' only when the file is really
    stored, else the file is reported failed with a hint (never 'error: None')."""
    from gechat.errors import DuplicateDocumentError

    def refuse(doc: object) -> None:
        raise DuplicateDocumentError("stored already")

    monkeypatch.setattr(ws.store, "insert", refuse)
    f = tmp_path / "tower.txt"
    f.write_text(TEXT)
    (res,) = ws.add([f])
    assert res.status == "failed" and res.error is not None and "add it again" in (res.error.hint or "")


def test_a_footnote_mark_brings_its_footnote_to_the_llm_and_the_evidence(tmp_path: Path) -> None:
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.types import Usage

    prompts: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        return "Answer: The alert fires at more than 10 degrees for more than 10 seconds."

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=20, top_k_chunks=1)
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(FakeLLM(reply), None, Usage()))
    filler = "\n\n".join(f"Section {n} describes the maintenance of part {n} of the wing in detail." for n in range(8))
    f = tmp_path / "directive.txt"
    f.write_text("The disagree alert fires when the two sensors differ by more than a threshold ¹³ set by the "
                 f"maker.\n\n{filler}\n\n¹³ More than 10 degrees for more than 10 seconds.\n")
    ws.add([f])
    ans = ws.ask("When does the disagree alert fire?")
    assert "¹³ More than 10 degrees for more than 10 seconds." in prompts[0]
    assert "Section 7" not in prompts[0]  # the footnote alone, not the rest of its chunk
    (claim,) = ans.claims
    assert claim.verdict == "supported"
    assert [e.text for e in claim.evidence] == ["¹³ More than 10 degrees for more than 10 seconds."]

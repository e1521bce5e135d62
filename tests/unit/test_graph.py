"""The knowledge graph with the deterministic fakes: resolution rules, the LLM extractor's
clean-up, relation probing's bound, budgets and resuming, search over two hops, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from gechat.graph.base import ChunkText, normalise
from gechat.graph.build import Budget
from gechat.graph.llm_extract import LLMExtractor, RelationProber, parse_partial
from gechat.graph.resolve import abbreviates, is_alias
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.pipeline import Workspace
from gechat.prompts import PROMPTS
from gechat.settings import Settings
from gechat.types import Sentence, Usage


def test_normalise_folds_case_articles_possessives() -> None:
    assert normalise("The Semantic Scholar's") == "semantic scholar"
    assert normalise("  Apple, Inc. ") == "apple inc"


@pytest.mark.parametrize(("a", "b", "cos", "alias"), [
    ("m365 business basic", "microsoft 365 business basic", 0.61, True),  # abbreviation, low cosine
    ("microsoft 365 business basic", "microsoft 365 business premium", 0.78, False),
    ("allen institute for ai", "allen institute for artificial intelligence", 0.94, True),
    ("apple inc", "apple", 0.74, True),  # a company suffix only
    ("barack obama", "obama", 0.94, True),
    ("john smith", "john smithson", 0.84, False),
    ("fiscal 2022", "fiscal 2021", 0.95, False),  # the numbers differ
    ("paris", "paris hilton", 0.62, False),
])
def test_alias_rules(a: str, b: str, cos: float, alias: bool) -> None:
    assert is_alias(a, b, cos, 0.9) is alias


def test_abbreviation_needs_every_initial() -> None:
    assert abbreviates("m365 business basic", "microsoft 365 business basic")
    assert not abbreviates("ai2", "allen institute for artificial intelligence")


def test_parse_partial_keeps_complete_items_before_a_cut() -> None:
    cut = '{"entities": [{"name": "A", "type": "person", "description": "x"}, {"name": "B", "ty'
    data = parse_partial(cut)
    assert data == {"entities": [{"name": "A", "type": "person", "description": "x"}]}
    assert parse_partial("not json") is None


def _chunk(cid: int, sentences: list[str], start_id: int = 1) -> ChunkText:
    sents = [Sentence(id=start_id + i, doc_id=1, chunk_id=cid, ord=i, page=1, start=0, end=len(t), text=t)
             for i, t in enumerate(sentences)]
    return ChunkText(cid, 1, " ".join(sentences), sents)


def _llm(replies: dict[str, Any]) -> CachedLLM:
    def reply(messages: list[dict[str, str]]) -> str:
        for marker, data in replies.items():
            if marker in messages[0]["content"] and not (marker == "graph" and len(messages) > 2):
                return json.dumps(data)
        return json.dumps({"entities": [], "relations": []})
    return CachedLLM(FakeLLM(reply), None, Usage())


EXTRACTED = {"entities": [
    {"name": "Marta Kowalski", "type": "person", "description": "a film director"},
    {"name": "marta kowalski", "type": "person", "description": "repeated"},
    {"name": "Starlight Express", "type": "work", "description": "a 1987 film"},
    {"name": "Gdansk", "type": "location", "description": "a city"},
    {"name": "Napoleon", "type": "person", "description": "invented: not in the text"},
    {"name": "", "type": "other", "description": "empty"}],
    "relations": [
    {"source": "Marta Kowalski", "target": "Starlight Express", "keywords": "directed", "description": "d",
     "strength": 9},
    {"source": "Marta Kowalski", "target": "Napoleon", "keywords": "x", "description": "invented end", "strength": 1},
    {"source": "Starlight Express", "target": "Marta Kowalski", "keywords": "dup", "description": "d", "strength": 9}]}


def test_llm_extractor_drops_invented_repeated_and_dangling() -> None:
    unit = [_chunk(1, ["Starlight Express is a 1987 film directed by Marta Kowalski."]),
            _chunk(2, ["Marta Kowalski was born in Gdansk."], start_id=10)]
    found = LLMExtractor(_llm({PROMPTS["graph_system"][:30]: EXTRACTED})).extract(unit)
    names = [[e.name for e in x.entities] for x in found]
    assert names == [["Marta Kowalski", "Starlight Express"], ["Marta Kowalski", "Gdansk"]]
    assert found[1].entities[1].sentence_ids == [10]
    assert [(r.source, r.target) for x in found for r in x.relations] == [("Marta Kowalski", "Starlight Express")]
    assert found[0].relations[0].sentence_ids == [1]
    assert found[0].dropped == 5  # repeated, invented, empty; the dangling and the reversed duplicate relation
    assert not found[0].failed


def test_prober_is_bounded_and_maps_answers_back() -> None:
    unit = [_chunk(1, ["A1 Corp and B2 Corp and C3 Corp and D4 Corp met in E5 City."])]
    found = LLMExtractor(_llm({PROMPTS["graph_system"][:30]: {"entities": [
        {"name": n, "type": "organization", "description": ""} for n in
        ["A1 Corp", "B2 Corp", "C3 Corp", "D4 Corp", "E5 City"]], "relations": []}})).extract(unit)
    answers = {"pairs": [{"n": 1, "related": True, "keywords": "met", "description": "they met"},
                         {"n": 1, "related": True, "keywords": "again", "description": "a repeat"},
                         {"n": 2, "related": False, "keywords": "", "description": ""},
                         {"n": 99, "related": True, "keywords": "", "description": "out of range"}]}
    prober = RelationProber(_llm({PROMPTS["probe_system"][:30]: answers}), max_pairs=4)
    assert len(prober.pairs(unit, found)) == 4  # 10 pairs share the sentence; the bound is 4
    probed = prober.probe(unit, found)
    assert [(cid, r.source, r.target, r.kind) for cid, r in probed] == [(1, "A1 Corp", "B2 Corp", "probed")]


def _ws(tmp_path: Path, llm: CachedLLM | None = None, **overrides: Any) -> Workspace:
    s = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=25, **overrides)
    return Workspace(tmp_path / "ws", s, llm=llm or CachedLLM(FakeLLM(), None, Usage()))


def _doc(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_budget_stops_cleanly_and_a_rerun_resumes(tmp_path: Path) -> None:
    text = " ".join(f"Company Alpha{i} hired Person Beta{i} in Gamma{i} City last spring." for i in range(8))
    ws = _ws(tmp_path, graph="llm", graph_unit_tokens=30)
    (res,) = ws.add([_doc(tmp_path, "a.txt", text)], budget=Budget(max_llm_calls=3))
    assert res.status == "added" and res.graph is not None
    assert res.graph.stopped and not res.graph.complete
    assert res.graph.cost.llm_calls <= 3
    done = ws.store.graph.counts()["chunks_done"]
    assert 0 < done < res.graph.chunks_total
    (again,) = ws.build_graph()
    assert again.complete and again.chunks_done == res.graph.chunks_total
    costs = ws.store.graph.cost_by_document()[res.document.id]  # type: ignore[union-attr]
    assert costs["chunks"] == res.graph.chunks_total
    assert costs["llm_calls"] == res.graph.cost.llm_calls + again.cost.llm_calls


def test_two_hop_search_reaches_the_bridge_sentence(tmp_path: Path) -> None:
    ws = _ws(tmp_path, graph="fast", retriever="graph")
    ws.add([_doc(tmp_path, "film.txt", "Starlight Express is a 1987 musical film directed by Marta Kowalski. "
                                       "It was shot in Warsaw."),
            _doc(tmp_path, "person.txt", "Marta Kowalski was born in Gdansk. She studied painting in Krakow."),
            _doc(tmp_path, "other.txt", "Johann Weber was born in Hamburg in 1950. Weber wrote novels.")])
    hit = ws.retriever.rank_sentences("Where was the director of Starlight Express born?", 3)
    texts = {s.id: s.text for d in ws.documents() for s in ws.store.sentences_of_chunks(ws.store.chunk_ids(d.id))}
    top = [texts[sid] for sid, _ in hit]
    assert "Marta Kowalski was born in Gdansk." in top
    assert all("Hamburg" not in t for t in top[:2])
    hits = ws.retriever.retrieve("Where was the director of Starlight Express born?", 2)
    assert {h.doc_title for h in hits} == {"film.txt", "person.txt"}


def test_graph_retriever_without_a_graph_says_how_to_build_it(tmp_path: Path) -> None:
    from gechat.errors import StoreError

    ws = _ws(tmp_path, retriever="graph")
    ws.add([_doc(tmp_path, "a.txt", "Alpha Beta met Gamma Delta in Paris.")])
    with pytest.raises(StoreError, match="no knowledge graph"):
        ws.retriever.retrieve("who met?", 2)


def test_export_graphml_and_json_keep_provenance(tmp_path: Path) -> None:
    from gechat.graph.export import export

    ws = _ws(tmp_path, graph="fast")
    ws.add([_doc(tmp_path, "a.txt", "Marta Kowalski directed Starlight Express in Warsaw.")])
    g = export(ws.store.graph, tmp_path / "g.graphml", "graphml")
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert back.number_of_nodes() == g.number_of_nodes() > 0
    assert all(d["chunks"] for _, d in back.nodes(data=True))
    export(ws.store.graph, tmp_path / "g.json", "json")
    data = json.loads((tmp_path / "g.json").read_text())
    assert {n["name"] for n in data["nodes"]} >= {"Marta Kowalski", "Starlight Express"}


def test_a_fast_graph_can_be_extended_by_the_llm_extractor(tmp_path: Path) -> None:
    ws = _ws(tmp_path, graph="fast")
    (res,) = ws.add([_doc(tmp_path, "a.txt", "Marta Kowalski directed Starlight Express in Warsaw.")])
    assert res.graph is not None and res.graph.complete
    (llm,) = ws.build_graph(extractor="llm")
    assert llm.extractor == "llm" and llm.chunks_done == llm.chunks_total and llm.cost.llm_calls >= 1
    (again,) = ws.build_graph(extractor="llm")
    assert again.cost.llm_calls == 0  # nothing left for it
    assert ws.store.graph.counts()["chunks_done"] == res.graph.chunks_total

"""Incremental graphs: after add A, add B, remove A the graph equals one built from B alone
(up to ids), with no orphan rows; for the fast and the LLM extractor."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.pipeline import Workspace
from gechat.prompts import PROMPTS
from gechat.settings import Settings
from gechat.types import Usage

A = ("Marta Kowalski directed Starlight Express in Warsaw. Warsaw is the capital of Poland. "
     "Marta Kowalski later moved to Gdansk Harbour.")
B = ("Marta Kowalski was born in Gdansk Harbour. Polish Film Academy trained Marta Kowalski. "
     "The Polish Film Academy is in Lodz City.")


def _names_in(text: str) -> list[str]:
    known = ["Marta Kowalski", "Starlight Express", "Warsaw", "Poland", "Gdansk Harbour", "Polish Film Academy",
             "Lodz City"]
    return [n for n in known if n in text]


def _llm_reply(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    if messages[0]["content"] == PROMPTS["probe_system"]:
        n = user.count(" -- ")
        return json.dumps({"pairs": [{"n": i, "related": True, "keywords": "near", "description": "appear together"}
                                     for i in range(1, n + 1)]})
    names = _names_in(user)
    return json.dumps({"entities": [{"name": n, "type": "other", "description": f"{n} in the text"} for n in names],
                       "relations": [{"source": a, "target": b, "keywords": "linked", "description": f"{a}/{b}",
                                      "strength": 3} for a, b in itertools.pairwise(names)]})


def _ws(path: Path, extractor: str) -> Workspace:
    s = Settings.load("test", cache_dir=path / "cache", chunk_tokens=12, graph=extractor, graph_unit_tokens=20)
    return Workspace(path / "ws", s, llm=CachedLLM(FakeLLM(_llm_reply), None, Usage()))


def snapshot(ws: Workspace) -> dict[str, Any]:
    g = ws.store.graph
    names = {e.id: e.name for e in g.entities()}
    return {
        "entities": sorted((e.name, e.type, e.description, e.n_mentions) for e in g.entities()),
        "relations": sorted((tuple(sorted((names[r.src], names[r.dst]))), r.keywords, r.description, r.weight)
                            for r in g.relations()),
        "counts": {k: v for k, v in g.counts().items()},
    }


def orphans(ws: Workspace) -> dict[str, int]:
    db = ws.store.graph.db
    c = "SELECT COUNT(*) FROM "
    q = {
        "entities without mentions": c + "entities WHERE id NOT IN (SELECT entity_id FROM entity_mentions)",
        "relations without mentions": c + "relations WHERE id NOT IN (SELECT relation_id FROM relation_mentions)",
        "mentions of missing entities": c + "entity_mentions WHERE entity_id NOT IN (SELECT id FROM entities)",
        "relations to missing entities": c + "relations WHERE src NOT IN (SELECT id FROM entities) "
                                             "OR dst NOT IN (SELECT id FROM entities)",
        "mentions of missing documents": c + "entity_mentions WHERE doc_id NOT IN (SELECT id FROM documents)",
        "graph chunks of missing chunks": c + "graph_chunks WHERE chunk_id NOT IN (SELECT id FROM chunks)",
    }
    return {k: int(db.execute(sql).fetchone()[0]) for k, sql in q.items()}


@pytest.mark.parametrize("extractor", ["fast", "llm"])
def test_add_a_add_b_remove_a_equals_b_alone(tmp_path: Path, extractor: str) -> None:
    (tmp_path / "a.txt").write_text(A)
    (tmp_path / "b.txt").write_text(B)
    both = _ws(tmp_path / "both", extractor)
    both.add([tmp_path / "a.txt"])
    both.add([tmp_path / "b.txt"])
    merged = snapshot(both)
    both.remove("a.txt")
    alone = _ws(tmp_path / "alone", extractor)
    alone.add([tmp_path / "b.txt"])
    assert snapshot(both) == snapshot(alone)
    assert snapshot(alone)["entities"], "the graph of B is not empty"
    assert merged != snapshot(alone), "A contributed something that had to go"
    assert all(v == 0 for v in orphans(both).values()), orphans(both)
    shared = [e for e in merged["entities"] if e[0] == "Marta Kowalski"]
    assert shared and shared[0][3] > next(e for e in snapshot(alone)["entities"] if e[0] == "Marta Kowalski")[3]

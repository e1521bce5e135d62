"""ScopeCoE's parts on their own: the feature parse on real model outputs, the judgment with
scripted scores, the minimal coverage search on fixed judgments, and the retriever on a
small workspace with fakes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gechat.models.embed import HashingEmbedder
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.retrieve.coe import FeatureJudge, Judgment, Scores, cover, parse_features, relevance, select
from gechat.types import CoEFeatures, Usage
from tests.unit.test_evidence_objective import Scripted

FIXTURES = json.loads((Path(__file__).parents[1] / "fixtures" / "coe_outputs" / "outputs.json").read_text())
F = CoEFeatures(intent="Acme sold some segment for some amount.", keywords=["Acme", "segment", "2021"],
                relations=["Acme sold some segment in 2021.", "Some segment had a revenue of some amount."])


def test_every_real_output_parses_to_what_the_model_wrote() -> None:
    for row in FIXTURES["real"]:
        got = parse_features(row["output"], row["question"])
        want = json.loads(row["output"])
        assert got.intent == want["intent"] and got.keywords == want["keywords"]
        assert got.relations == [r for r in want["relations"] if r != want["intent"]]


def test_fenced_chatty_cut_or_empty_outputs_still_give_features() -> None:
    fenced, chatty, cut, refused = FIXTURES["unconstrained"]
    assert parse_features(fenced["output"], fenced["question"]).keywords[0] == "operating cash flow ratio"
    assert parse_features(chatty["output"], chatty["question"]).intent.startswith("Someone may terminate")
    for row in (cut, refused):  # nothing usable: the question is the intent, its names the keywords
        got = parse_features(row["output"], row["question"])
        assert got.intent == row["question"] and "Semantic Scholar" in got.keywords and got.relations == []


def test_a_relation_that_repeats_the_intent_and_duplicates_are_dropped() -> None:
    out = parse_features(json.dumps({"intent": "X has some nodes.", "keywords": ["X", "x", 7],
                                     "relations": ["X has some nodes.", "X is a graph."]}), "q")
    assert out.keywords == ["X", "7"] and out.relations == ["X is a graph."]


def j(rank: int, intent: bool = False, rel: set[int] | None = None, kw: set[int] | None = None) -> Judgment:
    return Judgment(rank=rank, intent=intent, relations=rel or set(), keywords=kw or set())


def test_cover_takes_the_intent_then_relations_then_keywords_fewest_snippets() -> None:
    judged = [j(0, kw={0, 1}), j(1, intent=True, rel={1}), j(2, rel={0}, kw={0}), j(3, rel={0}, kw={0, 2}),
              j(4, kw={2})]
    chosen, uncovered = cover(judged, F, k=5)
    # the intent's snippet, then the one relation left with the most keywords, then "segment"
    assert [c.rank for c in chosen] == [0, 1, 3] and uncovered == []
    chosen, uncovered = cover(judged, F, k=2)
    assert [c.rank for c in chosen] == [1, 3] and uncovered == ["keyword: segment"]


def test_what_no_snippet_covers_is_said() -> None:
    chosen, uncovered = cover([j(0, kw={0}), j(1)], F, k=5)
    assert [c.rank for c in chosen] == [0]
    assert uncovered == ["intent: " + F.intent, "relation: " + F.relations[0], "relation: " + F.relations[1],
                         "keyword: segment", "keyword: 2021"]
    assert cover([], F, k=5) == ([], [*uncovered[:3], "keyword: Acme", "keyword: segment", "keyword: 2021"])


def test_select_fills_with_the_others_and_falls_back_to_the_top_k() -> None:
    judged = [j(0), j(1, intent=True, rel={0, 1}), j(2), j(3, kw={0, 1, 2}), j(4)]
    chosen, extra, uncovered = select(judged, F, 3, fill=True)
    assert [c.rank for c in chosen] == [1, 3] and [e.rank for e in extra] == [0] and uncovered == []
    assert select(judged, F, 3, fill=False)[1] == []
    chosen, extra, uncovered = select([j(0), j(1), j(2)], F, 2, fill=True)
    assert [c.rank for c in chosen] == [0, 1] and extra == [] and uncovered[0].startswith("intent: ")


def test_the_set_is_topped_up_by_what_the_judge_found_not_by_rank_alone() -> None:
    # rank 1 came high from the retriever but the judge found little of the question in it
    judged = [j(0, intent=True, rel={0, 1}, kw={0, 1, 2}), Judgment(1, False, p_intent=0.05, p_relations=0.05),
              Judgment(2, False, p_intent=0.4, p_relations=0.3, keywords={0}), Judgment(3, False, p_intent=0.5)]
    assert [e.rank for e in select(judged, F, 3, fill=True)[1]] == [2, 3]
    assert [e.rank for e in select(judged, F, 3, fill=True, by_rank=True)[1]] == [1, 2]
    # near-ties keep the retriever's order: a place down costs a tenth of a feature
    assert relevance(judged[1], F) > relevance(Judgment(3, False, p_intent=0.2, p_relations=0.05), F)
    # nothing covers a feature: the k most relevant, not the k first
    off = [Judgment(0, False), Judgment(1, False, p_intent=0.45), Judgment(2, False, p_relations=0.4)]
    assert [c.rank for c in select(off, F, 2, fill=False)[0]] == [1, 2]


def test_scores_keep_the_probabilities_so_any_threshold_gives_the_judge_s_judgments() -> None:
    snippets = ["Acme sold its printer segment in 2021 for $2 billion.", "The weather was fine."]
    judge = FeatureJudge(Scripted({snippets[0]: (0.6, 0.0)}), HashingEmbedder(), threshold=0.5)
    scores = judge.scores(F, snippets, [None, None])
    assert isinstance(scores, Scores) and scores.keywords == [{0, 1, 2}, set()]
    assert scores.judgments(0.5) == judge.judge(F, snippets, [None, None])
    strict = scores.judgments(0.7)
    assert not strict[0].intent and strict[0].relations == set() and strict[0].keywords == {0, 1, 2}
    assert judge.scores(F, [], []) == Scores([], [], [])


def test_the_judge_reads_statements_with_the_model_and_keywords_by_words() -> None:
    snippets = ["Acme sold its printer segment in 2021 for $2 billion.", "The weather was fine."]
    judge = FeatureJudge(Scripted({snippets[0]: (0.9, 0.0)}), HashingEmbedder(), threshold=0.5)
    first, second = judge.judge(F, snippets, [None, None])
    assert first.intent and first.relations == {0, 1} and first.keywords == {0, 1, 2}
    assert not second.intent and second.relations == set() and second.keywords == set()


def test_a_keyword_close_to_a_sentence_in_embedding_space_is_held() -> None:
    emb = HashingEmbedder()
    vec = np.asarray(emb.embed(["Acme"]), dtype=np.float32)
    judge = FeatureJudge(Scripted({}), emb, keyword_threshold=0.99)
    (got,) = judge.judge(CoEFeatures(intent="i", keywords=["Acme"]), ["no such word here"], [vec])
    assert got.keywords == {0}
    (got,) = judge.judge(CoEFeatures(intent="i", keywords=["Acme"]), ["no such word here"], [None])
    assert got.keywords == set()


def test_the_features_call_is_schema_constrained_and_cached(tmp_path: Path) -> None:
    from gechat.retrieve.coe import SCHEMA, features

    seen: list[object] = []

    class Recording(FakeLLM):
        def complete(self, messages, **kw):  # type: ignore[no-untyped-def,override]
            seen.append(kw.get("json_schema"))
            return super().complete(messages, **kw)

    reply = FIXTURES["real"][0]["output"]
    llm = CachedLLM(Recording([reply]), tmp_path / "cache.sqlite", Usage())
    assert features(llm, "q").intent == json.loads(reply)["intent"]
    assert features(llm, "q").intent == json.loads(reply)["intent"]  # the second from the cache
    assert seen == [SCHEMA]


@pytest.mark.parametrize("fill", [False, True])
def test_a_workspace_asking_with_scopecoe_keeps_why_on_the_answer(tmp_path: Path, fill: bool) -> None:
    from gechat.pipeline import Workspace
    from gechat.settings import Settings

    def reply(messages: list[dict[str, str]]) -> str:
        if messages[-1]["content"] == "Question: When was the tower completed?":  # the features prompt
            return json.dumps({"intent": "The Eiffel Tower was completed in some year.",
                               "keywords": ["Eiffel Tower", "completed", "Mars"],
                               "relations": ["Gustave Eiffel's company built the tower."]})
        return "Answer: It was completed in 1889.\nThoughts:\n1. The excerpt says 1889."

    settings = Settings.load("test", cache_dir=tmp_path / "cache", chunk_tokens=12, retriever="scopecoe",
                             scopecoe_threshold=0.0, scopecoe_fill=fill)
    ws = Workspace(tmp_path / "ws", settings, llm=CachedLLM(FakeLLM(reply), None, Usage()))
    doc = tmp_path / "tower.txt"
    doc.write_text("The Eiffel Tower is in Paris. It was completed in 1889.\n\nGustave Eiffel's company built it. "
                   "It is 330 metres tall.\n\nBerlin is the capital of Germany.\n")
    ws.add([doc])
    answer = ws.ask("When was the tower completed?")
    report = answer.coe
    assert report is not None and report.features.keywords == ["Eiffel Tower", "completed", "Mars"]
    assert report.candidates >= len(report.snippets) >= 1
    assert [s.chunk_id for s in report.snippets] == [h.chunk.id for h in answer.contexts][:len(report.snippets)]
    assert "keyword: Mars" in report.uncovered  # no snippet names it, and the answer says so
    assert json.loads(answer.model_dump_json())["coe"]["snippets"][0]["doc_title"] == "tower.txt"
    filled = [s.filled for s in report.snippets]
    if fill:  # topped up to k in the base ranking's order, after the covering set
        assert len(report.snippets) == min(settings.top_k_chunks, report.candidates)
        assert any(filled) and filled == sorted(filled)
    else:
        assert not any(filled)
    ws.close()

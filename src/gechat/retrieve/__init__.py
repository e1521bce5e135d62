"""Retrieval strategies, chosen by ``Settings.retriever``: vector, bm25, fused (the default:
vector + bm25 by weighted reciprocal rank), mixed (the vectors' first places, then bm25's),
graph, hybrid (vector + graph), scopecoe (the minimal set of another strategy's candidates
that covers the question's Chain-of-Evidence features)."""

from __future__ import annotations

from typing import Any

from gechat.registry import Registry
from gechat.retrieve.base import Retriever
from gechat.retrieve.synonyms import load_synonyms
from gechat.settings import Settings

RETRIEVERS: Registry[Retriever] = Registry("retriever")


@RETRIEVERS.register("vector")
def _vector(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.vector import VectorRetriever

    return VectorRetriever(deps["store"], deps["embedder"], settings.common_name_share)


@RETRIEVERS.register("bm25")
def _bm25(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.lexical import LexicalRetriever

    return LexicalRetriever(deps["store"])


@RETRIEVERS.register("fused")
def _fused(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.lexical import FusedRetriever

    return FusedRetriever(deps["store"], deps["embedder"], name_share=settings.common_name_share)


@RETRIEVERS.register("mixed")
def _mixed(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.lexical import MixedRetriever

    return MixedRetriever(deps["store"], deps["embedder"])


def _graph_retriever(settings: Settings, deps: dict[str, Any]) -> Any:
    from gechat.graph.search import SubgraphSearch
    from gechat.retrieve.graph import GraphRetriever

    search = SubgraphSearch(deps["store"], deps["embedder"], hops=settings.graph_hops, seeds=settings.graph_seeds,
                            max_nodes=settings.graph_max_nodes, decay=settings.graph_decay)
    return GraphRetriever(deps["store"], search)


@RETRIEVERS.register("graph")
def _graph(settings: Settings, **deps: Any) -> Retriever:
    retriever: Retriever = _graph_retriever(settings, deps)
    return retriever


@RETRIEVERS.register("hybrid")
def _hybrid(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.graph import HybridRetriever
    from gechat.retrieve.vector import VectorRetriever

    return HybridRetriever(deps["store"], VectorRetriever(deps["store"], deps["embedder"], settings.common_name_share),
                           _graph_retriever(settings, deps))


@RETRIEVERS.register("scopecoe")
def _scopecoe(settings: Settings, **deps: Any) -> Retriever:
    from gechat.errors import ConfigError
    from gechat.models import ENTAILERS
    from gechat.retrieve.coe import FeatureJudge
    from gechat.retrieve.scopecoe import ScopeCoERetriever

    if settings.scopecoe_base == "scopecoe":
        raise ConfigError("scopecoe_base cannot be scopecoe", hint="vector, hybrid, fused, ...")
    base = RETRIEVERS.create(settings.scopecoe_base, settings, **deps)
    judge = deps["scorer"] if settings.scopecoe_judge is None else ENTAILERS.create(settings.scopecoe_judge, settings)
    return ScopeCoERetriever(base, deps["store"], deps["llm"], FeatureJudge(
        judge, deps["embedder"], threshold=settings.scopecoe_threshold,
        keyword_threshold=settings.scopecoe_keyword_threshold), candidates=settings.scopecoe_candidates,
        fill=settings.scopecoe_fill)


__all__ = ["RETRIEVERS", "Retriever", "load_synonyms"]

"""The knowledge graph: extraction (fast spaCy or LLM), entity resolution, relation probing,
building per document, and sub-graph search. Extractors are chosen by ``Settings.graph``."""

from __future__ import annotations

from typing import Any

from gechat.graph.base import Extractor
from gechat.registry import Registry
from gechat.settings import Settings

EXTRACTORS: Registry[Extractor] = Registry("graph extractor")


@EXTRACTORS.register("fast")
def _fast(settings: Settings, **deps: Any) -> Extractor:
    from gechat.graph.fast import SpacyExtractor

    return SpacyExtractor()


@EXTRACTORS.register("llm")
def _llm(settings: Settings, **deps: Any) -> Extractor:
    from gechat.graph.llm_extract import LLMExtractor

    return LLMExtractor(deps["llm"], gleaning=settings.graph_gleaning)


def extractor_names() -> list[str]:
    return [*EXTRACTORS.names(), "none"]


__all__ = ["EXTRACTORS", "Extractor", "extractor_names"]

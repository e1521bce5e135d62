"""Retrieval strategies, chosen by ``Settings.retriever``."""

from __future__ import annotations

from typing import Any

from gechat.registry import Registry
from gechat.retrieve.base import Retriever
from gechat.settings import Settings

RETRIEVERS: Registry[Retriever] = Registry("retriever")


@RETRIEVERS.register("vector")
def _vector(settings: Settings, **deps: Any) -> Retriever:
    from gechat.retrieve.vector import VectorRetriever

    return VectorRetriever(deps["store"], deps["embedder"])


__all__ = ["RETRIEVERS", "Retriever"]

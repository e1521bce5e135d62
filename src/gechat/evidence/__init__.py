"""Evidence selectors, chosen by ``Settings.evidence``."""

from __future__ import annotations

from typing import Any

from gechat.evidence.base import ClaimInput, EvidencePool, EvidenceSelector
from gechat.registry import Registry
from gechat.settings import Settings

SELECTORS: Registry[EvidenceSelector] = Registry("evidence selector")


@SELECTORS.register("nli-objective")
def _objective(settings: Settings, **deps: Any) -> EvidenceSelector:
    from gechat.evidence.objective import ObjectiveSelector

    return ObjectiveSelector(
        deps["scorer"], deps.get("embedder"), alpha=settings.alpha, beta=settings.beta,
        len_norm=settings.len_norm, len_ref_words=settings.len_ref_words,
        max_candidates=settings.evidence_max_candidates, pair_top=settings.pair_top,
        supported=settings.supported_threshold, contradicted=settings.contradicted_threshold,
    )


__all__ = ["SELECTORS", "ClaimInput", "EvidencePool", "EvidenceSelector"]

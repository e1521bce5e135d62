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

    supported, contradicted = verdict_thresholds(settings, deps["scorer"])
    return ObjectiveSelector(
        deps["scorer"], deps.get("embedder"), alpha=settings.alpha, beta=settings.beta,
        len_norm=settings.len_norm, len_ref_words=settings.len_ref_words,
        max_candidates=candidate_count(settings, deps["scorer"]),
        set_top=settings.set_top, set_max=settings.set_max, set_gain=settings.set_gain,
        set_anchors=settings.set_anchors, step_anchors=settings.set_anchors_steps,
        supported=supported, contradicted=contradicted,
        set_contribution=settings.set_contribution, contra_overlap=settings.contra_overlap,
        coverage=settings.evidence_coverage, compare=settings.evidence_compare,
        same=settings.evidence_same, kin=settings.evidence_kin,
        chain=settings.evidence_chain, bridge=settings.evidence_bridge, options=settings.evidence_options,
        linked=settings.evidence_linked, both=settings.evidence_both,
        rebridge=settings.evidence_rebridge, set_names=settings.evidence_set_names,
        which=settings.evidence_which,
    )


@SELECTORS.register("reflection")
def _reflection(settings: Settings, **deps: Any) -> EvidenceSelector:
    from gechat.evidence.llm_select import ReflectionSelector

    return ReflectionSelector(deps["llm"], deps.get("scorer"), deps["embedder"], k=settings.reflection_k)


@SELECTORS.register("quote")
def _quote(settings: Settings, **deps: Any) -> EvidenceSelector:
    from gechat.evidence.llm_select import QuoteSelector

    return QuoteSelector(deps["llm"], deps.get("scorer"), k=settings.reflection_k)


def candidate_count(settings: Settings, scorer: object) -> int:
    """Settings win; else what the scorer can afford (the LLM scorer: 3); else 60."""
    if settings.evidence_max_candidates is not None:
        return settings.evidence_max_candidates
    return int(getattr(scorer, "default_candidates", 60))


def verdict_thresholds(settings: Settings, scorer: object) -> tuple[float, float]:
    """Settings win; else the thresholds calibrated with the model (calibration.json); else 0.5 / 0.6."""
    calibrated: dict[str, float] = getattr(scorer, "calibration", None) or {}
    supported = settings.supported_threshold
    contradicted = settings.contradicted_threshold
    return (supported if supported is not None else calibrated.get("supported", 0.5),
            contradicted if contradicted is not None else calibrated.get("contradicted", 0.6))


__all__ = ["SELECTORS", "ClaimInput", "EvidencePool", "EvidenceSelector", "candidate_count", "verdict_thresholds"]

"""The correct stage: after the evidence, an answer's unsupported parts are corrected.

``Settings.correct`` chooses the corrector: ``none`` (default: no time spent) or ``hc``
(Trustful LLMs' hallucination correction with knowledge triplets, ``correct/hc.py``);
``Settings.correct_triplets`` how it reads triplets: ``fast`` (spaCy) or ``llm``.
"""

from __future__ import annotations

from typing import Any, Protocol

from gechat.correct.triplets import Extract
from gechat.evidence.base import EvidencePool
from gechat.registry import Registry
from gechat.settings import Settings
from gechat.types import Answer, Correction


class Corrector(Protocol):
    """Corrects ``answer`` (its claims already have verdicts) against the retrieved ``pool``."""

    name: str

    def correct(self, answer: Answer, pool: EvidencePool) -> Correction: ...


CORRECTORS: Registry[Corrector | None] = Registry("corrector")
# how HC reads triplets (Settings.correct_triplets): "fast" spaCy's parse, "llm" the LLM, JSON-constrained
TRIPLETS: Registry[Extract] = Registry("triplet extractor")


@TRIPLETS.register("fast")
def _fast(settings: Settings, **deps: Any) -> Extract:
    from gechat.correct.triplets import fast_triplets

    return fast_triplets


@TRIPLETS.register("llm")
def _llm(settings: Settings, **deps: Any) -> Extract:
    from gechat.correct.llm_triplets import LLMTriplets

    return LLMTriplets(deps["llm"])


@CORRECTORS.register("none")
def _none(settings: Settings, **deps: Any) -> Corrector | None:
    return None


@CORRECTORS.register("hc")
def _hc(settings: Settings, **deps: Any) -> Corrector | None:
    from gechat.correct.hc import HallucinationCorrector
    from gechat.evidence import verdict_thresholds

    supported, _ = verdict_thresholds(settings, deps["scorer"])
    extract = TRIPLETS.create(settings.correct_triplets, settings, **deps)
    return HallucinationCorrector(deps["embedder"], deps["scorer"], supported, threshold=settings.correct_threshold,
                                  ann_threshold=settings.ann_threshold, extract=extract,
                                  unsupported=settings.correct_unsupported)


__all__ = ["CORRECTORS", "TRIPLETS", "Corrector", "Extract"]

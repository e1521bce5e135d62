"""The correct stage: after the evidence, an answer's unsupported parts are corrected.

``Settings.correct`` chooses the corrector: ``none`` (default: no time spent) or ``hc``
(Trustful LLMs' hallucination correction with knowledge triplets, ``correct/hc.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

from gechat.evidence.base import EvidencePool
from gechat.registry import Registry
from gechat.settings import Settings
from gechat.types import Answer, Correction


class Corrector(Protocol):
    """Corrects ``answer`` (its claims already have verdicts) against the retrieved ``pool``."""

    name: str

    def correct(self, answer: Answer, pool: EvidencePool) -> Correction: ...


CORRECTORS: Registry[Corrector | None] = Registry("corrector")


@CORRECTORS.register("none")
def _none(settings: Settings, **deps: Any) -> Corrector | None:
    return None


@CORRECTORS.register("hc")
def _hc(settings: Settings, **deps: Any) -> Corrector | None:
    from gechat.correct.hc import HallucinationCorrector
    from gechat.evidence import verdict_thresholds

    supported, _ = verdict_thresholds(settings, deps["scorer"])
    return HallucinationCorrector(deps["embedder"], deps["scorer"], supported, threshold=settings.correct_threshold,
                                  ann_threshold=settings.ann_threshold)


__all__ = ["CORRECTORS", "Corrector"]

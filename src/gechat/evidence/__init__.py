"""Evidence selectors, chosen by ``Settings.evidence``; the default one's steps, by
``Settings.evidence_steps``."""

from __future__ import annotations

from typing import Any

from gechat.evidence.atoms import DECOMPOSERS, Decomposer, LLMDecomposer, Off, Rules
from gechat.evidence.base import ClaimInput, EvidencePool, EvidenceSelector
from gechat.evidence.steps import STEPS, EvidenceContext, EvidenceStep
from gechat.models.entail.base import UNCALIBRATED
from gechat.registry import Registry
from gechat.settings import Settings

SELECTORS: Registry[EvidenceSelector] = Registry("evidence selector")


@SELECTORS.register("nli-objective")
def _objective(settings: Settings, **deps: Any) -> EvidenceSelector:
    from gechat.evidence.chain import EvidenceChain
    from gechat.evidence.lengths import get_len_norm

    supported, contradicted = verdict_thresholds(settings, deps["scorer"])
    context = EvidenceContext(
        pool=EvidencePool(sentences=[], chunks={}, titles={}), scorer=deps["scorer"],
        embedder=deps.get("embedder"), name="nli-objective", alpha=settings.alpha, beta=settings.beta,
        len_norm=get_len_norm(settings.len_norm), len_ref=settings.len_ref_words,
        supported=supported, contradicted=contradicted, coverage=settings.evidence_coverage,
        headings=settings.evidence_headings)
    steps = [STEPS.create(name, settings, **deps) for name in settings.evidence_steps]
    return EvidenceChain(steps, context, DECOMPOSERS.create(settings.claim_atoms, settings, **deps))


@DECOMPOSERS.register("off")
def _atoms_off(settings: Settings, **deps: Any) -> Decomposer:
    return Off()


@DECOMPOSERS.register("rules")
def _atoms_rules(settings: Settings, **deps: Any) -> Decomposer:
    return Rules()


@DECOMPOSERS.register("llm")
def _atoms_llm(settings: Settings, **deps: Any) -> Decomposer:
    llm = deps.get("llm")
    if llm is None:  # a caller without an LLM (a benchmark's scorer alone) gets the rules
        return Rules()
    return LLMDecomposer(llm)


@STEPS.register("facts")
def _facts(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.facts import NoFact

    return NoFact()


@STEPS.register("candidates")
def _candidates(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.candidates import Candidates

    return Candidates(candidate_count(settings, deps["scorer"]))


@STEPS.register("nli")
def _nli(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.scoring import NliScores

    return NliScores()


@STEPS.register("sets")
def _sets(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.sets import SentenceSets

    return SentenceSets(top=settings.set_top, max_size=settings.set_max, gain=settings.set_gain,
                        anchors=settings.set_anchors, step_anchors=settings.set_anchors_steps,
                        contribution=settings.set_contribution, linked=settings.set_linked, needed=settings.set_needed,
                        named=settings.set_named, bridges=settings.set_bridges)


@STEPS.register("verify")
def _verify(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.verify import SecondReading, load_verifier
    from gechat.models.entail.verifier import resolve_verifier_dir

    verifier = deps.get("verifier")
    # the verifier re-reads what the packaged fast model passed; the cascade's verdicts are
    # the verifier's already, and a user's own entailment model (llm, hf) is left alone
    if verifier is None and getattr(deps["scorer"], "name", "") == "onnx" and settings.verifier_model:
        verifier = load_verifier(resolve_verifier_dir(settings.verifier_model, settings.models_dir))
    return SecondReading(verifier, top=settings.verifier_top)


@STEPS.register("values")
def _values(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.conflicts import ValueConflicts

    return ValueConflicts()


@STEPS.register("lookup")
def _lookup(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.lookup import TableLookup

    return TableLookup()


@STEPS.register("derived")
def _derived(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.derived import DerivedFigures
    from gechat.retrieve.synonyms import load_synonyms

    return DerivedFigures(synonyms=load_synonyms(settings.query_synonyms))


@STEPS.register("verdict")
def _verdict(settings: Settings, **deps: Any) -> EvidenceStep:
    from gechat.evidence.verdict import Verdicts

    return Verdicts(overlap=settings.contra_overlap)


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
    return (supported if supported is not None else calibrated.get("supported", UNCALIBRATED["supported"]),
            contradicted if contradicted is not None else calibrated.get("contradicted", UNCALIBRATED["contradicted"]))


__all__ = ["SELECTORS", "STEPS", "ClaimInput", "EvidencePool", "EvidenceSelector", "candidate_count",
           "verdict_thresholds"]

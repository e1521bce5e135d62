"""The default evidence selector: GE-Chat's objective, run as a chain of steps.

F(s) = alpha * P_entail(s => claim) - beta * len_norm(s). The steps (``Settings.evidence_steps``,
by default candidates -> nli -> sets -> verdict; see ``gechat.evidence.steps``) fill one
``ClaimState`` per claim; the chain turns the states into ``Claim`` records. No step decides a
verdict without the model having read the sentences shown as evidence.
"""

from __future__ import annotations

from dataclasses import replace

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.steps import ClaimState, EvidenceContext, EvidenceStep
from gechat.types import Claim


class EvidenceChain:
    name = "nli-objective"

    def __init__(self, steps: list[EvidenceStep], context: EvidenceContext) -> None:
        self.steps = steps
        self.context = context  # a copy with the answer's pool is made for each answer

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]:
        ctx = replace(self.context, pool=pool)
        states = [ClaimState(claim=c) for c in claims]
        for step in self.steps:
            step.run(states, ctx)
        return [Claim(text=s.claim.text, source=s.claim.source, verdict=s.verdict or "unsupported",
                      evidence=s.evidence, missing=s.missing, note=s.note) for s in states]

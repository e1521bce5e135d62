"""The default evidence selector: GE-Chat's objective, run as a chain of steps.

F(s) = alpha * P_entail(s => claim) - beta * len_norm(s). The steps (``Settings.evidence_steps``,
by default candidates -> nli -> sets -> verdict; see ``gechat.evidence.steps``) fill one
``ClaimState`` per claim; the chain turns the states into ``Claim`` records. No step decides a
verdict without the model having read the sentences shown as evidence.
"""

from __future__ import annotations

from dataclasses import replace

from gechat.evidence.atoms import Decomposer, Off, combine
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.steps import ClaimState, EvidenceContext, EvidenceStep
from gechat.types import Claim


class EvidenceChain:
    name = "nli-objective"

    def __init__(self, steps: list[EvidenceStep], context: EvidenceContext, atoms: Decomposer | None = None) -> None:
        self.steps = steps
        self.context = context  # a copy with the answer's pool is made for each answer
        self.atoms = atoms or Off()

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]:
        """Each claim's atomic claims go through the steps together (one batch for the whole
        answer); a claim of several atoms gets its verdict from theirs (``combine``)."""
        ctx = replace(self.context, pool=pool)
        parts = self.atoms.split(claims)
        inputs = [[c] if len(texts) < 2 else [ClaimInput(text=t, source=c.source, given=c.given) for t in texts]
                  for c, texts in zip(claims, parts, strict=True)]
        states = [ClaimState(claim=a) for group in inputs for a in group]
        for step in self.steps:
            step.run(states, ctx)
        done = [Claim(text=s.claim.text, source=s.claim.source, verdict=s.verdict or "unsupported",
                      evidence=s.evidence, missing=s.missing, note=s.note) for s in states]
        out: list[Claim] = []
        for c, group in zip(claims, inputs, strict=True):
            mine, done = done[:len(group)], done[len(group):]
            out.append(mine[0] if len(group) == 1 else combine(c.text, c.source, mine))
        return out

"""Step ``nli``: every candidate read alone against the claim by the entailment model
(under the headings that say what it is about, when the claim needs them).

The best single sentence is the one with the highest GE-Chat objective F among those that
entail the claim (P_entail at the supported threshold) and hold its names and numbers; when
none does, the highest F overall, kept so the reader sees the closest sentence.
"""

from __future__ import annotations

import numpy as np

from gechat.evidence.steps import ClaimState, EvidenceContext, active, in_context
from gechat.evidence.subjects import anchored
from gechat.models.entail.base import ENTAILMENT


class NliScores:
    name = "nli"

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            claim, cands = state.claim, state.candidates
            texts = [s.text for s in cands]
            # read under the headings it needs; the length penalty is the sentence's own
            read = [in_context(claim, s.text, s.context, ctx.headings)[0] for s in cands]
            probs = ctx.score(read, claim.text)
            f = ctx.objective(probs[:, ENTAILMENT], texts)
            # F is maximised over the sentences that entail the claim when there are any, so
            # a short sentence that does not support the claim never beats one that does.
            # the checks read a table row itself, not its headings before it
            checked = [in_context(claim, s.text, s.context, ctx.headings, rows=False)[0] for s in cands]
            entails = (probs[:, ENTAILMENT] >= ctx.supported) & np.array([
                ctx.covers(claim, t, s.context) and anchored(claim.answer(), f"{s.context} {t}", float(p))
                for t, s, p in zip(checked, cands, probs[:, ENTAILMENT], strict=True)])
            # none does: the closest shown is the one the model finds nearest to stating it, not
            # the one F favours for saying little ("NOTES:" at 0.01 over the row at 0.23)
            best = int(np.argmax(np.where(entails, f, -np.inf))) if entails.any() \
                else int(np.argmax(probs[:, ENTAILMENT]))
            state.probs, state.f = probs, f
            state.evidence = [ctx.evidence(claim, [cands[best]], probs[best], float(f[best]))]
            state.passes = bool(entails[best])

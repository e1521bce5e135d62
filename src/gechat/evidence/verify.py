"""Step ``verify``: a claim that one passage supports is read again by the verifier.

The packaged fast model (MiniLM-L6) reads one sentence against a claim poorly where a claim
swaps who did what: "Fernanda Brandao was the American model and choreographer born in 1957"
read 0.89 against "Jury members Fernanda Brandao and Patrick Nuo left DSDS and were replaced
by Bruce Darnell ... Bruce Darnell (born July 19, 1957) is an American model and
choreographer". The verifier (mpnet-base, ``gechat-nli-mpnet``, about 20 pairs/s) reads the one
passage that passed (a sentence, or a run of sentences that follow each other), once per
claim, and the claim stays supported only at its own calibrated threshold. It reads that
passage under its headings as it reads candidates below: "This process results in about 684K
training triples" names no model, and the verifier had turned it away (0.35) for SPECTER's
training triples the fast model had read in it (0.94). A set drawn from
two places is left to the fast model and the set rules: the verifier was trained on one
passage at a time, and on 2WikiMultihopQA dev sets it turned away right chains (F1 0.688 ->
0.586 when it re-read them too). Nor does it read what other steps support by
arithmetic or by comparing a table (``derived``, ``extremes``): those run after it; nor a
table row, which the value checks read.

It reads the other way too: a claim the fast model passed nowhere, whose names and numbers
one of its ``top`` best-scored candidate sentences holds (not a table row), is read against
each of those by the verifier, and is supported by the best at the same threshold: the
fast model misses support the verifier reads. It reads them under the headings that hold a
word of the claim they lack, or the nearest one of a sentence that opens by pointing back
("These obligations survive for five (5) years after termination." under "4.
Confidentiality": 0.22 alone by the fast model, 0.99 so by the verifier, for "Confidentiality
obligations survive for five (5) years after termination."). Dev, without -> with it: HaluEval-QA rows
0-999 0.861 -> 0.907, ExpertQA questions 1-75 0.589 -> 0.588, HotpotQA 1-35 sentence F1
0.649 -> 0.706 (verdict BA 0.671 -> 0.686), 2Wiki 1-150 0.690 -> 0.694 (BA 0.667 -> 0.657);
a stricter threshold for this direction (0.7) gained less on each.

Used when the claims are scored by the packaged fast model (``entailment = "onnx"``); the
cascade has the verifier decide every verdict already, and a user's own model is theirs.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from gechat.documents.tables import row_label
from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.models.entail.base import ENTAILMENT, UNCALIBRATED, EntailmentScorer


class SecondReading:
    name = "verify"

    def __init__(self, verifier: EntailmentScorer | None, threshold: float | None = None, top: int = 3) -> None:
        self.verifier, self.top = verifier, top
        calibrated = dict(getattr(verifier, "calibration", None) or {})
        self.threshold = threshold if threshold is not None else calibrated.get("supported", UNCALIBRATED["supported"])
        self.read = 0  # pairs the verifier read

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        if self.verifier is None:
            return
        # the same wording of the claim's values, each passage read under the headings that say
        # what it is about ("4. Confidentiality" over "These obligations survive for five (5)
        # years"; the paper's title over "This process results in about 684K training triples"),
        # whatever ``evidence_headings`` says; the fast model reads bare sentences (headings
        # cost it dev F1 on 2Wiki)
        heard = replace(ctx, scorer=self.verifier, headings="claim")
        for state in active(states):
            if state.passes:
                self._again(state, heard)
            elif self.top:
                self._instead(state, ctx, heard)

    def _again(self, state: ClaimState, heard: EvidenceContext) -> None:
        """The one passage that passed, read again; below the threshold the claim no longer passes."""
        # a table row is read by the checks of its label, columns and values: the verifier,
        # trained on prose, turned away "Total capital expenditures | 2020: $ 1,822" for
        # capital expenditures of $1,822 million in 2020
        if len(state.evidence) != 1 or row_label(state.evidence[0].text) is not None:
            return
        premise = heard.passage(state.evidence[0].sentences, state.claim)
        p = float(heard.score([premise], state.claim.text)[0, ENTAILMENT])
        self.read += 1
        if p < self.threshold:
            state.passes = False
            state.note = (f"the verifier, reading the passage again, did not find the claim in it "
                          f"(P {p:.2f} < {self.threshold:.2f})")

    def _instead(self, state: ClaimState, ctx: EvidenceContext, heard: EvidenceContext) -> None:
        """The best candidates that hold the claim's names and numbers, read by the verifier
        where the fast model passed none; at the threshold the best of them supports it."""
        if state.probs is None or state.f is None or not state.candidates:
            return
        order = np.argsort(-state.probs[:, ENTAILMENT], kind="stable")[:self.top]
        picked = [int(i) for i in order if row_label(state.candidates[i].text) is None
                  and ctx.covers(state.claim, state.candidates[i].text, state.candidates[i].context)]
        if not picked:
            return
        probs = heard.score([heard.passage([state.candidates[i]], state.claim) for i in picked], state.claim.text)
        self.read += len(picked)
        best = int(np.argmax(probs[:, ENTAILMENT]))
        p = float(probs[best, ENTAILMENT])
        if p >= self.threshold:
            i = picked[best]
            state.passes = True
            state.evidence = [heard.evidence(state.claim, [state.candidates[i]], probs[best], float(state.f[i]))]
            state.note = f"read by the verifier, where the fast model passed no sentence (P {p:.2f})"


@lru_cache(maxsize=2)
def load_verifier(folder: Path) -> EntailmentScorer:
    """The verifier's ONNX model, loaded once per process (it takes a second or two)."""
    from gechat.models.entail.onnx import ONNXEntailment

    return ONNXEntailment(folder).load()


__all__ = ["SecondReading", "load_verifier"]

"""Two-stage entailment: the fast cross-encoder ranks every premise, the verifier re-reads the few
that can decide a verdict.

Every call of the evidence stage scores one claim against a list of candidates (sentences, or
sentence sets). The fast model (MiniLM, about 400 pairs/s) scores them all; the ``top`` with
the highest P(entailment), and the one with the highest P(contradiction), are scored again by
the verifier (mpnet-base, about 50 pairs/s) and take its probabilities. A verdict is only
ever decided by the verifier: a premise it did not read keeps the fast model's ranking but
its P(entailment) and P(contradiction) are held just below the verdict thresholds (the mass
above moves to neutral), so the evidence shown for a supported or contradicted claim is
always a premise the verifier read. The thresholds are the verifier's calibrated ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, NEUTRAL, UNCALIBRATED, EntailmentScorer

# below a threshold by this much: "not decided" whatever the comparison (>= or >)
_MARGIN = 1e-3


class CascadeEntailment:
    name = "cascade"

    def __init__(self, fast: EntailmentScorer, verifier: EntailmentScorer, *, top: int = 3,
                 supported: float | None = None, contradicted: float | None = None) -> None:
        if top < 1:
            raise ValueError("the verifier must read at least one premise per call (top >= 1)")
        self.fast, self.verifier, self.top = fast, verifier, top
        calibrated: dict[str, float] = dict(getattr(verifier, "calibration", None) or {})
        # Settings' thresholds win over the verifier's, as they do for every scorer
        if supported is not None:
            calibrated["supported"] = supported
        if contradicted is not None:
            calibrated["contradicted"] = contradicted
        self.calibration = calibrated
        self.pairs_verified = 0

    @property
    def pairs_scored(self) -> int:
        """Pairs the fast model scored (every candidate); ``pairs_verified`` counts the verifier's."""
        return int(getattr(self.fast, "pairs_scored", 0))

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        if not premises:
            return np.zeros((0, 3), dtype=np.float32)
        fast = np.asarray(self.fast.score(premises, hypothesis), dtype=np.float32)
        chosen = self.chosen(fast)
        out = self.hold_below(fast)
        out[chosen] = np.asarray(self.verifier.score([premises[i] for i in chosen], hypothesis), dtype=np.float32)
        self.pairs_verified += len(chosen)
        return out

    def chosen(self, fast: npt.NDArray[np.float32]) -> list[int]:
        """The premises the verifier reads: the top by P(entailment), then the top by P(contradiction)."""
        order = [int(i) for i in np.argsort(-fast[:, ENTAILMENT], kind="stable")[: self.top]]
        contra = int(np.argmax(fast[:, CONTRADICTION]))
        return order if contra in order else [*order, contra]

    def hold_below(self, probs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Probabilities no verdict can be decided on: each class held under its threshold."""
        out = probs.copy()
        for column, key in ((ENTAILMENT, "supported"), (CONTRADICTION, "contradicted")):
            ceiling = max(0.0, self.calibration.get(key, UNCALIBRATED[key]) - _MARGIN)
            excess = np.clip(out[:, column] - ceiling, 0.0, None)
            out[:, column] -= excess
            out[:, NEUTRAL] += excess
        return out

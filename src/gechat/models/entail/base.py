"""The entailment protocol: does a premise support a hypothesis?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

# Column order of every scorer's output.
CONTRADICTION, NEUTRAL, ENTAILMENT = 0, 1, 2
# Verdict thresholds for a model that brings no calibration.json
UNCALIBRATED = {"supported": 0.5, "contradicted": 0.6}


class EntailmentScorer(Protocol):
    """Scores each premise against one hypothesis.

    Returns an array of shape ``(len(premises), 3)``: probabilities of
    [contradiction, neutral, entailment], each row summing to 1.
    """

    name: str

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]: ...

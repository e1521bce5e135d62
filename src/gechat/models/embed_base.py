"""The embedder protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt


class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors of size ``dim``."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

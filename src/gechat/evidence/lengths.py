"""Length normalisations for the GE-Chat objective's penalty term.

The paper writes ``beta * len(s)`` without a unit. Raw lengths would swamp a probability
in [0, 1], so each normalisation maps a sentence to [0, 1]:

- ``words`` (default): ``min(1, words / len_ref_words)``. Absolute, so a sentence's
  penalty does not depend on which other candidates were retrieved; with the default
  reference of 60 words a typical 20-word sentence costs 0.5 * 0.33 = 0.17.
- ``max``: words divided by the longest candidate's words (relative, the paper's spirit
  of "shorter than the alternatives").
- ``log``: ``log(1 + words) / log(1 + len_ref_words)``, capped at 1: penalises the first
  words most, so very short fragments don't win on length alone.
- ``none``: no penalty (pure entailment ranking).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from gechat.errors import ConfigError

_WORD = re.compile(r"\w+")

LenNorm = Callable[[Sequence[str], int], list[float]]
LEN_NORMS: dict[str, LenNorm] = {}


def words(text: str) -> int:
    return len(_WORD.findall(text))


def _register(name: str) -> Callable[[LenNorm], LenNorm]:
    def deco(fn: LenNorm) -> LenNorm:
        LEN_NORMS[name] = fn
        return fn
    return deco


@_register("words")
def _words(texts: Sequence[str], ref: int) -> list[float]:
    return [min(1.0, words(t) / ref) for t in texts]


@_register("max")
def _max(texts: Sequence[str], ref: int) -> list[float]:
    counts = [words(t) for t in texts]
    top = max(counts, default=1) or 1
    return [c / top for c in counts]


@_register("log")
def _log(texts: Sequence[str], ref: int) -> list[float]:
    return [min(1.0, math.log1p(words(t)) / math.log1p(ref)) for t in texts]


@_register("none")
def _none(texts: Sequence[str], ref: int) -> list[float]:
    return [0.0 for _ in texts]


def get_len_norm(name: str) -> LenNorm:
    if name not in LEN_NORMS:
        raise ConfigError(f"unknown len_norm {name!r}", hint=f"choose one of: {', '.join(LEN_NORMS)}")
    return LEN_NORMS[name]


__all__ = ["LEN_NORMS", "get_len_norm", "words"]

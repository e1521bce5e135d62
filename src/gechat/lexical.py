"""Content words, for the checks where meaning shows in shared words (an evidence sentence
must share something with its claim); the models judge everything else."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STOPWORDS_TEXT = (
    "a an the of to in on at by for with from as is are was were be been being am "
    "it its this that these those and or but if then so than there their they them he she "
    "his her we our you your i me my do does did has have had will would can could should "
    "may might must shall which who whom what when where why how all any some"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@lru_cache(maxsize=8192)
def content_keys(text: str) -> frozenset[str]:
    """Content words cut to a 5-letter key after a plural s: "director" and "directed" share
    "direc", "nodes" and "node" share "node". A loose match errs towards overlap, the safe
    side for the checks that use it. Memoised: a candidate sentence is checked in every set it
    joins and again for every claim."""
    keys = set()
    for w in words(text):
        if w in STOPWORDS or w.endswith("n't"):
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        keys.add(w[:5])
    return frozenset(keys)

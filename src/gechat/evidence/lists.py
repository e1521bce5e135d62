"""A list told line by line is one statement: "Our business is organized into three
reportable segments:" and a bullet for each segment.

Adobe's 10-K gives its segments as a sentence that ends in a colon and three bullets, four
sentences by the splitter's count. "Adobe's reportable segments are Digital Media, Digital
Experience, and Publishing and Advertising." needs all four, more than any set of two holds, so
the right answer came out *contradicted* by a sentence about the third segment alone. Contracts
("The Licensee shall: (a) ...; (b) ..."), filings and manuals write lists the same way. Here
each run of list items (a bullet, a dash, "(a)", "1.", "iii)") under a sentence that ends in a
colon is one candidate set for ``sets``, read whole whatever its length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gechat.types import Sentence

_ITEM = re.compile(r"\s*(?:[•◦▪●○■□‣⁃∙·*–—-]|\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)])\s")
MOST = 12  # items read with one lead-in at most: a longer list is a section, not one statement


def lists_in(sentences: Sequence[Sentence], near: set[int]) -> list[frozenset[int]]:
    """The ids of each lead-in sentence (ending in a colon) with the two or more list items
    that follow it in document order, where one of them is in ``near``."""
    by_pos = {(s.doc_id, s.ord): s for s in sentences}
    found = []
    for s in sentences:
        if not s.text.rstrip().endswith(":"):
            continue
        items: list[int] = []
        while len(items) < MOST and (n := by_pos.get((s.doc_id, s.ord + len(items) + 1))) and _ITEM.match(n.text):
            items.append(n.id)
        ids = frozenset([s.id, *items])
        if len(items) >= 2 and ids & near:
            found.append(ids)
    return found


__all__ = ["MOST", "lists_in"]

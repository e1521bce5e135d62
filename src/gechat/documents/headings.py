"""What each sentence is about: the document title and the heading path above it.

Loaders record headings (Markdown ``#``, HTML h1-h6, DOCX heading styles, the PDF outline)
and a title from the file's metadata. Every sentence gets the path of headings it sits under
("Annual report 2023 > Liquidity > Cash flows") as its ``context``, so the entailment model
can read "It rose 4%" as said of what its section is about; the evidence shown stays the
sentence itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from gechat.types import Heading, PageInfo, SentenceSpan

SEPARATOR = " > "
MAX_HEADING_CHARS = 200  # longer is a paragraph set in a heading style, not a heading
_SPACE = re.compile(r"\s+")


def nearest_heading(context: str) -> str:
    """The last heading of a heading path: what a sentence is about, where the title above it
    is what the whole document is about."""
    return context.rpartition(SEPARATOR)[2]


def shared_path(a: str, b: str) -> str:
    """The headings two heading paths open with alike: what both sentences sit under (a
    document's title, its part), so what both are about."""
    common = []
    for x, y in zip(a.split(SEPARATOR), b.split(SEPARATOR), strict=False):
        if x != y:
            break
        common.append(x)
    return SEPARATOR.join(common)


def clean_heading(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def attach_context(spans: list[SentenceSpan], headings: Sequence[Heading]) -> None:
    """Sets ``context`` and ``heading`` of each sentence (in text order) from ``headings``."""
    if not headings:
        return
    marks = sorted(headings, key=lambda h: (h.start, h.level))
    path: list[Heading] = []  # the open headings, outermost first
    k = 0
    for span in sorted(spans, key=lambda s: s.start):
        while k < len(marks) and marks[k].start <= span.start:
            h = marks[k]
            while path and path[-1].level >= h.level:
                path.pop()
            path.append(h)
            k += 1
        own = [h for h in path if h.level > 0 and h.start < span.end and span.start < h.end]
        span.heading = bool(own)
        # a heading's own context is the path above it, not itself
        shown = [h.text for h in path if h not in own and h.text]
        span.context = SEPARATOR.join(_dedupe(shown))


class Block(NamedTuple):
    """A short paragraph of a laid-out page: where it is, its type size, its word count."""

    start: int
    end: int
    size: float
    words: int


MAX_HEADING_WORDS = 14
HEADING_SIZE = 1.15  # a heading's type is at least this much larger than the body's
_ENDS_SENTENCE = re.compile(r"[.:;,]\s*$")
# Type set large that is no heading: a formula ("|N1 ∪ N2|") or page label ("B-2") has no
# word of three letters; an author's e-mail or a web address is no section's name.
_A_WORD = re.compile(r"[^\W\d_]{3}")
_ADDRESS = re.compile(r"@\w|://|\bwww\.")


def sized_headings(text: str, short: Sequence[Block], body: Sequence[tuple[float, int]]) -> list[Heading]:
    """Headings of a PDF without an outline, by type size: a paragraph of at most two lines
    and a few words, set clearly larger than the body text (the median size over all words
    of the longer paragraphs), that does not end like a sentence. Larger type is a higher
    level; the six largest sizes in use become levels 1-6."""
    body_size = _weighted_median([(s, n) for s, n in body] + [(b.size, b.words) for b in short])
    if body_size <= 0:
        return []
    found: list[Heading] = []
    titled = [b for b in short if 0 < b.words <= MAX_HEADING_WORDS and not _ENDS_SENTENCE.search(text, b.start, b.end)
              and _A_WORD.search(text, b.start, b.end) and not _ADDRESS.search(text, b.start, b.end)]
    sized = [b for b in titled if b.size >= HEADING_SIZE * body_size]
    sizes = sorted({round(b.size * 2) / 2 for b in sized}, reverse=True)  # half a point apart is one size
    level = {s: min(i + 1, 5) for i, s in enumerate(sizes)}
    for b in titled:
        key = round(b.size * 2) / 2
        if b.size >= HEADING_SIZE * body_size:
            found.append(Heading(start=b.start, end=b.end, level=level[key], text=clean_heading(text[b.start:b.end])))
        elif _LABELLED.match(text, b.start, b.end):
            # "Item 7. Management's Discussion", "Section 4.2 Termination", "Note 5": in body
            # type, yet a heading by its label; below any heading set larger
            found.append(Heading(start=b.start, end=b.end, level=6, text=clean_heading(text[b.start:b.end])))
    return found


# A numbered label that opens a heading in filings, contracts and reports. Every quantifier
# is bounded and the alternatives are distinct words: linear.
_LABELLED = re.compile(r"(?i)(?:item|part|section|article|note|chapter|schedule|exhibit|appendix|annex)"
                       r"\s{1,3}(?:\d{1,3}(?:\.\d{1,3}){0,3}[a-z]?|[ivxlc]{1,6})\b")


def _weighted_median(pairs: list[tuple[float, int]]) -> float:
    total = sum(n for _, n in pairs)
    seen = 0
    for size, n in sorted(pairs):
        seen += n
        if 2 * seen >= total:
            return size
    return 0.0


def _dedupe(texts: list[str]) -> list[str]:
    """A title repeated as the first heading is said once."""
    out: list[str] = []
    for t in texts:
        if not out or out[-1].casefold() != t.casefold():
            out.append(t)
    return out


def locate_outline(text: str, pages: Sequence[PageInfo], outline: Sequence[tuple[int, str, int]]) -> list[Heading]:
    """Headings from a PDF outline ((level, title, page) entries): each is placed where its
    title first appears on its page (case and spacing ignored); entries not found in the
    text (a bookmark named unlike any line) are left out."""
    by_number = {p.number: p for p in pages}
    flat = text.casefold()
    out: list[Heading] = []
    for level, title, page in outline:
        label = clean_heading(title)
        info = by_number.get(page)
        if not label or info is None or len(label) > MAX_HEADING_CHARS:
            continue
        start = _find_spaced(flat, label.casefold(), info.start, info.end)
        if start is not None:
            out.append(Heading(start=start[0], end=start[1], level=max(1, min(level, 6)), text=label))
    return out


def _find_spaced(flat: str, label: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Where ``label`` occurs in ``flat[lo:hi]`` with any run of spaces between its words.
    The words are escaped and joined by ``\\s+``: no nested quantifier, linear in the page."""
    words = label.split()
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    m = pattern.search(flat, lo, hi)
    return (m.start(), m.end()) if m else None


__all__ = ["MAX_HEADING_CHARS", "SEPARATOR", "Block", "attach_context", "clean_heading", "locate_outline",
           "sized_headings"]

"""Sentence splitting with exact character offsets.

The splitter is a small deterministic rule set (no model): it only looks for sentence ends
inside one block, so a sentence never crosses a paragraph, table row or page. Every sentence
satisfies ``doc.text[s.start:s.end] == s.text`` and has no surrounding whitespace.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import pairwise
from operator import itemgetter

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.headings import attach_context
from gechat.documents.limits import DEFAULT_LIMITS, over_limit
from gechat.types import Box, PageInfo, ParsedDocument, SentenceSpan, WordBox

# A sentence-end candidate: terminal punctuation, then closing quotes/brackets, then whitespace.
# Requiring whitespace after the mark keeps decimals (3.14), URLs and "e.g.," in one piece.
# Linear time: one character class under a possessive quantifier (a run of marks is taken
# whole, never split again when the lookahead fails), and the lookbehind lets a match start
# only where a run starts, so a run of dots glued to a page number ("....35") is read once,
# not once per dot. The old form, (?:\.{2,}|…|[.!?])+, was exponential on such runs.
_END = re.compile(
    r"(?<![.!?…])[.!?…]++[\"'”’»)\]]*+(?=\s)"
    # A footnote number glued to the full stop: "...in context.1 We encode".
    r"|(?<=[a-z)\]])\.\d{1,2}(?=\s)"
)
# Blank lines inside a block are always boundaries (a loader may hand us a coarse block).
_BLANK = re.compile(r"\n[ \t]*\n\s*")
_HAS_ALNUM = re.compile(r"[^\W_]")
_WORD = re.compile(r"\S+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Never a sentence end: titles, scholarly and bibliographic shorthand.
_ABBREV = _words(
    """
    mr mrs ms dr prof sr jr st mt gen gov sen rep rev hon capt col lt sgt fr pty pte
    e.g i.e cf al v vs viz approx ca esp incl resp fig figs eq eqs ref refs
    ed eds trans dept univ assn est min max avg ex lit
    """
)
# A sentence end unless the next word starts with a capital letter ("Apple Inc. The ...").
_SOFT_ABBREV = _words("inc corp ltd co llc plc bros etc")
# Not an end when the next word holds a number ("No. 5", "Jan. 3", "pp. 12-15").
_NUMERIC_ABBREV = _words(
    """
    no nos nr p pp vol vols art arts ch chap sec secs sect tab tbl para
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)
# Single letters and dotted initialisms: "J. Smith", "U.S. Government", "Ph.D. thesis".
_INITIALS = re.compile(r"(?:[A-Za-z]\.)*[A-Za-z]|[A-Z][a-z]?\.[A-Z]")
# List markers at the start of a sentence: "1.", "(a)", "iv.", "A.".
_LIST_MARK = re.compile(r"\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,5})[.)]")
# Headings such as "Item 1A. Risk Factors" or "NOTE 7. LEASES": a label word, then a number.
_LABEL_WORDS = _words("item note part section article exhibit schedule chapter appendix step")
_LABEL = re.compile(r"\d{1,3}[A-Z]?|[IVXivx]{1,5}|[A-Z]")
_LABEL_SPAN = max(map(len, _LABEL_WORDS)) + 4
_OPENERS = "\"'“‘«([{"

MAX_WORDS = 120
TARGET_WORDS = 80
# The document's file name, for the error: its title is the file's stem.
_SUFFIX = {"pdf": ".pdf", "docx": ".docx", "html": ".html", "md": ".md", "txt": ".txt"}
# Where an over-long sentence may be cut, best first: after a semicolon, at a line break.
_LONG_CUTS = (re.compile(r";\s+"), re.compile(r"\n"))


def split_sentences(doc: ParsedDocument, deadline: Deadline = UNLIMITED,
                    max_sentences: int = DEFAULT_LIMITS.max_sentences) -> list[SentenceSpan]:
    """Split every block of ``doc`` into sentences; PDF sentences get line boxes and a page,
    every sentence the heading path it sits under.
    ``deadline`` is checked between blocks (``IngestTimeoutError`` once it passes); past
    ``max_sentences`` the splitting stops with a ``LoadError``."""
    text = doc.text
    page_starts = [p.start for p in doc.pages]
    words = sorted(doc.words, key=itemgetter(0))  # by start
    word_ends = [w.end for w in words]
    out: list[SentenceSpan] = []
    blocks = sorted(doc.blocks, key=lambda b: b.start)
    for i, block in enumerate(blocks, start=1):
        deadline.check(f"paragraph {i} of {len(blocks)}" + (f" (page {block.page})" if doc.kind == "pdf" else ""))
        spans = split_spans(text, block.start, block.end)
        if len(out) + len(spans) > max_sentences:
            name = deadline.name or doc.title + _SUFFIX.get(doc.kind, "")
            raise over_limit(name, f"has more than {max_sentences:,} sentences", f"{max_sentences:,} sentences",
                             "max_sentences")
        for start, end in spans:
            page = _page_of(page_starts, doc.pages, start, block.page)
            boxes = _boxes_for(words, word_ends, start, end, page) if words else []
            out.append(SentenceSpan(start=start, end=end, text=text[start:end], page=page,
                                    boxes=boxes))
    attach_context(out, doc.headings)
    return out


def split_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence ``(start, end)`` offsets inside ``text[start:end]``, trimmed, long ones cut."""
    out: list[tuple[int, int]] = []
    for ps, pe in _paragraphs(text, start, end):
        for ss, se in _sentences(text, ps, pe):
            out.extend(_limit_length(text, ss, se))
    return [(s, e) for s, e in out if _HAS_ALNUM.search(text, s, e)]


def _paragraphs(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    pos = start
    for m in _BLANK.finditer(text, start, end):
        yield pos, m.start()
        pos = m.end()
    yield pos, end


def _sentences(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    start, end = _trim(text, start, end)
    if start >= end:
        return
    sent_start = start
    for m in _END.finditer(text, start, end):
        if _is_boundary(text, sent_start, m.start(), m.end(), end):
            s, e = _trim(text, sent_start, m.end())
            if s < e:
                yield s, e
            sent_start = m.end()
    s, e = _trim(text, sent_start, end)
    if s < e:
        yield s, e


def _is_boundary(text: str, sent_start: int, mark: int, mark_end: int, end: int) -> bool:
    nxt = mark_end
    while nxt < end and text[nxt].isspace():
        nxt += 1
    if nxt >= end:
        return False  # the block end closes the sentence anyway
    following = text[nxt]
    if following in _OPENERS and nxt + 1 < end:
        following = text[nxt + 1]
    # A lowercase continuation ("et al. show", "approx. five", "Yahoo! is") is never a new
    # sentence; this one rule removes most abbreviation false splits.
    if following.islower():
        return False
    if text[mark] != ".":
        return True
    tok_start = mark
    while tok_start > sent_start and not text[tok_start - 1].isspace():
        tok_start -= 1
    token = text[tok_start:mark].lstrip(_OPENERS)
    if not token:
        return True
    first = _skip_space(text, sent_start, mark)
    if tok_start == first and _LIST_MARK.fullmatch(text[tok_start : mark + 1]):
        return False  # "1. First step" — the marker opens the sentence, it does not end one
    # (the words before the label are read only when short: a label word opens the heading)
    if (_LABEL.fullmatch(token) and tok_start - first <= _LABEL_SPAN
            and text[first:tok_start].strip().lower() in _LABEL_WORDS):
        return False  # "Item 1A. Risk Factors" is one heading
    low = token.lower()
    if low in _ABBREV:
        return False
    if low in _NUMERIC_ABBREV and _next_has_digit(text, nxt, end):
        return False  # "No. 5", "Docket No. FAA-2020-0686", "Jan. 3"
    if low in _SOFT_ABBREV:
        return following.isupper()
    # "J. Smith", "U.S. Army": an uppercase initial, not the last word of a sentence.
    return not (_INITIALS.fullmatch(token) and token[-1].isupper())


def _next_has_digit(text: str, pos: int, end: int) -> bool:
    stop = pos
    while stop < end and not text[stop].isspace():
        stop += 1
    return any(c.isdigit() for c in text[pos:stop])


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _limit_length(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut an over-long "sentence" (a table, a reference list) at ';', then lines, then words."""
    if _count_words(text, start, end) <= MAX_WORDS:
        return [(start, end)]
    for sep in _LONG_CUTS:
        cuts = [m.end() for m in sep.finditer(text, start, end)]
        if cuts:
            pieces = _merge_pieces(text, _cut(text, start, end, cuts))
            if len(pieces) > 1:
                out: list[tuple[int, int]] = []
                for s, e in pieces:
                    out.extend(_limit_length(text, s, e))
                return out
    return _hard_split(text, start, end)


def _cut(text: str, start: int, end: int, cuts: list[int]) -> list[tuple[int, int]]:
    bounds = [start, *cuts, end]
    spans = [_trim(text, a, b) for a, b in pairwise(bounds)]
    return [(s, e) for s, e in spans if s < e]


def _merge_pieces(text: str, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    # Greedy merge so a list of short clauses becomes ~TARGET_WORDS pieces, not fragments.
    merged: list[tuple[int, int]] = []
    count = 0
    for s, e in pieces:
        n = _count_words(text, s, e)
        if merged and count + n <= TARGET_WORDS:
            merged[-1] = (merged[-1][0], e)
            count += n
        else:
            merged.append((s, e))
            count = n
    return merged


def _hard_split(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    n_parts = -(-len(spans) // TARGET_WORDS)
    size = -(-len(spans) // n_parts)
    return [(spans[i][0], spans[min(i + size, len(spans)) - 1][1])
            for i in range(0, len(spans), size)]


def _count_words(text: str, start: int, end: int) -> int:
    return len(text[start:end].split())


def _page_of(page_starts: list[int], pages: list[PageInfo], pos: int, default: int) -> int:
    if not pages:
        return default
    return pages[max(bisect_right(page_starts, pos) - 1, 0)].number


def _boxes_for(words: list[WordBox], word_ends: list[int], start: int, end: int,
               page: int) -> list[Box]:
    """One rectangle per printed line: word boxes overlapping [start, end), merged."""
    # Plain floats and comparisons, models only at the end: this runs once per word.
    lines: list[tuple[float, float, float, float]] = []
    i = bisect_right(word_ends, start)
    n = len(words)
    while i < n and words[i].start < end:
        _, _, p, x0, y0, x1, y1 = words[i]
        i += 1
        if p != page:
            continue
        if lines and _same_line(lines[-1], x0, y0, x1, y1):
            a0, b0, a1, b1 = lines[-1]
            lines[-1] = (a0 if a0 < x0 else x0, b0 if b0 < y0 else y0,
                         a1 if a1 > x1 else x1, b1 if b1 > y1 else y1)
        else:
            lines.append((x0, y0, x1, y1))
    return [Box(page=page, x0=a, y0=b, x1=c, y1=d) for a, b, c, d in lines]


def _same_line(a: tuple[float, float, float, float], x0: float, y0: float, x1: float,
               y1: float) -> bool:
    ax0, ay0, ax1, ay1 = a
    overlap = (ay1 if ay1 < y1 else y1) - (ay0 if ay0 > y0 else y0)
    height = min(ay1 - ay0, y1 - y0)
    # Same line when the boxes share most of their height and the word continues to the right,
    # not across a gap of several type sizes: a table row's cells get a rectangle each.
    if overlap > 0.5 * max(height, 1e-6) and x0 >= ax0 - 1.0 and x0 - ax1 <= 2.5 * max(height, 1.0):
        return True
    # Text on a rotated page runs up or down: share most of the width instead.
    upright = ay1 - ay0 > ax1 - ax0 and y1 - y0 > x1 - x0
    x_overlap = min(ax1, x1) - max(ax0, x0)
    return upright and x_overlap > 0.5 * max(min(ax1 - ax0, x1 - x0), 1e-6)


__all__ = ["split_sentences", "split_spans"]

"""What a table's rows are read under: the table's title and the caption above each row.

A canonical row carries its column headers ("Purchases of PP&E | 2018: (1,577)"), but not
the title printed above its table ("Consolidated Statement of Cash Flows") nor the caption
row of its block ("Cash Flows from Investing Activities"). A chunk cut from the middle of a
statement therefore says nothing about which statement it is, and a question about "capital
expenditure in the cash flow statement" finds the prose that discusses capital spending
instead. Each chunk that holds table rows gets a ``lead``: the title and caption its first
row sits under. The lead is embedded with the chunk; it is not part of the document text,
so offsets and citations are untouched.

Read from the sentences alone, so every loader's tables get it: a table starts at its first
canonical row, or at a row after a line of column headers (years, a unit with figures), and
ends at a prose sentence (a full stop after a few words) or a heading; its title is the
first two lines that are not column headers among the last few above it; a row's caption
is the latest line of words only above it in the table ("Current assets").
"""

from __future__ import annotations

from collections.abc import Sequence

from gechat.documents.tables import row_label
from gechat.types import ChunkSpan, SentenceSpan

PROSE_WORDS = 5  # a line that ends with a full stop after this many words is prose: the table is over
TITLE_LINES = 2  # the title: the first lines of the short run above the table ("3M Company" / "Statement of ...")
RECENT_LINES = 4  # with no line of headers above a table, only lines this close can be its title
RUN_LINES = 8  # a title, a unit, two lines of headers and captions: how far up a title is looked for
# words that open a line saying a table's unit or period, not what it is ("$ in millions, except
# per share amounts", "(Unaudited; Dollars in Millions)", "For the Years Ended December 31")
_UNIT_WORDS = frozenset(("thousands", "millions", "billions", "ended", "unaudited"))
MAX_TITLE_FIGURES = 2  # "Fiscal 2019 Form 10-K"; more is a row of figures ("Total $ 49,182 $ (57) ...")
_NOTE_MARKS = ("*", "†", "‡", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹")
MAX_TITLE_CHARS = 160
MAX_CAPTION_CHARS = 120
SEPARATOR = " > "


def row_leads(sentences: Sequence[SentenceSpan]) -> list[tuple[str, str] | None]:
    """For each sentence (in document order): the (title, caption) of the table it is a row
    of, either possibly "", or None for a sentence that is not a table row."""
    out: list[tuple[str, str] | None] = []
    run: list[str] = []  # the lines since the last row, prose or heading: the last few
    title, caption, inside = "", "", False
    for s in sentences:
        text = " ".join(s.text.split())
        if row_label(text) is None:
            out.append(None)
            if s.heading or _prose(text):
                inside, run = False, [text] if s.heading else []
            else:
                run = [*run, text][-RUN_LINES:]
            continue
        # a line of headers (years, a unit with figures) between rows opens another table
        if not inside or any(map(_header, run)):
            named = _title(run)
            title, caption, inside = " ".join(named)[:MAX_TITLE_CHARS], "", True
            run = [line for line in run[_below_headers(run):] if line not in named]
        # the latest line of words above the row heads its block ("Current assets")
        caption = next((line[:MAX_CAPTION_CHARS] for line in reversed(run) if _words(line)), caption)
        run = []
        out.append((title, caption))
    return out


def _title(run: Sequence[str]) -> list[str]:
    """The title among the lines above a table: the last lines set above its column headers
    and below any line of figures before them ("Consolidated Balance Sheets" between an
    auditor's dated signature and "February 2, 2019 February 3, 2018"), units, periods and
    footnotes aside; with none there, the lines below the headers but the last, which
    captions the first rows ("Statement of Operations Data:" over "Revenue:"); with no line
    of headers, the first lines of the run."""
    below = _below_headers(run)
    if not below:
        lines = list(run[-RECENT_LINES:])
    else:
        end = below - 1
        while end and _header(run[end - 1]):  # "December 2, December 3" over "2022 2021"
            end -= 1
        start = max((i + 1 for i in range(end) if _header(run[i])), default=0)
        above = [line for line in run[start:end] if _named(line)]
        if above:  # the lines nearest the headers: "AND SUBSIDIARIES" / "CONSOLIDATED BALANCE SHEETS"
            return above[-TITLE_LINES:]
        lines = [line for line in run[below:-1] if _named(line)]
    return [line for line in lines if not _header(line)][:TITLE_LINES]


def _named(line: str) -> bool:
    """A line that can name a table: not its unit or period ("$ in millions", "(Unaudited;
    Dollars in Millions)", "For the Years Ended December 31"), not a footnote ("¹ Prior year ...")."""
    words = line.split()
    return (not line.startswith(_NOTE_MARKS) and not any(w.strip("(),;:$").lower() in _UNIT_WORDS for w in words[:4])
            and sum(any(c.isdigit() for c in w) for w in words) <= MAX_TITLE_FIGURES)


def _below_headers(run: Sequence[str]) -> int:
    """Where the lines below the run's last line of column headers start (0: no such line)."""
    return max((i + 1 for i, line in enumerate(run) if _header(line)), default=0)


def chunk_leads(sentences: Sequence[SentenceSpan], chunks: Sequence[ChunkSpan]) -> list[ChunkSpan]:
    """``chunks`` with ``lead`` set to the lead of their first table row, where they hold one;
    a title or caption the chunk's own text shows is left out."""
    leads = row_leads(sentences)
    out = []
    for c in chunks:
        found = next((row for i in c.sentences if (row := leads[i]) is not None), ("", ""))
        shown = " ".join(c.text.split())
        lead = SEPARATOR.join(p for p in found if p and p not in shown)
        out.append(c.model_copy(update={"lead": lead}) if lead else c)
    return out


def with_row_leads(sentences: Sequence[SentenceSpan]) -> list[SentenceSpan]:
    """``sentences`` with each table row's context extended by its table's title and its
    block's caption (those its headings do not already say): what the row's figures are
    ("Operating income (loss) by segment is as follows (in millions):" over "AWS | 2017:
    4,331"), for the reader, the word index and the evidence checks that ask a row to name
    its quantity. The row's text and offsets are untouched."""
    out = []
    for s, lead in zip(sentences, row_leads(sentences), strict=True):
        parts = [p for p in lead or () if p and p not in s.context]
        out.append(s.model_copy(update={"context": SEPARATOR.join([s.context, *parts] if s.context else parts)})
                   if parts else s)
    return out


def embedded_text(chunk: ChunkSpan) -> str:
    """What is embedded for ``chunk``: its lead, if any, above its text."""
    return f"{chunk.lead}\n{chunk.text}" if chunk.lead else chunk.text


def _words(text: str) -> bool:
    """A line of words only: a caption ("Current assets"), not a header of years or units."""
    return not any(c.isdigit() for c in text)


def _header(text: str) -> bool:
    """A line of column headers: most of its words are years or figures ("(Millions) 2018 2017")."""
    words = text.split()
    return 2 * sum(any(c.isdigit() for c in w) for w in words) >= len(words)


def _prose(text: str) -> bool:
    return text.endswith(".") and len(text.split()) >= PROSE_WORDS


__all__ = ["chunk_leads", "embedded_text", "row_leads", "with_row_leads"]

"""A claim's value found in a table row is evidence only for the quantity the row names.

The packaged entailment model reads a table row by its digits: "Best Buy Co., Inc. |
February 3, 2018: $ 100.00 | ..." (a stock-performance index) entailed "Best Buy reported
revenue of $100.00 for February 3, 2018" at 0.93, and "S&P 500 | ..." a claim about gross
margins. A row that states the claim's value is held to name what the claim says the value
is: most words of the claim's quantity in the row's label or in the header of the value's
column ("cash" of "free cash flow" is not "Cash and cash equivalents, beginning of period",
nor is "Net income" operating income). Names, numbers, periods and totals are not a
quantity. A row whose label names nothing but a period or a total ("Total fiscal 2023 fourth
quarter") says what it counts in its table's title, and is left to the other checks; so is a
claim that names no quantity. The headings a row sits under (``context``: "NICS Firearm
Background Checks" over "Alabama | ... | Totals: 71,137"; a table's title and caption,
"Operating income (loss) by segment ..." over "AWS | 2017: 4,331") name its quantity when
they hold, with the label, every word of it: a heading is farther from the value than its
label, so one shared word ("Results of Operations" for "operating margin") is not enough,
and a label that qualifies its quantity with a word the claim lacks ("Net income" under
"OPERATING ACTIVITIES" for "operating income") names another measure whatever it sits under. A
paraphrase that shares no word ("revenue" for "Net sales", "capital expenditure" for
"Purchases of property, plant and equipment") comes out unsupported: the safe side, with the
row still shown as the closest evidence. Closeness in meaning cannot stand in for the words:
the packaged embedder puts "capital expenditure" as near "Net cash provided by (used in)
financing activities" (cosine 0.54) as "revenue" to "Net sales" (0.54), and so passed 3M's
financing outflow as its capital expenditure. A row that states none of the claim's values is
no evidence for it at all (``figureless``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise

from gechat.documents.tables import row_label
from gechat.evidence.base import asked, fragment_of
from gechat.evidence.values import Quantity, agree, claimed, located, restated, row_cells, stated, stating
from gechat.lexical import META_WORDS, STOPWORDS, content_keys, fact_keys, number_keys, words

# periods, totals, scale, reading and linking words name no quantity ("the excerpt states",
# "the table shows", "Therefore, ..."); "net" neither ("Net income" is not "net cash provided
# by operating activities"). Whole words: as 5-letter keys "annual" would be "annualized" and
# "company" "compensation"
_PLAIN_WORDS = ("fiscal year years quarter quarters month months period periods ended ending end beginning "
                "annual total totals first second third fourth january february march april may june july "
                "august september october november december amount value figure company reported net "
                "approximately about thousand thousands million millions billion billions dollars usd "
                "percent excerpt excerpts states stated shows shown table document according same "
                "therefore thus hence "
                "many much")  # "how many" asks for a count and names none
_PLAIN = frozenset(_PLAIN_WORDS.split())
# a run of capitalised words, or one with a possessive, is a name even where it opens the
# sentence ("Best Buy's revenue", "Amazon's revenue")
# (linear: a match starts only at a word's start, every run is possessive)
_RUN = re.compile(r"(?<![\w'&.-])[A-Z](?:[\w'&.-]*+(?:\s++[A-Z][\w'&.-]*+)++|[\w&.-]*+'s\b)")


def quantity_words(text: str) -> list[str]:
    """The words of ``text`` that say what a value is: not names, numbers, periods or totals,
    nor words about documents and telling ("The first excerpt provides the total ..."), nor
    single letters."""
    names = fact_keys(text).union(*(content_keys(m.group()) for m in _RUN.finditer(text)))
    out = []
    for w in words(text):
        keys = content_keys(w)
        # a single letter is no word of a quantity: the "s" of "3M's"
        if len(w) > 1 and w not in STOPWORDS and w not in _PLAIN and w not in META_WORDS and keys \
                and not keys & names and not number_keys(w) and w not in out:
            out.append(w)
    return out


def unbound(claim: str, row: str, *, answer: str | None = None, given: str = "", context: str = "",
            values: list[Quantity] | None = None) -> list[str]:
    """The words of the claim's quantity that ``row`` (a canonical table row) does not name
    where it states the claim's value (of ``answer``, what the claim adds to its question
    ``given``): when its label and column header name no more than half of them and, with
    the headings it sits under (``context``), not all; [] otherwise, and for any other text."""
    if values is None:
        values = claimed(claim if answer is None else answer, given)
    heads = [c.head for c in stating(values, row)]
    if not heads:  # not a table row, or not the claim's value
        return []
    label = row_label(row) or ""
    wanted = _wanted(claim, row, values, given)
    if not wanted or not _own_words(label):
        return []
    described = content_keys(" ".join([label, *heads])) | abbreviated(wanted, heads)
    keys = content_keys(" ".join(wanted))
    if _most(keys, described):
        return []
    # a label that qualifies the quantity in a way the claim does not ("Net income" for
    # "operating income") names another measure: a heading cannot make it the claim's
    # ("OPERATING ACTIVITIES" over the cash flow statement's "Net income")
    said = content_keys(f"{claim} {given}" if answer is None else f"{claim} {answer} {given}")
    if all(content_keys(w) <= said for w in measure_words(label)):
        # the headings above a table may hold its header row, whose words name every column:
        # "Permit" there names the column of 98 452, not California's "Totals: 180 116"
        others = content_keys(" ".join(c.head for c in row_cells(row))) - content_keys(" ".join(heads))
        described |= content_keys(context) - others
    if keys <= described:
        return []
    return [w for w in wanted if not content_keys(w) <= described]


def names_quantity(claim: str, row: str, values: list[Quantity], *, given: str = "", context: str = "") -> bool:
    """Whether the table row ``row``, where it states ``values`` (the claim's), names what the
    claim says they are: the claim names a quantity, and most words of it are in the row's
    label and the headers of the values' columns ("Total Company | ... | Capital Expenditures
    2018: $ 1,577"), or all of them with the headings above (``unbound``); and the label names
    nothing the claim does not: a label none of whose words the claim or its question says
    ("Industrial | Net Sales 2018: 7,945", a segment) or one that names a part by a capitalised
    word the claim lacks ("Net sales - Asia") is a part of what the claim speaks of. False for
    any other text."""
    heads = [c.head for c in stating(values, row)]
    label = row_label(row) or ""
    wanted = _wanted(claim, row, values, given) if heads else []
    if not wanted or not _own_words(" ".join([label, *heads])) or _a_part(label, f"{claim} {given}"):
        return False
    if _most(content_keys(" ".join(wanted)), content_keys(" ".join([label, *heads])) | abbreviated(wanted, heads)):
        return True
    return bool(_own_words(label)) and not unbound(claim, row, given=given, context=context, values=values)


def _a_part(label: str, said: str) -> bool:
    """Whether the label names a part of what ``said`` speaks of: it has words of its own
    (periods, totals and the like aside) and none is said, or a capitalised word after its
    first (outside brackets: "(PP&E)" restates the label) that is not said."""
    own = _own_words(label)
    keys = content_keys(said)
    if own and not any(content_keys(w) <= keys for w in own):
        return True
    named = _WORD.findall(re.sub(r"\([^()]*\)", " ", label))[1:]
    return any(w[:1].isupper() and w.lower() not in _PLAIN and not content_keys(w) <= keys for w in named)


def _wanted(claim: str, row: str, values: list[Quantity], given: str) -> list[str]:
    """The words of the claim's quantity: of what the question asks, for a fragment answer
    ("6,701" is a value of what is asked, not of the instructions around it: "... shown in the
    cash flow statement" names "cash"), else of the clause that states the value the row holds."""
    fragment = fragment_of(given, claim)
    if fragment is not None:
        return quantity_words(f"{asked(given)} {fragment}")
    return quantity_words(_clause(claim, [v for v in values if stating([v], row)])) or quantity_words(claim)


def _own_words(label: str) -> list[str]:
    """The label's words that are not periods, totals, numbers or stopwords: what it names."""
    return [w for w in words(label) if w not in STOPWORDS and w not in _PLAIN and not number_keys(w)]


def _most(keys: frozenset[str], described: frozenset[str]) -> bool:
    """More than half of the claim's quantity ``keys`` are ``described`` by the row."""
    return 2 * len(keys & described) > len(keys)


_WORD = re.compile(r"[A-Za-z][\w&'-]*")
_ABBREVIATION = re.compile(r"\b([A-Za-z]{2,5})\.")  # "Avg.", "prec.", "Oper."


def abbreviated(wanted: list[str], heads: list[str]) -> frozenset[str]:
    """The keys of the ``wanted`` words that a column header writes abbreviated: its letters in
    order, from the word's first ("Avg." for "average", "prec." for "precision"). Headers
    only: a row's label abbreviates names ("Best Buy Co., Inc.")."""
    short = [m.group(1).lower() for head in heads for m in _ABBREVIATION.finditer(head)]
    return frozenset(k for w in wanted for a in short if len(w) > len(a) and w[0] == a[0] and _in_order(a, w)
                     for k in content_keys(w))


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(c in rest for c in letters)


def measure_words(label: str) -> list[str]:
    """The words of a row's label that say which measure it is, "net" among them: "Net
    income" and "operating income" are two measures of income."""
    return [*quantity_words(label), *(["net"] if "net" in words(label) else [])]


def _clause(claim: str, stated: list[Quantity]) -> str:
    """The part of ``claim`` that says what a value the row states is: from the value before
    it (or the start) to it. "The liability balance ... is $118 million, and the net charges to
    earnings are $2 million" holds two quantities; the row of one names only its own."""
    spans = located(claim)
    texts = {v.text for v in stated}
    for n, (_, end, q) in enumerate(spans):
        if q.text in texts and q.kind != "year":
            start = max((e for _, e, p in spans[:n] if p.kind != "year"), default=0)
            return claim[start:end]
    return ""


def figureless(claim: str, row: str, *, answer: str | None = None, given: str = "") -> bool:
    """Whether ``row`` is a canonical table row (or a few, one a line) that states none of the
    claim's values (of ``answer``, what the claim adds to its question ``given``): a row is its
    figures, and the model reading one entails claims with no figure of it ("Noncontrolling
    interest is given in the notes", "we need to convert to USD billions") at 0.3-0.9."""
    rows = [part for part in row.split("\n") if part.strip()]  # a set of consecutive rows: one a line
    if any(row_label(part) is None for part in rows):
        return False
    values = _signed(claim if answer is None else answer, given)
    return not any(stating(values, part) for part in rows)


def _signed(said: str, given: str) -> list[Quantity]:
    """The values ``said`` states (beyond its question ``given``), each also with its sign
    turned: "cash paid was $25 million" is a row's "(25)"."""
    values = claimed(said, given) + restated(said, given)
    return values + [replace(v, value=-v.value) for v in values]


def off_row(answer: str, given: str, row: str) -> list[str]:
    """The values of ``answer`` (beyond its question ``given``) when the table row ``row``
    states none of them (``figureless``): "67 employees" is no figure of "Employee benefit
    assets | 2023: 67 ($ in millions)", whose 67 is $67 million; what the reader is told."""
    if not figureless(answer, row, given=given):
        return []
    return [v.text for v in claimed(answer, given) + restated(answer, given)]


def lends_words(claim: str, text: str, *, answer: str | None = None, given: str = "") -> bool:
    """Whether ``text``, one sentence of a set, is a table row (canonical, or a line of words
    then figures only: "Papers w/ LaTeX full text 1.5M (1.8%)") that states none of the
    values the claim states: its words are about its own figure, so lent to another row of
    the set they mix two quantities ("S2ORC has 8.1M papers with GROBID full text and LaTeX
    full text" from the GROBID row's 8.1M and the LaTeX row's words). False for a claim that
    states no value, and for prose (a bridge sentence may well state another figure)."""
    if row_label(text) is None and not figure_line(text):
        return False
    values = _signed(claim if answer is None else answer, given)
    if not values:
        return False
    if row_label(text) is not None:
        return not stating(values, text)
    return not any(agree(v, f) for v in values for f in stated(text))


def figure_line(text: str) -> bool:
    """A line of a table whose cells the loader did not find: a short label, then figures
    and nothing else ("Total papers 81.1M", "Best Buy 4 - (4) - - - -"); not a sentence
    ending in a full stop ("All rates in this note are for 2018."), nor a line of years."""
    spans = located(text)
    if not spans or len(text) > 200 or text.rstrip().endswith(".") or all(q.kind == "year" for *_, q in spans):
        return False
    label = text[:spans[0][0]]
    # what stands between the figures and after the last: dashes, brackets, no word
    between = [text[end:start] for (_, end, _), (start, _, _) in pairwise(spans)]
    rest = " ".join([*between, text[spans[-1][1]:]])
    return bool(_LABEL.search(label)) and len(label.split()) <= 12 and not re.search(r"[A-Za-z]", rest)


_LABEL = re.compile(r"[^\W\d_]|:")
_NIL = re.compile(r"(?<!\S)[-–—](?!\S)")  # a table's nil cell: "-", "—"


def unlabelled(answer: str, given: str, text: str, *, run: int = 3) -> list[str]:
    """The values of ``answer`` (beyond its question ``given``) that ``text`` states only
    within a run of at least ``run`` figures with no word between them ("Net sales (millions)
    $ 3,183 $ 2,453 $ 1,577 $ 735 $ (3) $ 7,945": a table whose column headers the page's
    text lost). Which figure is which, such text does not say, so it is no evidence that the
    claim's figure is the quantity the claim names: 3M's total net sales were shown
    *supported* as 3,183 million, the first figure of a run whose total was its last. A claim
    that quotes the run as it stands says no more than the text does."""
    values = claimed(answer, given)
    if not values:
        return []
    quoted = {q.key for q, bare in _figures(answer, run) if bare}
    found = _figures(text, run)
    out = []
    for v in values:
        at = [bare for q, bare in found if q.key == v.key or agree(v, q)]
        if at and all(at) and v.key not in quoted:
            out.append(v.text)
    return out


def _figures(text: str, run: int) -> list[tuple[Quantity, bool]]:
    """The values of ``text`` (years aside), each with whether it stands in a run of at least
    ``run`` with nothing between them that says which is which: a word, a cell's "label:", a
    year. A nil cell's lone dash after a figure of the run holds a place in it ("Best Buy 4 -
    (4) - - - -" is a row of seven cells whose headers the page's text lost)."""
    spans = located(text)
    out: list[tuple[Quantity, bool]] = []
    current: list[Quantity] = []
    nil = 0
    for i, (a, _, q) in enumerate([*spans, (len(text), len(text), None)]):
        gap = spans[i - 1][1] if i else 0
        label = _LABEL.search(text, gap, a) if i else None
        if current:
            nil += len(_NIL.findall(text, gap, label.start() if label else a))
        if q is None or q.kind == "year" or label:
            out += [(x, len(current) + nil >= run) for x in current]
            current, nil = [], 0
        if q is not None and q.kind != "year":
            current.append(q)
    return out

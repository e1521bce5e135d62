"""Content words, for the checks where meaning shows in shared words (an evidence sentence
must share something with its claim); the models judge everything else."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

# what a supported claim's evidence must hold: its names and numbers, every content word, nothing
Coverage = Literal["off", "facts", "all"]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STOPWORDS_TEXT = (
    "a an the of to in on at by for with from as is are was were be been being am "
    "it its this that these those and or but if then so than there their they them he she "
    "his her we our you your i me my do does did has have had will would can could should "
    "may might must shall which who whom what when where why how all any some"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

# "page 3", "Table 2", "excerpt [1]", "[2]": numbers that only say where text is
LOCATOR = re.compile(
    r"\b(?:pages?|p|sections?|tables?|figures?|fig|items?|notes?|lines?|paragraphs?|steps?|excerpts?|"
    r"chapters?|appendix|exhibits?|sources?)\.?\s?\[?\d{1,4}[a-z]?\]?|\[\d{1,3}\]",
    re.IGNORECASE,
)

# "(1) Current Health Ltd and (2) Two Peaks", "such as:\n\n1.": a list's marks count items, they
# state no figure (an accounting negative is followed by a scale or a column, not a word)
ENUMERATOR = re.compile(r"(?<![\w$(])\(\d{1,2}\)(?=\s+(?!(?:thousand|million|billion|trillion|percent)\b)[A-Za-z])"
                        r"|^[ \t]*\d{1,2}[.)](?=\s|$)", re.IGNORECASE | re.MULTILINE)

# a clause's or a section's number opening a line: "2.2 Invoices are due ...", "10.3 (a) Either
# party"; "2.5 Percent of sales" and "1.2 Million" are values
CLAUSE_NUMBER = re.compile(r"(?m)^[ \t]*\d{1,3}(?:\.\d{1,3})+\.?[ \t]+"
                           r"(?=(?!(?i:thousand|million|billion|trillion|percent|per cent)\b)[A-Z(])")

# the number words a contract writes before the same number in figures: "thirty (30) days"
_NUMBER_WORD = re.compile(
    r"(?i)\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred"
    r"|thousand)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?(?:[ \t]+per[ \t]?cent)?[ \t]*$")


def restates_words(text: str, start: int) -> bool:
    """Whether the bracketed figure opening at ``start`` repeats the number words just before
    it ("forty-five (45) days", "one hundred twenty (120)"): the figure of those words, as
    contracts write it twice, neither a list's mark nor an accounting negative."""
    return _NUMBER_WORD.search(text, max(0, start - 40), start) is not None


def list_marks_out(text: str) -> str:
    """``text`` with the marks of its lists blanked (``ENUMERATOR``), the figures that repeat
    number words kept."""
    return ENUMERATOR.sub(lambda m: m.group() if m.group().startswith("(") and restates_words(text, m.start())
                          else " ", text)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@lru_cache(maxsize=8192)
def content_keys(text: str) -> frozenset[str]:
    """Content words cut to a 5-letter key after a plural s: "director" and "directed" share
    "direc", "nodes" and "node" share "node". A loose match errs towards overlap, the safe
    side for the checks that use it. Memoised: a candidate sentence is checked in every set it
    joins and again for every claim. A number is one key, whole ("81.1", "1,844" as "1844"):
    cut at its points, "81.1 million" would share "1" with a list's "1)"."""
    keys = {number_key(m) for m in _NUMBER.findall(text)}
    for w in words(text):
        if w in STOPWORDS or w.endswith("n't") or w.isdigit():
            continue
        if w.endswith("'s"):  # a possessive: "Buy's" is "Buy", not "buy'"
            w = w[:-2]
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        keys.add(w[:5])
    return frozenset(keys)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_UNITS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
          "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_NUMBER_WORDS = {w: i for i, w in enumerate(_UNITS, start=2)} | {w: 10 * i for i, w in enumerate(_TENS, start=2)}
# "twenty-two" is 22, not 20 and 2
_SPELLED = re.compile(rf"\b({'|'.join(_TENS)})(?:[-\s]({'|'.join(_UNITS[:8])}))?\b|\b({'|'.join(_UNITS)})\b")
# a capitalised word of two letters or more, whole: "arXiv", "iPhone" and "eBay" are names as
# written, not "Xiv", "Phone" and "Bay" (keys their own spelling in the evidence never meets)
_CAP = r"(?<!\w)(?:[a-z]+[A-Z][\w'-]*|[A-Z][\w'-]+)"
_CAPITALISED = re.compile(_CAP)
_NOT_NAMES = frozenset(("yes", "no"))  # an answer to a yes/no question, whatever its case
_LETTER_DIGIT = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


def _split_alnum(text: str) -> str:
    """"FY2023" reads as "FY 2023" and "280M" as "280 M", so the parts meet their own kind."""
    return _LETTER_DIGIT.sub(" ", text)


def a_year(digits: str) -> bool:
    """Four digits that read as a year ("2018"), not an amount."""
    return len(digits) == 4 and digits.isdigit() and 1800 <= int(digits) <= 2100


def number_key(m: str) -> str:
    """A number as one key: its digit groups joined, a decimal's trailing zeros dropped ("5,409.00": "5409")."""
    m = m.replace(",", "")
    return m.rstrip("0").rstrip(".") if "." in m else m


def number_keys(text: str) -> frozenset[str]:
    """Numbers as digit strings: "1,844" and "1844" match, "8.70" and "8.7", "280M" and "280 million";
    a count written in words too ("four" is "4", so "won four titles" is not covered by "won
    three"), from two on: "one" is as often a pronoun ("one of the founders")."""
    digits = (number_key(m) for m in _NUMBER.findall(text))
    spelled = (str(_NUMBER_WORDS[m[1]] + _NUMBER_WORDS.get(m[2] or "", 0) if m[1] else _NUMBER_WORDS[m[3]])
               for m in _SPELLED.finditer(text.lower()))
    return frozenset([*digits, *spelled])


def spelled_keys(text: str) -> frozenset[str]:
    """The content keys of the numbers ``text`` writes in words ("twelve", "forty-five"): a
    value, not what the text is about."""
    return content_keys(" ".join(m.group() for m in _SPELLED.finditer(text.lower())))


def _is_name(text: str, m: re.Match[str]) -> bool:
    # a sentence's first word is capitalised anyway ("Yes", "Gross"); it counts as a name only
    # when its shape says so ("USA", "JnJ")
    word = m.group()
    if word.lower() in _NOT_NAMES:
        return False
    return not _opens_sentence(text, m.start()) or any(c.isupper() for c in word[1:])


def _opens_sentence(text: str, pos: int) -> bool:
    """Whether ``text[pos:]`` opens a sentence: nothing before it, a line break, or an end mark
    then space. Read backwards over the spaces alone (a pattern searched over the whole prefix,
    once per capitalised word, was quadratic)."""
    i = pos
    while i > 0 and text[i - 1].isspace():
        if text[i - 1] == "\n":
            return True
        i -= 1
    return pos == 0 or (0 < i < pos and text[i - 1] in ".!?")


@lru_cache(maxsize=8192)
def name_words(text: str) -> frozenset[str]:
    """Capitalised words, whole and lower-cased (a possessive "'s" aside), and numbers: names
    as a reader matches them (5-letter keys would let "Maineiacs" meet "Maine")."""
    text = _split_alnum(text)
    names = {w.casefold().removesuffix("'s").rstrip("'") for w in _CAPITALISED.findall(text)}
    return frozenset(w for w in names if w not in STOPWORDS) | number_keys(text)


# a name: capitalised words, with the small words names hold between them ("Bank of America")
_NAME_RUN = re.compile(rf"{_CAP}(?:\s+(?:(?:of|the|de|del|da|la|le|van|von|der|du|y)\s+)*{_CAP})*")


@lru_cache(maxsize=8192)
def name_groups(text: str) -> tuple[frozenset[str], ...]:
    """The names ``text`` holds, each as the set of its ``name_words`` ("Kasper Schmeichel" ->
    {kasper, schmeichel}), and each number on its own: a name is one thing, so a sentence
    states it only when it holds all of its words, not one of them ("Kasper Hvidt")."""
    groups = [name_words(m.group()) for m in _NAME_RUN.finditer(_split_alnum(text))]
    groups += [frozenset([k]) for k in number_keys(text)]
    return tuple(dict.fromkeys(g for g in groups if g))


@lru_cache(maxsize=8192)
def fact_keys(text: str) -> frozenset[str]:
    """The words a reader checks first, names (capitalised words) and numbers, as keys."""
    text = _split_alnum(text)
    names = frozenset().union(*(content_keys(m.group()) for m in _CAPITALISED.finditer(text) if _is_name(text, m)))
    return names | number_keys(text)


def uncovered(claim: str, evidence: str, *, given: str = "", mode: Coverage = "facts") -> frozenset[str]:
    """The keys of ``claim`` that neither ``evidence`` nor ``given`` (the question, whose words
    a claim may repeat unproven) holds: ``facts`` checks names and numbers, ``all`` every
    content word. Empty means covered."""
    if mode == "off":
        return frozenset()
    # "Figure 1" and "page 26" say where something is written: their numbers are no facts of
    # the claim, and no "1" a claim needs is held by "Figure 1: Overview of SPECTER."
    claim = list_marks_out(LOCATOR.sub(" ", claim))
    picked = chosen(claim, given)
    keys = (fact_keys(claim) if mode == "facts" else content_keys(_split_alnum(claim))) | picked
    return (keys - _held(evidence) - (_held(given) - picked)) | _split_names(claim, evidence, given)


# what a question offers to choose from: names or numbers joined by "or" ("Flexibles or Rigid
# Packaging", "A, B or C", "2025 or 2026"); read span by span (one pattern over the whole list
# would backtrack over every shorter run of names: quadratic on a long one)
_OPTION = re.compile(rf"{_NAME_RUN.pattern}|\d[\d,.]*\d|\d")
_COMMA = re.compile(r"\s*,\s*")
_OR = re.compile(r",?\s+or\s+")


@lru_cache(maxsize=8192)
def offered(question: str) -> tuple[frozenset[str], ...]:
    """The options ``question`` offers, each as its keys ("Flexibles or Rigid Packaging":
    {flexi}, {rigid, packa})."""
    if " or " not in question:
        return ()
    found: list[str] = []
    run: list[str] = []  # options joined by commas so far
    last = None
    for m in _OPTION.finditer(question):
        gap = question[last.end():m.start()] if last is not None else None
        if gap is not None and _OR.fullmatch(gap):
            found += [o for o in [*run, m.group()] if o not in found]
        run = [*run, m.group()] if gap is not None and _COMMA.fullmatch(gap) else [m.group()]
        last = m
    keys = (content_keys(_split_alnum(o)) | number_keys(o) for o in found)
    return tuple(k for k in keys if k)


def beyond(claim: str, given: str) -> str:
    """What ``claim`` says beyond the question it quotes: the rest after the question, the
    fragment of a fragment answer read as the answer to it (``as_answer_to``), else the whole claim."""
    if given and claim.startswith(given):
        return claim[len(given):]
    fragment = fragment_of(given, claim)
    return claim if fragment is None else fragment


_ANSWER_TO = ('The answer to the question "', '" is: ')
_SENTENCE_ENDS = (". ", ": ", "! ", "; ")


def as_answer_to(question: str, text: str) -> str:
    """``text`` as the answer to what ``question`` asks (``asked``: the instructions around it
    are no part of what the answer claims): how a fragment answer is checked."""
    return f"{_ANSWER_TO[0]}{asked(question).strip()}{_ANSWER_TO[1]}{text.strip()}"


def fragment_of(question: str, claim: str) -> str | None:
    """The fragment answer ``claim`` was made from by ``as_answer_to``, or None."""
    lead = as_answer_to(question, "")
    return claim[len(lead):] if question and claim.startswith(lead) else None


def asked(question: str) -> str:
    """What ``question`` asks, without the instructions around it ("Answer in USD millions. Use
    the cash flow statement."): its first sentence that ends in a question mark, else all (also
    when that sentence is under three words: cut at an abbreviation, "vs. 2017?")."""
    end = question.find("?")
    if end < 0:
        return question
    head = question[:end + 1]
    start = max(head.rfind(mark) for mark in _SENTENCE_ENDS)  # -1: the question opens with it
    ask = head[start + 2:] if start >= 0 else head
    return ask.strip() if len(ask.split()) >= 3 else question


@lru_cache(maxsize=8192)
def chosen(claim: str, given: str) -> frozenset[str]:
    """The keys of the options ``given`` offers ("Flexibles or Rigid Packaging") that the claim
    names beyond the question it may quote: the choice is what the claim asserts, so the
    question naming it covers nothing ("Rigid Packaging had the highest net sales" must find
    "Rigid Packaging" in its evidence)."""
    mine = _held(beyond(claim, given))
    out: set[str] = set()
    for keys in offered(given):
        if keys <= mine:
            out |= keys
    return frozenset(out)


def _split_names(claim: str, evidence: str, given: str) -> frozenset[str]:
    """The keys that ``evidence`` lacks of each name of the claim of several words that it
    holds in part, where ``given`` does not name it either: a name is one thing, so "Kansas
    Song" is not covered by "Kansas" in the evidence and "fight song" in the question."""
    named = name_groups(given) if given else ()
    held = _held(evidence)
    out: set[str] = set()
    for g in name_groups(claim):
        keys = content_keys(" ".join(sorted(g)))
        if len(g) > 1 and keys & held and not any(g <= h for h in named):
            out |= keys - held
    return frozenset(out)


@lru_cache(maxsize=8192)
def _held(text: str) -> frozenset[str]:
    """Every key a text holds; memoised: each candidate is checked against every claim."""
    text = _split_alnum(text)
    numbers = number_keys(text)
    where = numbers - number_keys(LOCATOR.sub(" ", text))  # only in "Figure 1", "page 26"
    keys = content_keys(text)
    # "FY 2022" is "fiscal 2022" written short, the way a filing's own text rarely writes it
    short = frozenset(("fy",)) if "fisca" in keys else frozenset()
    return (keys | numbers | acronyms(text) | short) - where


# three or more capitalised words in a row, with the small words a title holds between them
_TITLE_RUN = re.compile(r"[A-Z][a-z]+(?:(?:\s+(?:of|and|&|for|the))*\s+[A-Z][a-z]+){2,}")
_TITLE_SMALL = frozenset(("of", "and", "&", "for", "the"))


@lru_cache(maxsize=8192)
def acronyms(text: str) -> frozenset[str]:
    """The initials of the titles ``text`` spells out, as keys: "Chief Executive Officer"
    holds "CEO", "Amazon Web Services" "AWS", "Securities and Exchange Commission" "SEC"
    (initials of three to five words: a key of ``content_keys`` is five letters at most). Read
    on the side of what a text holds only: a claim's "CEO" is covered by the title written
    out, while the initials of a claim's own name ("Jeffrey P. Bezos") ask nothing."""
    out: set[str] = set()
    for m in _TITLE_RUN.finditer(text):
        # a run may hold several titles ("Chairman and Chief Executive Officer of Amazon"):
        # every stretch of three to five of its words is read
        initials = "".join(w[0] for w in m.group().split() if w not in _TITLE_SMALL).lower()
        out.update(initials[i:j] for i in range(len(initials)) for j in range(i + 3, min(i + 5, len(initials)) + 1))
    return frozenset(out)


_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[A-Za-z][\w'-]*")


def missing_words(claim: str, evidence: str, *, given: str = "", mode: Coverage = "facts") -> list[str]:
    """``uncovered`` as the claim's own words, in order, for a reader: "1985", "Spielberg"."""
    keys = uncovered(claim, evidence, given=given, mode=mode)
    out: list[str] = []
    for tok in _TOKEN.findall(_split_alnum(claim)):
        tok_keys = number_keys(tok) if tok[0].isdigit() or tok.lower() in _NUMBER_WORDS else content_keys(tok)
        if tok_keys & keys and tok not in out:
            out.append(tok)
    return out


# Words about documents, reading and answering: a step made of these (and the question's own
# words) says where something is written, not what is true. META holds their keys, META_WORDS
# the words themselves, for checks that must not lose "checks" to the key of "checked".
_META_TEXT = (
    "document documents text paper article report filing passage passages excerpt excerpts source "
    "sources section sections chapter introduction abstract conclusion summary sentence sentences "
    "paragraph paragraphs page pages line lines table tables figure figures appendix footnote "
    "information info details detail context question questions answer answers query asked asks "
    "ask asking state states stated statement mention mentions mentioned mentioning provide provides "
    "provided providing give gives given say says said saying according directly clearly "
    "explicitly specifically indicate indicates indicated show shows shown describe describes "
    "described refer refers referred note notes noted find found look looking read reading based "
    "therefore thus hence also above below following first second third last previous next here "
    "relevant most explicit specific part point step steps reasoning conclude determine identify need "
    "needed know known tell tells told check checked see seen directly not no yes only just "
    "answered answering asked question's correct correctly "
    # how it is written: "The information is presented in a straightforward manner, without
    # any additional context or interpretation"
    "present presents presented presenting straightforward manner way without additional "
    "explanation explain explained further making "
    # what is being told, not what it is: "These numbers are directly provided ..."
    "number numbers amount amounts value values data about regarding within located "
    # where it is written, and the document naming itself: "This fee is listed in the table",
    # "This is explicitly stated in the first paragraph of the Agreement"
    "list lists listed listing agreement contract"
)
META = content_keys(_META_TEXT)
META_WORDS = frozenset(_META_TEXT.split())

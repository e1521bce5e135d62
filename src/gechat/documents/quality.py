"""Is extracted text made of words? Telling text from glyph soup.

A PDF whose fonts lack a text mapping, or one cut short, can give PyMuPDF "text" that is
glyph codes: control and private-use characters, letters of three scripts in one word,
random capitals, signs inside words, one-letter tokens. Indexed, it becomes hundreds of junk
sentences that retrieval then serves. The test here is statistical and language-free: it
looks at the characters (are they assigned, printable codes?) and at the shape of each
token (one script per word, a case pattern people write, no sign inside a word, a vowel in a
long Latin word, more than one letter), never at a word list, so German, French, Chinese or
Arabic text passes as readily as English. Thresholds are set far from where real text lies
(tests/unit/test_documents_quality.py): a page of formulas or code has many odd tokens,
but not two in three.
"""

from __future__ import annotations

import string
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby, pairwise

# Format characters that real text carries: soft hyphen, zero-width (non-)joiners, direction
# marks, word joiner, byte order mark.
_FORMAT_OK = frozenset("\u00ad\u200c\u200d\u200e\u200f\u2060\ufeff")
_BAD_CATEGORIES = frozenset(("Cc", "Co", "Cn", "Cs"))
# Scripts written without case and often without spaces between words: any run length is a word.
_EAST_ASIAN = frozenset(("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "FULLWIDTH", "HALFWIDTH",
                         "IDEOGRAPHIC"))
_NEUTRAL = frozenset(("COMBINING", "MODIFIER", "MICRO", "FEMININE", "MASCULINE"))
_VOWELS = frozenset("aeiouyw")
_ASCII_EDGES = string.punctuation
_WORD_SIGNS = frozenset("°®©™+±†‡")  # beside a word or a number: "5°C", "Brand®", "±3", "Smith†"
SAMPLE_CHARS = 100_000  # enough for the shares to settle; keeps the test cheap on a long document

# Garbled when a quarter of the characters are not printable codes, when fewer than a third
# of the tokens are shaped like words (real text of any language: above two thirds; a page of
# formulas about a half), or when most Latin letters are accented ones.
MAX_BAD_SHARE = 0.25
MIN_WORD_SHARE = 0.35
MIN_TOKENS = 40
# Of Latin letters, those beyond ASCII: French and German 2-5%, Czech or Hungarian about 10%,
# Vietnamese about 30%; codes drawn from Latin-1, about 70%.
MAX_ACCENTED_SHARE = 0.45
MIN_CHARS = 100


@dataclass(slots=True)
class Shape:
    chars: int = 0  # non-space characters looked at
    bad: int = 0  # of them: control, private-use, unassigned, surrogate or replacement codes
    tokens: int = 0  # space-separated tokens with a letter or digit
    words: int = 0  # of them: shaped like a word (or a number) of some language
    latin: int = 0  # Latin letters
    accented: int = 0  # of them: beyond ASCII ("é", "ß", "Þ")

    def __iadd__(self, other: Shape) -> Shape:
        self.chars += other.chars
        self.bad += other.bad
        self.tokens += other.tokens
        self.words += other.words
        self.latin += other.latin
        self.accented += other.accented
        return self


@lru_cache(maxsize=16384)
def _kind(c: str) -> str:
    """One character's class: "l"/"u" lower/upper letter, "a" uncased letter, "e" East Asian,
    "m" mark, "d" digit, "p" punctuation, "q" punctuation only at a word's edge, "c" a sign
    words carry, "s" another sign, "b" bad code."""
    cat = unicodedata.category(c)
    if (cat in _BAD_CATEGORIES or c == "\ufffd") or (cat == "Cf" and c not in _FORMAT_OK):
        return "b"
    if cat == "Cf":
        return "m"
    head = cat[0]
    if head == "L" or cat == "Nl":  # letters, and letter numbers ("〇", "Ⅻ")
        if _script(c) == "CJK":
            return "e"
        return "l" if c != c.upper() else ("u" if c != c.lower() else "a")
    if head == "P":
        # "«quote»", "¿Qué?": Latin-1's own marks only open or close a word, never split one
        return "q" if "\u00a0" <= c <= "\u00bf" else "p"
    if cat in ("Sc", "No") or c in _WORD_SIGNS or c < "\x7f":  # ASCII's signs too: "x^2", "<b>", "a=1"
        return "c"
    return "m" if head == "M" else ("d" if cat == "Nd" else "s")


@lru_cache(maxsize=16384)
def _script(c: str) -> str:
    script = unicodedata.name(c, "").partition(" ")[0]
    return "" if script in _NEUTRAL else ("CJK" if script in _EAST_ASIAN else script)


def shape(text: str, sample: int = SAMPLE_CHARS) -> Shape:
    """Counts over the first ``sample`` characters of ``text``."""
    text = text[:sample]
    out = Shape()
    for c, n in Counter(text).items():
        if c.isspace():
            continue
        out.chars += n
        if c.isascii():
            out.latin += n * c.isalpha()
            out.bad += n * (c < " " or c == "\x7f")
        elif _kind(c) == "b":
            out.bad += n
        elif c.isalpha() and _script(c) == "LATIN":
            out.latin += n
            out.accented += n
    for token in text.split():
        verdict = _token(token)
        if verdict is not None:
            out.tokens += 1
            out.words += verdict
    return out


def _token(token: str) -> bool | None:
    """Whether a token is shaped like a word or a number; None for one of signs only."""
    if token.isascii():  # most tokens of most text: the same verdicts, with str methods alone
        core = token.strip(_ASCII_EDGES)
        if not core:
            return None
        if core.isalpha():
            if len(core) == 1:
                return False
            if core.islower() or core.istitle():
                return len(core) < 5 or any(c in _VOWELS for c in core.lower())
            if core.isupper():
                return True
        elif core.isdigit():
            return True
    kinds = "".join(map(_kind, token))
    core = kinds.strip("pqc")  # "(see", "5%", "$3", "Inc.,", "«Brand®»": the word inside
    if not core or not any(k in core for k in "luaed"):
        return None  # signs only: "=", "->", "§"
    if "b" in core or "s" in core or "q" in core:
        return False  # a code, or a sign inside a word: "a×b", "ab¶c", "h·Ì"
    if len(core) == 1:  # one letter is a word only where letters are uncased (Chinese, Arabic)
        return core in "aed"
    start = len(kinds) - len(kinds.lstrip("pqc"))
    word = token[start:start + len(core)]
    pieces = [(k, word[i:j]) for k, i, j in _pieces(core)]
    return all(_piece_ok(k, p, len(pieces) > 1) for k, p in pieces)


def _pieces(core: str) -> list[tuple[str, int, int]]:
    """The runs of ``core`` between punctuation and signs ("state-of-the-art", "U.S", "f(x", "5°C")."""
    out: list[tuple[str, int, int]] = []
    pos = 0
    for is_p, group in groupby(core, key=lambda k: k in "pc"):
        n = len(list(group))
        if not is_p:
            out.append((core[pos:pos + n], pos, pos + n))
        pos += n
    return out


def _piece_ok(kinds: str, piece: str, inside: bool) -> bool:
    letters = kinds.replace("d", "").replace("m", "")
    if not letters:
        return True  # a number
    if len(letters) < len(kinds.replace("m", "")):  # letters and digits: "H2O", "x86", "3rd", "10K"
        return sum(a.isdigit() != b.isdigit() for a, b in pairwise(kinds.replace("m", ""))) <= 2
    if len(letters) == 1:
        return inside or letters in "ae"  # "e.g", "U.S", "f(x)" are words
    return _letters_ok(letters, piece)


def _letters_ok(kinds: str, run: str) -> bool:
    cased = kinds.replace("a", "").replace("e", "")
    if not run.isascii():
        scripts = {_script(c) for c in run if c.isalpha()} - {"", "CJK"}
        if len(scripts) > 1:  # Latin and Cyrillic and Greek in one word: codes, not writing
            return False
    if not cased:
        return True  # Chinese, Arabic, Hindi...: any length
    changes = sum(a != b for a, b in pairwise(cased))
    if changes >= 3 and changes * 2 >= len(cased):  # "xQzRt"; "McDonald", "iPhone" pass
        return False
    if len(cased) <= 4 and "lu" in cased:  # "aÄ", "xQz": a capital after a small letter, in a short word
        return False
    if len(run) >= 5 and "l" in cased and (run.isascii() or _script(run[0]) == "LATIN"):
        return any(unicodedata.normalize("NFD", c)[0].lower() in _VOWELS for c in run)
    return True


def garbled(s: Shape) -> str:
    """Why text with this shape is no text ("" when it reads as text)."""
    if s.chars >= MIN_CHARS and s.bad > s.chars * MAX_BAD_SHARE:
        return f"{s.bad / s.chars:.0%} of its characters are control, private-use or unassigned codes"
    if s.tokens >= MIN_TOKENS and s.words < s.tokens * MIN_WORD_SHARE:
        return f"only {s.words / s.tokens:.0%} of its {s.tokens:,} words look like words of any language"
    if s.latin >= MIN_CHARS and s.accented > s.latin * MAX_ACCENTED_SHARE:
        return f"{s.accented / s.latin:.0%} of its Latin letters are accented ones; no language has over a third"
    return ""


__all__ = ["Shape", "garbled", "shape"]

"""An officer's title is one name, not three words: a "Chief Product Officer" is no chief
executive officer.

Asked Adobe's 10-K "Who is Adobe's chief executive officer?", the 1.5B model answered "Scott
Belsky", and the packaged entailment model read "Scott Belsky 42 Chief Product Officer and
Executive Vice President, Creative Cloud" as proof (0.91): every word of the claim's title is
in it, in other titles. Filings, contracts and board minutes name people by such titles, so a
claim's "chief ... officer" (or its initials: CEO, CFO, COO) is held only by a text that names
the same office, where the text names offices at all; a text that names none is left to the
model ("Mr. Narayen has led the company since 2007").
"""

from __future__ import annotations

import re

# "Chief Executive Officer", "chief human resources officer"; "CEO", "CFO", "CHRO"
_TITLE = re.compile(r"(?i:\bchief\s+((?:[a-z&]+\s+){1,3}?)officer\b)|\b(C[A-Z]{1,2}O)s?\b")
_JOINERS = {"and", "&", "of"}


def offices(text: str) -> set[str]:
    """The officers' titles ``text`` names, each as its middle initials ("E" for chief
    executive officer and CEO, "HR" for chief human resources officer and CHRO)."""
    found = set()
    for m in _TITLE.finditer(text):
        if m[2]:
            found.add(m[2][1:-1])
        else:
            found.add("".join(w[0].upper() for w in m[1].split() if w.lower() not in _JOINERS))
    return found


def another_office(answer: str, given: str, text: str) -> list[str]:
    """The titles of ``answer`` that ``text`` does not name while it names other offices
    ("chief executive officer" on a page that names only a Chief Product Officer). ``given``
    (the question) is not read: its title is the one the answer must hold."""
    named = offices(text)
    if not named:
        return []
    return [m[0] for m in _TITLE.finditer(answer) if not offices(m[0]) <= named]


__all__ = ["another_office", "offices"]

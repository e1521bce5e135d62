"""Years as the names of periods: which year a text, or a figure in it, is about."""

from __future__ import annotations

import re

from gechat.documents.headings import SEPARATOR

# a year as a period's name, glued to a prefix or not ("2018", "FY2018", "fiscal 2018"); linear:
# one fixed-width match tried once per position
_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")
_YEAR_AT = re.compile(rf"(?:FY|fy)?+({_YEAR.pattern})")  # a year, glued to "FY" or not


def years(text: str) -> frozenset[str]:
    """The years ``text`` names, as periods: "FY2018" names 2018."""
    return frozenset(_YEAR.findall(text))


def unnamed_years(claim: str, text: str) -> frozenset[str]:
    """The years of ``claim`` (what a claim says beyond a question it quotes) that ``text``
    does not name, where ``text`` names years of its own: a sentence dated to other years is
    no evidence for what the claim says of these, even where the years came from the question
    ("acquired in FY2023, FY2022 and FY2021" against "In fiscal 2022, we acquired ...").
    Empty when ``text`` names no year: an undated sentence may speak of any period."""
    named = years(text)
    return years(claim) - named if named else frozenset()


def dating(context: str) -> str:
    """The headings of a heading path (or of several joined, a set's) that may date the
    sentences under them: all but the title that opens a path of several. A 10-K's running
    "BEST BUY FISCAL 2023 FORM 10-K" is over every sentence of it, and had dated "In fiscal
    2022, we acquired ..." to 2023 as well; a table's "Fiscal Years Ended" below it still dates."""
    parts = context.split(SEPARATOR)
    return SEPARATOR.join(p for p in parts if p != parts[0]) if len(parts) > 1 else context


def year_after(text: str, pos: int) -> str | None:
    """The year that starts at ``pos`` ("FY2021", "2021"), unless a list of years goes on."""
    m = _YEAR_AT.match(text, pos)
    if not m:
        return None
    rest = text[m.end(): m.end() + 24].lstrip(" \t")
    rest = rest[1:].lstrip(" \t") if rest.startswith(",") else rest
    rest = rest[4:].lstrip(" \t") if rest.startswith("and ") else rest
    rest = rest[7:] if rest.lower().startswith("fiscal ") else rest
    return None if _YEAR_AT.match(rest) else m.group(1)


def year_before(text: str, pos: int) -> str | None:
    """The year that ends at ``pos``, unless it ends a list of years ("2016 and 2017")."""
    head = text[max(0, pos - 24):pos]
    if not _ends_in_year(head):
        return None
    rest = head[:-4].rstrip(" \t")
    rest = rest[:-6].rstrip(" \t") if rest.lower().endswith("fiscal") else rest
    rest = rest[:-3].rstrip(" \t") if rest.endswith("and") else rest
    rest = rest[:-1].rstrip(" \t") if rest.endswith(",") else rest
    return None if _ends_in_year(rest) else head[-4:]


def _ends_in_year(text: str) -> bool:
    return len(text) >= 4 and _YEAR.match(text, len(text) - 4) is not None


__all__ = ["dating", "unnamed_years", "year_after", "year_before", "years"]

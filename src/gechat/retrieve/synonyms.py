"""Other names for what a question asks about, searched with it.

An analyst asks for "capital expenditure" in the "income statement"; the filing's row says
"Purchases of property, plant and equipment" under "Consolidated Statements of Operations".
Neither the word index nor a small embedding model bridges every such pair, so the question
is searched with the other names of each term it uses ("revenue" is also searched as "net
sales"). Only what is searched changes: the LLM reads the question as asked.

A vocabulary is groups of names for one thing. ``finance`` (the default) holds the names of
the financial statements and of their common line items, as US GAAP and IFRS filings write
them; ``none`` turns expansion off; a user's own vocabulary is a text file, one group per
line, names separated by ";" ("# " opens a comment): a contract's "Licensee; Customer".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from gechat.errors import ConfigError

Group = tuple[str, ...]

FINANCE: tuple[Group, ...] = (
    ("income statement", "statement of income", "statement of operations", "statement of earnings",
     "profit and loss", "P&L"),
    ("balance sheet", "statement of financial position"),
    ("cash flow statement", "statement of cash flows"),
    ("revenue", "net sales", "net revenue"),
    ("capital expenditure", "capex", "capital spending", "purchases of property, plant and equipment",
     "purchases of property and equipment", "additions to property, plant and equipment"),
    ("PP&E", "property, plant and equipment", "property and equipment", "fixed assets"),
    ("cost of goods sold", "COGS", "cost of sales", "cost of revenue"),
    ("gross margin", "gross profit"),
    ("operating income", "operating profit", "income from operations", "operating margin"),
    ("net income", "net earnings", "net profit"),
    ("inventory", "inventories", "merchandise inventories"),
    ("accounts payable", "trade payables"),
    ("accounts receivable", "trade receivables"),
    ("SG&A", "selling, general and administrative"),
    ("D&A", "depreciation and amortization"),
    ("R&D", "research and development"),
    ("EPS", "earnings per share"),
    ("shareholders' equity", "stockholders' equity", "total equity"),
    ("operating cash flow", "cash flow from operations", "cash from operations",
     "net cash provided by operating activities"),
    ("dividends paid", "cash dividends"),
    ("long-term debt", "long-term borrowings"),
)

VOCABULARIES: dict[str, tuple[Group, ...]] = {"finance": FINANCE, "none": ()}


class Synonyms:
    """Expands a question with the other names of the terms it uses."""

    def __init__(self, groups: Sequence[Group]) -> None:
        self.groups = [tuple(g) for g in groups if len(g) > 1]
        self._patterns = [[_pattern(name) for name in g] for g in self.groups]

    def expand(self, question: str) -> str:
        """``question`` and, after it, each other name of every group one of whose names it
        uses (a name it already holds is not added again); unchanged when it uses none."""
        extra: list[str] = []
        for group, patterns in zip(self.groups, self._patterns, strict=True):
            used = [p.search(question) is not None for p in patterns]
            if any(used):
                extra += [name for name, u in zip(group, used, strict=True) if not u]
        extra = list(dict.fromkeys(extra))
        return f"{question} ({'; '.join(extra)})" if extra else question


def _pattern(name: str) -> re.Pattern[str]:
    """The name as a whole word or phrase, any case, any run of spaces between its words, a
    plural "s" allowed ("capital expenditures")."""
    words = r"\s+".join(re.escape(w) for w in name.split())
    return re.compile(rf"(?<![\w&]){words}s?(?![\w&])", re.IGNORECASE)


@lru_cache(maxsize=16)
def load_synonyms(spec: str) -> Synonyms:
    """The vocabulary ``spec`` names: a built-in one (``finance``, ``none``) or a file (read
    once per process)."""
    if spec in VOCABULARIES:
        return Synonyms(VOCABULARIES[spec])
    path = Path(spec).expanduser()
    if not path.is_file():
        raise ConfigError(f"query_synonyms: no vocabulary {spec!r}",
                          hint=f"one of {', '.join(VOCABULARIES)}, or a text file of names, one group per line")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"query_synonyms: cannot read {path}: {e}", hint="a UTF-8 text file") from None
    groups = [tuple(n.strip() for n in line.split(";") if n.strip()) for line in lines
              if line.strip() and not line.lstrip().startswith("#")]
    return Synonyms(groups)


__all__ = ["FINANCE", "VOCABULARIES", "Group", "Synonyms", "load_synonyms"]

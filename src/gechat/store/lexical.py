"""Words as well as meanings: SQLite FTS5 indexes (BM25) over chunks and sentences.

A filing's question names things an embedding blurs: "FY2018", "PP&E", "capital
expenditure", a segment's name. Each chunk and sentence is indexed with the headings it sits
under (its section path), so a question that names a section finds its text. Porter stemming:
"expenditures" meets "expenditure". The index lives beside the rows it indexes (rowid = the
chunk's or sentence's id) and is written in the same transaction; workspaces made before it
existed are indexed when opened.
"""

from __future__ import annotations

import re
import sqlite3
import threading

from gechat.lexical import STOPWORDS, a_year, number_key
from gechat.store.base import Connection

FTS_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5(text, tokenize='porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS sentence_terms USING fts5(text, tokenize='porter unicode61');
"""
_TABLES = {"chunk": ("chunk_terms", "chunks"), "sentence": ("sentence_terms", "sentences")}
# a number whole ("5,409.00") or a word; one character class each: linear
_NUMBER = r"\d[\d,]*(?:\.\d+)?(?!\w)"
_TERM = re.compile(rf"{_NUMBER}|\w+")
_WHOLE_NUMBER = re.compile(_NUMBER)
MAX_TERMS = 32  # a question longer than this is cut: its first words say what it asks


# a fiscal or calendar period glued to its year: "FY2018", "Q3 2019" is two words already
_PERIOD = re.compile(r"(?:fy|cy|q[1-4]|h[12])(\d{4})")


def query_words(text: str) -> list[str]:
    """The question's distinct words, stopwords aside, at most ``MAX_TERMS``. A period glued
    to its year ("FY2018") brings the year too: a filing's statements head their columns
    "2018" or "December 31, 2018", so the glued word alone would find only the text that
    repeats the glued form."""
    words: list[str] = []
    for w in _TERM.findall(text.lower()):
        if w in STOPWORDS or w == "_":
            continue
        if _WHOLE_NUMBER.fullmatch(w):
            words += number_forms(w)
            continue
        period = _PERIOD.fullmatch(w)
        words += [w, period.group(1)] if period else [w]
    return list(dict.fromkeys(words))[:MAX_TERMS]


def number_forms(number: str) -> list[str]:
    """A number as the index's tokens hold it, each form a phrase: the tokenizer cuts "5,409"
    into "5" and "409" and "8.7" into "8" and "7", so "$5409.00" in a claim meets the row's
    "5,409" only as the phrase "5 409"; written without digit groups too ("5409", a year)."""
    number = number.rstrip(",")  # "2018," ends a clause
    whole, _, frac = number_key(number).partition(".")
    whole = whole.lstrip("0") or "0"
    if len(whole) > 18:  # no figure of a document; int() of thousands of digits is refused
        return [number]
    tail = f" {frac}" if frac else ""
    if "," not in number and not frac and a_year(whole):
        return [whole]  # a year, as years are written
    grouped = f"{int(whole):,}".replace(",", " ")
    return list(dict.fromkeys([f"{grouped}{tail}", f"{whole}{tail}"]))


def query_terms(text: str) -> str | None:
    """An FTS5 query matching any of the question's words, each quoted so that no word is read
    as an operator; None when no word is left."""
    return " OR ".join(fts_word(w) for w in query_words(text)) or None


def fts_word(word: str) -> str:
    """One word as an FTS5 query term, quoted so that it is never read as an operator."""
    return '"' + word.replace('"', "") + '"'


class LexicalIndex:
    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self._db, self._lock = db, lock
        db.executescript(FTS_SCHEMA)

    @staticmethod
    def add(db: Connection, kind: str, rows: list[tuple[int, str]]) -> None:
        """Index (id, text) rows; inside the transaction that writes them."""
        db.executemany(f"INSERT INTO {_TABLES[kind][0]}(rowid, text) VALUES (?, ?)", rows)

    @staticmethod
    def remove_document(db: Connection, doc_id: int) -> None:
        """Drop a document's rows; before the document itself, whose chunks and sentences say which."""
        for table, items in _TABLES.values():
            db.execute(f"DELETE FROM {table} WHERE rowid IN (SELECT id FROM {items} WHERE doc_id = ?)", (doc_id,))

    def backfill(self) -> None:
        """Index what a workspace made before this index holds (a no-op once indexed)."""
        for kind, (table, items) in _TABLES.items():
            have = self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            want = self._db.execute(f"SELECT count(*) FROM {items}").fetchone()[0]
            if have == want:
                continue
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(f"DELETE FROM {table}")
                self.add(self._db, kind, _texts(self._db, kind))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (id, BM25 score) for ``text``, best first; higher is better."""
        query = query_terms(text)
        if query is None or k <= 0:
            return []
        table = _TABLES[kind][0]
        with self._lock:
            rows = self._db.execute(f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ? "
                                    "ORDER BY s LIMIT ?", (query, k)).fetchall()
        return [(int(i), -float(s)) for i, s in rows]

    def spread(self, words: list[str]) -> dict[int, dict[str, float]]:
        """For each document, the share of its chunks (with their headings) holding each word."""
        out: dict[int, dict[str, float]] = {}
        with self._lock:
            totals = dict(self._db.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id").fetchall())
            for w in words:
                for doc, n in self._db.execute(
                        "SELECT c.doc_id, count(*) FROM chunk_terms JOIN chunks c ON c.id = chunk_terms.rowid "
                        "WHERE chunk_terms MATCH ? GROUP BY c.doc_id", (fts_word(w),)).fetchall():
                    out.setdefault(int(doc), {})[w] = int(n) / int(totals[doc])
        return out


def _texts(db: sqlite3.Connection, kind: str) -> list[tuple[int, str]]:
    """What is indexed for each row: its section path, then its text."""
    if kind == "sentence":
        return [(int(i), f"{c} {t}".strip()) for i, c, t in db.execute("SELECT id, context, text FROM sentences")]
    # SQLite takes a bare column from the row that holds the MIN: the chunk's first heading path
    heads = {int(c): str(h) for c, h, _ in db.execute(
        "SELECT chunk_id, context, MIN(ord) FROM sentences WHERE context != '' GROUP BY chunk_id")}
    return [(int(i), f"{heads.get(i, '')} {t}".strip()) for i, t in db.execute("SELECT id, text FROM chunks")]

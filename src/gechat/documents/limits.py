"""How much one document may hold, checked while it is read.

A file under the size limit can still unpack or expand into far more than its bytes (a PDF
of 100,000 empty pages, a .docx of nested XML, one line of text repeated a million times);
each limit here stops the loader at the point it is passed, before the rest is built, with
one line that names the file, the limit and the setting that raises it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gechat.errors import LoadError

if TYPE_CHECKING:
    from gechat.settings import Settings

MB = 2**20
# Markup nested deeper than this is no document a person wrote: libxml2 refuses XML past 256
# levels by default, and browsers flatten HTML past about 512.
MAX_DEPTH = 256


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one document; each has a ``Settings`` field of the same name (with ``_mb``
    where it is set in MB)."""

    max_file_bytes: int = 200 * MB
    max_unpacked_bytes: int = 200 * MB
    # A 500-page annual report holds about 1.6 MB of text and 12,000 sentences (a 198-page
    # 10-K: 0.62 MB, 4,704), and as a .docx some 200,000 XML elements; the defaults leave it
    # five to ten times that. Reading a PDF costs about 90 MB of memory per MB of its text,
    # so 8 MB keeps one document under about 1 GB.
    max_pages: int = 5000
    max_text_chars: int = 8 * MB
    max_sentences: int = 100_000
    max_elements: int = 2_000_000
    max_depth: int = MAX_DEPTH

    @classmethod
    def from_settings(cls, s: Settings) -> Limits:
        return cls(max_file_bytes=int(s.max_file_mb * MB), max_unpacked_bytes=int(s.max_unpacked_mb * MB),
                   max_pages=s.max_pages, max_text_chars=int(s.max_text_mb * MB),
                   max_sentences=s.max_sentences, max_elements=s.max_elements)


DEFAULT_LIMITS = Limits()


def over_limit(name: str, what: str, limit: str, setting: str) -> LoadError:
    """``name`` holds more ``what`` than ``limit`` allows (setting ``setting``)."""
    return LoadError(f"{name} {what}; the limit is {limit} (setting {setting}).",
                     hint=f"A document that large is most likely damaged, or built to overload a reader; "
                          f"split it, or raise {setting} only for a file you trust.")


class TextBudget:
    """Counts the characters a loader extracts and stops it once they pass the limit."""

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.used = 0

    def add(self, chars: int, where: str = "") -> None:
        self.used += chars
        if self.used > self.limit:
            at = f" by {where}" if where else ""
            raise over_limit(self.name, f"holds more than {self.limit / MB:g} MB of text{at}",
                             f"{self.limit / MB:g} MB", "max_text_mb")


def check_pages(name: str, pages: int, limits: Limits) -> None:
    if pages > limits.max_pages:
        raise over_limit(name, f"has {pages:,} pages", f"{limits.max_pages:,} pages", "max_pages")


__all__ = ["DEFAULT_LIMITS", "MAX_DEPTH", "MB", "Limits", "TextBudget", "check_pages", "over_limit"]

"""The loader stage: a file in, text plus layout out."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.limits import DEFAULT_LIMITS, Limits
from gechat.types import ParsedDocument


class Loader(Protocol):
    """Reads one kind of file. Raises ``LoadError`` with a clear message on bad input, and
    ``IngestTimeoutError`` when ``deadline`` passes (checked between pages or paragraphs), and
    stops with a ``LoadError`` as soon as the document passes one of ``limits``."""

    suffixes: tuple[str, ...]

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument: ...

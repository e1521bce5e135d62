"""The loader stage: a file in, text plus layout out."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from gechat.types import ParsedDocument


class Loader(Protocol):
    """Reads one kind of file. Raises ``LoadError`` with a clear message on bad input."""

    suffixes: tuple[str, ...]

    def load(self, path: Path) -> ParsedDocument: ...

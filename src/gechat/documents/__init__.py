"""Documents in, text with layout out: loaders, sentence splitting and chunking.

``load_document`` is the entry point: it checks the file, picks a loader by suffix and
validates what the loader returns. Loaders only read; they never write anything.
"""

from __future__ import annotations

from pathlib import Path

from gechat.documents.base import Loader
from gechat.documents.budget import UNLIMITED, Deadline, IngestTimeoutError
from gechat.documents.chunking import chunk_sentences, count_tokens
from gechat.documents.docx import DocxLoader
from gechat.documents.html import HtmlLoader
from gechat.documents.pdf import DEFAULT_MAX_BYTES, PdfLoader, check_size
from gechat.documents.sentences import split_sentences
from gechat.documents.text import MarkdownLoader, TextLoader
from gechat.errors import LoadError, UnsupportedFileError
from gechat.types import ParsedDocument

LOADERS: dict[str, Loader] = {
    suffix: loader
    for loader in (TextLoader(), MarkdownLoader(), HtmlLoader(), DocxLoader(), PdfLoader())
    for suffix in loader.suffixes
}


def supported_suffixes() -> list[str]:
    return sorted(LOADERS)


def load_document(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
                  deadline: Deadline = UNLIMITED) -> ParsedDocument:
    """Load one file; raises ``LoadError`` (or ``UnsupportedFileError``, or
    ``IngestTimeoutError`` once ``deadline`` passes) with a hint."""
    path = Path(path)
    if not path.exists():
        raise LoadError(f"{path} does not exist.", hint="Check the path.")
    if not path.is_file():
        raise LoadError(f"{path} is not a file.", hint="Pass a file, not a folder.")
    suffix = path.suffix.lower()
    loader = LOADERS.get(suffix)
    if loader is None:
        supported = " ".join(supported_suffixes())
        raise UnsupportedFileError(
            f"{path.name}: unsupported file type {suffix or '(no suffix)'!r}; "
            f"supported: {supported}.",
            hint=f"Convert it to one of: {supported}.",
        )
    check_size(path, max_bytes)  # before parsing: a huge file must not be read at all
    if isinstance(loader, PdfLoader):
        loader = PdfLoader(max_bytes=max_bytes)
    doc = loader.load(path, deadline)
    _validate(doc, path)
    return doc


def _validate(doc: ParsedDocument, path: Path) -> None:
    if not doc.text.strip():
        raise LoadError(f"{path.name} is empty: no text could be extracted.",
                        hint="Check the file opens in a normal viewer and shows text.")
    n = len(doc.text)
    bad = [b for b in doc.blocks if not 0 <= b.start <= b.end <= n]
    if bad or not doc.pages:
        # A loader bug, not a user error: say so plainly rather than store broken offsets.
        raise LoadError(f"{path.name}: the {doc.kind} loader produced inconsistent offsets.",
                        hint="Please report this file as a bug.")


__all__ = [
    "LOADERS",
    "UNLIMITED",
    "Deadline",
    "DocxLoader",
    "HtmlLoader",
    "IngestTimeoutError",
    "Loader",
    "MarkdownLoader",
    "PdfLoader",
    "TextLoader",
    "chunk_sentences",
    "count_tokens",
    "load_document",
    "split_sentences",
    "supported_suffixes",
]

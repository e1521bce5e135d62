"""Documents in, text with layout out: loaders, sentence splitting and chunking.

``load_document`` is the entry point: it checks the file, picks a loader by suffix and
validates what the loader returns. Loaders only read; they never write anything.
"""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

from gechat.documents.base import Loader
from gechat.documents.budget import UNLIMITED, Deadline, IngestTimeoutError
from gechat.documents.chunking import chunk_sentences, count_tokens
from gechat.documents.docx import DocxLoader
from gechat.documents.html import HtmlLoader
from gechat.documents.limits import DEFAULT_LIMITS, Limits
from gechat.documents.pdf import PdfLoader, check_size
from gechat.documents.sentences import split_sentences
from gechat.documents.text import MarkdownLoader, TextLoader
from gechat.errors import GechatError, LoadError, UnsupportedFileError
from gechat.types import ParsedDocument

MAX_ZIP_PARTS = 10_000  # a .docx has tens of parts; 0xFFFF means more, in a zip64 record
LOADERS: dict[str, Loader] = {
    suffix: loader
    for loader in (TextLoader(), MarkdownLoader(), HtmlLoader(), DocxLoader(), PdfLoader())
    for suffix in loader.suffixes
}


def supported_suffixes() -> list[str]:
    return sorted(LOADERS)


def load_document(path: Path, *, max_bytes: int | None = None, max_unpacked: int | None = None,
                  deadline: Deadline = UNLIMITED, limits: Limits | None = None) -> ParsedDocument:
    """Load one file; raises ``LoadError`` (or ``UnsupportedFileError``, or
    ``IngestTimeoutError`` once ``deadline`` passes) with a hint. Whatever a parsing library
    raises on a damaged file is that file's ``LoadError`` too, so a batch goes on. ``limits``
    (``Limits.from_settings``) bound what one document may hold; ``max_bytes`` and
    ``max_unpacked``, where given, override its two size limits."""
    limits = limits or DEFAULT_LIMITS
    if max_bytes is not None or max_unpacked is not None:
        limits = replace(limits, max_file_bytes=limits.max_file_bytes if max_bytes is None else max_bytes,
                         max_unpacked_bytes=limits.max_unpacked_bytes if max_unpacked is None else max_unpacked)
    max_bytes, max_unpacked = limits.max_file_bytes, limits.max_unpacked_bytes
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
    try:
        if isinstance(loader, DocxLoader):
            check_unpacked(path, max_unpacked)  # a small .docx can unpack to gigabytes of XML
        doc = loader.load(path, deadline, limits)
    except GechatError:
        raise
    except Exception as e:  # a library's on a damaged file (RecursionError, MemoryError, zlib.error too)
        detail = " ".join(str(e).split())[:200] or type(e).__name__
        raise LoadError(f"{path.name} could not be read as {suffix}: {detail}",
                        hint="The file may be damaged or not what its name says: open it and save it again.") from e
    _validate(doc, path)
    return doc


def check_unpacked(path: Path, limit: int) -> None:
    """Refuses a zip-based file whose parts would unpack past ``limit`` bytes, from the sizes
    its directory declares (zipfile checks each part's size again while reading it)."""
    parts = _zip_parts(path)
    if parts > MAX_ZIP_PARTS:  # zipfile would build an object per part before anything else
        raise LoadError(f"{path.name} holds {parts:,} parts; a document has at most a few hundred "
                        f"(the limit is {MAX_ZIP_PARTS:,}); it was not read.",
                        hint="The file is damaged or built to overload a reader.")
    try:
        with zipfile.ZipFile(path) as z:
            total = sum(max(i.file_size, 0) for i in z.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
        return  # the loader says what is wrong with it
    if total > limit:
        raise LoadError(f"{path.name} unpacks to {total / 2**20:,.0f} MB; the limit is {limit / 2**20:g} MB.",
                        hint="A document that large is most likely damaged or built to overload a reader; "
                             "raise the limit (setting max_unpacked_mb) only for a file you trust.")


def _zip_parts(path: Path) -> int:
    """The part count a zip's end record declares (0 if there is none: the loader says so)."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - 65_557))  # the end record, and its longest comment
            tail = f.read()
    except OSError:
        return 0
    at = tail.rfind(b"PK\x05\x06")
    return int.from_bytes(tail[at + 10:at + 12], "little") if 0 <= at <= len(tail) - 22 else 0


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
    "Limits",
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

"""Uploaded files: checked by name, size and first bytes, then kept under ``uploads/``.

The checks are cheap and happen before anything is written, so a bad request leaves no
trace. Files are kept (not temporary) because a document's stored path is where its pages
are rendered from.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import unicodedata
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from gechat.api.problems import ApiError

_CHUNK = 1 << 20
# the first bytes that betray a binary file renamed to a text suffix
_BINARY = (b"%PDF-", b"PK\x03\x04", b"\x7fELF", b"MZ", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"\xd0\xcf\x11\xe0")
_UNICODE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")  # UTF-16 text has NUL bytes, legitimately
KINDS = {".pdf": "pdf", ".docx": "docx", ".txt": "text", ".md": "text", ".markdown": "text",
         ".html": "text", ".htm": "text"}


@dataclass
class SavedFile:
    name: str  # as the client sent it, made safe
    path: Path
    created: bool  # False: an identical file was already there, and it is not ours to delete


@dataclass
class Upload:
    name: str
    data: BinaryIO


@dataclass(frozen=True)
class UploadLimit:
    """The largest upload, and how the setting that sets it reads: "max_file_mb = 200 MB".
    MB as the setting's name says: 10^6 bytes, so the number in a 413 is the number set."""

    bytes: int
    label: str

    @classmethod
    def of(cls, mb: float, setting: str) -> UploadLimit:
        return cls(int(mb * 1_000_000), f"{setting} = {mb:g} MB")


def check(up: Upload, limit: UploadLimit) -> None:
    """Raises a 413 or 415 problem naming the file."""
    suffix = Path(up.name).suffix.lower()
    kind = KINDS.get(suffix)
    if kind is None:
        raise ApiError(415, f"{up.name}: unsupported file type {suffix or '(no suffix)'!r}",
                       hint=f"upload one of: {' '.join(sorted(KINDS))}")
    size = _size(up.data)
    if size > limit.bytes:
        raise ApiError(413, f"{up.name} is {size / 1e6:.1f} MB, larger than {limit.label} (the upload limit)",
                       hint="split the document, or start the server with a higher limit")
    if size == 0:
        raise ApiError(422, f"{up.name} is empty", hint="upload a file with some text in it")
    head = up.data.read(8192)
    up.data.seek(0)
    if not _looks_like(kind, head, up.data):
        raise ApiError(415, f"{up.name}: the content is not a {suffix} file",
                       hint="check the file opens in a normal viewer, and that its suffix matches its type")


def save(up: Upload, folder: Path) -> SavedFile:
    """Keeps the file under ``folder``; a name in use by other content gets a -2, -3, ... suffix."""
    folder.mkdir(parents=True, exist_ok=True)
    sha = _sha256(up.data)
    for candidate in _candidates(up.name):
        path = folder / candidate
        try:
            out = path.open("xb")  # claims the name atomically: concurrent uploads never share a file
        except FileExistsError:
            if path.is_file() and _sha256_path(path) == sha:
                return SavedFile(up.name, path.resolve(), created=False)
            continue
        with out:
            up.data.seek(0)
            shutil.copyfileobj(up.data, out, _CHUNK)
        return SavedFile(up.name, path.resolve(), created=True)
    raise AssertionError("unreachable: the last candidate name is unique")


def safe_name(client_name: str | None) -> str:
    """A file name that cannot leave the folder or hide: no separators, no leading dots."""
    name = unicodedata.normalize("NFC", client_name or "")
    name = re.split(r"[/\\]", name)[-1]
    name = re.sub(r"[^\w.\- ]", "_", name).strip(" .")
    name = re.sub(r"_{2,}", "_", name)
    if not name:
        name = "upload"
    stem, dot, suffix = name.rpartition(".")
    if dot and len(name) > 120:
        name = f"{stem[: 119 - len(suffix)]}.{suffix}"
    return name[:120]


def _candidates(name: str) -> list[str]:
    p = Path(name)
    return [name, *(f"{p.stem}-{i}{p.suffix}" for i in range(2, 100)), f"{p.stem}-{uuid.uuid4().hex[:12]}{p.suffix}"]


def _looks_like(kind: str, head: bytes, data: BinaryIO) -> bool:
    if kind == "pdf":
        return b"%PDF-" in head[:1024]  # readers accept the header anywhere in the first KB
    if kind == "docx":
        if not head.startswith(b"PK\x03\x04"):
            return False
        try:
            with zipfile.ZipFile(data) as z:
                return "word/document.xml" in z.namelist()
        except (zipfile.BadZipFile, OSError):
            return False
        finally:
            data.seek(0)
    if head.startswith(_UNICODE_BOMS):
        return True
    return not head.startswith(_BINARY) and b"\x00" not in head


def _size(f: BinaryIO) -> int:
    f.seek(0, io.SEEK_END)
    size = f.tell()
    f.seek(0)
    return size


def _sha256(f: BinaryIO) -> str:
    h = hashlib.sha256()
    f.seek(0)
    while chunk := f.read(_CHUNK):
        h.update(chunk)
    f.seek(0)
    return h.hexdigest()


def _sha256_path(path: Path) -> str:
    with path.open("rb") as f:
        return _sha256(f)

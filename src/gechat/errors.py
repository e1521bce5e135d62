"""Errors a user can act on: every one carries a one-line message and a hint.

The CLI prints ``message`` and ``hint`` and exits non-zero; it never shows a traceback
for these. Anything else that escapes is a bug.
"""

from __future__ import annotations


def first_line(e: BaseException) -> str:
    """What a library's error says, in the one line a message has room for."""
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__


class GechatError(Exception):
    """Base class: an error with a hint on what to do about it."""

    hint: str = ""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        return self.message


class LoadError(GechatError):
    """A document could not be read (encrypted, corrupt, empty, image-only, too big)."""

    hint = "Check the file opens in a normal viewer; scanned PDFs need OCR first."


class UnsupportedFileError(LoadError):
    hint = "Supported: .txt .md .html .htm .docx .pdf"


class ModelError(GechatError):
    """A model is missing, corrupt, or its server cannot be reached."""

    hint = "Run `gechat models list` to see what is installed."


class StoreError(GechatError):
    hint = "Check the workspace path, or start a new workspace with --workspace."


class DuplicateDocumentError(StoreError):
    """The file is stored already: another writer (a server replica, a Ray worker) was first."""


class ConfigError(GechatError):
    hint = "See `gechat --help` and the Settings section of the README."

"""gechat: answers about your own documents, with verbatim evidence for every claim."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gechat.settings import Settings
from gechat.types import Answer, Claim, Evidence, Sentence

if TYPE_CHECKING:
    from gechat.pipeline import Workspace

__all__ = ["Answer", "Claim", "Evidence", "Sentence", "Settings", "Workspace"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Workspace pulls in every stage; import it only when asked for.
    if name == "Workspace":
        from gechat.pipeline import Workspace

        return Workspace
    raise AttributeError(name)

"""Ingestion watches itself: a time budget per document and stage.

A document whose parsing or sentence splitting takes far longer than its size warrants (a
pathological layout, a parser bug, a pattern that backtracks) must not hold the CLI or the
server's single job worker for everyone. Each stage gets ``base + per_mb x size`` seconds and
checks its deadline between units of work (pages, paragraphs, blocks); past it, the document
fails with an error that names the stage and where it stopped, and the batch goes on.
The checks are cooperative: one call into a parser's C code (one PDF page) is not cut short,
but it ends, and the next check stops the document.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gechat.errors import LoadError


class IngestTimeoutError(LoadError):
    """A document took far longer to read than its size warrants, and was stopped."""

    hint = ("If this is an ordinary document, please report it; to allow more time, raise "
            "ingest_budget_s or ingest_budget_s_per_mb (e.g. GECHAT_INGEST_BUDGET_S=600).")


@dataclass
class Deadline:
    """``stage`` of reading ``name`` may take ``seconds``; ``None``: no limit."""

    name: str
    stage: str  # "parsing", "splitting": what the error says was too slow
    seconds: float | None
    why: str = ""  # how the budget was set, for the message
    clock: Callable[[], float] = time.perf_counter
    started: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    @classmethod
    def for_size(cls, name: str, stage: str, size_bytes: int, base_s: float | None, per_mb_s: float,
                 unit: str = "MB") -> Deadline:
        """``base_s + per_mb_s x size``: a budget that grows with the document; none when
        ``base_s`` is 0 or None."""
        if not base_s:
            return cls(name, stage, None)
        mb = size_bytes / 1e6
        return cls(name, stage, base_s + per_mb_s * mb,
                   why=f"{base_s:g} s + {per_mb_s:g} s per {unit} x {mb:.2f} {unit}")

    def check(self, where: str = "") -> None:
        """Raises ``IngestTimeoutError`` once the budget is spent; ``where`` says how far it got."""
        if self.seconds is None:
            return
        spent = self.clock() - self.started
        if spent > self.seconds:
            at = f" at {where}" if where else ""
            raise IngestTimeoutError(
                f"{self.name}: {self.stage} was stopped{at} after {spent:.1f} s, over its budget of "
                f"{self.seconds:.1f} s ({self.why}); the document was not added.")


UNLIMITED = Deadline("", "", None)

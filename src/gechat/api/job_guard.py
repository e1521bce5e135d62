"""Stopping a running job: a client's cancel, the time budget, the memory budget.

The worker checks its guard at every progress report ``Workspace.add`` makes (between
steps, between embedding slices, after each graph unit), and raises ``Stopped`` from
there: nothing is half-written, because the store writes a document, and the graph each
unit, in one transaction, and no report comes in the middle of one.

Parsing a big file makes no reports for a long while, so a watchdog thread looks too. When
a stop is wanted and the worker has been parsing for longer than ``GRACE_S`` since, it
raises ``Stopped`` inside the worker thread (``PyThreadState_SetAsyncExc``). Only during
parsing: it reads the file and writes nothing, so there is nothing to leave half-done, and
the flag that allows it is switched under a lock, so the exception is never set once the
worker has left parsing. Python drops an exception that lands in a weakref callback or a
``__del__`` (the garbage collector runs them anywhere), so while the worker still parses
``REFIRE_S`` later, it is raised again.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

GRACE_S = 0.3  # the cooperative check usually wins; the watchdog only helps a long parse
REFIRE_S = 0.5  # far longer than a delivered exception takes to reach the worker's handler
_STATM = Path("/proc/self/statm")


class Stopped(BaseException):
    """A BaseException, so that a loader's ``except Exception`` (which turns its parser's
    errors into a file's failure) does not swallow a cancel."""


@dataclass(frozen=True)
class StopReason:
    state: Literal["cancelled", "failed"]
    message: str
    hint: str | None = None


CANCELLED = StopReason("cancelled", "cancelled by a client")
SHUTDOWN = StopReason("failed", "the server stopped; the job resumes when it starts again")


class Guard:
    def __init__(self, timeout_s: float | None, memory_mb: float | None) -> None:
        self.timeout_s, self.memory_mb = timeout_s or None, memory_mb or None
        self.started = time.monotonic()
        self.reason: StopReason | None = None
        self.worker = threading.get_ident()  # built by the worker thread, for the job it runs
        self._stop_at = 0.0
        self._lock = threading.Lock()
        self._parsing = False
        self._fired_at: float | None = None

    def stop(self, reason: StopReason) -> None:
        """Asks the job to stop (the first reason wins)."""
        with self._lock:
            if self.reason is None:
                self.reason, self._stop_at = reason, time.monotonic()

    def check(self) -> None:
        """Raises ``Stopped`` once the job was asked to stop or ran over a budget (worker thread)."""
        over = self.over_budget()
        if over is not None:
            self.stop(over)
        if self.reason is not None:
            raise Stopped

    def parsing(self, on: bool) -> None:
        """The worker says whether it is inside a parse (where the watchdog may interrupt it)."""
        with self._lock:
            self._parsing = on

    def watch(self) -> None:
        """The watchdog's look (its own thread): interrupts a parse that a stop has waited on."""
        over = self.over_budget()
        if over is not None:
            self.stop(over)
        with self._lock:
            now = time.monotonic()
            if (self.reason is None or not self._parsing or now - self._stop_at < GRACE_S
                    or (self._fired_at is not None and now - self._fired_at < REFIRE_S)):
                return
            self._fired_at = now
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.worker), ctypes.py_object(Stopped))

    def over_budget(self) -> StopReason | None:
        if self.timeout_s is not None and time.monotonic() - self.started > self.timeout_s:
            return StopReason("failed", f"the job ran longer than job_timeout_s = {self.timeout_s:g} s",
                              hint="split the upload into smaller jobs, or raise job_timeout_s")
        rss = rss_mb()
        if self.memory_mb is not None and rss is not None and rss > self.memory_mb:
            return StopReason("failed", f"the server's memory use reached {rss:.0f} MB, over job_memory_mb = "
                                        f"{self.memory_mb:g} MB", hint="upload a smaller file, or raise job_memory_mb")
        return None


def rss_mb() -> float | None:
    """The process's resident memory in MB; None where /proc is not there."""
    try:
        pages = int(_STATM.read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6

"""Process-wide locks: the resources behind them are process-wide too.

LLM_LOCK: there is one local model per process; two generations at once would only slow
each other (llama.cpp) or corrupt its state. MUPDF_LOCK: MuPDF is not thread-safe, so
parsing a PDF and rendering a page never overlap.

MODEL decides who gets the model between questions and read-aheads (``/ask/prepare``): a
read-ahead uses it only while no question wants it, stops within a slice of prompt when one
does (keeping what it read), and gives way to a newer read-ahead (the text typed since).
Deletes and ingestion jobs with the LLM graph extractor take it as questions do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

LLM_LOCK = threading.Lock()
MUPDF_LOCK = threading.Lock()


class ModelAccess:
    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self._guard = threading.Lock()
        self._questions_waiting = 0
        self._newest_read_ahead = 0
        self._read_ahead_holds = False

    def acquire(self, timeout: float = -1) -> bool:
        """Takes the model as a question does: a read-ahead holding it stops within a slice.
        Ingestion jobs and deletes use this too, so none of them waits out a read-ahead."""
        with self._guard:
            self._questions_waiting += 1
        try:
            return self.lock.acquire(timeout=timeout)
        finally:
            with self._guard:
                self._questions_waiting -= 1

    def release(self) -> None:
        self.lock.release()

    @contextmanager
    def for_question(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    @contextmanager
    def for_read_ahead(self) -> Iterator[Callable[[], bool] | None]:
        """Yields the read-ahead's stop test while it holds the model, or None at once when a
        question (or anything else) has it or wants it."""
        with self._guard:
            self._newest_read_ahead += 1
            me = self._newest_read_ahead

        def stop() -> bool:
            return self._questions_waiting > 0 or self._newest_read_ahead != me

        while True:
            if stop():
                yield None
                return
            if self.lock.acquire(timeout=0.05):
                break
            if not self._read_ahead_holds:  # a question, an ingestion job: not ours to wait for
                yield None
                return
        self._read_ahead_holds = True
        try:
            yield stop
        finally:
            self._read_ahead_holds = False
            self.lock.release()


MODEL = ModelAccess(LLM_LOCK)

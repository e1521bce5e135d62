"""Who gets the one model: questions first, read-aheads only in between, the newest
read-ahead displacing an older one (gechat.api.locks.ModelAccess)."""

from __future__ import annotations

import threading
import time

from gechat.api.locks import ModelAccess


def read_ahead(access: ModelAccess, log: list[str], name: str, started: threading.Event) -> threading.Thread:
    """A read-ahead that reads until told to stop (a prefill's slices, in miniature)."""

    def run() -> None:
        with access.for_read_ahead() as stop:
            if stop is None:
                log.append(f"{name} busy")
                started.set()
                return
            started.set()
            deadline = time.monotonic() + 10
            while not stop() and time.monotonic() < deadline:
                time.sleep(0.01)
            log.append(f"{name} stopped" if stop() else f"{name} finished")

    t = threading.Thread(target=run)
    t.start()
    return t


def test_a_question_stops_a_read_ahead_and_gets_the_model() -> None:
    access, log, started = ModelAccess(threading.Lock()), [], threading.Event()
    t = read_ahead(access, log, "a", started)
    started.wait(5)
    t0 = time.monotonic()
    with access.for_question():
        waited = time.monotonic() - t0
        log.append("question")
    t.join()
    assert log == ["a stopped", "question"] and waited < 1


def test_a_newer_read_ahead_displaces_an_older_one() -> None:
    access, log = ModelAccess(threading.Lock()), []
    first, second = threading.Event(), threading.Event()
    a = read_ahead(access, log, "a", first)
    first.wait(5)
    b = read_ahead(access, log, "b", second)
    assert second.wait(5)  # b holds the model: a gave way
    assert log == ["a stopped"]
    with access.for_question():
        log.append("question")
    a.join()
    b.join()
    assert log == ["a stopped", "b stopped", "question"]


def test_a_read_ahead_never_waits_for_a_question() -> None:
    access, log, started = ModelAccess(threading.Lock()), [], threading.Event()
    with access.for_question():
        t = read_ahead(access, log, "a", started)
        t.join(5)
        assert log == ["a busy"]


def test_a_delete_or_ingestion_stops_a_read_ahead_too() -> None:
    """holding() (deletes) and the LLM graph extractor's jobs take the model as a question does."""
    from gechat.api.workspaces import holding

    access, log, started = ModelAccess(threading.Lock()), [], threading.Event()
    t = read_ahead(access, log, "a", started)
    started.wait(5)
    with holding(threading.Lock(), access, timeout=2):
        log.append("delete")
    t.join()
    assert log == ["a stopped", "delete"]
    assert access.acquire(timeout=0.1)
    assert not access.acquire(timeout=0.05)  # held: a timed wait gives up
    access.release()

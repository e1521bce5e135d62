"""A test hook: ``GECHAT_TEST_KILL_AT=POINT`` makes the process SIGKILL itself at POINT.

The crash tests (tests/integration/test_kill_points.py, benchmarks/reliability.py) must kill
``gechat add`` at exact places, between two statements of one transaction, which no outside
``kill -9`` hits reliably. The variable is read once, here; unset (always, outside those
tests) a point costs one comparison.

Points: ``reading``, ``parsing``, ``storing`` (the add's steps, before each), ``document-row``
and ``vectors`` (inside the document's transaction, after its row and after its vectors),
``committed`` (after that transaction, before the graph), ``graph-unit`` (inside a graph
unit's transaction, before it commits). ``POINT:N`` kills at the point's Nth passing
(``graph-unit:2``: with one unit of the graph written). With ``GECHAT_TEST_KILL_ONCE=FILE``
only the first process to reach the point dies (it makes FILE first): the Ray tests' retry
then gets through.
"""

from __future__ import annotations

import os
import signal

ENV = "GECHAT_TEST_KILL_AT"
ONCE_ENV = "GECHAT_TEST_KILL_ONCE"
POINTS = ("reading", "parsing", "storing", "document-row", "vectors", "committed", "graph-unit")
_AT, _, _NTH = (os.environ.get(ENV) or "").partition(":")
_passed = 0


def kill_point(name: str) -> None:
    global _passed
    if not _AT or name != _AT:
        return
    _passed += 1
    if _passed < int(_NTH or 1):
        return
    once = os.environ.get(ONCE_ENV)
    if once:
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return  # another process died here already
    os.kill(os.getpid(), signal.SIGKILL)

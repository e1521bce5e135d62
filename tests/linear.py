"""Does a text function run in time linear in its input? Measured, not assumed.

A pattern that backtracks badly is quadratic (t(10n) ~ 100 t(n)) or exponential (it never
returns). Both show when an input is grown tenfold: a linear function takes ~10x as long.
The checks run in a forked child, so an exponential case is killed after a time-out and
reported instead of hanging the test run (Python's regex engine holds the GIL: no signal or
thread can stop it). Times are the best of a few repeats and the bound is generous (20x, and
any call under a few milliseconds at the large size passes), so the checks measure growth,
never a wall-clock figure.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

GROWTH = 10  # the input is grown this many times ...
BOUND = 20.0  # ... and may take at most this many times as long
FLOOR_S = 0.003  # a call faster than this at the large size passes whatever its ratio
REPEATS = 3
TIMEOUT_S = 30.0  # for one input pair; an exponential case takes hours

Make = Callable[[int], str]


@dataclass(frozen=True)
class Growth:
    input: str  # a short sample of the input, for messages
    small_s: float
    large_s: float

    @property
    def ratio(self) -> float:
        return self.large_s / max(self.small_s, 1e-9)

    @property
    def linear(self) -> bool:
        return self.large_s <= BOUND * self.small_s or self.large_s < FLOOR_S

    def __str__(self) -> str:
        if self.large_s == float("inf"):
            return f"{self.input}: did not finish within {TIMEOUT_S:.0f} s (exponential?)"
        return (f"{self.input}: {self.small_s * 1e3:.2f} ms -> {self.large_s * 1e3:.2f} ms "
                f"at {GROWTH}x the input ({self.ratio:.0f}x)")


def sample(make: Make) -> str:
    text = make(40)
    return repr(text[:60] + ("..." if len(text) > 60 else ""))


def _best(fn: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t)
    return best


def _child(conn: Connection, fn: Callable[[str], object], makes: Sequence[Make], n: int) -> None:
    # No collector while timing: its pauses scale with the heap the test run left behind
    # (traversed on each full collection), not with the input.
    gc.freeze()
    gc.disable()
    try:
        for make in makes:
            small, large = make(n), make(GROWTH * n)
            conn.send("start")
            fn(small)  # warm caches and lazy imports before timing
            conn.send((_best(fn, small), _best(fn, large)))
    except Exception as e:  # a bug in fn, not slowness: the test shows it
        conn.send(e)
    conn.close()


def growths(fn: Callable[[str], object], makes: Sequence[Make], n: int,
            timeout: float = TIMEOUT_S) -> list[Growth]:
    """``fn`` timed on ``make(n)`` and ``make(GROWTH * n)`` for each of ``makes``, in one
    child process. An input pair that takes longer than ``timeout`` ends the child and comes
    back as a Growth with an infinite large time (an exponential case); an exception raised
    by ``fn`` is raised here."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, makes, n), daemon=True)
    proc.start()
    child.close()
    out: list[Growth] = []
    try:
        for make in makes:
            if not parent.poll(timeout) or parent.recv() != "start" or not parent.poll(timeout):
                out.append(Growth(sample(make), float("nan"), float("inf")))
                break
            got = parent.recv()
            if isinstance(got, Exception):
                raise got
            small_s, large_s = got
            out.append(Growth(sample(make), small_s, large_s))
    except EOFError:
        raise RuntimeError(f"the timing process died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    return out


def repeat_to(unit: str, prefix: str = "", suffix: str = "") -> Make:
    """Inputs of about ``n`` characters: ``prefix``, then ``unit`` repeated, then ``suffix``."""
    def make(n: int) -> str:
        return prefix + unit * max(1, n // max(len(unit), 1)) + suffix
    return make


RETRIES = 2


def not_linear(fn: Callable[[str], object], makes: Sequence[Make], n: int) -> list[str]:
    """The inputs on which ``fn`` grows faster than linear, described for an assertion.

    An input that looks non-linear is timed again (up to ``RETRIES`` times) and fails only
    if it does every time: a shared machine can stall one measurement, but a quadratic
    pattern is slow on every run. An input that did not finish is not retried."""
    bad: list[str] = []
    for make, g in zip(makes, growths(fn, makes, n), strict=False):
        for _ in range(RETRIES):
            if g.linear or g.large_s == float("inf"):
                break
            (g,) = growths(fn, [make], n)
        if not g.linear:
            bad.append(str(g))
    return bad

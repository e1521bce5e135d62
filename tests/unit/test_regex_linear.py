"""Every regular expression in the package runs in time linear in its input.

Issue 33: one sentence-end pattern took minutes on a 10-K's table of contents (a run of
leader dots glued to a page number). This finds every pattern the package compiles, at
module level or inline (``re.sub(r"...", ...)``), sees from the source how each is applied
(``match``/``fullmatch`` are anchored; anything else searches every position), and times it
on adversarial inputs grown tenfold: runs of each character and of short mixes, and of the
pattern's own words. Quadratic or exponential growth fails with the input that shows it.
"""

from __future__ import annotations

import ast
import importlib
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import gechat
from tests.linear import Make, not_linear, repeat_to

SRC = Path(gechat.__file__).parent
N = 500  # characters; grown to 5,000. Enough for quadratic growth to show, fast when linear

UNITS = [c for c in string.printable if c not in "\x0b\x0c"] + [
    "…", "\u00a0", "“", "”", "’", "é", ". ", ".1", "1.", "a.", "A.", "A. ", "a ", "A ", "Aa ", "aA",
    "a1", "1,", "1 ", " \n", "\n\n", "\n ", " \t", "\t\n", "(a", "a)", " (", "( ", "a (", "- ", "-1",
    "1-", "$1", "1%", ". \n", "1.1.", "A-", "a-", "'s ", "a'", "A'", "Ab.", "a, ", "A, ", "a\n",
    "A\n", "**", "__", "```", "# ", "> ", "| ", "1) ", "1. ", "a: ", "A: ", ": ",
]
# Calls whose pattern is built at run time. Each was read for linear time; a new one must be too.
REVIEWED_DYNAMIC = {
    # a named constant, fullmatch on a short identifier
    "api/workspaces.py": ["re.compile(WS_ID_PATTERN)"],
    # escaped literal words joined by \s+: no alternation, no nested quantifier, and each
    # \s+ run is followed by a literal that is not a space
    "documents/headings.py": ["re.compile('\\\\s+'.join((re.escape(w) for w in words)))"],
    # an alternation of escaped literal words between word boundaries, then a fixed optional
    # "'s": no quantifier but the last "?", nothing nested
    "retrieve/names.py": ["re.sub(pattern, ' ', question)"],
    # escaped literal words joined by \s+ (each run followed by a literal that is not a
    # space), a fixed optional "s", and one-character lookarounds: nothing nested
    "retrieve/synonyms.py": ["re.compile(f'(?<![\\\\w&]){words}s?(?![\\\\w&])', re.IGNORECASE)"],
}


@dataclass
class Found:
    where: str
    pattern: re.Pattern[str]
    modes: set[str] = field(default_factory=set)


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        yield ".".join(["gechat", *parts]), path


def _flags(node: ast.Call, func: str) -> int:
    at = {"compile": 1, "sub": 4, "subn": 4, "split": 3}.get(func, 2)
    arg = next((k.value for k in node.keywords if k.arg == "flags"), None)
    arg = arg or (node.args[at] if len(node.args) > at else None)
    return int(eval(ast.unparse(arg), {"re": re})) if arg is not None else 0  # re.I | re.M only


def _collect() -> tuple[list[Found], list[str]]:
    found: dict[int, Found] = {}
    dynamic: list[str] = []
    for name, path in _modules():
        module = importlib.import_module(name)
        rel = str(path.relative_to(SRC))
        names: dict[str, list[re.Pattern[str]]] = {}
        for key, value in vars(module).items():
            items = value if isinstance(value, tuple | list) else [value]
            pats = [v for v in items if isinstance(v, re.Pattern)]
            if pats:
                names[key] = pats
                for p in pats:
                    found.setdefault(id(p), Found(f"{rel}: {key}", p))
        tree = ast.parse(path.read_text())
        top = {id(n) for stmt in tree.body for n in ast.walk(stmt) if isinstance(stmt, ast.Assign)}
        receivers = set()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner, func = node.func.value, node.func.attr
            if isinstance(owner, ast.Name) and owner.id in names:
                receivers.add(id(owner))
                for p in names[owner.id]:
                    found[id(p)].modes.add(func)
            elif isinstance(owner, ast.Name) and owner.id == "re" and func != "escape" and id(node) not in top:
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    p = re.compile(arg.value, _flags(node, func))
                    found[id(p)] = Found(f"{rel}:{node.lineno}", p, {func})
                else:
                    dynamic.append(f"{rel}: {ast.unparse(node)}")
        for node in ast.walk(tree):  # a pattern used other than as `NAME.method(...)`
            if isinstance(node, ast.Name) and node.id in names and id(node) not in receivers \
                    and isinstance(node.ctx, ast.Load):
                for p in names[node.id]:
                    found[id(p)].modes.add("finditer")
    return list(found.values()), dynamic


FOUND, DYNAMIC = _collect()


def _runner(p: re.Pattern[str], mode: str) -> Callable[[str], object]:
    if mode == "match":
        return p.match
    if mode == "fullmatch":
        return p.fullmatch
    return lambda s: sum(1 for _ in p.finditer(s))


def _inputs(p: re.Pattern[str]) -> list[Make]:
    own = sorted({w for w in re.findall(r"[A-Za-z]{2,}", p.pattern) if not re.fullmatch(r"[swdbSWDB]", w)})
    units = UNITS + [u for w in own[:25] for u in (w + " ", w.capitalize() + " ", w.upper() + " ")]
    return [make for u in units for make in (repeat_to(u), repeat_to(u, "A ", "x"))]


def test_the_package_compiles_patterns_to_check() -> None:
    assert len(FOUND) > 50  # the scan works: it finds the module-level and inline patterns


def test_patterns_built_at_run_time_were_reviewed() -> None:
    unreviewed = [d for d in DYNAMIC
                  if not any(d.startswith(f"{f}: ") and any(s in d for s in sigs)
                             for f, sigs in REVIEWED_DYNAMIC.items())]
    assert not unreviewed, "read these for linear time, then list them in REVIEWED_DYNAMIC"


@pytest.mark.parametrize("found", FOUND, ids=lambda f: f.where)
def test_pattern_runs_in_linear_time(found: Found) -> None:
    modes = {m if m in {"match", "fullmatch"} else "finditer" for m in found.modes} or {"finditer"}
    slow = [f"{mode}: {g}" for mode in sorted(modes)
            for g in not_linear(_runner(found.pattern, mode), _inputs(found.pattern), N)]
    assert not slow, f"{found.pattern.pattern!r} grows faster than its input:\n" + "\n".join(slow[:8])

"""Kill ``gechat add`` with SIGKILL at each point of adding a document, then reopen the workspace.

Each trial: a fresh workspace; ``gechat add`` killed at one point (``gechat.store.faults``,
the test hook ``GECHAT_TEST_KILL_AT``); the database checked (``gechat.store.consistency``);
the same file added again; a file with another embedder refused; a question answered; for a
kill inside the graph, ``gechat graph build`` resumes it. tests/integration/test_kill_points.py
and benchmarks/reliability.py both run these trials.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gechat.settings import Settings
from gechat.store import consistency
from gechat.store.base import Store
from gechat.store.faults import ENV
from gechat.store.registry import DB_NAME, open_store, scheme

# (point as GECHAT_TEST_KILL_AT names it, whether the document was committed when it died)
POINTS: tuple[tuple[str, bool], ...] = (
    ("reading", False), ("parsing", False), ("storing", False), ("document-row", False), ("vectors", False),
    ("committed", True), ("graph-unit:2", True),
)
TEXT = "\n\n".join([
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.",
    "Gustave Eiffel's company designed and built the tower. It is 330 metres tall.",
    "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.",
    "Marie Curie worked in Paris. She won the Nobel Prize in Physics in 1903.",
    "The Louvre is a museum in Paris. It holds the Mona Lisa by Leonardo da Vinci.",
    "Angela Merkel was Chancellor of Germany. She studied physics in Leipzig.",
    # enough sentences for two graph units (spaCy takes 64 chunks at once) at GRAPH_ENV's chunk size
    *(" ".join(f"Town {i + j} lies on the river Elbe in Saxony." for j in range(5)) for i in range(0, 80, 5)),
]) + "\n"
EMBEDDER = "hashing/256"
GRAPH_ENV = {"GECHAT_GRAPH": "fast", "GECHAT_CHUNK_TOKENS": "12"}  # a chunk a sentence: many graph units


@dataclass
class Trial:
    point: str
    committed: bool  # what the point is: before the document's commit, or after
    rc: int = 0
    documents: int = -1  # after the kill
    embedder: str | None = None
    problems: list[str] = field(default_factory=list)
    readd_rc: int = -1
    documents_after: int = -1
    problems_after: list[str] = field(default_factory=list)
    other_embedder_refused: bool = False
    ask_rc: int = -1
    graph_complete: bool | None = None  # a kill in the graph: did `gechat graph build` resume it
    graph_at_kill: tuple[int, int] = (0, 0)  # (chunks in the graph, chunks) when it died

    @property
    def killed(self) -> bool:
        return self.rc == -signal.SIGKILL

    @property
    def consistent(self) -> bool:
        return (self.killed and not self.problems and self.documents == int(self.committed)
                and (self.embedder == EMBEDDER if self.committed else True)
                and self.readd_rc == 0 and self.documents_after == 1 and not self.problems_after
                and self.other_embedder_refused and self.ask_rc == 0 and self.graph_complete is not False)

    def failures(self) -> list[str]:
        out = [] if self.killed else [f"not killed (exit {self.rc})"]
        out += self.problems + [f"after re-adding: {p}" for p in self.problems_after]
        if self.documents != int(self.committed):
            out.append(f"{self.documents} documents after the kill, expected {int(self.committed)}")
        if self.committed and self.embedder != EMBEDDER:
            out.append(f"embedder recorded: {self.embedder}")
        if self.readd_rc != 0 or self.documents_after != 1:
            out.append(f"re-add exit {self.readd_rc}, {self.documents_after} documents")
        if not self.other_embedder_refused:
            out.append("another embedder was not refused")
        if self.ask_rc != 0:
            out.append(f"ask exit {self.ask_rc}")
        if self.graph_complete is False:
            out.append("graph build did not complete the graph")
        return out


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``gechat ARGS`` with the test preset's fake models (the environment wins over the preset)."""
    e = {k: v for k, v in os.environ.items() if k != ENV}
    e.update({"GECHAT_LLM_BACKEND": "fake", "GECHAT_EMBEDDER": "hashing", "GECHAT_ENTAILMENT": "fake",
              "GECHAT_LLM_CACHE": "false", "GECHAT_GRAPH": "none", **(env or {})})
    return subprocess.run([sys.executable, "-m", "gechat.cli", *args, "--preset", "test"], capture_output=True,
                          text=True, env=e, timeout=timeout)


def _shared(ws: Path) -> Store | None:
    """The workspace's store when it is a shared one (GECHAT_STORE=postgresql://...), else None:
    a SQLite file is read as it lies, without opening a store (which would mend it)."""
    settings = Settings.load("test")
    return None if scheme(settings.store) == "sqlite" else open_store(settings, ws)


def _state(ws: Path) -> tuple[int, str | None, int, int]:
    """(documents, recorded embedder, chunks, chunks in the graph) as a fresh reader sees them."""
    store = _shared(ws)
    if store is not None:
        try:
            docs = store.documents()
            return (len(docs), store.get_meta("embedder"), sum(d.n_chunks for d in docs),
                    store.graph.counts()["chunks_done"])
        finally:
            store.close()
    db_path = ws / DB_NAME
    if not db_path.exists():
        return 0, None, 0, 0
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        if "documents" not in tables:
            return 0, None, 0, 0
        docs = int(db.execute("SELECT count(*) FROM documents").fetchone()[0])
        row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        graphed = int(db.execute("SELECT count(DISTINCT chunk_id) FROM graph_chunks").fetchone()[0])
        return docs, None if row is None else str(row[0]), chunks, graphed
    finally:
        db.close()


def _problems(ws: Path) -> list[str]:
    store = _shared(ws)
    if store is None:
        return consistency.problems(ws / DB_NAME)
    try:
        return store.problems()
    finally:
        store.close()


def trial(point: str, committed: bool, work: Path) -> Trial:
    work.mkdir(parents=True, exist_ok=True)
    ws, doc = work / "ws", work / "notes.txt"
    doc.write_text(TEXT)
    graph = GRAPH_ENV if point.startswith("graph") else {}
    t = Trial(point, committed)
    t.rc = cli("add", str(doc), "-w", str(ws), env={ENV: point, **graph}).returncode
    t.documents, t.embedder, chunks, graphed = _state(ws)
    t.graph_at_kill = (graphed, chunks)
    t.problems = _problems(ws)
    t.readd_rc = cli("add", str(doc), "-w", str(ws), env=graph).returncode
    t.documents_after, _, _, _ = _state(ws)
    t.problems_after = _problems(ws)
    other = work / "other.txt"
    other.write_text("Rome is the capital of Italy. The Colosseum stands in Rome.\n")
    refused = cli("add", str(other), "-w", str(ws), env={"GECHAT_EMBEDDER": "minilm-int8"})
    t.other_embedder_refused = refused.returncode == 1 and "indexed with embedder" in refused.stderr
    t.ask_rc = cli("ask", "When was the Eiffel Tower completed?", "-w", str(ws)).returncode
    if graph:
        cli("graph", "build", "-w", str(ws), env=graph)
        _, _, chunks, graphed = _state(ws)
        t.graph_complete = chunks > 0 and graphed == chunks
    return t


def run_all(work: Path) -> list[Trial]:
    return [trial(point, committed, work / point.replace(":", "-")) for point, committed in POINTS]

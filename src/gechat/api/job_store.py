"""Where ingestion jobs are kept: one SQLite file in the server root, ``<root>/jobs.sqlite``.

Not in each workspace's own database, because:

- jobs must be found before any workspace is opened: a restart resumes them, and
  ``GET /v1/jobs/{id}`` names no workspace;
- a running job holds its workspace's write lock for minutes, while its own state changes
  several times a second: the two writers would queue behind each other;
- the workspace database belongs to the store; a job is the server's business.

Each row is the job as the API shows it (JSON) plus the uploaded files it works on. A row is
written at every state change, in its own transaction, so a ``kill -9`` loses at most the
change in flight.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from gechat.api.models import JobOut
from gechat.api.uploads import SavedFile

DB_NAME = "jobs.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    files TEXT NOT NULL,
    doc_id INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_workspace ON jobs(workspace);
"""


@dataclass
class StoredJob:
    out: JobOut
    files: list[SavedFile]
    doc_id: int | None  # a graph job's document
    seq: int  # submission order: resumed jobs run in the order they were sent


class JobDB:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut), at a fraction of FULL's cost
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()
        self._closed = False

    def next_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").fetchone()
        return int(row[0])

    def save(self, job: StoredJob) -> None:
        files = json.dumps([[f.name, str(f.path), f.created] for f in job.files])
        with self._lock:
            if self._closed:  # a worker that outlived the shutdown's wait
                return
            self._db.execute("INSERT OR REPLACE INTO jobs(id, workspace, seq, body, files, doc_id) "
                             "VALUES (?, ?, ?, ?, ?, ?)",
                             (job.out.id, job.out.workspace, job.seq, job.out.model_dump_json(), files, job.doc_id))

    def load(self) -> list[StoredJob]:
        with self._lock:
            rows = self._db.execute("SELECT body, files, doc_id, seq FROM jobs ORDER BY seq").fetchall()
        return [StoredJob(JobOut.model_validate_json(body),
                          [SavedFile(n, Path(p), bool(c)) for n, p, c in json.loads(files)],
                          None if doc_id is None else int(doc_id), int(seq))
                for body, files, doc_id, seq in rows]

    def delete(self, job_ids: list[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM jobs WHERE id=?", [(i,) for i in job_ids])

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._db.close()

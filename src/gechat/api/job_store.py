"""Where ingestion jobs are kept: the server's own SQLite file, or the shared PostgreSQL store.

With the default SQLite store, jobs are one file in the server root, ``<root>/jobs.sqlite``,
not each workspace's database, because:

- jobs must be found before any workspace is opened: a restart resumes them, and
  ``GET /v1/jobs/{id}`` names no workspace;
- a running job holds its workspace's write lock for minutes, while its own state changes
  several times a second: the two writers would queue behind each other;
- the workspace database belongs to the store; a job is the server's business.

With a PostgreSQL store, jobs are a table of the database every API replica shares (the
schema ``ws_<namespace>_server_<hash>``): any replica lists, follows and cancels any job, and
the replicas' workers *claim* queued jobs from it. A claim is one conditional UPDATE (the row
as it was read, or nothing), so exactly one worker wins it on either engine; the winner holds
a lease it renews while the job runs, and a job whose lease ran out (its replica was killed)
is claimed again by another and resumed. A cancel for a job running elsewhere is a flag its
owner sees at its next renewal.

Each row is the job as the API shows it (JSON) plus the uploaded files it works on. A row is
written at every state change, in its own transaction, so a ``kill -9`` loses at most the
change in flight.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gechat.api.models import JobOut
from gechat.api.uploads import SavedFile
from gechat.registry import Registry
from gechat.settings import Settings
from gechat.store.base import Connection, JobRecords

DB_NAME = "jobs.sqlite"
RENEW_S = 0.5  # how often a running job's claim is renewed; also how soon a cancel from another replica lands
_COLUMNS = [("state", "TEXT NOT NULL DEFAULT ''"), ("version", "BIGINT NOT NULL DEFAULT 0"), ("owner", "TEXT"),
            ("lease_until", "DOUBLE PRECISION NOT NULL DEFAULT 0"), ("cancel", "INTEGER NOT NULL DEFAULT 0")]
_SCHEMA = ("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, workspace TEXT NOT NULL, seq BIGINT NOT NULL, "
           "body TEXT NOT NULL, files TEXT NOT NULL, doc_id BIGINT, "
           + ", ".join(f"{name} {decl}" for name, decl in _COLUMNS) + ")")
_INDEXES = ["CREATE INDEX IF NOT EXISTS jobs_workspace ON jobs(workspace)",
            "CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, seq)"]
_FIELDS = "body, files, doc_id, seq, version, lease_until"
_UNFINISHED = "state IN ('queued', 'running')"
JOB_RECORDS: Registry[JobRecords] = Registry("job records")


@dataclass
class StoredJob:
    out: JobOut
    files: list[SavedFile]
    doc_id: int | None  # a graph job's document
    seq: int  # submission order: resumed jobs run in the order they were sent
    version: int = 0  # one on at every save: event streams wait for it to pass theirs
    lease_until: float = 0.0


class JobDB:
    """The job records on one connection (SQLite or PostgreSQL: the SQL is the same)."""

    def __init__(self, conn: Connection, lock: threading.RLock | threading.Lock, *, shared: bool,
                 where: str, closer: Any, lease_s: float = 30.0) -> None:
        self._db, self._lock, self.shared, self.where = conn, lock, shared, where
        self.lease_s = lease_s  # a claim lasts this long unless renewed
        self._closer = closer
        self._closed = False

    def next_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs").fetchone()
        return int(row[0])

    def save(self, job: StoredJob, *, if_state: str | None = None) -> bool:
        """Writes the job, one version on (event streams wait for it); with ``if_state``, only
        while the stored row is still in that state (False when another writer changed it first:
        a cancel that lost to a claim)."""
        files = json.dumps([[f.name, str(f.path), f.created] for f in job.files])
        with self._lock:
            if self._closed:  # a worker that outlived the shutdown's wait
                return False
            job.version += 1
            values = (job.out.model_dump_json(), files, job.doc_id, job.out.state, job.version)
            if if_state is not None:
                cur = self._db.execute("UPDATE jobs SET body = ?, files = ?, doc_id = ?, state = ?, version = ? "
                                       "WHERE id = ? AND state = ?", (*values, job.out.id, if_state))
                return int(cur.rowcount) == 1
            self._db.execute("INSERT INTO jobs(body, files, doc_id, state, version, id, workspace, seq) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body, "
                             "files = excluded.files, doc_id = excluded.doc_id, state = excluded.state, "
                             "version = excluded.version", (*values, job.out.id, job.out.workspace, job.seq))
            return True

    def get(self, job_id: str) -> StoredJob | None:
        rows = self._select("WHERE id = ?", (job_id,))
        return rows[0] if rows else None

    def load(self, workspace: str | None = None, *, unfinished: bool = False) -> list[StoredJob]:
        """Jobs in submission order: all, or a workspace's; only queued and running ones if asked."""
        where = [_UNFINISHED] if unfinished else []
        if workspace is not None:
            where.append("workspace = ?")
        return self._select(("WHERE " + " AND ".join(where)) if where else "",
                            (workspace,) if workspace is not None else ())

    def delete(self, job_ids: list[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM jobs WHERE id = ?", [(i,) for i in job_ids])

    def trim(self, keep: int) -> None:
        """Forgets finished jobs but the newest ``keep``."""
        with self._lock:
            rows = self._db.execute(f"SELECT id FROM jobs WHERE NOT {_UNFINISHED} ORDER BY seq DESC").fetchall()
        self.delete([r[0] for r in rows[keep:]])

    def claim(self, owner: str) -> StoredJob | None:
        """The oldest queued job, or a running one whose owner's lease ran out, now ``owner``'s
        (its row says running); None when there is none. The job comes as it was stored: a
        ``running`` one was cut off, and is to be resumed."""
        for _ in range(20):  # another worker won the row between the read and the write: next one
            now = time.time()
            found = self._select("WHERE state = 'queued' OR (state = 'running' AND lease_until < ?) "
                                 "ORDER BY seq LIMIT 1", (now,))
            if not found:
                return None
            job = found[0]
            with self._lock:
                if self._closed:
                    return None
                cur = self._db.execute(
                    "UPDATE jobs SET owner = ?, lease_until = ?, state = 'running' "
                    "WHERE id = ? AND state = ? AND version = ? AND lease_until = ?",
                    (owner, now + self.lease_s, job.out.id, job.out.state, job.version, job.lease_until))
            if int(cur.rowcount) == 1:
                return job
        return None

    def renew(self, job_id: str, owner: str) -> tuple[bool, bool]:
        """Extends ``owner``'s lease on a running job: (still its own, cancel asked)."""
        with self._lock:
            if self._closed:
                return True, False
            self._db.execute("UPDATE jobs SET lease_until = ? WHERE id = ? AND owner = ?",
                             (time.time() + self.lease_s, job_id, owner))
            row = self._db.execute("SELECT owner, cancel FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return (row is not None and row[0] == owner), bool(row and row[1])

    def ask_cancel(self, job_id: str) -> None:
        """For a job another replica runs: its owner stops it at its next renewal."""
        with self._lock:
            self._db.execute(f"UPDATE jobs SET cancel = 1 WHERE id = ? AND {_UNFINISHED}", (job_id,))

    def release(self, owner: str | None = None) -> None:
        """Makes ``owner``'s running jobs claimable now (a server that stops, or None: every
        running job, when the one process that ran them is gone)."""
        with self._lock:
            if not self._closed:
                self._db.execute("UPDATE jobs SET lease_until = 0, owner = NULL WHERE state = 'running'"
                                 + ("" if owner is None else " AND owner = ?"), () if owner is None else (owner,))

    def _select(self, where: str, params: tuple[Any, ...]) -> list[StoredJob]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_FIELDS} FROM jobs {where}"
                                    + ("" if "ORDER BY" in where else " ORDER BY seq"), params).fetchall()
        return [StoredJob(JobOut.model_validate_json(body),
                          [SavedFile(n, Path(p), bool(c)) for n, p, c in json.loads(files)],
                          None if doc_id is None else int(doc_id), int(seq), int(version), float(lease))
                for body, files, doc_id, seq, version, lease in rows]

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._closer()


@JOB_RECORDS.register("sqlite")
def sqlite_jobs(settings: Settings, /, *, root: Path, **_: Any) -> JobDB:
    """One server's jobs, in ``<root>/jobs.sqlite``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / DB_NAME
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode survives a killed process (not a power cut), at a fraction of FULL's cost
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=10000")
    db.execute(_SCHEMA)
    have = {r[1] for r in db.execute("PRAGMA table_info(jobs)").fetchall()}
    for name, decl in _COLUMNS:  # a jobs.sqlite from before the columns
        if name not in have:
            db.execute(f"ALTER TABLE jobs ADD COLUMN {name} {decl}")
    db.execute("UPDATE jobs SET state = json_extract(body, '$.state') WHERE state = ''")
    for sql in _INDEXES:
        db.execute(sql)
    return JobDB(db, threading.Lock(), shared=False, where=str(path), closer=db.close, lease_s=settings.job_lease_s)


@JOB_RECORDS.register("postgresql")
def postgres_jobs(settings: Settings, /, **_: Any) -> JobDB:
    """Every replica's jobs, in the shared database's server schema."""
    from gechat.store.pg_conn import connect, migrate, redact, schema_name

    schema = schema_name(".server", settings.store_namespace)
    conn = connect(settings.store, schema)
    migrate(conn, schema, [";\n".join([_SCHEMA, *_INDEXES])])
    return JobDB(conn, conn.lock, shared=True, where=f"{redact(settings.store)}, schema {schema}", closer=conn.close,
                 lease_s=settings.job_lease_s)


def open_jobs(settings: Settings, root: Path) -> JobRecords:
    """The server's job records, on the engine the ``store`` URL names."""
    from gechat.store.registry import scheme

    return JOB_RECORDS.create(scheme(settings.store), settings, root=root)

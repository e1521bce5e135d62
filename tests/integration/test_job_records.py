"""The server's job records on both engines: claims (exactly one worker wins each job, a
lapsed claim is taken over and its old owner learns it), cancels across replicas, and a cancel
that loses to a claim. On PostgreSQL several API replicas share these records."""

from __future__ import annotations

import copy
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gechat.api.job_store import StoredJob, open_jobs
from gechat.api.models import FileProgress, JobOut
from gechat.settings import Settings
from gechat.store.base import JobRecords
from gechat.store.registry import scheme


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Iterator[Settings]:
    namespace = "j" + uuid.uuid4().hex[:8]
    s = Settings.load("test", store=store_url, store_namespace=namespace, cache_dir=tmp_path / "cache",
                      job_lease_s=1)
    yield s
    if scheme(store_url) == "postgresql":
        import psycopg

        from gechat.store.pg_conn import schema_name

        with psycopg.connect(store_url, autocommit=True) as db:
            db.execute(f'DROP SCHEMA IF EXISTS "{schema_name(".server", namespace)}" CASCADE')


@pytest.fixture
def two(settings: Settings, tmp_path: Path) -> Iterator[tuple[JobRecords, JobRecords]]:
    """Two servers' connections to the same records."""
    a, b = open_jobs(settings, tmp_path / "root"), open_jobs(settings, tmp_path / "root")
    yield a, b


def _job(db: JobRecords, n: int = 0) -> StoredJob:
    out = JobOut(id=uuid.uuid4().hex, workspace="a", state="queued", created_at="2026-01-01T00:00:00+00:00",
                 files=[FileProgress(name=f"f{n}.txt")])
    job = StoredJob(out, [], None, db.next_seq())
    db.save(job)
    return job


def _running(db: JobRecords, owner: str) -> StoredJob:
    """What a worker does with a claim: the job, marked running."""
    job: StoredJob | None = db.claim(owner)
    assert job is not None
    job.out.state = "running"
    db.save(job)
    return job


def test_each_job_is_claimed_by_exactly_one_worker(settings: Settings, tmp_path: Path) -> None:
    first = open_jobs(settings, tmp_path / "root")
    ids = [_job(first, n).out.id for n in range(40)]
    dbs = [open_jobs(settings, tmp_path / "root") for _ in range(4)]  # four servers' connections
    got: list[list[str]] = [[] for _ in dbs]

    def work(k: int) -> None:
        while (job := dbs[k].claim(f"server-{k}")) is not None:
            got[k].append(job.out.id)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(dbs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    claimed = [i for g in got for i in g]
    assert sorted(claimed) == sorted(ids), (len(claimed), len(set(claimed)))
    assert all(j.out.id in ids for j in first.load(unfinished=True))  # all running now, none twice
    for db in [first, *dbs]:
        db.close()


def test_a_lapsed_claim_is_taken_over_and_its_old_owner_learns_it(two: tuple[JobRecords, JobRecords]) -> None:
    a, b = two
    job = _job(a)
    _running(a, "a")
    assert b.claim("b") is None  # a's claim holds
    assert a.renew(job.out.id, "a") == (True, False)
    time.sleep(1.3)  # job_lease_s = 1, and a renews no more (it was killed)
    taken = b.claim("b")
    assert taken is not None and taken.out.id == job.out.id and taken.out.state == "running"  # to resume
    assert a.renew(job.out.id, "a") == (False, False)
    assert b.renew(job.out.id, "b") == (True, False)


def test_a_cancel_reaches_the_server_running_the_job(two: tuple[JobRecords, JobRecords]) -> None:
    a, b = two
    job = _job(a)
    _running(a, "a")
    b.ask_cancel(job.out.id)
    assert a.renew(job.out.id, "a") == (True, True)


def test_a_cancel_of_a_queued_job_loses_to_a_claim(two: tuple[JobRecords, JobRecords]) -> None:
    a, b = two
    job = _job(a)
    seen = b.get(job.out.id)  # b reads it queued ...
    assert seen is not None and seen.out.state == "queued"
    assert a.claim("a") is not None  # ... a claims it ...
    cancelled = copy.deepcopy(seen)
    cancelled.out.state = "cancelled"
    assert not b.save(cancelled, if_state="queued")  # ... so b's cancel must not land as a plain write
    stored = a.get(job.out.id)
    assert stored is not None and stored.out.state == "queued"  # the body: a's worker marks it running next
    assert [j.out.id for j in a.load(unfinished=True)] == [job.out.id]


def test_finished_jobs_are_trimmed_to_the_newest(settings: Settings, tmp_path: Path) -> None:
    db = open_jobs(settings, tmp_path / "root")
    jobs = [_job(db, n) for n in range(5)]
    for j in jobs[:4]:
        j.out.state = "done"
        db.save(j)
    db.trim(2)
    assert [j.out.id for j in db.load()] == [jobs[2].out.id, jobs[3].out.id, jobs[4].out.id]
    assert db.shared == (scheme(settings.store) == "postgresql")
    db.close()

"""Connecting to PostgreSQL: one schema per workspace, migrations applied on open.

A workspace's rows live in the schema ``ws_<name>_<hash>`` of the database the ``store`` URL
names, so one database serves many workspaces and a workspace sees only its own tables (the
connection's ``search_path`` is its schema; pgvector's type stays reachable in ``public``).
Migrations are an ordered list of SQL scripts; the schema's version is kept in its ``meta``
table, and a transaction-level advisory lock makes two servers starting at once apply each
script once.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gechat.errors import StoreError, first_line

SCHEMES = ("postgresql", "postgres")


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _slug(text: str, size: int) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:size]


def schema_name(workspace: str, namespace: str = "") -> str:
    """A PostgreSQL identifier (at most 63 bytes) for a workspace name within a namespace:
    readable, and distinct for distinct names."""
    head = f"ws_{_slug(namespace, 12)}_" if namespace else "ws_"
    digest = hashlib.sha1(f"{namespace}\0{workspace}".encode()).hexdigest()[:8]
    return f"{head}{_slug(workspace, 30) or 'ws'}_{digest}"


class PgConnection:
    """A psycopg connection that runs the SQL written for both engines (``?`` placeholders),
    serialised by one lock like the SQLite store's connection."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.lock = threading.RLock()

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        cur = self.raw.cursor()
        cur.execute(sql.replace("?", "%s"), tuple(parameters) if parameters else None)
        return cur

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Any:
        rows = [tuple(r) for r in parameters]
        cur = self.raw.cursor()
        if rows:
            cur.executemany(sql.replace("?", "%s"), rows)
        return cur

    def close(self) -> None:
        with self.lock:
            self.raw.close()


def connect(url: str, schema: str | None) -> PgConnection:
    """A connection in autocommit mode (transactions are explicit), on ``schema`` when given."""
    try:
        import psycopg
    except ImportError:
        raise StoreError("the PostgreSQL store needs psycopg",
                         hint="pip install 'gechat[postgres]'") from None
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as e:
        raise StoreError(f"cannot connect to PostgreSQL at {redact(url)}: {first_line(e)}",
                         hint="check the store URL (store = postgresql://user@host/db) and that the server runs"
                         ) from None
    conn = PgConnection(raw)
    try:
        _create(conn, "CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as e:
        raw.close()
        raise StoreError(f"PostgreSQL at {redact(url)} has no pgvector extension: {first_line(e)}",
                         hint="install pgvector on the server (or use the pgserver package), "
                              "or have an administrator run CREATE EXTENSION vector") from None
    if schema is not None:
        try:
            _create(conn, f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        except psycopg.Error as e:
            raw.close()
            raise StoreError(f"cannot make schema {schema} at {redact(url)}: {first_line(e)}",
                             hint="the store URL's user needs CREATE on the database") from None
        conn.execute(f'SET search_path TO "{schema}", public')
    return conn


def _create(conn: PgConnection, sql: str) -> None:
    """One ``CREATE ... IF NOT EXISTS``, one connection at a time: run by two at once (Ray
    workers opening a new workspace), the second fails on the catalog's unique index instead
    of finding what the first made. The advisory lock lasts until the statement commits."""
    with conn.lock, conn.raw.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('gechat: create'))")
        conn.execute(sql)


def migrate(conn: PgConnection, schema: str, scripts: list[str]) -> None:
    """Applies the scripts the schema has not had yet, in order, each in its own transaction."""
    with conn.lock, conn.raw.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (schema,))
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        have = int(row[0]) if row else 0
        if have > len(scripts):
            raise StoreError(f"workspace schema {schema} is version {have}, newer than this gechat knows "
                             f"({len(scripts)})", hint="upgrade gechat on this machine")
        for version, script in enumerate(scripts[have:], start=have + 1):
            conn.execute(script)
            conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (str(version),))

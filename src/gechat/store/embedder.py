"""Which embedder made a workspace's vectors, and refusing any other.

Vectors only compare with vectors of the same model: a document embedded by another model
(another dimension, or the same dimension and other meanings) makes search fail or answer
nonsense. So the embedder is recorded with the first document, in that document's
transaction, and every insert checks it in its own transaction: the CLI, the API and the
library all add through the store. (Recording it after the commit once let a kill between
the two leave documents with no record, and a later add with another model stored 256- and
384-dimension vectors side by side.) A workspace already mixed is reported on open.
"""

from __future__ import annotations

from gechat.errors import StoreError
from gechat.store.base import Connection

META_KEY = "embedder"
BLOB_DIM = "length(vec) / 4"  # a float32 blob's dimension; the PostgreSQL store keeps a column
NEW_WORKSPACE = "or start a new workspace for it (another --workspace folder; in the API, POST /v1/workspaces)"


def record(db: Connection, embedder: str | None, dim: int | None, dim_sql: str = BLOB_DIM) -> None:
    """Inside a document's transaction: refuses vectors another embedder made, records the
    embedder when the workspace has none yet (a new workspace, or one from before the record)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    stored = None if row is None else str(row[0])
    have = stored_dim(db, dim_sql)
    if have is None:  # no vectors (yet, or any more): the workspace takes this embedder
        stored = None
    if embedder is not None and stored is not None and stored != embedder:
        raise mismatch(stored, embedder)
    if dim is not None and have is not None and have != dim:
        raise StoreError(f"this workspace holds {have}-dimension vectors ({stored or 'embedder not recorded'}); "
                         f"the new ones have {dim}",
                         hint=f"use the embedder the workspace was made with, {NEW_WORKSPACE}")
    if embedder is not None and stored is None:
        db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                   (META_KEY, embedder))


def check(db: Connection, embedder: str, dim_sql: str = BLOB_DIM) -> None:
    """Before adding or asking: the workspace answers with ``embedder``, and is not mixed."""
    problem = mixed(db, dim_sql)
    if problem is not None:
        raise problem
    have = stored_dim(db, dim_sql)
    if have is None:
        return
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is not None:
        if str(row[0]) != embedder:
            raise mismatch(str(row[0]), embedder)
        return
    dim = dim_of(embedder)
    if dim is not None and have != dim:
        raise StoreError(f"this workspace holds {have}-dimension vectors (its embedder was not recorded); "
                         f"embedder {embedder} makes {dim}",
                         hint=f"use the embedder the workspace was made with, {NEW_WORKSPACE}")


def mixed(db: Connection, dim_sql: str = BLOB_DIM) -> StoreError | None:
    """The problem when the vectors have more than one dimension, naming the odd documents."""
    dims = [int(r[0]) for r in db.execute(f"SELECT DISTINCT {dim_sql} FROM vectors")]
    if len(dims) < 2:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    right = dim_of(str(row[0])) if row is not None else None
    if right not in dims:  # no record: the first document's vectors are the workspace's
        right = int(db.execute(f"SELECT {dim_sql} FROM vectors ORDER BY doc_id LIMIT 1").fetchone()[0])
    odd = [int(r[0]) for r in db.execute(
        f"SELECT DISTINCT doc_id FROM vectors WHERE {dim_sql} != ? ORDER BY doc_id", (right,))]
    shown = ", ".join(map(str, odd[:10])) + (", ..." if len(odd) > 10 else "")
    others = "/".join(str(d) for d in dims if d != right)
    return StoreError(
        f"this workspace mixes {right}- and {others}-dimension vectors (another embedder made documents "
        f"{shown}): it cannot search",
        hint="remove those documents (`gechat rm ID`, or DELETE .../documents/ID) and add them again, "
             "or delete the workspace and add its files to a new one")


def mismatch(stored: str, embedder: str) -> StoreError:
    name = stored.rpartition("/")[0] or stored
    return StoreError(f"this workspace was indexed with embedder {stored}, not {embedder}",
                      hint=f"set embedder = {name} (GECHAT_EMBEDDER={name}) to use it, {NEW_WORKSPACE}")


def stored_dim(db: Connection, dim_sql: str = BLOB_DIM) -> int | None:
    row = db.execute(f"SELECT {dim_sql} FROM vectors LIMIT 1").fetchone()
    return None if row is None else int(row[0])


def dim_of(embedder: str) -> int | None:
    """The dimension an embedder id (``name/dim``) names."""
    tail = embedder.rpartition("/")[2]
    return int(tail) if tail.isdigit() else None

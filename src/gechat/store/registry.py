"""Which engine holds a workspace, chosen by the ``store`` URL in Settings.

``sqlite`` (the default): the workspace folder's own ``gechat.sqlite``. ``postgresql://user@host/db``
(or ``postgres://``): that database, in a schema named after the workspace folder, so any
number of workspaces, processes and machines share it. The only module that names the engines.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gechat.registry import Registry
from gechat.store.base import Store

if TYPE_CHECKING:
    from gechat.settings import Settings

DB_NAME = "gechat.sqlite"
STORES: Registry[Store] = Registry("store")
_ALIASES = {"postgres": "postgresql", "postgresql+psycopg": "postgresql"}


def scheme(url: str) -> str:
    """The engine a ``store`` URL names: ``sqlite`` or ``postgresql``."""
    name = url.split(":", 1)[0].strip().lower()
    return _ALIASES.get(name, name)


def workspace_name(path: Path) -> str:
    """The name a workspace has in a shared database: its folder's name; for the CLI's default
    folder (``.gechat``), with the folder it sits in, so each project keeps its own."""
    path = Path(path).absolute()
    return f"{path.parent.name}/{path.name}" if path.name.startswith(".") else path.name


@STORES.register("sqlite")
def _sqlite(settings: Settings, /, *, path: Path, **_: Any) -> Store:
    from gechat.store.sqlite import SQLiteStore

    return SQLiteStore(Path(path) / DB_NAME, settings.ann_threshold, settings.graph_description_chars)


@STORES.register("postgresql")
def _postgres(settings: Settings, /, *, path: Path, name: str | None = None, **_: Any) -> Store:
    from gechat.store.postgres import PostgresStore

    return PostgresStore(settings.store, name or workspace_name(path), settings.ann_threshold,
                         settings.graph_description_chars, settings.store_namespace)


def open_store(settings: Settings, path: Path, name: str | None = None) -> Store:
    """The store of the workspace in folder ``path`` (``name``: its name in a shared database)."""
    return STORES.create(scheme(settings.store), settings, path=path, name=name)

"""`gechat keys add | list | remove`: the API keys of `gechat serve`, with per-workspace grants."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from gechat.cli_common import err, out
from gechat.cli_serve import SERVER_ROOT

if TYPE_CHECKING:
    from gechat.api.keys import KeyStore

keys_app = typer.Typer(no_args_is_help=True, help=(
    "API keys of `gechat serve`, each with a role on named workspaces: read (list, read, ask), "
    "write (also upload and delete documents), admin (also delete the workspace; on '*', create "
    "workspaces). Kept hashed in ROOT/keys.json; a running server sees changes at once. While "
    "any key exists (or $GECHAT_API_KEY is set), every request needs one."))

RootOpt = Annotated[Path, typer.Option("--root", help="The server's root (its --root).")]


def _store(root: Path) -> KeyStore:
    from gechat.api.keys import KeyStore  # the API's modules load only when keys are handled

    return KeyStore(root)


def _grants_text(grants: Mapping[str, str]) -> str:
    return ", ".join(f"{role} on {'every workspace' if ws == '*' else ws}" for ws, role in grants.items())


@keys_app.command("add")
def add(
    workspace: Annotated[list[str], typer.Option(
        "--workspace", "-w", help="A workspace id the key may use, or '*' for every workspace; repeat for more.")],
    role: Annotated[str, typer.Option(help="read, write or admin (each includes the ones before it).")] = "read",
    label: Annotated[str | None, typer.Option(help="A note on whose key it is.")] = None,
    root: RootOpt = SERVER_ROOT,
) -> None:
    """Make a key and print its token, once: only its hash is kept. The token alone goes to
    stdout, so `TOKEN=$(gechat keys add -w reports)` captures it."""
    from gechat.api.keys import check_role

    r = check_role(role)
    key, token = _store(root).add(dict.fromkeys(workspace, r), label=label)
    err.print(f"key [bold]{key.id}[/]: {escape(_grants_text(key.grants))}. Its token (shown once, never stored):")
    print(token)


@keys_app.command("list")
def list_keys(
    root: RootOpt = SERVER_ROOT,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The keys: id, grants, label, when made (never their tokens)."""
    store = _store(root)
    keys = store.load()
    if as_json:
        print(json.dumps([k.public() for k in keys], indent=2))
        return
    if not keys:
        err.print(f"no keys in {escape(str(store.path))}: the server needs none (loopback only unless --allow-remote)")
        return
    table = Table("id", "grants", "label", "created")
    for k in keys:
        table.add_row(k.id, escape(_grants_text(k.grants)), escape(k.label or ""), k.created_at)
    out.print(table)


@keys_app.command("remove")
def remove(
    key_id: Annotated[str, typer.Argument(help="The key's id, as `gechat keys list` shows it.")],
    root: RootOpt = SERVER_ROOT,
) -> None:
    """Remove a key: the server refuses its token from the next request on."""
    store = _store(root)
    gone = store.remove(key_id)
    err.print(f"removed key {gone.id} ({escape(_grants_text(gone.grants))})")
    if not store.load():
        err.print("[yellow]no keys left:[/] the server answers without a key again (unless $GECHAT_API_KEY is set)")

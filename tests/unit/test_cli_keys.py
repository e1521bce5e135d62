"""`gechat keys`: add (the token printed once, stored nowhere), list, remove; bad input refused
in one line. Through a real subprocess, as a person runs it; the server side is test_api_access.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from gechat.api import create_app
from gechat.api.keys import KeyStore
from gechat.settings import Settings
from tests.unit.api_support import fake_workspace, problem


def gechat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # a wide terminal: a long path in a message is not wrapped onto a second line
    return subprocess.run([sys.executable, "-m", "gechat.cli", "keys", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, "COLUMNS": "400"})


def one_line_error(p: subprocess.CompletedProcess[str], needle: str) -> None:
    assert p.returncode in (1, 2), p
    assert "Traceback" not in p.stdout + p.stderr and p.stdout == ""
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert needle in lines[0] and lines[0].startswith("error:"), p.stderr
    assert all(ln.strip().startswith("hint:") for ln in lines[1:]), p.stderr


def test_add_list_remove_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    p = gechat("add", "--workspace", "reports", "-w", "drafts", "--role", "write", "--label", "finance team",
               "--root", str(root))
    assert p.returncode == 0, p.stderr
    token = p.stdout.strip()
    assert token.startswith("gck_") and len(token) > 40 and "\n" not in token  # stdout: the token alone
    assert "write on reports, write on drafts" in p.stderr and "shown once" in p.stderr
    text = (root / "keys.json").read_text()
    assert token not in text
    (key,) = KeyStore(root).load()
    assert KeyStore(root).find(token) == key and key.grants == {"reports": "write", "drafts": "write"}

    listed = gechat("list", "--root", str(root), "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [{"id": key.id, "grants": {"reports": "write", "drafts": "write"},
                                          "created_at": key.created_at, "label": "finance team"}]
    table = gechat("list", "--root", str(root))
    assert key.id in table.stdout and "finance team" in table.stdout and token not in table.stdout

    # a server over that root takes the token: write on reports and drafts, nothing more
    settings = Settings.load("test", cache_dir=tmp_path / "cache")
    with TestClient(create_app(root, settings, workspace_factory=fake_workspace)) as c:
        problem(c.post("/v1/workspaces", json={"id": "reports"}, headers={"X-API-Key": token}), 403)
        assert c.get("/v1/workspaces", headers={"X-API-Key": token}).json() == {"workspaces": []}
        problem(c.get("/v1/workspaces"), 401)

    gone = gechat("remove", key.id, "--root", str(root))
    assert gone.returncode == 0 and key.id in gone.stderr and "no keys left" in gone.stderr
    assert KeyStore(root).load() == []
    one_line_error(gechat("remove", key.id, "--root", str(root)), f"no key '{key.id}'")


def test_default_root_is_the_servers(tmp_path: Path) -> None:
    p = gechat("add", "-w", "*", "--role", "admin", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / ".gechat-server" / "keys.json").exists()  # where `gechat serve` keeps its root


def test_bad_input_is_refused_in_one_line(tmp_path: Path) -> None:
    root = str(tmp_path / "srv")
    one_line_error(gechat("add", "-w", "a", "--role", "owner", "--root", root), "unknown role 'owner'")
    one_line_error(gechat("add", "-w", "../etc", "--root", root), "bad workspace id '../etc'")
    assert not (tmp_path / "srv" / "keys.json").exists()
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "keys.json").write_text("[1, 2")
    one_line_error(gechat("list", "--root", root), "keys file")
    missing = gechat("add", "--root", root)  # no --workspace: click's usage error, exit 2
    assert missing.returncode == 2 and "--workspace" in missing.stderr and "Traceback" not in missing.stderr


def test_help_explains_roles() -> None:
    p = gechat("--help")
    assert p.returncode == 0
    for word in ("add", "list", "remove", "read", "write", "admin", "keys.json"):
        assert word in p.stdout, word
    add = gechat("add", "--help")
    assert "--workspace" in add.stdout and "--role" in add.stdout and "--root" in add.stdout


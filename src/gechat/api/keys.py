"""API keys of ``gechat serve``: a file of hashed keys, each with per-workspace grants.

A key is a random token shown once when it is made; the file keeps only its sha256, so a
copy of the file (a backup, a support bundle) lets no one in. Each key grants a role on
named workspaces, or on every workspace (``"*"``): read < write < admin. The server reads
the file again whenever it changes, so ``gechat keys add`` and ``remove`` take effect at
once, without a restart.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import string
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from gechat.errors import ConfigError, GechatError

Role = Literal["read", "write", "admin"]
ROLES: tuple[Role, ...] = ("read", "write", "admin")  # each includes the ones before it
ALL = "*"  # a grant on every workspace, present and future
KEYS_FILE = "keys.json"  # in the server's root: not a workspace id (those have no ".")
TOKEN_PREFIX = "gck_"  # tells a gechat key apart in a config file or a secret scanner
_ID_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_HEX = frozenset("0123456789abcdef")

Grants = dict[str, Role]


def rank(role: str | None) -> int:
    """0 for no role, then 1, 2, 3 for read, write, admin."""
    return ROLES.index(role) + 1 if role in ROLES else 0


def role_on(grants: Grants, workspace: str) -> int:
    """The rank of the role ``grants`` give on ``workspace`` (a grant on "*" counts everywhere)."""
    return max(rank(grants.get(workspace)), rank(grants.get(ALL)))


def check_role(role: str) -> Role:
    if role not in ROLES:
        raise GechatError(f"unknown role {role!r}", hint="use read, write or admin (each includes the ones before it)")
    return role


def check_workspace(ws: str) -> str:
    if ws != ALL and not (0 < len(ws) <= 64 and set(ws) <= _ID_CHARS):
        raise GechatError(f"bad workspace id {ws!r}",
                          hint='use letters, digits, _ and - (at most 64), or "*" for every workspace')
    return ws


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Key:
    id: str
    hash: str
    grants: Grants
    created_at: str
    label: str | None = None

    def public(self) -> dict[str, Any]:
        """What ``gechat keys list`` shows: everything but the hash."""
        return {"id": self.id, "grants": dict(self.grants), "created_at": self.created_at, "label": self.label}


@dataclass
class KeyStore:
    """The keys file of a server root. Reads are cached until the file changes."""

    root: Path
    _cache: tuple[tuple[int, int, int] | None, list[Key]] = field(default=(None, []), init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def path(self) -> Path:
        return self.root / KEYS_FILE

    def load(self) -> list[Key]:
        """The keys now in the file (none when there is no file). An unreadable file is a
        ConfigError: a server must not fall open because its keys file broke."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return []
        except OSError as e:
            raise ConfigError(f"cannot read the keys file {self.path}: {e.strerror}") from None
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        with self._lock:
            if self._cache[0] != stamp:
                self._cache = (stamp, _parse(self.path))
            return list(self._cache[1])

    def find(self, token: str) -> Key | None:
        """The key whose token this is; every stored hash is compared, in constant time each."""
        given = hash_token(token)
        found = None
        for k in self.load():
            if hmac.compare_digest(given, k.hash):
                found = k
        return found

    def add(self, grants: Grants, label: str | None = None) -> tuple[Key, str]:
        """A new key and its token: the token is returned here once and stored nowhere."""
        if not grants:
            raise GechatError("a key needs at least one workspace", hint="pass --workspace ID (or '*' for every one)")
        grants = {check_workspace(ws): check_role(role) for ws, role in grants.items()}
        keys = self.load()
        taken = {k.id for k in keys}
        key_id = next(i for i in iter(lambda: "k" + secrets.token_hex(4), None) if i not in taken)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        key = Key(id=key_id, hash=hash_token(token), grants=grants,
                  created_at=datetime.now(UTC).isoformat(timespec="seconds"), label=label or None)
        self._write([*keys, key])
        return key, token

    def remove(self, key_id: str) -> Key:
        keys = self.load()
        gone = next((k for k in keys if k.id == key_id), None)
        if gone is None:
            raise GechatError(f"no key {key_id!r} in {self.path}", hint="`gechat keys list` shows the keys' ids")
        self._write([k for k in keys if k.id != key_id])
        return gone

    def _write(self, keys: list[Key]) -> None:
        """Temp file then rename: the server never reads half a file; 0600 from the start,
        so the hashes are never readable by others, not even for a moment."""
        self.root.mkdir(parents=True, exist_ok=True)
        data = {"version": 1, "keys": [{"id": k.id, "hash": k.hash, "grants": k.grants,
                                        "created_at": k.created_at, "label": k.label} for k in keys]}
        tmp = self.path.with_name(f".{KEYS_FILE}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=2)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def _parse(path: Path) -> list[Key]:
    bad = f"the keys file {path} is not valid"
    hint = "fix or delete it, then add keys with `gechat keys add`"
    try:
        data = json.loads(path.read_text())
        keys = [Key(id=str(k["id"]), hash=str(k["hash"]), grants={check_workspace(str(w)): check_role(str(r))
                                                                   for w, r in dict(k["grants"]).items()},
                    created_at=str(k.get("created_at", "")), label=k.get("label"))
                for k in data["keys"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, GechatError) as e:
        raise ConfigError(f"{bad}: {getattr(e, 'message', None) or e}", hint=hint) from None
    if any(len(k.hash) != 64 or not set(k.hash) <= _HEX for k in keys):
        raise ConfigError(f"{bad}: a key's hash is not a sha256", hint=hint)
    return keys


__all__ = ["ALL", "KEYS_FILE", "ROLES", "Grants", "Key", "KeyStore", "Role", "check_role", "rank", "role_on"]

"""``gechat serve``: the REST API (``gechat.api``) on this machine, with uvicorn."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated

import typer

from gechat.cli_common import ConfigOpt, PresetOpt, err, settings
from gechat.errors import GechatError

SERVER_ROOT = Path(".gechat-server")  # also where `gechat keys` looks for the keys file


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on; loopback only unless --allow-remote.")] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    root: Annotated[Path, typer.Option(
        help="Directory of the server's workspaces and its keys file (created if missing).")] = SERVER_ROOT,
    api_key_env: Annotated[str, typer.Option(
        help="Environment variable holding the legacy single API key (admin on every workspace); "
             "when it is set, or `gechat keys add` made keys, every request but /v1/health needs "
             "`Authorization: Bearer KEY` or `X-API-Key: KEY`.")] = "GECHAT_API_KEY",
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="Allow a non-loopback --host (set an API key too).")] = False,
    max_upload_mb: Annotated[float | None, typer.Option(help="Largest file accepted (default: max_file_mb).")] = None,
    preset: PresetOpt = "default",
    config: ConfigOpt = None,
) -> None:
    """Serve the REST API: workspaces, uploads as background jobs, streamed answers with evidence."""
    if not allow_remote and not _is_loopback(host):
        raise GechatError(f"refusing to listen on {host}: it is reachable from other machines",
                          hint="use --host 127.0.0.1, or pass --allow-remote (and set an API key)")
    import uvicorn

    from gechat.api import create_app
    from gechat.api.access import serve_hosts

    api_key = os.environ.get(api_key_env) or None
    s = settings(preset, config)
    app = create_app(root, s, api_key=api_key, max_upload_mb=max_upload_mb,
                     allowed_hosts=serve_hosts(host, s.allowed_hosts))
    keyed = bool(getattr(app, "api_key_required", False))
    if not _is_loopback(host) and not keyed:
        err.print(f"[yellow]warning:[/] listening on {host} without an API key (`gechat keys add`, or set "
                  f"${api_key_env}); only Host names in allowed_hosts are answered")
    err.print(f"gechat on http://{host}:{port}/ (the page; API under /v1, its docs at /docs), workspaces in {root}"
              + (", API key required" if keyed else ""))
    # one process: jobs and the model live in its memory
    uvicorn.run(app, host=host, port=port, log_level="info")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name other than localhost: could resolve anywhere
        return False

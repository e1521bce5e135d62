"""The real server (uvicorn, on 127.0.0.1) killed with SIGKILL in the middle of a job and
started again; and its answers to a body it should not read."""

from __future__ import annotations

import select
import socket
import time
from pathlib import Path

import httpx
import pytest
from benchmarks.reliability_jobs import Server, free_port, kill_restart_probe


@pytest.mark.slow
def test_jobs_interrupted_by_kill_9_are_resumed_or_failed_cleanly(tmp_path: Path) -> None:
    res = kill_restart_probe(2, root=tmp_path)
    assert res.clean == res.total == 2, res.rounds
    assert [r["state"] for r in res.rounds] == ["done", "failed"]


def _response_head(sock: socket.socket, timeout: float = 10) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            break
        data += piece
    return data


def test_the_server_answers_before_reading_a_body_it_refuses(tmp_path: Path) -> None:
    server = Server(tmp_path / "root", free_port(), env={"GECHAT_MAX_FILE_MB": "1"})
    server.start()
    try:
        httpx.post(server.url + "/v1/workspaces", json={"id": "a"}, timeout=10)
        head = (f"POST /v1/workspaces/nope/documents HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 300000000\r\n\r\n")
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            t0 = time.monotonic()
            sock.sendall(head.encode())  # and not a byte of the 300 MB
            answer = _response_head(sock)
            assert answer.startswith(b"HTTP/1.1 404") and time.monotonic() - t0 < 5, answer

        head = (f"POST /v1/workspaces/a/documents HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n")
        part = b'--b\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n\r\n'
        chunk = b"word " * 13107  # 64 KiB
        sent = 0
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(head.encode() + b"%x\r\n%s\r\n" % (len(part), part))
            answer = b""
            while sent < 50_000_000:
                if select.select([sock], [], [], 0)[0]:
                    answer = _response_head(sock)
                    break
                try:
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except OSError:  # the server closed the connection after its answer
                    answer = _response_head(sock)
                    break
                sent += len(chunk)
            assert answer.startswith(b"HTTP/1.1 413"), answer
        assert sent < 20_000_000, sent  # what the socket buffers hold, not the 50 MB
        uploads = server.root / "a" / "uploads"
        assert not uploads.exists() or not any(uploads.iterdir())
    finally:
        server.stop()

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
N18 = DATA / "pdfs" / "N18-3011.pdf"


def free_port() -> int:
    """A loopback port nothing listens on now (for servers the tests start)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def models_dir() -> Path:
    return Path(os.environ.get("GECHAT_MODELS_DIR", REPO / ".cache" / "models"))


@pytest.fixture
def shared_data() -> Path:
    if not DATA.exists():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA

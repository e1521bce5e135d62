from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
N18 = DATA / "pdfs" / "N18-3011.pdf"


def models_dir() -> Path:
    return Path(os.environ.get("GECHAT_MODELS_DIR", REPO / ".cache" / "models"))


@pytest.fixture
def shared_data() -> Path:
    if not DATA.exists():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA

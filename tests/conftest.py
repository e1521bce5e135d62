from __future__ import annotations

import os
import socket
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real PostgreSQL with pgvector: GECHAT_TEST_POSTGRES_URL's, or one the pgserver package
    starts for this session (a Unix socket in a temporary folder, no TCP port)."""
    url = os.environ.get("GECHAT_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    try:
        import pgserver
    except ImportError:
        if os.environ.get("GECHAT_REQUIRE_POSTGRES"):
            pytest.fail("pgserver is not installed: pip install 'gechat[postgres]'")
        pytest.skip("pgserver is not installed (pip install 'gechat[postgres]')")
    server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> str:
    """Each store test runs on both engines."""
    return "sqlite" if request.param == "sqlite" else str(request.getfixturevalue("postgres_url"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("GECHAT_TEST_STORE") == "postgresql":
        skip = pytest.mark.skip(reason="works on the SQLite file itself; the store is PostgreSQL in this run")
        for item in items:
            if "sqlite_file" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _store_under_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """GECHAT_TEST_STORE=postgresql: every workspace the tests make (in this process and the
    CLI and servers they start) keeps its rows in PostgreSQL (`make test` runs the tests that
    touch storage this way too)."""
    if os.environ.get("GECHAT_TEST_STORE", "sqlite") != "postgresql":
        yield
        return
    os.environ["GECHAT_STORE"] = str(request.getfixturevalue("postgres_url"))
    yield
    os.environ.pop("GECHAT_STORE", None)


@pytest.fixture(autouse=True)
def _store_namespace(request: pytest.FixtureRequest) -> Iterator[None]:
    """On PostgreSQL, each test's workspaces are its own (tests reuse folder names like "ws");
    its schemas are dropped after it."""
    url = os.environ.get("GECHAT_STORE", "")
    if not url.startswith("postgres"):
        yield
        return
    import hashlib

    namespace = "t" + hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:10]
    os.environ["GECHAT_STORE_NAMESPACE"] = namespace
    yield
    os.environ.pop("GECHAT_STORE_NAMESPACE", None)
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        for (schema,) in db.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                    (f"ws_{namespace}_%",)).fetchall():
            db.execute(f'DROP SCHEMA "{schema}" CASCADE')

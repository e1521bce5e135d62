"""Fixtures shared by the unit tests."""

from tests.unit.api_support import client  # noqa: F401  (the REST API tests' TestClient over fake workspaces)

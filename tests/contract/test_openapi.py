"""A bounded schemathesis run against the OpenAPI schema: generated requests for every
operation must get answers the schema describes (status codes, content types, headers,
bodies), and never a server error. Fake workspaces keep it fast.

Generated workspace ids almost never name one that exists, so a second pass points every
request at workspace ``w1``, which holds one document: there the handlers themselves run
(asking included), not only the 404 for an unknown workspace.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from fastapi import FastAPI  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from tests.unit.api_support import TEXT, fake_app  # noqa: E402

BOUNDED = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def make_app() -> FastAPI:
    tmp = Path(tempfile.mkdtemp(prefix="gechat-schemathesis-"))
    app = fake_app(tmp)
    note = tmp / "eiffel.txt"
    note.write_text(TEXT)
    app.state.gechat.workspaces.create("w1").workspace().add([note])
    return app


schema = schemathesis.openapi.from_asgi("/openapi.json", make_app())


@schema.parametrize()
@BOUNDED
def test_api_conforms_to_its_schema(case: Any) -> None:
    case.call_and_validate(excluded_checks=checks_for(case))


@schema.parametrize()
@BOUNDED
def test_api_conforms_to_its_schema_in_a_workspace_with_a_document(case: Any) -> None:
    if case.method == "DELETE":  # would take the workspace or its document from the other operations
        return
    if path_is_negative(case):
        # the generator broke the path on purpose; putting "w1" back would make the request
        # valid while schemathesis still expects it refused (the first pass covers these)
        return
    if case.path_parameters and "ws" in case.path_parameters:
        case.path_parameters["ws"] = "w1"
    if case.path_parameters and "doc_id" in case.path_parameters:
        case.path_parameters["doc_id"] = 1
    case.call_and_validate(excluded_checks=checks_for(case))


def path_is_negative(case: Any) -> bool:
    path = case.meta.components.get(schemathesis.core.parameters.ParameterLocation.PATH) if case.meta else None
    return path is not None and path.mode.is_negative


def checks_for(case: Any) -> list[Any]:
    # a schema cannot say that an upload's name must end in .pdf, .txt, ...: a generated file
    # named "files" is schema-valid and still rightly refused (415)
    if case.method == "POST" and case.path.endswith("/documents"):
        return [schemathesis.checks.positive_data_acceptance]
    return []

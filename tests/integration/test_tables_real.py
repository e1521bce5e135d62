"""A PDF table through the real pipeline: rows stored with their headers, a row's figure
checked against its column, a computed figure recomputed (packaged models, default chain)."""

from __future__ import annotations

import pytest

from gechat.evidence.base import ClaimInput
from gechat.pipeline import Workspace
from gechat.settings import Settings
from tests.unit.test_documents_tables import _table_pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("tables")
    pdf = root / "results.pdf"
    _table_pdf(pdf)
    ws = Workspace(root / "ws", Settings.load("default"))
    ws.add([pdf])
    return ws


def verdicts(ws: Workspace, *texts: str) -> list[tuple[str, str, list[str]]]:
    _, pool = ws.whole_pool()
    claims = ws.selector.select([ClaimInput(text=t, source="answer") for t in texts], pool)
    return [(c.verdict, c.note, [e.text for e in c.evidence]) for c in claims]


def test_rows_are_stored_with_headers_and_cell_boxes(ws: Workspace) -> None:
    row = "Net revenue | 2022: $ 17,606 | 2021: 15,785 (in millions)"
    hits = ws.retriever.retrieve("What was net revenue in 2022?", 3)
    assert any(row in h.chunk.text for h in hits)
    store = ws.store
    (sent,) = [s for s in store.sentences_of_chunks(store.chunk_ids(ws.documents()[0].id)) if s.text == row]
    assert len(sent.boxes) == 3 and all(b.page == 1 for b in sent.boxes)


def test_a_figure_for_the_wrong_year_is_contradicted_and_a_computed_one_recomputed(ws: Workspace) -> None:
    wrong, grew = verdicts(ws, "Net revenue was $17,606 million in 2021.", "Net revenue grew 11.5% in 2022.")
    assert wrong[0] == "contradicted" and "15,785" in wrong[1]
    assert grew[0] == "supported" and grew[1].startswith("computed ($ 17,606 million - 15,785 million)")
    assert grew[2] == ["Net revenue | 2022: $ 17,606 | 2021: 15,785 (in millions)"]

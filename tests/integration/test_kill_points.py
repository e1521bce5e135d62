"""``kill -9`` of ``gechat add`` at each point of adding a document (the test hook
``GECHAT_TEST_KILL_AT``, gechat.store.faults), then the workspace reopened: no orphan rows, no
document without its vectors, the embedder recorded, a re-add works, another embedder refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.kill_points import POINTS, trial

from gechat.store.faults import POINTS as HOOKED

pytestmark = pytest.mark.slow


def test_every_hooked_point_is_tried() -> None:
    assert {p.partition(":")[0] for p, _ in POINTS} == set(HOOKED)


@pytest.mark.parametrize(("point", "committed"), POINTS, ids=[p for p, _ in POINTS])
def test_kill_at_point_leaves_a_consistent_workspace(point: str, committed: bool, tmp_path: Path) -> None:
    t = trial(point, committed, tmp_path)
    assert t.killed, f"the process was not killed at {point} (exit {t.rc})"
    assert t.problems == []
    assert t.documents == int(committed)
    if committed:
        assert t.embedder == "hashing/256"  # recorded in the document's own transaction
    assert t.readd_rc == 0 and t.documents_after == 1 and t.problems_after == []
    assert t.other_embedder_refused
    assert t.ask_rc == 0
    if point.startswith("graph"):
        done, chunks = t.graph_at_kill
        assert 0 < done < chunks  # killed with one unit of the graph written, the next one not
        assert t.graph_complete
    assert t.consistent and t.failures() == []

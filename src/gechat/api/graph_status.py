"""How far a document's knowledge graph got, read from the store's own record of it.

The graph builder writes, with each unit of chunks, that those chunks are done
(``graph_chunks``), so a build stopped by a kill, a budget or a cancel leaves a document whose
done chunks are fewer than its chunks: that is a partial graph, and building again resumes it.
"""

from __future__ import annotations

from gechat.api.models import GraphState, GraphStatus
from gechat.pipeline import Workspace
from gechat.types import Document


def graph_state(ws: Workspace, doc_id: int) -> GraphState:
    extractor = ws.settings.graph
    if extractor == "none":
        return GraphState(status="none", extractor=None, chunks_done=0, chunks_total=0)
    total = len(ws.store.chunk_ids(doc_id))
    done = len(ws.store.graph.done_chunks(doc_id, extractor))
    status: GraphStatus = "complete" if done >= total else "partial" if done else "none"
    return GraphState(status=status, extractor=extractor, chunks_done=min(done, total), chunks_total=total)


def unfinished(ws: Workspace, doc_id: int) -> GraphState | None:
    """The graph's state when the workspace builds graphs and this one is not complete."""
    state = graph_state(ws, doc_id)
    return state if state.extractor is not None and state.status != "complete" else None


def finish_url(ws_id: str, doc: Document) -> str:
    return f"/v1/workspaces/{ws_id}/documents/{doc.id}/graph"

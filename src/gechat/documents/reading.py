"""Reading a file before it is embedded: loaded, split into sentences and chunked, within the
settings' limits and time budgets."""

from __future__ import annotations

from pathlib import Path

from gechat.documents import Deadline, Limits, chunk_sentences, load_document, split_sentences
from gechat.documents.table_titles import chunk_leads, with_row_leads
from gechat.settings import Settings
from gechat.types import ChunkSpan, ParsedDocument, SentenceSpan


def read_document(path: Path, size: int, settings: Settings
                  ) -> tuple[ParsedDocument, list[SentenceSpan], list[ChunkSpan]]:
    """What adding a file does before embedding: load, split and chunk it, within the
    settings' size limit and time budgets (``size``: the file's bytes)."""
    s = settings
    budget = (s.ingest_budget_s, s.ingest_budget_s_per_mb)
    limits = Limits.from_settings(s)  # what one document may hold: pages, text, sentences, elements
    parsed = load_document(path, limits=limits,
                           deadline=Deadline.for_size(path.name, "parsing", size, *budget, unit="MB of file"))
    split_budget = Deadline.for_size(path.name, "sentence splitting", len(parsed.text), *budget, unit="MB of text")
    sentences = with_row_leads(split_sentences(parsed, split_budget, limits.max_sentences))
    chunks = chunk_sentences(sentences, parsed.text, chunk_tokens=s.chunk_tokens, n_chunks=s.n_chunks)
    return parsed, sentences, chunk_leads(sentences, chunks)


__all__ = ["read_document"]

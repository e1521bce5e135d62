"""Settings by group: what a user sets (llm, models, documents, graph, retrieval, answer,
evidence, server) apart from the research knobs (tuning).

A settings file may write each group as a TOML table:

    [llm]
    backend = "ollama"
    model = "qwen2.5:7b"

    [tuning]
    beta = 0.25

Each table's keys are the short names below; they are read into the one flat ``Settings``
object the pipeline uses (``llm.backend`` is ``llm_backend``, also ``GECHAT_LLM_BACKEND`` in
the environment). ``Settings.grouped()`` gives them back the same way.
"""

from __future__ import annotations

from typing import Any

from gechat.errors import ConfigError

# group -> {short name in the group: Settings field}
GROUPS: dict[str, dict[str, str]] = {
    "llm": {"backend": "llm_backend", "model": "llm_model", "base_url": "llm_base_url",
            "api_key_env": "llm_api_key_env", "context": "llm_context", "threads": "llm_threads",
            "timeout_s": "llm_timeout_s", "cache": "llm_cache", "trustful_adapter": "trustful_adapter",
            "trustful_prompt_context": "trustful_prompt_context"},
    "models": {"embedder": "embedder", "embedder_model": "embedder_model", "entailment": "entailment",
               "entailment_model": "entailment_model", "entailment_batch": "entailment_batch",
               "verifier_model": "verifier_model", "verifier_top": "verifier_top"},
    "documents": {"chunk_tokens": "chunk_tokens", "n_chunks": "n_chunks", "max_file_mb": "max_file_mb",
                  "max_unpacked_mb": "max_unpacked_mb", "max_pages": "max_pages", "max_text_mb": "max_text_mb",
                  "max_sentences": "max_sentences", "max_elements": "max_elements",
                  "ingest_budget_s": "ingest_budget_s", "ingest_budget_s_per_mb": "ingest_budget_s_per_mb",
                  "job_timeout_s": "job_timeout_s", "job_memory_mb": "job_memory_mb",
                  "job_lease_s": "job_lease_s"},
    "graph": {"extractor": "graph", "unit_tokens": "graph_unit_tokens", "gleaning": "graph_gleaning",
              "probe": "graph_probe", "probe_pairs": "graph_probe_pairs"},
    "retrieval": {"retriever": "retriever", "top_k_chunks": "top_k_chunks", "common_name_share": "common_name_share",
                  "query_synonyms": "query_synonyms", "figure_chunks": "figure_chunks",
                  "scopecoe_base": "scopecoe_base", "scopecoe_candidates": "scopecoe_candidates",
                  "scopecoe_judge": "scopecoe_judge", "scopecoe_fill": "scopecoe_fill"},
    "answer": {"max_tokens": "answer_max_tokens", "excerpt_tokens": "answer_excerpt_tokens",
               "max_thoughts": "max_thoughts", "claims_from_thoughts": "claims_from_thoughts"},
    "evidence": {"selector": "evidence", "steps": "evidence_steps", "claim_atoms": "claim_atoms",
                 "supported_threshold": "supported_threshold",
                 "contradicted_threshold": "contradicted_threshold", "correct": "correct",
                 "correct_triplets": "correct_triplets", "correct_unsupported": "correct_unsupported"},
    "server": {"allowed_hosts": "allowed_hosts", "cors_origins": "cors_origins"},
    "store": {"url": "store", "namespace": "store_namespace"},
    "ray": {"address": "ray_address", "workers": "ray_workers", "retries": "ray_retries"},
    # research knobs: calibrated on dev splits; a user rarely has reason to move them
    "tuning": {name: name for name in (
        "alpha", "beta", "len_norm", "len_ref_words", "evidence_max_candidates", "set_top", "set_anchors",
        "set_anchors_steps", "set_max", "set_gain", "set_contribution", "set_linked", "set_needed", "set_named",
        "set_bridges", "contra_overlap", "evidence_coverage", "evidence_headings", "reflection_k", "ann_threshold",
        "graph_alias_threshold", "graph_description_chars", "graph_hops", "graph_seeds", "graph_max_nodes",
        "graph_decay", "correct_threshold", "scopecoe_threshold", "scopecoe_keyword_threshold")},
}


def flatten(values: dict[str, Any]) -> dict[str, Any]:
    """A settings file's values with each group's table read into flat fields; flat keys
    pass through (files written before the groups keep working)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in GROUPS or not isinstance(value, dict):
            out[key] = value
            continue
        names = GROUPS[key]
        for short, v in value.items():
            if short not in names:
                raise ConfigError(f"unknown setting {key}.{short}",
                                  hint=f"the [{key}] table takes: {', '.join(names)}")
            out[names[short]] = v
    return out


def grouped(flat: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Flat settings values by group and short name (the shape of a settings file)."""
    return {group: {short: flat[field] for short, field in names.items() if field in flat}
            for group, names in GROUPS.items()}


__all__ = ["GROUPS", "flatten", "grouped"]

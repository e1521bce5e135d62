"""One Settings object for the whole pipeline: file, environment (GECHAT_*), flags.

Every stage's implementation is chosen here by name (see ``registry.py``); presets are
named bundles of overrides applied before the environment and explicit values.
"""

from __future__ import annotations

import os
import tomllib
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from gechat.errors import ConfigError
from gechat.lexical import Coverage
from gechat.settings_groups import flatten, grouped

# what the entailment model reads before a sentence (Settings.evidence_headings)
Headings = Literal["claim", "pronoun", "off"]


def default_home() -> Path:
    return Path(os.environ.get("GECHAT_HOME", Path.home() / ".cache" / "gechat"))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GECHAT_", extra="forbid")

    # where things live
    models_dir: Path = Field(default_factory=lambda: default_home() / "models")
    cache_dir: Path = Field(default_factory=lambda: default_home() / "cache")

    # LLM: backend by name; model is a packaged name, a GGUF path, or a server's model id
    llm_backend: str = "llamacpp"
    llm_model: str = "qwen2.5-coder-1.5b"
    llm_base_url: str | None = None
    llm_api_key_env: str = "OPENAI_API_KEY"
    llm_context: int = 4096
    llm_threads: int | None = None
    llm_timeout_s: float = 600.0
    llm_cache: bool = True
    # llm_backend = "trustful": the dual decoder's adapter folder (None: the packaged one; its
    # card names the base model), and whether the answer's prompt holds the excerpts too
    trustful_adapter: Path | None = None
    trustful_prompt_context: bool = False

    # embeddings
    embedder: str = "minilm-int8"
    embedder_model: str | None = None

    # entailment (evidence scoring): our packaged cross-encoder (issue 4); entailment_model
    # None means each backend's own default (onnx: the packaged model, llm: llm_model)
    entailment: str = "onnx"
    entailment_model: str | None = None
    # pairs per model call; None: the backend's own (onnx 1, calls side by side: in a batch the
    # int8 model's scores depend on the companion pairs; see models/entail/onnx.py)
    entailment_batch: int | None = None
    # the verifier (a name or a folder): with entailment = "onnx" it re-reads a claim's one
    # supporting sentence (evidence step "verify"); with "cascade" it re-reads the verifier_top
    # premises the fast model ranks highest in each call, and decides every verdict
    verifier_model: str = "gechat-nli-mpnet"
    verifier_top: int = Field(default=3, ge=1, le=60)

    # documents
    chunk_tokens: int = 160
    n_chunks: int | None = None  # EvidenceChat's alpha: fixed chunk count per document
    max_file_mb: float = 200.0
    # what a zip-based file (.docx) may unpack to: a 470 KB .docx can hold 150 MB of XML
    max_unpacked_mb: float = 200.0
    # what one document may hold, checked while it is read (gechat.documents.limits): a 500-page
    # annual report has ~1.6 MB of text, 12,000 sentences, 200,000 XML elements as a .docx; a PDF
    # takes ~90 MB of memory per MB of text, so 8 MB keeps one document under ~1 GB
    max_pages: int = Field(default=5000, ge=1)
    max_text_mb: float = Field(default=8.0, gt=0)  # extracted text, in millions of characters (2^20)
    max_sentences: int = Field(default=100_000, ge=1)
    max_elements: int = Field(default=2_000_000, ge=1)  # XML elements of a .docx, HTML elements of a page
    # ingestion watches itself: each stage of reading a document may take ingest_budget_s +
    # ingest_budget_s_per_mb x its size in MB (the file's for parsing, the extracted text's for
    # sentence splitting); past that it is stopped with an error naming the stage, and the rest
    # of the batch goes on. Ordinary files take a small fraction of it (benchmarks/results/
    # ingest.md). 0 (or None): no limit
    ingest_budget_s: float | None = Field(default=60.0, ge=0)
    ingest_budget_s_per_mb: float = Field(default=60.0, ge=0)
    # the server's ingestion jobs (docs/server.md): one may run job_timeout_s, and is stopped
    # (failed, with the reason) once the process's resident memory passes job_memory_mb; 0: no limit
    job_timeout_s: float = Field(default=3600.0, ge=0)
    job_memory_mb: float = Field(default=16000.0, ge=0)
    # with a PostgreSQL store, API replicas claim jobs for this long, renewing while they run;
    # a replica killed mid-job leaves it to another once the claim lapses (docs/deploy.md)
    job_lease_s: float = Field(default=30.0, ge=1, le=3600)

    # knowledge graph (GE-Chat step 2), built as documents are added: fast (spaCy, no LLM),
    # llm (JSON-constrained extraction + relation probing) or none
    graph: str = "fast"
    graph_unit_tokens: int = 480  # LLM extraction: consecutive chunks per call, up to this size
    graph_gleaning: int = 0  # extra "what did you miss" passes per unit
    graph_probe: bool = True  # ask about entity pairs that share a sentence but got no relation
    graph_probe_pairs: int = 6  # at most this many pairs, in one call, per unit
    graph_alias_threshold: float = 0.9
    graph_description_chars: int = 600  # merged descriptions stop growing here (no LLM summary)
    # sub-graph search (GE-Chat step 4)
    graph_hops: int = 2
    graph_seeds: int = 5
    graph_max_nodes: int = 60
    graph_decay: float = 0.5

    # retrieval: vector, bm25, fused (vector + bm25), mixed, graph or hybrid (vector + graph).
    # fused (weighted rank fusion, the two nearest chunks in meaning kept first) finds a gold page
    # among 3 / 5 / 10 chunks of the FinanceBench dev filings as often as vector (0.474 / 0.526
    # / 0.632) and more gold sentences on the dev questions (HotpotQA recall@10 0.678 -> 0.791,
    # 2Wiki 0.651 -> 0.680); docs/benchmarks.md
    retriever: str = "fused"
    top_k_chunks: int = 3
    # the question is also searched by the other names of the terms it uses ("revenue" as "net
    # sales", "balance sheet" as "statement of financial position"): "finance" (the names of the
    # financial statements and their common line items), "none", or a text file of your own,
    # one group of names per line separated by ";" (retrieve/synonyms.py). The LLM reads the
    # question as asked; ScopeCoE reads it as asked too
    query_synonyms: str = "finance"
    # evidence candidates: for each claim stating figures (3+ significant digits, years
    # aside), this many chunks that state them, nearest the claim, are read too (a reader
    # searches the document for the figure; retrieve/figures.py); 0 turns it off
    figure_chunks: int = Field(2, ge=0, le=10)
    # vector retrieval: where a capitalised word of the question (a company, a party, a
    # product) is in more than this share of a document's chunks, that document's chunks are
    # also scored against the question without it, and keep the better cosine (a name in
    # every part tells no part apart; retrieve/names.py); 1.0 turns it off. On the FinanceBench
    # dev filings a gold page among the first 3 / 5 / 10 chunks went 0.421 / 0.474 / 0.579 ->
    # 0.474 / 0.526 / 0.632 (docs/benchmarks.md)
    common_name_share: float = Field(0.1, ge=0.0, le=1.0)
    # scopecoe (Chain of Evidence): candidates from this retriever, how many, and how its judge
    # decides. The judge is the grounding model (None) or another entailment backend ("llm");
    # intent and relations hold in a snippet at this P(entailment), a keyword when its words are
    # there or a sentence of the snippet is this close to it (cosine). With scopecoe_fill the
    # covering set is topped up with the base ranking's next snippets to the top k: a minimal
    # set misses a second hop whose words the question does not hold (on the dev questions,
    # 2Wiki 101-116 and HotpotQA 1-8 at 50% irrelevant text, accuracy 0.417 filled against
    # 0.250 minimal and 0.375 naive: benchmarks/results/scopecoe_dev.md). Candidates come from
    # hybrid retrieval (vector + knowledge graph), which reaches a second hop the question does
    # not name: the filled set held all gold sentences for 0.667 of 30 2Wiki dev questions
    # against 0.500 from vector candidates (benchmarks/results/scopecoe_recall_dev.md); with
    # no graph in the workspace it is vector retrieval
    scopecoe_base: str = "hybrid"
    scopecoe_candidates: int = 10
    scopecoe_fill: bool = True
    scopecoe_judge: str | None = None
    scopecoe_threshold: float = 0.5
    scopecoe_keyword_threshold: float = 0.6
    ann_threshold: int = 20_000

    # where workspaces keep their rows: "sqlite" (a file in each workspace folder) or a
    # PostgreSQL URL with pgvector, postgresql://user@host/db (one schema per workspace;
    # docs/deploy.md). The password may come from PGPASSWORD or ~/.pgpass instead of the URL
    store: str = "sqlite"
    # several gechat installations (teams, test runs) in one database: each its own namespace,
    # a prefix of its workspaces' schema names
    store_namespace: str = ""
    # gechat add --ray: the Ray cluster's address ("local" starts one on this machine with
    # ray_workers worker processes, None: one per core); a file whose worker dies is tried again
    # ray_retries times (docs/deploy.md)
    ray_address: str | None = None
    ray_workers: int | None = Field(default=None, ge=1)
    ray_retries: int = Field(default=2, ge=0)

    # answer
    answer_max_tokens: int = 320
    # the LLM reads the retrieved chunks cut to their sentences nearest the question, this many
    # tokens in all (gechat.answer.excerpts; evidence still searches the whole chunks); None:
    # whole chunks. On a CPU the prompt's length is the wait before the first answer token
    answer_excerpt_tokens: int | None = Field(default=None, ge=1)
    max_thoughts: int = 10
    # GE-Chat grounds the reasoning steps too: with the cross-encoder this costs milliseconds
    claims_from_thoughts: bool = True

    # evidence (GE-Chat objective F(s) = alpha * P_entail - beta * len_norm(s))
    evidence: str = "nli-objective"  # or reflection (EvidenceChat), quote (the papers' baseline)
    # the nli-objective selector's steps, in order (gechat.evidence.steps): reasoning steps
    # that state no fact set aside, the candidate sentences, each read alone by the entailment
    # model, sentence sets, the verifier's second reading of a one-sentence support, values
    # that conflict with the claim's, values looked up in a table row, figures computed again, the verdict
    evidence_steps: list[str] = Field(
        default_factory=lambda: ["facts", "candidates", "nli", "sets", "verify", "values", "lookup", "derived",
                                 "verdict"])
    reflection_k: int = 3  # sentences shown to the LLM per step (reflection), quotes allowed (quote)
    # alpha, beta, len_norm, set_* and the supported threshold were chosen on 2WikiMultihopQA
    # tuning questions (benchmarks/results/evidence_calibration.md)
    alpha: float = 1.0
    beta: float = 0.25
    len_norm: str = "words"
    len_ref_words: int = 60
    # candidates per claim, pre-ranked by cosine; None: the scorer's own default (60 for the
    # cross-encoder, which scores hundreds of pairs a second; 3 for the LLM scorer, ~1 a second)
    evidence_max_candidates: int | None = None
    # multi-sentence evidence: sets of up to set_max sentences from the set_top strongest
    # candidates; set_gain None: only when no single sentence passes, else a set replaces a
    # passing single when it entails at least this much more; pairs hold one of the
    # set_anchors strongest (None: any two of set_top)
    set_top: int = 15
    set_anchors: int | None = None
    # the same for reasoning steps, one hop each: pairs of two weaker candidates cost time
    # there and changed no end-to-end figure
    set_anchors_steps: int | None = 2
    set_max: int = 2
    set_gain: float | None = 0.1
    # a set only where each sentence holds a word of the claim the others lack, in its text or
    # its own headings (no passengers)
    set_contribution: bool = True
    # ... and each sentence is tied to the question's names or to another sentence of the set
    # (a name or number in common, headings included, or the same chunk): no chain of two
    # unrelated sentences, one about the subject and one that merely holds the answer's value
    set_linked: bool = True
    # ... and the model must agree: without any one of its sentences the set lacks a name or
    # number of the claim, is about less of the question's names (with set_named), or
    # entails at least this much less (None: no check)
    set_needed: float | None = 0.05
    # among the sets that pass, the one about more of the question's names and numbers wins
    # (a name in passing or only in a heading counts half), then one joined by a name the
    # claim lacks (a chain), F breaks ties; a set about more of them also replaces a passing
    # single sentence
    set_named: bool = True
    # pairs also join each of the set_bridges strongest candidates to sentences that share a
    # name with it the claim lacks and that name what the question names (the other hop)
    set_bridges: int = 3
    # contradicted only by a sentence that shares a word with the claim (not by unrelated text)
    contra_overlap: bool = True
    # supported only if the evidence holds the claim's names and numbers ("facts"), every
    # content word ("all"), or no check ("off"); words of the question need no evidence
    evidence_coverage: Coverage = "facts"
    # what the entailment model reads before a sentence: "claim", the headings of its path that
    # hold a word of the claim the sentence lacks (the nearest one for a sentence opening with a
    # pronoun); "pronoun", the nearest heading for such a sentence only; "off", nothing. Off
    # by default: on the dev splits neither form helped the packaged model
    # (docs/evidence.md, "Reading in context")
    evidence_headings: Headings = "off"
    # each claim split into the facts it states, each checked on its own: "rules" (a list of
    # names joined by "and" in what the claim adds to the question), "llm" (the LLM writes the
    # facts; its calls are cached and counted), "off"
    claim_atoms: str = "rules"
    # None: the thresholds calibrated with the entailment model, else 0.5 / 0.6
    supported_threshold: float | None = None
    contradicted_threshold: float | None = None

    # correct: after the evidence, "hc" edits the answer's unsupported parts (Trustful LLMs'
    # hallucination correction, gechat.correct.hc); "none" spends no time on it
    correct: str = "none"
    # how HC reads knowledge triplets: "fast" (spaCy's parse, no LLM) or "llm" (the LLM, JSON-constrained;
    # one call per few sentences)
    correct_triplets: str = "fast"
    # cosine at which an answer's name is one the documents name (with the graph resolver's rules);
    # chosen on HaluEval-QA dev rows 0-199 (benchmarks/correction.py): every value from 0.75 to 0.9
    # fixed 0.545 of the hallucinated answers and left the right ones whole; 0.9 was best before
    correct_threshold: float = 0.9
    # an unsupported answer sentence HC could not repair: "delete" it (Algorithm 1 keeps only what the
    # documents verify; the edit shows what went), "unverified": only when none of its triplets is
    # verified, "keep": leave it flagged. Chosen on dev (docs/settings.md): "delete" fixed the most
    # HaluEval-QA dev answers and left >= 0.95 of the right ones whole
    correct_unsupported: Literal["keep", "unverified", "delete"] = "delete"

    # the API server (gechat serve): Host names it answers to while no API key is in force,
    # besides the loopback names and its --host (a page that rebinds its DNS name to this
    # machine is refused); web origins whose pages may call it (CORS; none: its own page only)
    allowed_hosts: list[str] = Field(default_factory=list)
    cors_origins: list[str] = Field(default_factory=list)

    preset: Literal["default", "fast", "careful", "test"] = "default"

    @classmethod
    def load(
        cls, preset: str = "default", file: Path | None = None, **overrides: Any
    ) -> Settings:
        """Preset < file < environment < explicit overrides."""
        values: dict[str, Any] = dict(PRESETS.get(preset, {}))
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}", hint=f"choose one of: {', '.join(PRESETS)}")
        if file is not None:
            try:
                values.update(flatten(tomllib.loads(Path(file).read_text())))
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise ConfigError(f"cannot read settings file {file}: {e}") from None
        for key in sorted(RETIRED & values.keys()):
            values.pop(key)
            warnings.warn(f"setting {key} no longer exists and is ignored: {RETIRED_WHY}", stacklevel=2)
        env_keys = {k[len("GECHAT_"):].lower() for k in os.environ if k.startswith("GECHAT_")}
        for key in env_keys:
            values.pop(key, None)  # the environment wins over preset and file
        values.update({k: v for k, v in flatten(overrides).items() if v is not None})
        values["preset"] = preset
        try:
            return cls(**values)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"bad setting {where}: {first['msg']}") from None


    def grouped(self) -> dict[str, dict[str, Any]]:
        """The settings by group, as a settings file writes them (``gechat.settings_groups``)."""
        return grouped(self.model_dump(mode="json", exclude={"models_dir", "cache_dir", "preset"}))


# Settings older versions had, which a settings file may still name: ignored with a warning.
RETIRED = frozenset({"evidence_compare", "evidence_same", "evidence_kin", "evidence_chain", "evidence_bridge",
                     "evidence_options", "evidence_linked", "evidence_both", "evidence_which",
                     "evidence_rebridge", "evidence_set_names"})
RETIRED_WHY = "the evidence stage no longer has rules for particular question forms (see CHANGELOG.md)"

PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "fast": {"llm_model": "qwen2.5-coder-0.5b"},
    # the verifier re-reads the sentences that decide each verdict: fewer wrong answers shown
    # supported, about four times the evidence time; a contradiction must be clearer than the
    # verifier's own NLI threshold (0.26) says, since it calls some right answers to questions
    # that compare two things contradicted (chosen on dev questions: docs/evidence-calibration.md)
    "careful": {"entailment": "cascade", "contradicted_threshold": 0.7},
    "test": {
        "llm_backend": "fake",
        "llm_model": "fake",
        "embedder": "hashing",
        "entailment": "fake",
        "llm_cache": False,
        "claims_from_thoughts": True,
        "graph": "none",  # unit tests opt in; spaCy costs 3 s a process
    },
}

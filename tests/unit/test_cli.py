"""The CLI through a real subprocess: output, exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "GECHAT_LLM_BACKEND": "fake", "GECHAT_EMBEDDER": "hashing",
         "GECHAT_ENTAILMENT": "fake", "GECHAT_LLM_CACHE": "false", **(env or {})}
    return subprocess.run([sys.executable, "-m", "gechat.cli", *args], capture_output=True, text=True,
                          env=e, timeout=120)


def assert_clean_error(p: subprocess.CompletedProcess[str], needle: str) -> None:
    assert p.returncode != 0
    assert "Traceback" not in p.stderr + p.stdout
    assert needle in p.stderr
    assert "hint:" in p.stderr


def test_help_explains() -> None:
    p = run("--help")
    assert p.returncode == 0
    for cmd in ("add", "ask", "docs", "rm", "bench", "models", "settings"):
        assert cmd in p.stdout


def test_settings_shows_the_groups_and_refuses_an_unknown_key(tmp_path: Path) -> None:
    f = tmp_path / "gechat.toml"
    f.write_text('[llm]\nmodel = "qwen2.5-coder-0.5b"\n')
    p = run("settings", "--config", str(f), "--json")
    assert p.returncode == 0, p.stderr
    groups = json.loads(p.stdout)
    assert groups["llm"]["model"] == "qwen2.5-coder-0.5b" and "beta" in groups["tuning"]
    f.write_text('[llm]\nmodle = "x"\n')
    assert_clean_error(run("settings", "--config", str(f)), "unknown setting llm.modle")


def test_add_ask_docs_rm(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("The Eiffel Tower is in Paris. It was completed in 1889.\n\nIt is 330 metres tall.\n")
    ws = str(tmp_path / "ws")
    p = run("add", str(f), "-w", ws)
    assert p.returncode == 0, p.stderr
    assert "added notes.txt" in p.stdout
    p = run("add", str(f), "-w", ws, "--again")
    assert p.returncode == 0 and "added notes.txt" in p.stdout, p.stderr
    p = run("docs", "-w", ws, "--json")
    assert [d["n_sentences"] for d in json.loads(p.stdout)] == [3]
    p = run("ask", "When was the tower completed?", "-w", ws, "--json")
    assert p.returncode == 0, p.stderr
    ans = json.loads(p.stdout)
    assert ans["question"] == "When was the tower completed?"
    assert ans["claims"] and all(c["verdict"] in {"supported", "unsupported", "contradicted", "no fact"}
                                  for c in ans["claims"])
    p = run("ask", "When was the tower completed?", "-w", ws)
    assert p.returncode == 0 and "Claims and evidence" in p.stdout and "notes.txt:1:" in p.stdout
    p = run("rm", "notes.txt", "-w", ws)
    assert p.returncode == 0 and "removed notes.txt" in p.stdout


def test_ask_labels_a_reasoning_step_that_states_no_fact(tmp_path: Path) -> None:
    f = tmp_path / "tower.txt"
    # the fake LLM answers with the first sentence and reasons with the first two
    f.write_text("The tower was completed in 1889. This is stated in the first paragraph of the text.\n")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws).returncode == 0
    p = run("ask", "When was the tower completed?", "-w", ws)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "– no fact (thought) This is stated in the first paragraph of the text." in out
    assert "note: states no fact to check" in out
    ans = json.loads(run("ask", "When was the tower completed?", "-w", ws, "--json").stdout)
    meta = [c for c in ans["claims"] if c["text"].startswith("This is stated")]
    assert [c["verdict"] for c in meta] == ["no fact"] and meta[0]["evidence"] == []


def test_ask_shows_the_section_each_piece_of_evidence_sits_in(tmp_path: Path) -> None:
    f = tmp_path / "tower.md"
    f.write_text("# Eiffel Tower\n\n## History\n\nThe tower was completed in 1889.\n")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws).returncode == 0
    p = run("ask", "When was the tower completed?", "-w", ws)
    assert p.returncode == 0, p.stderr
    assert "in: Eiffel Tower > History" in p.stdout
    ans = json.loads(run("ask", "When was the tower completed?", "-w", ws, "--json").stdout)
    assert ans["claims"][0]["evidence"][0]["sentences"][0]["context"] == "Eiffel Tower > History"


def test_ask_shows_each_fact_of_a_claim_with_its_own_evidence(tmp_path: Path) -> None:
    f = tmp_path / "acme.txt"
    # the fake LLM answers with the first sentence: two founders, two facts
    f.write_text("Acme was founded by Alice Smith and Bob Jones in 1990. It sells pumps.\n")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws).returncode == 0
    p = run("ask", "Who founded Acme?", "-w", ws)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "fact: Acme was founded by Alice Smith in 1990." in out
    assert "fact: Acme was founded by Bob Jones in 1990." in out
    ans = json.loads(run("ask", "Who founded Acme?", "-w", ws, "--json").stdout)
    atoms = ans["claims"][0]["atoms"]
    assert [a["text"] for a in atoms] == ["Acme was founded by Alice Smith in 1990.",
                                          "Acme was founded by Bob Jones in 1990."]
    assert all(a["evidence"] for a in atoms)


def test_ask_excerpt_tokens_cuts_what_the_llm_reads(tmp_path: Path) -> None:
    f = tmp_path / "tower.txt"
    f.write_text("The Eiffel Tower is in Paris. Its iron came from Lorraine. The tower was completed in 1889.\n")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws).returncode == 0
    # the fake LLM answers with the first sentence it reads: the whole chunk starts in Paris
    whole = json.loads(run("ask", "When was the tower completed?", "-w", ws, "--json").stdout)
    assert "Paris" in whole["text"]
    p = run("ask", "When was the tower completed?", "-w", ws, "--json", "--excerpt-tokens", "8")
    assert p.returncode == 0, p.stderr
    cut = json.loads(p.stdout)
    assert "completed in 1889" in cut["text"] and "Paris" not in cut["text"]
    assert_clean_error(run("ask", "When?", "-w", ws, "--excerpt-tokens", "0"), "answer_excerpt_tokens")


@pytest.mark.parametrize(("name", "content", "needle"), [
    ("x.xyz", b"hello", "unsupported"),
    ("empty.txt", b"", "empty"),
    ("broken.pdf", b"%PDF-1.4 garbage", "broken.pdf"),
])
def test_add_errors_are_one_line(tmp_path: Path, name: str, content: bytes, needle: str) -> None:
    f = tmp_path / name
    f.write_bytes(content)
    p = run("add", str(f), "-w", str(tmp_path / "ws"))
    assert_clean_error(p, needle)


def test_a_wrong_option_is_a_usage_error_not_an_internal_one() -> None:
    p = run("ask", "--nope", "x")
    assert p.returncode == 2 and "Traceback" not in p.stderr + p.stdout
    assert "No such option: --nope" in p.stderr and "internal error" not in p.stderr
    assert "gechat ask --help" in p.stderr


def test_a_batch_goes_on_past_a_binary_file_and_says_which(tmp_path: Path) -> None:
    good, bad = tmp_path / "a.txt", tmp_path / "program.txt"
    good.write_text("The tower is in Paris.")
    bad.write_bytes(b"\x7fELF" + bytes(range(256)) * 8)
    later = tmp_path / "b.txt"
    later.write_text("Berlin is the capital of Germany.")
    p = run("add", str(good), str(bad), str(later), "-w", str(tmp_path / "ws"))
    assert "program.txt is not text" in p.stderr and "Traceback" not in p.stderr
    docs = run("docs", "-w", str(tmp_path / "ws")).stdout
    assert "a.txt" in docs and "b.txt" in docs and "program.txt" not in docs


def test_missing_file(tmp_path: Path) -> None:
    assert_clean_error(run("add", str(tmp_path / "nope.pdf"), "-w", str(tmp_path / "ws")), "no such file")


def test_ask_without_documents(tmp_path: Path) -> None:
    assert_clean_error(run("ask", "What?", "-w", str(tmp_path / "ws")), "no documents")


def test_rm_unknown(tmp_path: Path) -> None:
    assert_clean_error(run("rm", "ghost.pdf", "-w", str(tmp_path / "ws")), "ghost.pdf")


def test_bad_setting_is_clear(tmp_path: Path) -> None:
    p = run("ask", "What?", "-w", str(tmp_path / "ws"), env={"GECHAT_TOP_K_CHUNKS": "many"})
    assert_clean_error(p, "top_k_chunks")


def test_unknown_backend_lists_choices(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("Some text here. More text there.")
    ws = str(tmp_path / "ws")
    run("add", str(f), "-w", ws)
    p = run("ask", "What?", "-w", ws, "--llm-backend", "gpt-magic")
    assert_clean_error(p, "gpt-magic")
    assert "llamacpp" in p.stderr


def test_n_chunks_option(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text(" ".join(f"Sentence number {i} is here." for i in range(40)))
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws, "--n-chunks", "4").returncode == 0
    assert json.loads(run("docs", "-w", ws, "--json").stdout)[0]["n_chunks"] == 4


def test_models_list_names_both_packaged_models(tmp_path: Path) -> None:
    p = run("models", "list", "--models-dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "qwen2.5-coder-1.5b" in p.stdout and "qwen2.5-coder-0.5b" in p.stdout


def test_models_path_of_unknown_model(tmp_path: Path) -> None:
    assert_clean_error(run("models", "path", "gpt-9", "--models-dir", str(tmp_path)), "gpt-9")


def test_bench_writes_both_result_files(tmp_path: Path) -> None:
    from gechat.eval.datasets import DATA

    if not DATA.is_dir():
        pytest.skip("shared data not found")
    p = run("bench", "--preset", "test", "--limit", "1", "--selectors", "nli-objective,quote",
            "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work"))
    assert p.returncode == 0, p.stderr[-2000:]
    flat = json.loads((tmp_path / "res" / "evidence.json").read_text())
    for key in ("hotpotqa_oracle_f1__nli", "hotpotqa_oracle_f1__quote", "twowiki_test_oracle_f1__nli",
                "evidence_score__nli", "evidence_score__quote", "fabricated_rate__quote",
                "financebench_page_hit__nli", "answer_f1_hotpotqa"):
        assert key in flat, key
    assert "| quote |" in (tmp_path / "res" / "evidence.md").read_text()
    first_rows = [json.loads(line) for line in (tmp_path / "res" / "evidence_questions.jsonl").read_text().splitlines()]
    # re-running one selector keeps the other's figures and rows, and says where they come from
    p = run("bench", "--preset", "test", "--limit", "1", "--selectors", "nli-objective", "--keep-others",
            "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work"))
    assert p.returncode == 0, p.stderr[-2000:]
    again = json.loads((tmp_path / "res" / "evidence.json").read_text())
    assert again["fabricated_rate__quote"] == flat["fabricated_rate__quote"]
    first_run = {k: flat["meta"][k] for k in ("date", "command", "machine")}
    assert again["meta"]["kept from an earlier run"] == {"quote": first_run}
    rows = [json.loads(line) for line in (tmp_path / "res" / "evidence_questions.jsonl").read_text().splitlines()]
    assert {"nli-objective", "quote"} <= {r["selector"] for r in rows}
    assert sum(r["selector"] == "quote" for r in rows) == sum(r["selector"] == "quote" for r in first_rows)
    assert "| quote |" in (tmp_path / "res" / "evidence.md").read_text()
    # kept twice: still the run that measured them
    p = run("bench", "--preset", "test", "--limit", "1", "--selectors", "nli-objective", "--keep-others",
            "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work"))
    thrice = json.loads((tmp_path / "res" / "evidence.json").read_text())
    assert thrice["fabricated_rate__quote"] == flat["fabricated_rate__quote"]
    assert thrice["meta"]["kept from an earlier run"] == {"quote": first_run}
    # re-running the other selector keeps the nli-objective's rows, its retrieval-strategy ones too
    p = run("bench", "--preset", "test", "--limit", "1", "--selectors", "quote", "--keep-others",
            "--out", str(tmp_path / "res"), "--work", str(tmp_path / "work"))
    assert p.returncode == 0, p.stderr[-2000:]
    last = json.loads((tmp_path / "res" / "evidence.json").read_text())
    assert last["hotpotqa_retrieved_f1__nli_vector"] == thrice["hotpotqa_retrieved_f1__nli_vector"]
    assert last["hotpotqa_oracle_f1__nli"] == thrice["hotpotqa_oracle_f1__nli"]
    assert last["meta"]["kept from an earlier run"] == {
        "nli-objective": {k: thrice["meta"][k] for k in ("date", "command", "machine")}}
    assert "| nli-objective |" in (tmp_path / "res" / "evidence.md").read_text()
    assert_clean_error(run("bench", "--preset", "test", "--limit", "1", "--keep-others",
                           "--out", str(tmp_path / "none"), "--work", str(tmp_path / "work")), "no earlier results")


def test_graph_build_stops_at_budget_resumes_and_reports(tmp_path: Path) -> None:
    f = tmp_path / "firms.txt"
    f.write_text(" ".join(f"Company Alpha{i} hired Person Beta{i} in Gamma{i} City." for i in range(10)))
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws, "--graph", "none", "--chunk-tokens", "20").returncode == 0
    small_units = {"GECHAT_GRAPH_UNIT_TOKENS": "30"}
    p = run("graph", "build", "-w", ws, "--extractor", "llm", "--max-llm-calls", "2", env=small_units)
    assert p.returncode == 3, p.stderr
    assert "budget (2) is spent" in p.stderr and "resume" in p.stderr and "Traceback" not in p.stderr
    p = run("graph", "build", "-w", ws, "--extractor", "llm", env=small_units)
    assert p.returncode == 0, p.stderr
    assert "complete" in p.stdout
    stats = json.loads(run("graph", "stats", "-w", ws, "--json").stdout)
    assert stats["chunks_done"] >= 2 and stats["chunks_failed"] == 0
    assert stats["documents"]["firms"]["llm_calls"] >= 3
    p = run("graph", "export", str(tmp_path / "g.graphml"), "-w", ws)
    assert p.returncode == 0 and (tmp_path / "g.graphml").stat().st_size > 0
    p = run("ask", "Who did Company Alpha1 hire?", "-w", ws, "--retriever", "hybrid")
    assert p.returncode == 0, p.stderr


def test_graph_retriever_without_graph_is_one_clear_line(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("Alpha Beta met Gamma Delta in Paris.")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws, "--graph", "none").returncode == 0
    assert_clean_error(run("ask", "Who met?", "-w", ws, "--retriever", "graph"), "no knowledge graph")


def test_bench_questions_runs_on_your_documents_and_refuses_a_bad_file(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nAcme reported revenue of $5.2 million in 2023.\n")
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"question": "What revenue did Acme report?", "answer": "$5.2 million",
                             "document": "notes.md", "page": 1}) + "\n")
    p = run("bench", "--questions", str(q), "--out", str(tmp_path / "res"), "--work", str(tmp_path / "w"))
    assert p.returncode == 0, p.stderr
    flat = json.loads((tmp_path / "res" / "documents.json").read_text())
    assert flat["documents_e2e_questions"] == 1 and "documents_e2e_answer_accuracy" in flat
    assert "documents_e2e_answer_accuracy" in p.stdout
    q.write_text('{"question": "x", "answer": "y"}\n')
    assert_clean_error(run("bench", "--questions", str(q)), "no document")


def test_ask_correct_prints_the_corrected_answer(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("The Eiffel Tower is in Paris. It was completed in 1889.\n")
    ws = str(tmp_path / "ws")
    assert run("add", str(f), "-w", ws).returncode == 0
    p = run("ask", "When was the tower completed?", "-w", ws, "--correct")
    assert p.returncode == 0, p.stderr
    assert "Corrected answer" in p.stdout and "nothing to correct" in p.stdout  # the fake answer is supported
    ans = json.loads(run("ask", "When was the tower completed?", "-w", ws, "--json", "--correct").stdout)
    assert ans["corrected"]["text"] == ans["text"] and ans["corrected"]["edits"] == []
    assert json.loads(run("ask", "When was the tower completed?", "-w", ws, "--json").stdout)["corrected"] is None


def test_a_correction_prints_as_a_tracked_change() -> None:
    from gechat.cli_common import out, print_correction
    from gechat.types import Answer, Correction, Edit

    text = "The tower was completed in 1887. Acme built it."
    fix = Correction(text="The tower was completed in 1889.", entities=["Acme"], eliminated=["Acme"], edits=[
        Edit(kind="replace", start=27, end=31, old="1887", new="1889", reason="the source names 1889"),
        Edit(kind="delete", start=33, end=47, old="Acme built it.", reason="'Acme' is not in the documents")])
    with out.capture() as shown:
        print_correction(Answer(question="q", text=text, thoughts=[], claims=[], corrected=fix))
    lines = " ".join(shown.get().split())
    assert "The tower was completed in 1887 1889." in lines  # old struck through, new beside it
    assert "replaced '1887' with '1889': the source names 1889" in lines
    assert "deleted 'Acme built it.': 'Acme' is not in the documents" in lines
    assert "1 of 1 named things taken out: Acme" in lines
    assert "Nothing of this answer" not in lines


def test_a_correction_that_takes_out_the_whole_answer_says_so() -> None:
    from gechat.cli_common import EMPTIED, out, print_correction
    from gechat.types import Answer, Correction, Edit

    text = "Acme built the tower."
    fix = Correction(text="", edits=[Edit(kind="delete", start=0, end=len(text), old=text,
                                          reason="the documents retrieved do not state it")])
    with out.capture() as shown:
        print_correction(Answer(question="q", text=text, thoughts=[], claims=[], corrected=fix))
    lines = " ".join(shown.get().split())
    assert "deleted 'Acme built the tower.': the documents retrieved do not state it" in lines
    assert EMPTIED in lines

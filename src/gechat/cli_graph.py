"""`gechat graph build | stats | export`: the knowledge graph of a workspace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from gechat.cli_common import ConfigOpt, MaxCallsOpt, PresetOpt, WorkspaceOpt, cost_line, err, out, settings, workspace

graph_app = typer.Typer(no_args_is_help=True, help="The knowledge graph: build (resumable), stats, export.")


@graph_app.command("build")
def build(
    docs: Annotated[list[str] | None, typer.Argument(help="Document ids or file names (default: all)")] = None,
    workspace_: WorkspaceOpt = Path(".gechat"),
    extractor: Annotated[str | None, typer.Option(help="fast (spaCy) or llm (default: the graph setting)")] = None,
    max_llm_calls: MaxCallsOpt = None,
    preset: PresetOpt = "default",
    config: ConfigOpt = None,
) -> None:
    """Extend the graph with every chunk not in it yet. Stops cleanly at --max-llm-calls;
    running it again resumes at the first chunk not done (cached LLM answers are free)."""
    from gechat.graph.build import Budget

    s = settings(preset, config)
    ex = extractor or (s.graph if s.graph != "none" else "fast")
    ws = workspace(workspace_, s)
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"building the graph ({ex})")
        reports = ws.build_graph(docs or None, extractor=ex, budget=Budget(max_llm_calls),
                                 progress=lambda r: bar.update(task, description=cost_line(r)))
    for r in reports:
        state = "[green]complete[/]" if r.complete else "[yellow]incomplete[/]"
        out.print(f"{state} {escape(cost_line(r))}, {r.entity_mentions} entity and {r.relation_mentions} "
                  f"relation mentions added, {r.dropped} dropped")
    stopped = next((r for r in reports if r.stopped), None)
    if stopped is not None:
        err.print(f"[yellow]stopped:[/] {stopped.stopped}; run the same command again to resume")
        raise typer.Exit(3)


@graph_app.command("stats")
def stats(workspace_: WorkspaceOpt = Path(".gechat"),
          as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Entities, relations, failed chunks, and what each document's graph cost."""
    from gechat.graph.export import stats as graph_stats

    ws = workspace(workspace_, settings("default", None))
    st = graph_stats(ws.store.graph)
    costs = ws.store.graph.cost_by_document()
    titles = {d.id: d.title for d in ws.documents()}
    per_doc = {titles.get(k, str(k)): v for k, v in costs.items()}
    if as_json:
        print(json.dumps({**st, "documents": per_doc}, indent=2))
        return
    for k, v in st.items():
        if k != "top_entities":
            out.print(f"{k}: {v}")
    if st["top_entities"]:
        out.print("most connected: " + ", ".join(f"{escape(n)} ({d})" for n, d in st["top_entities"]))
    table = Table("document", "chunks", "failed", "LLM calls", "cached", "prompt tok", "completion tok", "seconds")
    for title, c in per_doc.items():
        table.add_row(escape(title), *(f"{c[k]:.0f}" for k in ("chunks", "failed", "llm_calls", "cache_hits",
                                                                "prompt_tokens", "completion_tokens", "seconds")))
    out.print(table)


@graph_app.command("export")
def export(out_file: Annotated[Path, typer.Argument(help="Where to write (e.g. graph.graphml, graph.json)")],
           workspace_: WorkspaceOpt = Path(".gechat"),
           fmt: Annotated[str | None, typer.Option("--format", help="graphml or json (default: by suffix)")] = None,
           ) -> None:
    """Write the graph with its provenance (chunk and sentence ids) as GraphML or JSON."""
    from gechat.graph.export import export as do_export

    ws = workspace(workspace_, settings("default", None))
    fmt = fmt or ("json" if out_file.suffix.lower() == ".json" else "graphml")
    g = do_export(ws.store.graph, out_file, fmt)
    out.print(f"wrote {escape(str(out_file))}: {g.number_of_nodes()} entities, {g.number_of_edges()} relations")

"""What the CLI's command modules share: consoles, common options, settings and workspace."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer
from rich.console import Console

from gechat.settings import Settings

if TYPE_CHECKING:
    from gechat.pipeline import Workspace

out = Console()
err = Console(stderr=True)

WorkspaceOpt = Annotated[Path, typer.Option(
    "--workspace", "-w", envvar="GECHAT_WORKSPACE", help="Workspace directory (created if missing).")]
PresetOpt = Annotated[str, typer.Option(
    "--preset", help="Settings preset: default, fast (0.5B LLM), careful (a verifier re-reads each verdict), test.")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="A TOML file of settings.")]
MaxCallsOpt = Annotated[int | None, typer.Option(
    "--max-llm-calls", help="Stop the graph build cleanly after this many LLM calls; run again to resume.")]


def settings(preset: str, config: Path | None, **overrides: Any) -> Settings:
    return Settings.load(preset, config, **overrides)


def workspace(path: Path, s: Settings) -> Workspace:
    from gechat.pipeline import Workspace

    return Workspace(path, s)


def cost_line(report: Any) -> str:
    """A graph build's progress and cost, as the progress bar and the summary show it."""
    c = report.cost
    line = f"{report.title}: {report.chunks_done}/{report.chunks_total} chunks"
    if c.llm_calls or c.cache_hits:
        line += (f" · {c.llm_calls} LLM calls ({c.cache_hits} cached) · "
                 f"{c.prompt_tokens + c.completion_tokens:,} tokens")
    if report.chunks_failed:
        line += f" · {report.chunks_failed} failed"
    return line + f" · {c.seconds:.0f}s"


def print_added(res: Any) -> bool:
    """One file's outcome of ``gechat add``; False when it failed."""
    from rich.markup import escape

    name = Path(res.path).name
    if res.status == "added" and res.document is not None:
        d = res.document
        out.print(f"[green]added[/] {escape(name)} (id {d.id}): {d.n_pages} pages, "
                  f"{d.n_sentences} sentences, {d.n_chunks} chunks in {res.seconds:.1f}s")
        if res.graph is not None:
            out.print(f"  [dim]graph {escape(cost_line(res.graph))}[/]")
            if res.graph.stopped:
                err.print(f"  [yellow]graph incomplete:[/] {res.graph.stopped}; `gechat graph build` resumes it")
        if res.graph_error is not None:
            err.print(f"  [yellow]graph not built:[/] {escape(str(res.graph_error))}; "
                      "the document is added, `gechat graph build` retries")
        return True
    if res.status == "duplicate" and res.document is not None:
        out.print(f"[dim]skipped[/] {escape(name)}: same content as document {res.document.id}")
        return True
    e = res.error
    err.print(f"[red]error:[/] {escape(str(e))}")
    if e is not None and e.hint:
        err.print(f"  [dim]hint: {escape(e.hint)}[/]")
    return False


def add_with_ray(folder: Path, s: Settings, files: list[Path]) -> int:
    """``gechat add --ray``: the files as Ray tasks, each result printed as it comes; the exit code."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from gechat.scale.ray_ingest import add_with_ray as run

    failed = 0
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"adding with Ray ({s.ray_address})", total=len(files))

        def done(res: Any) -> None:
            nonlocal failed
            bar.advance(task)
            failed += not print_added(res)

        run(folder, s, files, s.ray_address or "local", s.ray_workers, done)
    return 1 if failed else 0


EMPTIED = "Nothing of this answer is stated in the documents retrieved: all of it was taken out."


def print_correction(answer: Any) -> None:
    """The corrected answer as a tracked change: deletions struck through, replacements as
    old -> new, then each edit with its reason and the evidence that gave a new value."""
    from rich.markup import escape

    fix = answer.corrected
    if fix is None:
        return
    out.rule("[bold]Corrected answer")
    if not fix.edits:
        out.print("[dim](nothing to correct)[/]")
        return
    text, parts, pos = answer.text, [], 0
    for e in fix.edits:
        if e.start < pos:
            continue
        parts.append(escape(text[pos:e.start]))
        new = f" [green]{escape(e.new)}[/]" if e.new else ""
        parts.append(f"[red strike]{escape(e.old)}[/]{new}")
        pos = e.end
    parts.append(escape(text[pos:]))
    out.print("".join(parts))
    for e in fix.edits:
        what = f"replaced '{e.old}' with '{e.new}'" if e.kind == "replace" else f"deleted '{e.old.strip()}'"
        out.print(f"  [dim]{escape(what)}: {escape(e.reason)}[/]")
        if e.evidence is not None:
            out.print(f"    [cyan]{escape(e.evidence.locator)}[/] P(entail)={e.evidence.p_entail:.2f} "
                      f"“{escape(e.evidence.text)}”")
    share = f"{len(fix.eliminated)} of {len(fix.entities)} named things taken out"
    out.print(f"[dim]{share}{': ' + escape(', '.join(fix.eliminated)) if fix.eliminated else ''}[/]")
    if not fix.text.strip():  # struck-through text alone reads as an answer; say it plainly
        out.print(f"[bold yellow]{EMPTIED}[/]")


def print_coe(answer: Any) -> None:
    """What ScopeCoE gave the LLM to read and why: the question's features, each snippet with
    the features it holds, and what no candidate held."""
    from rich.markup import escape

    report = answer.coe
    if report is None:
        return
    f = report.features
    out.rule("[bold]What the model read (Chain of Evidence)")
    out.print(f"[dim]intent:[/] {escape(f.intent)}")
    if f.relations:
        out.print(f"[dim]relations:[/] {escape('; '.join(f.relations))}")
    out.print(f"[dim]keywords:[/] {escape(', '.join(f.keywords))}")
    for n, s in enumerate(report.snippets, 1):
        held = (["intent"] if s.intent else []) + [f"relation '{r}'" for r in s.relations] + s.keywords
        why = ", ".join(held) or "no feature"
        mark = " [dim](added to fill the set)[/]" if s.filled else ""
        out.print(f"  [{n}] {escape(s.doc_title)} p.{s.page}: {escape(why)}{mark}")
    out.print(f"[dim]{len(report.snippets)} of {report.candidates} candidate snippets read[/]"
              + (f"; [yellow]not covered: {escape('; '.join(report.uncovered))}[/]" if report.uncovered else ""))


def _usage_errors() -> tuple[type[Any], ...]:
    """click's usage errors, and those of the click that typer ships inside itself (typer 0.2x)."""
    errors: list[type[Any]] = [click.exceptions.ClickException]
    try:
        from typer._click import exceptions as vendored  # type: ignore[import-not-found,unused-ignore]

        errors.append(vendored.ClickException)
    except ImportError:
        pass
    return tuple(errors)


USAGE_ERRORS = _usage_errors()

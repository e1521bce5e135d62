"""What the CLI's command modules share: consoles, common options, settings and workspace."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gechat.settings import Settings

if TYPE_CHECKING:
    from gechat.pipeline import Workspace

out = Console()
err = Console(stderr=True)

WorkspaceOpt = Annotated[Path, typer.Option(
    "--workspace", "-w", envvar="GECHAT_WORKSPACE", help="Workspace directory (created if missing).")]
PresetOpt = Annotated[str, typer.Option("--preset", help="Settings preset: default, fast, test.")]
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

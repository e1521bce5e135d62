"""Benchmarks write their results with gechat.eval.report (shared with `gechat bench`)."""

from __future__ import annotations

from pathlib import Path

from gechat.eval import report
from gechat.eval.report import command, machine, median

RESULTS = Path(__file__).resolve().parent / "results"


def write(name: str, flat: dict[str, object], markdown_body: str, meta: dict[str, object]) -> Path:
    return report.write(name, flat, markdown_body, meta, results=RESULTS)


__all__ = ["RESULTS", "command", "machine", "median", "write"]

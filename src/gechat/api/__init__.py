"""The REST API over workspaces on one machine (``gechat serve``); see ``app.create_app``."""

from __future__ import annotations

from gechat.api.app import create_app
from gechat.api.streaming import ask_stream

__all__ = ["ask_stream", "create_app"]

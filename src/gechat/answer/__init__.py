"""Answerers, chosen by name (one today: chain-of-thought)."""

from __future__ import annotations

from typing import Any

from gechat.answer.base import Answerer, Draft
from gechat.registry import Registry
from gechat.settings import Settings

ANSWERERS: Registry[Answerer] = Registry("answerer")


@ANSWERERS.register("cot")
def _cot(settings: Settings, **deps: Any) -> Answerer:
    from gechat.answer.cot import CoTAnswerer

    return CoTAnswerer(deps["llm"], max_tokens=settings.answer_max_tokens,
                       max_thoughts=settings.max_thoughts, prompt_context=settings.trustful_prompt_context)


__all__ = ["ANSWERERS", "Answerer", "Draft"]

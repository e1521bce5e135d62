"""The OpenAI chat/embeddings request and response shapes the local server speaks: reading a
request body into gechat's terms, errors as the API reports them, usage blocks."""

from __future__ import annotations

import re
from typing import Any

from gechat.errors import GechatError
from gechat.models.llm.base import Message

_CONTEXT_ERROR = re.compile(r"context (window|length)|exceed", re.IGNORECASE)


class ApiError(Exception):
    """An error answered to the client as ``{"error": {...}}`` with this status."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


# --- request parsing ----------------------------------------------------------------------


def content_text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                raise ApiError(400, "only text content parts are supported")
        return "".join(parts)
    raise ApiError(400, "message content must be a string or a list of text parts")


def read_messages(body: dict[str, Any]) -> list[Message]:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ApiError(400, "'messages' must be a non-empty list")
    out: list[Message] = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ApiError(400, f"messages[{i}] must be an object with a string 'role'")
        out.append(Message(role=m["role"], content=content_text(m.get("content"))))
    return out


def read_int(body: dict[str, Any], key: str, default: int, low: int) -> int:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ApiError(400, f"'{key}' must be an integer >= {low}")
    return value


def read_float(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, f"'{key}' must be a number")
    return float(value)


def read_stop(body: dict[str, Any]) -> list[str] | None:
    stop = body.get("stop")
    if stop is None:
        return None
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        return list(stop)
    raise ApiError(400, "'stop' must be a string or a list of strings")


def read_json_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict):
        raise ApiError(400, "'response_format' must be an object")
    kind = fmt.get("type")
    if kind in ("text", "json_object"):
        return None  # json_object: the prompt asks for JSON; no schema to constrain with
    if kind == "json_schema":
        spec = fmt.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise ApiError(400, "response_format.json_schema.schema must be an object")
        return schema
    raise ApiError(400, f"unsupported response_format type {kind!r}")


def embedding_inputs(body: dict[str, Any]) -> list[str]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        if all(isinstance(x, str) for x in raw):
            return list(raw)
        if all(isinstance(x, int) or (isinstance(x, list) and all(isinstance(t, int) for t in x)) for x in raw):
            raise ApiError(400, "token-id input is not supported: send the text (a string or a list of strings)")
    raise ApiError(400, "'input' must be a string or a list of strings")


def approx_tokens(text: str) -> int:
    """A rough token count (words and punctuation runs) for streamed prompts."""
    return len(re.findall(r"\w+|[^\w\s]+", text))


# --- the server ---------------------------------------------------------------------------


def usage_block(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def model_call(fn: Any) -> Any:
    """Run a model call, turning gechat's errors into API errors."""
    try:
        return fn()
    except ApiError:
        raise
    except GechatError as e:
        if _CONTEXT_ERROR.search(e.message):
            raise ApiError(400, e.message, "context_length_exceeded") from None
        raise ApiError(500, e.message) from None
    except Exception as e:
        raise ApiError(500, f"{type(e).__name__}: {e}") from None

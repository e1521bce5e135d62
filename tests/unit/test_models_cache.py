"""CachedLLM over FakeLLM: hits, misses, per-stage usage, streaming, threads."""

from __future__ import annotations

import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gechat.models.llm.base import Message
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.types import Usage

MSG: list[Message] = [
    {
        "role": "user",
        "content": "Excerpts:\nThe sky is blue. It is day.\n\nQuestion: What colour is the sky?",
    }
]


def test_miss_then_hit_persists(tmp_path: Path) -> None:
    db = tmp_path / "c" / "llm.sqlite"
    inner = FakeLLM()
    llm = CachedLLM(inner, db)
    a = llm.complete(MSG, max_tokens=50)
    b = llm.complete(MSG, max_tokens=50)
    assert (a.cached, b.cached) == (False, True)
    assert a.text == b.text and b.completion_tokens == a.completion_tokens
    assert len(inner.calls) == 1
    llm.close()
    # a new process (new object, same file) hits too
    inner2 = FakeLLM()
    again = CachedLLM(inner2, db).complete(MSG, max_tokens=50)
    assert again.cached and inner2.calls == []
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        (value,) = con.execute("SELECT value FROM completions").fetchone()
        assert json.loads(value)["text"] == a.text


@pytest.mark.parametrize(
    "change",
    [
        {"max_tokens": 51},
        {"temperature": 0.5},
        {"stop": ["\n"]},
        {"seed": 1},
        {"json_schema": {"type": "object", "properties": {"a": {"type": "string"}}}},
    ],
)
def test_every_parameter_is_in_the_key(tmp_path: Path, change: dict[str, object]) -> None:
    inner = FakeLLM()
    llm = CachedLLM(inner, tmp_path / "c.sqlite")
    llm.complete(MSG, max_tokens=50)
    out = llm.complete(MSG, **{"max_tokens": 50, **change})  # type: ignore[arg-type]
    assert not out.cached and len(inner.calls) == 2


def test_model_name_and_messages_are_in_the_key(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite"
    CachedLLM(FakeLLM(name="a"), db).complete(MSG)
    assert not CachedLLM(FakeLLM(name="b"), db).complete(MSG).cached
    other: list[Message] = [{"role": "user", "content": "something else"}]
    assert not CachedLLM(FakeLLM(name="a"), db).complete(other).cached
    assert CachedLLM(FakeLLM(name="a"), db).complete(MSG).cached


def test_usage_per_stage(tmp_path: Path) -> None:
    usage = Usage()
    llm = CachedLLM(FakeLLM(), tmp_path / "c.sqlite", usage)
    with llm.stage("answer"):
        first = llm.complete(MSG)
        llm.complete(MSG)
        with llm.stage("claims"):
            llm.complete(MSG, seed=3)
        assert llm.current_stage == "answer"
    llm.complete(MSG, seed=9)
    ans = usage.stages["answer"]
    assert (ans.calls, ans.cache_hits) == (2, 1)
    assert ans.prompt_tokens == first.prompt_tokens > 0
    assert ans.completion_tokens == first.completion_tokens > 0
    assert usage.stages["claims"].calls == 1
    assert usage.stages["other"].calls == 1
    assert usage.total.calls == 4


def test_no_cache_path_is_pass_through(tmp_path: Path) -> None:
    inner = FakeLLM()
    llm = CachedLLM(inner, None)
    assert not llm.complete(MSG).cached
    assert not llm.complete(MSG).cached
    assert len(inner.calls) == 2 and llm.usage.stages["other"].calls == 2


def test_stream_miss_stores_and_hit_yields_one_piece(tmp_path: Path) -> None:
    inner = FakeLLM()
    llm = CachedLLM(inner, tmp_path / "c.sqlite")
    with llm.stage("answer"):
        pieces = list(llm.stream(MSG))
        assert len(pieces) > 3
        again = list(llm.stream(MSG))
    assert again == ["".join(pieces)]
    # the stream's text also serves a plain completion with the same parameters
    assert llm.complete(MSG).cached
    st = llm.usage.stages["answer"]
    assert (st.calls, st.cache_hits, st.completion_tokens) == (2, 1, len(pieces))


def test_abandoned_stream_is_not_stored(tmp_path: Path) -> None:
    inner = FakeLLM()
    llm = CachedLLM(inner, tmp_path / "c.sqlite")
    gen = llm.stream(MSG)
    next(gen)
    gen.close()
    assert not llm.complete(MSG).cached


def test_stage_is_taken_when_stream_is_called(tmp_path: Path) -> None:
    llm = CachedLLM(FakeLLM(), tmp_path / "c.sqlite")
    with llm.stage("answer"):
        gen = llm.stream(MSG)
    list(gen)
    assert llm.usage.stages["answer"].calls == 1 and "other" not in llm.usage.stages


def test_threads_share_one_cache(tmp_path: Path) -> None:
    inner = FakeLLM(lambda msgs: "echo " + msgs[-1]["content"])
    llm = CachedLLM(inner, tmp_path / "c.sqlite")

    def work(i: int) -> str:
        with llm.stage(f"s{i % 3}"):
            msgs: list[Message] = [{"role": "user", "content": f"q{i % 10}"}]
            return llm.complete(msgs).text

    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(work, range(200)))
    assert texts == [f"echo q{i % 10}" for i in range(200)]
    assert llm.usage.total.calls == 200
    assert llm.usage.total.cache_hits >= 200 - len(inner.calls)


def test_fake_llm_default_script_and_callable() -> None:
    out = FakeLLM().complete(MSG).text
    assert out.startswith("Answer: The sky is blue.\nThoughts:\n1. The sky is blue.\n2. It is day.")
    scripted = FakeLLM(["one", "two"])
    assert [scripted.complete(MSG).text for _ in range(2)] == ["one", "two"]
    with pytest.raises(RuntimeError):
        scripted.complete(MSG)
    fn = FakeLLM(lambda msgs: msgs[0]["content"].upper())
    assert fn.complete([{"role": "user", "content": "hi there"}]).text == "HI THERE"
    c = FakeLLM(["a b c d"]).complete(MSG, max_tokens=2)
    assert (c.text, c.completion_tokens) == ("a b", 2)
    assert c.prompt_tokens == len(MSG[0]["content"].split())


def test_fake_llm_json_schema_and_stream() -> None:
    schema = {
        "type": "object",
        "properties": {
            "claims": {"type": "array", "items": {"type": "string"}},
            "ok": {"type": "boolean"},
            "n": {"type": "integer"},
        },
    }
    data = json.loads(FakeLLM().complete(MSG, json_schema=schema).text)
    assert data == {"claims": ["The sky is blue."], "ok": False, "n": 0}
    text = FakeLLM().complete(MSG).text
    assert "".join(FakeLLM().stream(MSG)) == text
    assert "".join(FakeLLM(["x\nyz. stop here"]).stream(MSG, stop=[" stop"])) == "x\nyz."


def test_cold_cost_replays_the_original_call_on_a_hit(tmp_path: Path) -> None:
    db = tmp_path / "llm.sqlite"
    first = CachedLLM(FakeLLM(), db)
    a = first.complete(MSG, max_tokens=50)
    assert first.cold["tokens"] == a.prompt_tokens + a.completion_tokens > 0
    first.close()
    warm = CachedLLM(FakeLLM(), db)
    warm.complete(MSG, max_tokens=50)
    assert warm.cold["tokens"] == a.prompt_tokens + a.completion_tokens  # as if the cache were cold
    assert sum(s.prompt_tokens + s.completion_tokens for s in warm.usage.stages.values()) == 0

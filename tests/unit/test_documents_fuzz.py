"""Fuzzing every loader: damaged and hostile inputs of every kind end as a document or a
``LoadError``, never another exception, and each within a few seconds.

The inputs are benchmarks/fuzz_inputs.py's (real files made there, mutated); hypothesis picks how,
and shrinks a failure to the smallest change that shows it. Bounded to run in well under a
minute; ``python benchmarks/fuzz.py`` runs 10,000 inputs in subprocesses.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gechat.documents import chunk_sentences, load_document, split_sentences
from gechat.errors import LoadError
from gechat.types import ParsedDocument

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import fuzz_inputs as fuzz

PER_INPUT_S = 10.0  # generous for a busy CI machine; benchmarks/fuzz.py holds inputs to 5 s
FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def inputs() -> fuzz.Inputs:
    return fuzz.Inputs()


def read(folder: Path, suffix: str, data: bytes) -> ParsedDocument | LoadError:
    """What adding the file does before embedding; any exception but a LoadError fails."""
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    t = time.perf_counter()
    try:
        doc = load_document(path)
        chunk_sentences(split_sentences(doc), doc.text)
        out: ParsedDocument | LoadError = doc
    except LoadError as e:
        assert str(e) and "\n" not in str(e).strip()
        out = e
    assert time.perf_counter() - t < PER_INPUT_S, f"{suffix} input took over {PER_INPUT_S} s"
    return out


@pytest.mark.timeout(120)
@settings(FUZZ, max_examples=250)
@given(i=st.integers(0, 10**9))
def test_mutated_real_files_of_every_kind(inputs: fuzz.Inputs, tmp_path: Path, i: int) -> None:
    suffix, data, _how = inputs.make(seed=7, i=i)
    read(tmp_path, suffix, data)


@pytest.mark.timeout(120)
@FUZZ
@given(suffix=st.sampled_from([".pdf", ".docx", ".html", ".md", ".txt"]), data=st.binary(max_size=4096))
def test_random_bytes_under_every_name(tmp_path: Path, suffix: str, data: bytes) -> None:
    read(tmp_path, suffix, data)


@pytest.mark.timeout(120)
@FUZZ
@given(kind=st.sampled_from(["pdf", "docx"]), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)),
                                                             min_size=1, max_size=40))
def test_bytes_flipped_in_binary_formats(inputs: fuzz.Inputs, tmp_path: Path, kind: str,
                                         flips: list[tuple[float, int]]) -> None:
    data = bytearray(inputs.pdfs[0] if kind == "pdf" else inputs.docx[0])
    for where, value in flips:
        data[min(int(where * len(data)), len(data) - 1)] = value
    read(tmp_path, "." + kind, bytes(data))


@pytest.mark.timeout(120)
@FUZZ
@given(text=st.text(max_size=3000), suffix=st.sampled_from([".html", ".md", ".txt"]))
def test_any_unicode_text(tmp_path: Path, text: str, suffix: str) -> None:
    read(tmp_path, suffix, text.encode("utf-8", errors="surrogatepass"))


@pytest.mark.parametrize("how", sorted(fuzz.XML))
def test_every_hostile_docx_part(inputs: fuzz.Inputs, tmp_path: Path, how: str) -> None:
    out = read(tmp_path, ".docx", fuzz.with_part(inputs.docx[0], "word/document.xml", fuzz.XML[how]))
    if how != "xml-many":  # 20,000 paragraphs are under the default limits: a document
        assert isinstance(out, LoadError)


def test_deep_html_and_glyph_soup(tmp_path: Path) -> None:
    rng = random.Random(0)
    for _ in range(3):
        read(tmp_path, ".html", fuzz.deep_html(rng))
    assert isinstance(read(tmp_path, ".pdf", fuzz.soup_pdf(rng)), LoadError)

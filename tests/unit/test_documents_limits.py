"""What one document may hold (pages, text, sentences, elements, nesting) is checked while it
is read, and hostile markup is refused before a parser builds a tree from it."""

from __future__ import annotations

import io
import random
import time
import zipfile
from pathlib import Path

import pymupdf
import pytest

from gechat.documents import Limits, load_document, split_sentences
from gechat.documents.limits import MB
from gechat.errors import LoadError
from gechat.pipeline import read_document
from gechat.settings import Settings
from tests.unit.test_documents_bounds import a_docx, with_part

W = b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
END = b"</w:body></w:document>"


CITIES = ["Paris", "Berlin", "Rome", "Madrid", "Vienna", "Lisbon", "Prague", "Warsaw", "Oslo", "Dublin"]


def a_pdf(path: Path, pages: int = 3, text: str = "") -> Path:
    doc = pymupdf.open()
    for i in range(pages):
        # each page its own text: a line repeated on every page is a running header, left out
        body = text or f"The tower {i} is in {CITIES[i % 10]}. It is {i + 10} metres tall."
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), body, fontsize=10)
    doc.save(str(path))
    doc.close()
    return path


def refused(path: Path, limits: Limits | None = None) -> LoadError:
    with pytest.raises(LoadError) as e:
        load_document(path, limits=limits)
    return e.value


def test_a_pdf_over_the_page_limit_is_refused_before_its_pages_are_read(tmp_path: Path) -> None:
    pdf = a_pdf(tmp_path / "long.pdf", pages=5)
    e = refused(pdf, Limits(max_pages=3))
    assert str(e) == "long.pdf has 5 pages; the limit is 3 pages (setting max_pages)."
    assert "max_pages" in e.hint
    assert load_document(pdf, limits=Limits(max_pages=5)).pages[-1].number == 5


@pytest.mark.parametrize("kind", ["pdf", "docx", "html", "txt", "md"])
def test_text_past_the_limit_stops_the_reading_and_names_the_setting(tmp_path: Path, kind: str) -> None:
    sentence = "The tower is in Paris and it is tall. "
    path = tmp_path / f"big.{kind}"
    if kind == "pdf":
        a_pdf(path, pages=30, text=sentence * 40)
    elif kind == "docx":
        a_docx(path, sentence * 2000)
    elif kind == "html":
        path.write_text("<html><body>" + f"<p>{sentence * 20}</p>" * 100 + "</body></html>")
    else:
        path.write_text(sentence * 2000)
    e = refused(path, Limits(max_text_chars=20_000))
    assert str(e).startswith(f"big.{kind} holds more than")
    assert "(setting max_text_mb)" in str(e)
    if kind == "pdf":  # stopped at the page that passed it, not after reading all 30
        assert "by page " in str(e) and "by page 30" not in str(e)
    assert load_document(path).text.startswith("The tower")


def test_sentences_past_the_limit_are_refused_while_splitting(tmp_path: Path) -> None:
    txt = tmp_path / "many.txt"
    txt.write_text("One fact here. " * 50)
    doc = load_document(txt)
    assert len(split_sentences(doc)) == 50
    with pytest.raises(LoadError) as e:
        split_sentences(doc, max_sentences=10)
    assert str(e.value) == "many.txt has more than 10 sentences; the limit is 10 sentences (setting max_sentences)."


def test_the_settings_reach_the_loaders(tmp_path: Path) -> None:
    pdf = a_pdf(tmp_path / "doc.pdf", pages=4)
    s = Settings.load("test", cache_dir=tmp_path / "cache", max_pages=2)
    with pytest.raises(LoadError, match=r"setting max_pages"):
        read_document(pdf, pdf.stat().st_size, s)
    s = Settings.load("test", cache_dir=tmp_path / "cache", max_sentences=3)
    with pytest.raises(LoadError, match=r"doc.pdf has more than 3 sentences"):
        read_document(pdf, pdf.stat().st_size, s)
    s = Settings.load("test", cache_dir=tmp_path / "cache", max_text_mb=100 / MB)
    with pytest.raises(LoadError, match=r"max_text_mb"):
        read_document(pdf, pdf.stat().st_size, s)
    assert Limits.from_settings(Settings.load("test")) == Limits()


@pytest.mark.parametrize(("name", "xml", "says"), [
    ("bomb", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
             b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>' + W + b"<w:p><w:r><w:t>&c;</w:t></w:r></w:p>" + END,
     "declares a DTD or entities"),
    ("external", b'<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]>' + W + b"<w:p><w:r><w:t>&e;</w:t></w:r></w:p>"
     + END, "declares a DTD or entities"),
    ("deep", W + b"<w:p>" * 5000 + b"</w:p>" * 5000 + END, "more than 256 levels deep"),
])
def test_hostile_xml_in_a_docx_is_refused_fast(tmp_path: Path, name: str, xml: bytes, says: str) -> None:
    bad = with_part(a_docx(tmp_path / "ok.docx"), tmp_path / f"{name}.docx", "word/document.xml", xml)
    t = time.perf_counter()
    e = refused(bad)
    assert time.perf_counter() - t < 2
    assert str(e).startswith(f"{name}.docx") and says in str(e) and "word/document.xml" in str(e)


def test_a_docx_with_too_many_elements_is_refused_naming_the_setting(tmp_path: Path) -> None:
    xml = W + b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 5000 + END
    bad = with_part(a_docx(tmp_path / "ok.docx"), tmp_path / "wide.docx", "word/document.xml", xml)
    e = refused(bad, Limits(max_elements=10_000))
    assert "holds more than 10,000 XML elements" in str(e) and "(setting max_elements)" in str(e)
    assert load_document(bad).text.startswith("x")


def test_corrupt_deflate_data_in_a_docx_is_a_load_error(tmp_path: Path) -> None:
    data = bytearray(a_docx(tmp_path / "ok.docx", "The tower is in Paris. " * 200).read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 10, start + 60):
        data[i] ^= 0x5A
    bad = tmp_path / "corrupt.docx"
    bad.write_bytes(bytes(data))
    e = refused(bad)
    assert str(e).startswith("corrupt.docx could not be read as .docx") and "word/document.xml" in str(e)


def test_eighty_thousand_nested_divs_are_flattened_fast(tmp_path: Path) -> None:
    page = tmp_path / "deep.html"
    page.write_text("<html><body>" + "<div>" * 80_000 + "deep text" + "</div>" * 80_000 + "<p>After.</p></body></html>")
    t = time.perf_counter()
    doc = load_document(page)
    assert time.perf_counter() - t < 3
    assert "deep text" in doc.text and doc.text.endswith("After.")
    unclosed = tmp_path / "unclosed.html"
    unclosed.write_text("<p>Start.</p>" + "<span><b>" * 40_000 + "words")
    assert load_document(unclosed).text.split() == ["Start.", "words"]


def test_html_with_too_many_elements_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "wide.html"
    page.write_text("<ul>" + "<li>item" * 3000 + "</ul>")
    e = refused(page, Limits(max_elements=1000))
    assert "holds more than 1,000 HTML elements" in str(e) and "(setting max_elements)" in str(e)
    assert load_document(page).text.startswith("item")


def test_lists_and_paragraphs_left_open_are_not_nesting(tmp_path: Path) -> None:
    # 2,000 <p> and <li> never closed: a browser closes each at the next, so nothing is cut
    from gechat.documents.markup import bound_html

    source = "<body>" + "<p>para" * 2000 + "<ul>" + "<li>item" * 2000 + "</ul></body>"
    assert bound_html(source, "x.html", Limits()) == source


def test_a_broken_page_tree_is_the_files_load_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = a_pdf(tmp_path / "tree.pdf", pages=2)

    def broken(self: pymupdf.Document, *args: object) -> None:
        raise pymupdf.mupdf.FzErrorFormat("cannot find page 1 in page tree")

    monkeypatch.setattr(pymupdf.Document, "__getitem__", broken)
    e = refused(pdf)
    assert str(e).startswith("tree.pdf could not be read as .pdf") and "page tree" in str(e)


@pytest.mark.parametrize(("data", "says"), [
    (b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n" * 10, "tree.txt is not text: it is a PDF document"),
    (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4, "tree.txt is not text: it is a program"),
    (random.Random(0).randbytes(4000), "tree.txt is not text: it holds binary data"),
])
def test_binary_files_named_as_text_are_refused_in_one_line(tmp_path: Path, data: bytes, says: str) -> None:
    path = tmp_path / "tree.txt"
    path.write_bytes(data)
    e = refused(path)
    assert str(e).startswith(says) and "\n" not in str(e)


def test_a_docx_of_too_many_parts_is_refused_from_its_end_record(tmp_path: Path) -> None:
    path = tmp_path / "parts.docx"
    with zipfile.ZipFile(path, "w") as z:
        for i in range(10_001):
            z.writestr(f"p{i}", b"")
    e = refused(path)
    assert str(e).startswith("parts.docx holds 10,001 parts") and "the limit is 10,000" in str(e)


def test_a_zip_version_zipfile_cannot_read_is_a_load_error(tmp_path: Path) -> None:
    # found by benchmarks/fuzz.py: zipfile raises NotImplementedError for it, before any loader ran
    data = bytearray(a_docx(tmp_path / "ok.docx").read_bytes())
    data[data.find(b"PK\x01\x02") + 6] = 222  # "version needed to extract": 22.2
    bad = tmp_path / "version.docx"
    bad.write_bytes(bytes(data))
    e = refused(bad)
    assert str(e) == "version.docx could not be read as .docx: zip file version 22.2"


# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over an exec from the parent it
# was forked from (a test process of several GB), while VmHWM belongs to the new program
BOMB_CHILD = """
import sys, time
from pathlib import Path
from gechat.documents import load_document
from gechat.errors import LoadError
t = time.perf_counter()
try:
    load_document(Path(sys.argv[1]))
    print("loaded")
except LoadError as e:
    print("refused:", e)
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(round(time.perf_counter() - t, 2), int(hwm.split()[1]) // 1024)
"""


@pytest.mark.slow
def test_a_small_docx_of_150_mb_of_xml_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """The probe that ran 401 s at 13 GB: a few hundred KB of .docx, 150 MB of XML inside."""
    import subprocess
    import sys

    bomb = tmp_path / "bomb.docx"
    para = b"<w:p><w:r><w:t>The quarterly revenue rose again.</w:t></w:r></w:p>"
    with zipfile.ZipFile(a_docx(tmp_path / "ok.docx")) as src, \
            zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for item in src.infolist():
            if item.filename != "word/document.xml":
                out.writestr(item, src.read(item))
        with out.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(W)
            block = para * 20_000
            for _ in range(150 * 2**20 // len(block)):
                f.write(block)
            f.write(END)
    assert bomb.stat().st_size < 2 * 2**20
    p = subprocess.run([sys.executable, "-c", BOMB_CHILD, str(bomb)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    verdict, numbers = p.stdout.strip().splitlines()
    peak_mb = int(numbers.split()[1])
    assert verdict.startswith("refused: bomb.docx") and "setting max_" in verdict, verdict
    assert peak_mb < 1024, f"peak memory {peak_mb} MB"

"""Hostile and damaged files: each is refused with one clear error naming what is wrong, and
the rest of a batch goes on (issue 38's bounded inputs)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest

from gechat.documents import load_document
from gechat.documents.text import decode_text
from gechat.errors import LoadError
from gechat.pipeline import Workspace
from gechat.settings import Settings


def a_docx(path: Path, text: str = "The tower is in Paris.") -> Path:
    d = docx.Document()
    d.add_paragraph(text)
    d.save(str(path))
    return path


def with_part(src: Path, dst: Path, name: str, data: bytes) -> Path:
    """``src`` with one part replaced (or added), as a damaged or hostile file would be."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            if item.filename != name:
                zout.writestr(item, zin.read(item.filename))
        zout.writestr(name, data)
    return dst


def test_a_docx_that_unpacks_past_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    padding = b"<a/>" + b" " * 3_000_000
    bomb = with_part(a_docx(tmp_path / "ok.docx"), tmp_path / "bomb.docx", "word/padding.xml", padding)
    assert bomb.stat().st_size < 100_000  # small on disk
    with pytest.raises(LoadError) as e:
        load_document(bomb, max_unpacked=2 * 2**20)
    assert "bomb.docx unpacks to" in str(e.value) and "the limit is 2 MB" in str(e.value)
    assert "max_unpacked_mb" in (e.value.hint or "")
    assert load_document(bomb).text.startswith("The tower")  # under the default limit it reads


@pytest.mark.parametrize("xml", [b"<w:document><unclosed>", b"<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;&x;</a>",
                                 b"<a>" * 5000 + b"</a>" * 5000, b"\xff\xfe not xml at all"])
def test_a_docx_with_broken_xml_is_a_clear_load_error(tmp_path: Path, xml: bytes) -> None:
    bad = with_part(a_docx(tmp_path / "ok.docx"), tmp_path / "bad.docx", "word/document.xml", xml)
    with pytest.raises(LoadError) as e:
        load_document(bad)
    assert e.value.args[0].startswith("bad.docx") and "save it again" in (e.value.hint or "")


def test_a_batch_goes_on_past_a_damaged_file(tmp_path: Path) -> None:
    ok = a_docx(tmp_path / "ok.docx")
    bad = with_part(ok, tmp_path / "bad.docx", "word/document.xml", b"<w:document><unclosed>")
    txt = tmp_path / "notes.txt"
    txt.write_text("Berlin is the capital of Germany.")
    ws = Workspace(tmp_path / "ws", Settings.load("test", cache_dir=tmp_path / "cache"))
    results = ws.add([ok, bad, txt])
    assert [r.status for r in results] == ["added", "failed", "added"]
    assert "bad.docx could not be read as .docx" in str(results[1].error)
    ws.close()


def test_binary_data_named_as_text_is_refused(tmp_path: Path) -> None:
    elf = tmp_path / "program.txt"
    elf.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 20)
    with pytest.raises(LoadError) as e:
        load_document(elf)
    assert "program.txt is not text" in str(e.value)


def test_one_bad_byte_does_not_turn_utf8_into_latin1() -> None:
    text = "Price: 5 €. " * 200
    damaged = text.encode("utf-8") + b"\xff" + " Café.".encode()
    out = decode_text(damaged)
    assert out.count("€") == 200 and out.endswith("\ufffd Café.") and "â‚¬" not in out
    # a file that is really in a legacy encoding still reads as one
    assert decode_text("Café crème, déjà vu. ".encode("cp1252") * 5).startswith("Café crème")
    assert decode_text("Ça coûte 5 €.".encode("cp1252")) == "Ça coûte 5 €."


def test_the_size_limit_says_the_setting_in_the_units_it_is_set_in(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("word " * 300_000)
    with pytest.raises(LoadError) as e:
        load_document(big, max_bytes=1 * 2**20)
    assert "the limit is 1 MB" in str(e.value) and "max_file_mb" in (e.value.hint or "")

"""The fuzz benchmark's inputs (benchmarks/fuzz.py, tests/unit/test_documents_fuzz.py): small real
files of every kind made here, and the ways they are damaged. Input ``i`` of a run is made from
``(seed, i)`` alone, so a run can stop and go on, and a failing input be made again.
"""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_PDFS = REPO.parent / "shared" / "data" / "pdfs"
KINDS = ("pdf", "docx", "html", "md", "txt")
WORDS = ["the", "tower", "report", "revenue", "growth", "increased", "percent", "during", "year", "company",
         "market", "price", "water", "Berlin", "Paris", "Gesellschaft", "Größe", "année", "été", "北京", "市场",
         "Москва", "данные"]


# --- seeds: small real files of every kind ---------------------------------------------------

def _prose(rng: random.Random, n: int) -> str:
    return " ".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 14))).capitalize() + "."
                    for _ in range(n))


def pdf_seed(rng: random.Random, pages: int = 3, deflate: bool = True, text: str | None = None) -> bytes:
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    for p in range(pages):
        page = doc.new_page()  # type: ignore[no-untyped-call]
        page.insert_text((72, 60), f"Section {p + 1}: Results", fontsize=16)
        body = text if text is not None else _prose(rng, 12)
        page.insert_textbox(pymupdf.Rect(72, 80, 520, 700), body, fontsize=10)
        for r in range(4):  # a small table
            page.insert_text((72, 720 + r * 12), f"Item {r}     {r * 12.5:.1f}     {r * 3}%", fontsize=9)
    data: bytes = doc.tobytes(deflate=deflate, garbage=1)
    doc.close()
    return data


def soup_pdf(rng: random.Random) -> bytes:
    """Glyph soup: random Latin-1 letters and signs in random case, as fonts without a text
    mapping come out."""
    glyphs = "".join(chr(c) for c in range(0xA1, 0x100) if c != 0xAD) + "abcdefghijklmnopqrstuvwxyz"
    soup = " ".join("".join(rng.choice(glyphs) for _ in range(rng.randint(1, 4))) for _ in range(400))
    return pdf_seed(rng, pages=rng.randint(1, 3), text=soup)


def docx_seed(rng: random.Random) -> bytes:
    import docx

    d = docx.Document()
    d.core_properties.title = "Quarterly report"
    d.add_heading("Results", level=1)
    for _ in range(4):
        d.add_paragraph(_prose(rng, 3))
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = "Region" if r == 0 and c == 0 else f"{r * 10 + c}"
    d.add_heading("Outlook", level=2)
    d.add_paragraph(_prose(rng, 2))
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def html_seed(rng: random.Random) -> bytes:
    return (f"<!doctype html><html><head><title>Report</title><style>p{{color:red}}</style>"
            f"<script>var a = '<div>';</script></head><body><nav>Home | About</nav><h1>Results</h1>"
            f"<p>{_prose(rng, 3)}<br>{_prose(rng, 1)}</p><ul><li>{_prose(rng, 1)}<li>{_prose(rng, 1)}</ul>"
            f"<table><caption>Sales</caption><tr><th>Region<th>2023</tr><tr><td>North<td>12.5</tr></table>"
            f"<div><div><span>{_prose(rng, 2)}</span></div></div><pre>code  block\n  line</pre>"
            f"</body></html>").encode()


def md_seed(rng: random.Random) -> bytes:
    return (f"# Results\n\n{_prose(rng, 3)}\n\n## Table\n\n| Region | 2023 |\n|---|---|\n| North | 12.5 |\n\n"
            f"- {_prose(rng, 1)}\n- {_prose(rng, 1)}\n\n> {_prose(rng, 1)}\n\n```\ncode\n```\n").encode()


def txt_seed(rng: random.Random) -> bytes:
    enc = rng.choice(("utf-8", "utf-8", "utf-16", "cp1252"))
    text = "\n\n".join(_prose(rng, 3) for _ in range(4))
    return text.encode(enc, errors="replace")


def shared_pdfs() -> list[bytes]:
    """The small public PDFs (under 200 KB): real structure to damage."""
    if not SHARED_PDFS.is_dir():
        return []
    return [p.read_bytes() for p in sorted(SHARED_PDFS.glob("*.pdf")) if p.stat().st_size < 200_000]


# --- mutations ------------------------------------------------------------------------------

def flip(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 32)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(max(1, len(data)))]


def splice(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.randbytes(rng.randint(1, 512)) + data[at:]


def repeat(rng: random.Random, data: bytes) -> bytes:
    a = rng.randrange(max(1, len(data)))
    piece = data[a: a + rng.randint(1, 64)]
    return data[:a] + piece * rng.randint(2, 2000) + data[a:]


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    op = rng.choice((flip, flip, truncate, splice, repeat))
    return op(rng, data), op.__name__


def with_part(data: bytes, name: str, content: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            if item.filename != name:
                zout.writestr(item, zin.read(item.filename))
        zout.writestr(name, content)
    return out.getvalue()


W = b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
XML = {
    "xml-bomb": b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
                + b"".join(b'<!ENTITY %c "%s">' % (98 + i, (b"&%c;" % (97 + i)) * 10) for i in range(8))
                + b"]>" + W + b"<w:p><w:r><w:t>&i;</w:t></w:r></w:p></w:body></w:document>",
    "xml-external": b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                    + W + b"<w:p><w:r><w:t>&e;</w:t></w:r></w:p></w:body></w:document>",
    "xml-deep": W + b"<w:p>" * 10_000 + b"</w:p>" * 10_000 + b"</w:body></w:document>",
    "xml-many": W + b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 20_000 + b"</w:body></w:document>",
}


def mutate_docx(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    op = rng.choice(("part", "part", "part", "compressed", "compressed", "bytes", "bytes", *XML))
    if op in XML:
        return with_part(data, "word/document.xml", XML[op]), op
    if op == "bytes":
        return mutate_bytes(rng, data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = [i.filename for i in z.infolist()]
        name = rng.choice(names)
        content = z.read(name)
    if op == "part":  # a damaged XML part, recompressed: the zip itself is sound
        bad, how = mutate_bytes(rng, content)
        return with_part(data, name, bad), f"part-{how}"
    # bytes flipped inside the compressed data: corrupt deflate, or a CRC that fails
    start = data.find(name.encode()) + len(name)
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(start, min(len(b), start + 400))
        b[i] = rng.randrange(256)
    return bytes(b), "compressed"


def deep_html(rng: random.Random) -> bytes:
    tag = rng.choice(("div", "span", "b", "table", "li", "a"))
    n = rng.choice((1000, 20_000, 80_000))
    return (f"<html><body>{f'<{tag}>' * n}deep text{f'</{tag}>' * rng.choice((0, n))}</body></html>").encode()


def junk(rng: random.Random) -> tuple[bytes, str]:
    op = rng.choice(("random", "random-text", "elf", "pdf-bytes", "zip-bytes", "empty"))
    if op == "random":
        return rng.randbytes(rng.randint(1, 65536)), op
    if op == "random-text":  # any code point: controls, private use, surrogates escaped
        chars = [chr(rng.randrange(0x110000)) for _ in range(rng.randint(1, 5000))]
        return "".join(chars).encode("utf-8", errors="surrogatepass"), op
    if op == "elf":
        return b"\x7fELF\x02\x01\x01\x00" + rng.randbytes(4096), op
    if op == "pdf-bytes":
        return pdf_seed(rng, 1), op
    if op == "zip-bytes":
        return docx_seed(rng), op
    return b"", op


class Inputs:
    """Input ``i`` of a run: ``(suffix, data, how it was made)``, from ``(seed, i)`` alone."""

    def __init__(self) -> None:
        base = random.Random(0)
        self.pdfs = [pdf_seed(base), pdf_seed(base, deflate=False), pdf_seed(base, pages=1), *shared_pdfs()]
        self.docx = [docx_seed(base) for _ in range(2)]

    def make(self, seed: int, i: int) -> tuple[str, bytes, str]:
        rng = random.Random(f"{seed}:{i}")
        kind = KINDS[i % len(KINDS)]
        roll = rng.random()
        if roll < 0.08:
            data, how = junk(rng)
            return "." + kind, data, f"{how} as .{kind}"
        if kind == "pdf":
            if roll < 0.14:
                return ".pdf", soup_pdf(rng), "glyph soup"
            data, how = mutate_bytes(rng, rng.choice(self.pdfs))
            return ".pdf", data, how
        if kind == "docx":
            data, how = mutate_docx(rng, rng.choice(self.docx))
            return ".docx", data, how
        seed_data = {"html": html_seed, "md": md_seed, "txt": txt_seed}[kind](rng)
        if kind == "html" and roll < 0.14:
            return ".html", deep_html(rng), "deep nesting"
        data, how = mutate_bytes(rng, seed_data)
        return "." + kind, data, how

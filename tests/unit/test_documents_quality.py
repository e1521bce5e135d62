"""Glyph soup is refused or its pages left out; real text of any language is not."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pymupdf
import pytest

from gechat.documents import load_document
from gechat.documents.quality import garbled, shape
from gechat.errors import LoadError

SHARED_PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "pdfs"

REAL = {
    "english": "The committee reviewed the annual report on Tuesday. Revenue grew by 12% to $4.5 billion, "
               "while costs didn't rise. McDonald's and iPhone sales were flat; see Fig. 3 (p. 12) for details.",
    "german": "Die Gesellschaft hat im Geschäftsjahr 2023 einen Umsatz von 4,5 Mrd. Euro erzielt. Größere "
              "Investitionen in Forschung und Entwicklung führten zu höheren Aufwendungen für Löhne.",
    "french": "L’entreprise a réalisé un chiffre d’affaires de 4,5 milliards d’euros en 2023. Les coûts ont "
              "été maîtrisés grâce à une meilleure efficacité opérationnelle et à des économies d’échelle.",
    "chinese": "公司二零二三年营业收入为四十五亿元，同比增长百分之十二。研发投入持续增加，主要用于人工智能"
               "和新能源业务。董事会建议派发现金股利。使用Python编程的团队扩大了。",
    "russian": "Компания в 2023 году получила выручку в размере 4,5 млрд евро. Расходы на исследования и "
               "разработки выросли, а чистая прибыль осталась на уровне прошлого года.",
    "arabic": "حققت الشركة إيرادات بلغت ٤٫٥ مليار يورو في عام ٢٠٢٣، وارتفعت نفقات البحث والتطوير بشكل ملحوظ.",
    "hindi": "कंपनी ने वर्ष 2023 में 4.5 अरब यूरो का राजस्व अर्जित किया और अनुसंधान पर खर्च बढ़ाया।",
    "japanese": "当社の二〇二三年度の売上高は四十五億ユーロでした。研究開発費は増加しました。ＡＩ事業を拡大します。",
    "vietnamese": "Tiếng Việt là ngôn ngữ của người Việt và là ngôn ngữ chính thức tại Việt Nam. Được sử dụng "
                  "rộng rãi, nó có khoảng 85 triệu người nói.",
    "code": "def load(path: Path) -> Document:\n    data = path.read_bytes()\n    if not data:\n        raise "
            "LoadError(f'{path.name} is empty')\n    return parse(data, strict=True)  # x = y + z[i]",
    "formulas": "Let x be in R and f(x) = a x^2 + b x + c. Then f'(x) = 2 a x + b, so the minimum is at "
                "x = -b / 2a when a > 0. For n = 1, 2, ..., N we have y_n = A x_n + e_n with e ~ N(0, s^2).",
}


def soup(rng: random.Random, words: int = 400) -> str:
    """Glyph codes as a font without a text mapping gives them: letters of any script and signs,
    random case, one to four to a "word"."""
    glyphs = ("".join(chr(c) for c in range(0xA1, 0x100) if c != 0xAD) + "abcdefghijklmnopqrstuvwxyz"
              + "ΑβΓδЖжЯя" + "\ue000\ue013\uf0b7" + "\x03\x07")
    return " ".join("".join(rng.choice(glyphs) for _ in range(rng.randint(1, 4))) for _ in range(words))


@pytest.mark.parametrize("lang", sorted(REAL))
def test_real_text_of_any_language_reads_as_text(lang: str) -> None:
    text = (REAL[lang] + " ") * 20
    assert garbled(shape(text)) == "", lang


@pytest.mark.parametrize("seed", range(5))
def test_glyph_soup_is_garbled(seed: int) -> None:
    assert garbled(shape(soup(random.Random(seed))))


def test_random_capitals_and_vowel_less_letters_are_soup() -> None:
    rng = random.Random(1)
    letters = "bcdfghjklmnpqrstvxzBCDFGHJKLMNPQRSTVXZ"
    text = " ".join("".join(rng.choice(letters) for _ in range(rng.randint(5, 9))) for _ in range(300))
    assert "look like words" in garbled(shape(text))


def test_control_and_private_use_codes_are_soup() -> None:
    text = "".join(chr(0xE000 + i % 200) + "\x02" for i in range(500))
    assert "control, private-use or unassigned codes" in garbled(shape(text))


def a_pdf(path: Path, pages: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 560, 800), text, fontsize=9)
    doc.save(str(path))
    doc.close()
    return path


def latin1_soup(rng: random.Random, words: int = 300) -> str:
    glyphs = "".join(chr(c) for c in range(0xA1, 0x100) if c != 0xAD) + "abcdefghijklmnopqrstuvwxyz"
    return " ".join("".join(rng.choice(glyphs) for _ in range(rng.randint(1, 4))) for _ in range(words))


def test_a_pdf_of_glyph_soup_is_refused(tmp_path: Path) -> None:
    rng = random.Random(0)
    pdf = a_pdf(tmp_path / "broken.pdf", [latin1_soup(rng) for _ in range(3)])
    with pytest.raises(LoadError) as e:
        load_document(pdf)
    assert str(e.value).startswith("broken.pdf's text is unreadable:") and "look like words" in str(e.value)
    assert "OCR" in e.value.hint


def test_soup_pages_are_left_out_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rng = random.Random(0)
    good = (REAL["english"] + " ") * 6
    pdf = a_pdf(tmp_path / "mixed.pdf", [good, latin1_soup(rng), good, latin1_soup(rng)])
    with caplog.at_level(logging.WARNING, logger="gechat.documents"):
        doc = load_document(pdf)
    pages = [doc.text[p.start:p.end] for p in doc.pages]
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert pages[0].count("The committee") >= 4 and pages[2] == pages[0] and pages[1] == pages[3] == ""
    assert "mixed.pdf: 2 page(s) left out" in caplog.text and ": 2, 4" in caplog.text


def test_non_english_text_files_load(tmp_path: Path) -> None:
    for lang in ("german", "french", "chinese", "russian", "arabic", "japanese"):
        path = tmp_path / f"{lang}.txt"
        path.write_text((REAL[lang] + "\n\n") * 10, encoding="utf-8")
        assert load_document(path).text.startswith(REAL[lang][:10])


def test_a_chinese_pdf_loads(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="china-s")
    page.insert_textbox(pymupdf.Rect(50, 50, 560, 800), REAL["chinese"] * 6, fontname="china-s", fontsize=10)
    path = tmp_path / "chinese.pdf"
    doc.save(str(path))
    doc.close()
    assert "营业收入" in load_document(path).text


def test_a_text_file_of_glyph_soup_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "soup.txt"
    path.write_text(soup(random.Random(3)), encoding="utf-8")
    with pytest.raises(LoadError, match=r"^soup.txt is not readable text: "):
        load_document(path)


@pytest.mark.skipif(not SHARED_PDFS.is_dir(), reason="the shared PDFs are not here")
def test_every_shared_pdf_still_loads_with_every_page(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="gechat.documents"):
        for pdf in sorted(SHARED_PDFS.glob("*.pdf")):
            doc = load_document(pdf)
            with pymupdf.open(pdf) as raw:
                assert len(doc.pages) == raw.page_count
    assert "left out" not in caplog.text


def test_a_utf16_text_file_is_text(tmp_path: Path) -> None:
    # NUL in every other byte: a Windows "Unicode" text file is not binary data
    path = tmp_path / "notes.txt"
    path.write_bytes("\ufeff".encode("utf-16-le") + (REAL["german"] + "\n").encode("utf-16-le") * 5)
    assert load_document(path).text.startswith("Die Gesellschaft")
    path.write_bytes(b"\xff\xfe" + bytes(range(256)) * 8)
    with pytest.raises(LoadError, match=r"^notes.txt is not"):
        load_document(path)

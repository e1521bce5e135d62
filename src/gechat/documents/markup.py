"""Bounds on markup, checked before a parser builds a tree from it.

A tree costs memory per element and some parsers time per level of nesting, so both are
bounded in a streaming pass that holds no tree: the XML parts of a .docx go through expat
(no DTD, hence no entity of any kind, internal or external; no network), and an HTML page
through a tag scanner that flattens nesting past ``max_depth`` (its text is kept, only the
extra levels of elements go) and refuses a page of more than ``max_elements`` elements.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path
from typing import IO
from xml.parsers import expat

from gechat.documents.limits import Limits, over_limit
from gechat.errors import LoadError

_CHUNK = 1 << 16
_RESAVE = "The file may be damaged or not what its name says: open it and save it again."


class _Refused(Exception):
    """Raised from inside expat's callbacks; carries the LoadError to raise outside them."""

    def __init__(self, error: LoadError) -> None:
        super().__init__(str(error))
        self.error = error


def check_zip_xml(path: Path, limits: Limits) -> None:
    """Streams every XML part of a zip-based document through expat: refuses a DTD or an
    entity declaration (a .docx has neither; they are how XML bombs expand), nesting past
    ``limits.max_depth`` and more than ``limits.max_elements`` elements in all parts. A part
    that is not well-formed is left to the loader, which reads only the parts it needs."""
    name = path.name
    elements = [0]
    part = ""
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
        return  # no zip at all: the loader says what the file is not
    try:
        with z:
            for info in z.infolist():
                if info.is_dir():
                    continue
                part = info.filename
                with z.open(info) as f:
                    _scan_xml(f, name, part, limits, elements)
    except _Refused as r:
        raise r.error from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError,
            ValueError) as exc:
        # A damaged archive: bad CRC, corrupt deflate data, a truncated or encrypted part.
        where = f": part {part} cannot be unpacked" if part else ""
        detail = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise LoadError(f"{name} could not be read as {path.suffix.lower() or 'a zip file'}{where} ({detail}).",
                        hint=_RESAVE) from exc


def _scan_xml(f: IO[bytes], name: str, part: str, limits: Limits, elements: list[int]) -> None:
    head = f.read(_CHUNK)
    if not head.lstrip(b"\xef\xbb\xbf\xff\xfe\x00 \t\r\n").startswith(b"<"):
        return  # an image or other binary part: not XML
    parser = expat.ParserCreate()
    depth = 0

    def start(tag: str, attrs: object) -> None:
        nonlocal depth
        depth += 1
        elements[0] += 1
        if depth > limits.max_depth:
            raise _Refused(too_deep(name, f"XML elements in its part {part}", limits.max_depth))
        if elements[0] > limits.max_elements:
            raise _Refused(over_limit(name, f"holds more than {limits.max_elements:,} XML elements (at part {part})",
                                      f"{limits.max_elements:,}", "max_elements"))

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1

    def dtd(*_: object) -> None:
        raise _Refused(LoadError(
            f"{name} could not be read as {Path(name).suffix.lower() or 'XML'}: its part {part} declares a DTD or "
            "entities, which Office documents never do (the way XML bombs expand); it was not read.",
            hint="If this file is yours, open it in Word or LibreOffice and save it again."))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = dtd
    parser.EntityDeclHandler = dtd
    parser.ExternalEntityRefHandler = dtd  # type: ignore[assignment]
    data = head
    try:
        while data:
            parser.Parse(data, False)
            data = f.read(_CHUNK)
        parser.Parse(b"", True)
    except expat.ExpatError:
        return  # not well-formed: the loader says so if it needs this part


# HTML tags, approximately: a name after "<" or "</", then anything but "<" and ">". The
# possessive quantifiers and the excluded "<" keep it linear: each scan stops at the next "<".
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/<>]*+)[^<>]*+>")
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
                   "source", "track", "wbr"))
# Tags a page may leave open: the next one of the group closes the last (a list of <li>, <p>).
_GROUPS = {"p": frozenset(("p",)), "li": frozenset(("li",)), "dt": frozenset(("dt", "dd")),
           "dd": frozenset(("dt", "dd")), "td": frozenset(("td", "th")), "th": frozenset(("td", "th")),
           "tr": frozenset(("tr", "td", "th")), "option": frozenset(("option",))}


def too_deep(name: str, what: str, depth: int) -> LoadError:
    return LoadError(f"{name} nests {what} more than {depth} levels deep, as no real document does; "
                     "it was not read.", hint=_RESAVE)


def bound_html(source: str, name: str, limits: Limits) -> str:
    """``source`` with its element nesting cut at ``limits.max_depth`` (the tags past it
    become spaces; their text stays); refuses more than ``limits.max_elements`` elements.
    The nesting is tracked as a browser would, roughly: void elements and the tags that
    close themselves (``<p>``, ``<li>``, ``<td>``) do not deepen it."""
    if source.count("<") <= limits.max_depth:
        return source  # too few tags to nest past the limit or to hold too many elements
    stack: list[str] = []
    dropped: dict[str, int] = {}  # start tags cut, by name: their end tags are cut too
    cuts: list[tuple[int, int]] = []
    elements = 0
    for m in _TAG.finditer(source):
        tag = m.group(2).lower()
        if m.group(1):  # an end tag
            if dropped.get(tag):
                dropped[tag] -= 1
                cuts.append(m.span())
            elif tag in stack:
                del stack[len(stack) - 1 - stack[::-1].index(tag):]
            continue
        elements += 1
        if elements > limits.max_elements:
            raise over_limit(name, f"holds more than {limits.max_elements:,} HTML elements",
                             f"{limits.max_elements:,}", "max_elements")
        if tag in _VOID or source[m.end() - 2] == "/":
            continue
        group = _GROUPS.get(tag)
        while group and stack and stack[-1] in group:
            stack.pop()
        if len(stack) >= limits.max_depth:
            dropped[tag] = dropped.get(tag, 0) + 1
            cuts.append(m.span())
        else:
            stack.append(tag)
    if not cuts:
        return source
    out: list[str] = []
    pos = 0
    for start, end in cuts:
        out.append(source[pos:start])
        out.append(" ")
        pos = end
    out.append(source[pos:])
    return "".join(out)


__all__ = ["bound_html", "check_zip_xml", "too_deep"]

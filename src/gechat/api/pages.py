"""Page images of PDF documents, rendered on request from the document's stored file."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from gechat.api.locks import MUPDF_LOCK
from gechat.api.problems import ApiError

MAX_PIXELS = 40_000_000  # a 4x A4 page is ~8 M; this stops a scale that would exhaust memory


def render_png(path: Path, number: int, scale: float) -> bytes:
    if not path.is_file():
        raise ApiError(404, f"the document's file is no longer at {path.name}",
                       hint="add the document again to see its pages")
    with MUPDF_LOCK:
        try:
            doc: pymupdf.Document = pymupdf.open(path)  # type: ignore[no-untyped-call]
        except (RuntimeError, ValueError) as e:  # pymupdf's FileDataError is a RuntimeError
            raise ApiError(422, f"cannot open {path.name}: {e}", hint="add the document again") from None
        with doc:
            if not 1 <= number <= doc.page_count:
                raise ApiError(404, f"no page {number}: the document has {doc.page_count}",
                               hint="pages are numbered from 1")
            page = doc[number - 1]
            if page.rect.width * page.rect.height * scale * scale > MAX_PIXELS:
                raise ApiError(422, f"scale {scale} makes page {number} too large to render",
                               hint="use a smaller scale")
            zoom = pymupdf.Matrix(scale, scale)  # type: ignore[no-untyped-call]
            pix = page.get_pixmap(matrix=zoom, alpha=False)
            return bytes(pix.tobytes("png"))  # type: ignore[no-untyped-call]

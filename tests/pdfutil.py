"""Reading real PDFs in tests: pages, boxes, fonts, pixels."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pypdfium2 as pdfium
from pypdf import PdfReader

MM = 72 / 25.4


@lru_cache(maxsize=64)
def reader(path: Path) -> PdfReader:
    return PdfReader(str(path))


def page_size_mm(path: Path, page: int) -> tuple[float, float]:
    box = reader(path).pages[page - 1].mediabox
    return float(box.width) / MM, float(box.height) / MM


def fonts(path: Path) -> list[dict]:
    """Every font dictionary used by any page (or form) of the PDF, resolved."""
    seen, out = set(), []

    def walk(resources):
        if not resources:
            return
        resources = resources.get_object()
        for font in (resources.get("/Font") or {}).values():
            font = font.get_object()
            if id(font) not in seen:
                seen.add(id(font))
                out.append(font)
        for xobj in (resources.get("/XObject") or {}).values():
            xobj = xobj.get_object()
            if xobj.get("/Subtype") == "/Form":
                walk(xobj.get("/Resources"))

    for page in reader(path).pages:
        walk(page.get("/Resources"))
    return out


def font_is_embedded(font) -> bool:
    if font.get("/Subtype") == "/Type0":
        descendant = font["/DescendantFonts"][0].get_object()
        desc = descendant.get("/FontDescriptor")
    else:
        desc = font.get("/FontDescriptor")
    if desc is None:
        return False
    desc = desc.get_object()
    return any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3"))


def render(path: Path, page: int, dpi: float = 150):
    """The page as a PIL RGB image."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        return pdf[page - 1].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        pdf.close()


def crop_mm(image, page_h_mm: float, dpi: float, x: float, y: float, w: float, h: float):
    """Crop a rectangle given in mm from the page's bottom-left."""
    s = dpi / 25.4
    left, right = x * s, (x + w) * s
    top, bottom = (page_h_mm - y - h) * s, (page_h_mm - y) * s
    return image.crop((round(left), round(top), round(right), round(bottom)))


def ink(image, threshold: int = 160) -> float:
    """Share of pixels darker than `threshold` (0-255, on the grey level)."""
    grey = image.convert("L")
    hist = grey.histogram()
    return sum(hist[:threshold]) / max(1, grey.width * grey.height)


def text_sizes(path: Path, page: int) -> list[tuple[str, float]]:
    """Every visible character of a page with its font size in points, as a reader sees it
    (the text matrix's scale included), from pdfium's text layer."""
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(str(path))
    try:
        text = pdf[page - 1].get_textpage()
        out = []
        for i in range(text.count_chars()):
            char = chr(pdfium_c.FPDFText_GetUnicode(text.raw, i))
            if char.strip():
                out.append((char, pdfium_c.FPDFText_GetFontSize(text.raw, i)))
        return out
    finally:
        pdf.close()

"""The plain side of `bench_png.py`: the bench deck's faces, one per page with 3 mm bleed, drawn
by hand with ReportLab (plain_deck.py's drawing), rasterised with pypdfium2 and saved by Pillow.

Usage: python plain_png.py FONTS_DIR OUT_DIR N DPI COMPRESS_LEVEL
"""

from __future__ import annotations

import io
import sys

import pypdfium2 as pdfium
from PIL import ImageCms
from plain_deck import FONTS, back, bleed, front, h, w
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas


def main(fonts: str, out: str, n: int, dpi: int, level: int) -> None:
    for name, file in FONTS:
        pdfmetrics.registerFont(TTFont(name, f"{fonts}/{file}"))
    buf = io.BytesIO()
    size = (w + 2 * bleed, h + 2 * bleed)
    c = Canvas(buf, pagesize=size, initialFontName="R", pageCompression=1, invariant=1)
    back(c)
    for i in range(n):
        front(c, i, bleed, bleed)
        c.showPage()
    c.translate(bleed, bleed)
    c.doForm("back")
    c.showPage()
    c.save()
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    pdf = pdfium.PdfDocument(buf.getvalue())
    for k in range(len(pdf)):
        image = pdf[k].render(scale=dpi / 72).to_pil()
        image.save(
            f"{out}/{k}.png", format="PNG", dpi=(dpi, dpi), icc_profile=icc, compress_level=level
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))

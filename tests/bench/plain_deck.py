"""The plain-ReportLab side of `bench_print.py`: the same deck drawn by hand.

Usage: python plain_deck.py FONTS_DIR OUT.pdf N
"""

from __future__ import annotations

import sys

from reportlab.lib.colors import HexColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

MM = 72 / 25.4
W, H = 210 * MM, 297 * MM
w, h, bleed = 63 * MM, 88 * MM, 3 * MM
x0, y0 = (W - 3 * w) / 2, (H - 3 * h) / 2
FONTS = (
    ("R", "PnPGothic-Regular.ttf"),
    ("B", "PnPGothic-Bold.ttf"),
    ("K", "PnPGothic-ExtraBold.ttf"),
)


def back(c: Canvas) -> None:
    c.beginForm("back", -bleed, -bleed, w + bleed, h + bleed)
    c.setFillColor(HexColor("#1f2f4a"))
    c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
    c.setStrokeColor(HexColor("#d9c9a0"))
    c.roundRect(5 * MM, 5 * MM, 53 * MM, 78 * MM, 3 * MM, stroke=1, fill=0)
    c.setFillColor(HexColor("#f3e7c6"))
    c.setFont("K", 20)
    c.drawCentredString(w / 2, h / 2 - 7, "BENCH")
    c.endForm()


def marks(c: Canvas) -> None:
    c.setLineWidth(0.25)
    for i in range(4):
        x, y = x0 + i * w, y0 + i * h
        c.line(x, y0 - bleed - 0.5 * MM, x, 5 * MM)
        c.line(x, y0 + 3 * h + bleed + 0.5 * MM, x, H - 5 * MM)
        c.line(x0 - bleed - 0.5 * MM, y, 5 * MM, y)
        c.line(x0 + 3 * w + bleed + 0.5 * MM, y, W - 5 * MM, y)


def front(c: Canvas, i: int, x: float, y: float) -> None:
    c.saveState()
    p = c.beginPath()
    p.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed)
    c.clipPath(p, stroke=0, fill=0)
    c.translate(x, y)
    c.setFillColor(HexColor("#fbf8f1"))
    c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
    c.setStrokeColor(HexColor("#333333"))
    c.roundRect(3 * MM, 3 * MM, 57 * MM, 82 * MM, 3 * MM, stroke=1, fill=0)
    c.setFillColor(HexColor("#000000"))
    c.setFont("B", 14)
    c.drawString(6 * MM, h - 6 * MM - 14, f"Card {i + 1}")
    c.setFont("R", 9)
    body = (
        f"Body line one of card {i + 1}",
        "the second line of text",
        "and the third line ends here",
    )
    for j, line in enumerate(body):
        c.drawString(6 * MM, h - 40 * MM - 9 - j * 9 * 1.3, line)
    c.setFont("K", 28)
    c.drawRightString(57 * MM, h - 68 * MM - 28, str(i % 100))
    c.restoreState()


def main(fonts: str, out: str, n: int) -> None:
    for name, file in FONTS:
        pdfmetrics.registerFont(TTFont(name, f"{fonts}/{file}"))
    c = Canvas(out, pagesize=(W, H), initialFontName="R", pageCompression=1, invariant=1)
    back(c)
    for start in range(0, n, 9):
        batch = range(start, min(n, start + 9))
        for k, i in enumerate(batch):
            front(c, i, x0 + (k % 3) * w, y0 + (2 - k // 3) * h)
        marks(c)
        c.showPage()
        for k, _ in enumerate(batch):
            x, y = x0 + (k % 3) * w, y0 + (2 - k // 3) * h
            c.saveState()
            c.translate(W - x - w, y)
            c.doForm("back")
            c.restoreState()
        c.showPage()
    c.save()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

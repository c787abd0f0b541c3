# ruff: noqa: E501  (the plain script is kept as one-liners, like bench_print.py)
"""`make bench`: the png export of the 1,000-card deck at 300 dpi against a plain script.

The plain script draws the same faces (the bench deck of bench_print.py, one face per page with
3 mm bleed) with ReportLab, rasterises each page with pypdfium2 at 300 dpi and saves it with
Pillow at the same PNG compression level and sRGB profile. Both run as fresh processes in the
same run, so imports count on each side. Target: ratio <= 1.3.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_print import N, make_project, timed

RUNS = 1  # about a minute per side on a 2-core machine
TARGET = 1.3

PLAIN = r"""
import io, sys
import pypdfium2 as pdfium
from PIL import ImageCms
from reportlab.lib.colors import HexColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
MM = 72 / 25.4
fonts, out, n, level = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for name, f in (("R", "PnPGothic-Regular.ttf"), ("B", "PnPGothic-Bold.ttf"), ("K", "PnPGothic-ExtraBold.ttf")):
    pdfmetrics.registerFont(TTFont(name, f"{fonts}/{f}"))
w, h, bleed, dpi = 63 * MM, 88 * MM, 3 * MM, 300
size = (w + 2 * bleed, h + 2 * bleed)
buf = io.BytesIO()
c = Canvas(buf, pagesize=size, initialFontName="R", pageCompression=1, invariant=1)
for i in range(n):
    c.translate(bleed, bleed)
    c.setFillColor(HexColor("#fbf8f1")); c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
    c.setStrokeColor(HexColor("#333333")); c.roundRect(3 * MM, 3 * MM, 57 * MM, 82 * MM, 3 * MM, stroke=1, fill=0)
    c.setFillColor(HexColor("#000000")); c.setFont("B", 14); c.drawString(6 * MM, h - 6 * MM - 14, f"Card {i + 1}")
    c.setFont("R", 9)
    for j, line in enumerate((f"Body line one of card {i + 1}", "the second line of text",
                              "and the third line ends here")):
        c.drawString(6 * MM, h - 40 * MM - 9 - j * 9 * 1.3, line)
    c.setFont("K", 28); c.drawRightString(57 * MM, h - 68 * MM - 28, str(i % 100))
    c.showPage()
c.translate(bleed, bleed)
c.setFillColor(HexColor("#1f2f4a")); c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
c.setStrokeColor(HexColor("#d9c9a0")); c.roundRect(5 * MM, 5 * MM, 53 * MM, 78 * MM, 3 * MM, stroke=1, fill=0)
c.setFillColor(HexColor("#f3e7c6")); c.setFont("K", 20); c.drawCentredString(w / 2, h / 2 - 7, "BENCH")
c.showPage()
c.save()
icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
pdf = pdfium.PdfDocument(buf.getvalue())
for k in range(len(pdf)):
    image = pdf[k].render(scale=dpi / 72).to_pil()
    image.save(f"{out}/{k}.png", format="PNG", dpi=(dpi, dpi), icc_profile=icc, compress_level=level)
"""


def cpu_timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one fresh process: on a shared machine the
    CPU time is the steadier of the two."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return took, usage.ru_utime + usage.ru_stime


def main() -> None:
    from generator.exports.png import COMPRESS_LEVEL

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_project(folder)
        (folder / "plain.py").write_text(PLAIN)
        (folder / "plain-out").mkdir()
        pnp = [sys.executable, "-m", "generator", "--root", str(folder)]
        # check once outside the timing, as a designer's `pnp print` after `pnp check` would
        timed([*pnp, "print", "--export", "sheets"], folder)
        plain_times, pnp_times = [], []
        for _ in range(RUNS):
            plain_times.append(
                cpu_timed(
                    [
                        sys.executable,
                        "plain.py",
                        str(folder / "templates/fonts"),
                        str(folder / "plain-out"),
                        str(N),
                        str(COMPRESS_LEVEL),
                    ],
                    folder,
                )
            )
            pnp_times.append(
                cpu_timed([*pnp, "print", "--export", "png", "--force", "-j", "1"], folder)
            )
        written = list((folder / "output/bench/en/png/cards").glob("*.png"))
        assert len(written) == N + 1, len(written)
        plain_t, pnp_t = statistics.median(plain_times), statistics.median(pnp_times)
        ratio = pnp_t / plain_t
        print(
            f"png export: {N} poker faces + 1 back at 300 dpi, PNG compress_level {COMPRESS_LEVEL}"
        )
        print(f"plain pypdfium2 + Pillow: {plain_t:.2f} s (median of {RUNS})")
        print(f"pnp print --export png:   {pnp_t:.2f} s (median of {RUNS})")
        print(
            f"ratio pnp / plain:        {ratio:.2f}   target <= {TARGET}   "
            f"{'ok' if ratio <= TARGET else 'MISSED'}"
        )


if __name__ == "__main__":
    main()

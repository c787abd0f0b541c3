"""`make bench`: pnp against plain ReportLab on a synthetic 1,000-card duplex deck.

Both sides draw the same cards (poker, 3x3 on A4, crop marks, one common back as a Form
XObject, a title, three lines of body text and a number, in the same embedded TrueType font)
and both run as fresh processes, so start-up and imports count on each side.
Targets: ratio <= 1.5, PDF <= 0.5 MB, peak RSS <= 150 MB, no-op rebuild <= 0.5 s, check < 2 s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N = 1000
RUNS = 3

LAYOUT = """\
background: "#fbf8f1"
boxes:
  - {id: frame, kind: rect, x: 3, y: 3, w: 57, h: 82, radius: 3mm, stroke: "#333333"}
  - {id: title, kind: text, text: "{{ title }}", x: 6, y: 6, w: 51, h: 10, size: 14pt, style: bold}
  - {id: body, kind: text, text: "{{ body }}", x: 6, y: 40, w: 51, h: 24, size: 9pt, leading: 1.3}
  - {id: number, kind: text, text: "{{ number }}", x: 6, y: 68, w: 51, h: 14, size: 28pt,
     style: black, align: right}
"""
BACK = """\
background: "#1f2f4a"
boxes:
  - {id: ring, kind: rect, x: 5, y: 5, w: 53, h: 78, radius: 3mm, stroke: "#d9c9a0"}
  - {id: name, kind: text, text: BENCH, x: 5, y: 38, w: 53, h: 12, size: 20pt, style: black,
     align: center, valign: middle, color: "#f3e7c6"}
"""

PLAIN = r"""
import sys
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.lib.colors import HexColor
MM = 72 / 25.4
fonts, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name, f in (("R", "PnPGothic-Regular.ttf"), ("B", "PnPGothic-Bold.ttf"), ("K", "PnPGothic-ExtraBold.ttf")):
    pdfmetrics.registerFont(TTFont(name, f"{fonts}/{f}"))
W, H = 210 * MM, 297 * MM
w, h, bleed = 63 * MM, 88 * MM, 3 * MM
x0, y0 = (W - 3 * w) / 2, (H - 3 * h) / 2
c = Canvas(out, pagesize=(W, H), initialFontName="R", pageCompression=1, invariant=1)
c.beginForm("back", -bleed, -bleed, w + bleed, h + bleed)
c.setFillColor(HexColor("#1f2f4a")); c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
c.setStrokeColor(HexColor("#d9c9a0")); c.roundRect(5 * MM, 5 * MM, 53 * MM, 78 * MM, 3 * MM, stroke=1, fill=0)
c.setFillColor(HexColor("#f3e7c6")); c.setFont("K", 20); c.drawCentredString(w / 2, h / 2 - 7, "BENCH")
c.endForm()
def marks():
    c.setLineWidth(0.25)
    for i in range(4):
        x = x0 + i * w; y = y0 + i * h
        c.line(x, y0 - bleed - 0.5 * MM, x, 5 * MM); c.line(x, y0 + 3 * h + bleed + 0.5 * MM, x, H - 5 * MM)
        c.line(x0 - bleed - 0.5 * MM, y, 5 * MM, y); c.line(x0 + 3 * w + bleed + 0.5 * MM, y, W - 5 * MM, y)
for start in range(0, n, 9):
    batch = range(start, min(n, start + 9))
    for k, i in enumerate(batch):
        x, y = x0 + (k % 3) * w, y0 + (2 - k // 3) * h
        c.saveState(); p = c.beginPath(); p.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed)
        c.clipPath(p, stroke=0, fill=0); c.translate(x, y)
        c.setFillColor(HexColor("#fbf8f1")); c.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        c.setStrokeColor(HexColor("#333333")); c.roundRect(3 * MM, 3 * MM, 57 * MM, 82 * MM, 3 * MM, stroke=1, fill=0)
        c.setFillColor(HexColor("#000000")); c.setFont("B", 14); c.drawString(6 * MM, h - 6 * MM - 14, f"Card {i + 1}")
        c.setFont("R", 9)
        for j, line in enumerate((f"Body line one of card {i + 1}", "the second line of text",
                                  "and the third line ends here")):
            c.drawString(6 * MM, h - 40 * MM - 9 - j * 9 * 1.3, line)
        c.setFont("K", 28); c.drawRightString(57 * MM, h - 68 * MM - 28, str(i % 100))
        c.restoreState()
    marks(); c.showPage()
    for k, i in enumerate(batch):
        x, y = x0 + (k % 3) * w, y0 + (2 - k // 3) * h
        c.saveState(); c.translate(W - x - w, y); c.doForm("back"); c.restoreState()
    c.showPage()
c.save()
"""


def make_project(folder: Path) -> None:
    shutil.copytree(ROOT / "templates" / "fonts", folder / "templates" / "fonts")
    for name in ("paper.yaml", "card-sizes.yaml"):
        shutil.copy(ROOT / "templates" / name, folder / "templates" / name)
    (folder / "templates/layouts/bench").mkdir(parents=True)
    (folder / "templates/layouts/bench/card.yaml").write_text(LAYOUT)
    (folder / "templates/layouts/bench/back.yaml").write_text(BACK)
    game = folder / "content/bench"
    (game / "components").mkdir(parents=True)
    (game / "game.yaml").write_text(
        "id: bench\ntitle: Bench\nlanguages: [en]\nprint: {papers: [a4], rotate: never}\n"
    )
    items = "\n".join(
        f"  - id: c{i + 1}\n    data: {{title: Card {i + 1}, number: {i % 100}, "
        f'body: "Body line one of card {i + 1}\\nthe second line of text\\nand the third line ends here"}}'
        for i in range(N)
    )
    (game / "components/cards.yaml").write_text(
        f"id: cards\nname: Cards\nsize: poker\nlayout: bench/card\nback: bench/back\nitems:\n{items}\n"
    )
    (game / "manifest.yaml").write_text(f"components: {{cards: {N}}}\n")


def timed(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Wall time and peak RSS (MiB) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return took, usage.ru_maxrss // 1024


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_project(folder)
        (folder / "plain.py").write_text(PLAIN)
        pnp = [sys.executable, "-m", "generator", "--root", str(folder)]
        plain_times, pnp_times, rss = [], [], []
        for _ in range(RUNS):
            plain_times.append(
                timed(
                    [
                        sys.executable,
                        "plain.py",
                        str(folder / "templates/fonts"),
                        str(folder / "plain.pdf"),
                        str(N),
                    ],
                    folder,
                )[0]
            )
            took, peak = timed([*pnp, "print", "--force"], folder)
            pnp_times.append(took)
            rss.append(peak)
        noop = min(timed([*pnp, "print"], folder)[0] for _ in range(RUNS))
        pdf = folder / "output/bench/en/cards-a4.pdf"
        check = min(
            timed([sys.executable, "-m", "generator", "--root", str(ROOT), "check"], ROOT)[0]
            for _ in range(RUNS)
        )
        plain_t, pnp_t = statistics.median(plain_times), statistics.median(pnp_times)
        size_mb = pdf.stat().st_size / 1e6
        print(f"deck: {N} poker cards, duplex, 3x3 on A4, crop marks, one common back")
        print(
            f"plain ReportLab:        {plain_t:.2f} s (median of {RUNS})  PDF {(folder / 'plain.pdf').stat().st_size / 1e6:.2f} MB"
        )
        print(f"pnp print (full build): {pnp_t:.2f} s (median of {RUNS})")
        print(
            f"pnp PDF size:           {size_mb:.2f} MB   target <= 0.5 MB   {'ok' if size_mb <= 0.5 else 'MISSED'}"
        )
        print(
            f"pnp peak RSS:           {max(rss)} MB   target <= 150 MB   {'ok' if max(rss) <= 150 else 'MISSED'}"
        )
        print(
            f"no-op rebuild:          {noop:.2f} s   target <= 0.5 s   {'ok' if noop <= 0.5 else 'MISSED'}"
        )
        print(
            f"pnp check, all games:   {check:.2f} s   target < 2 s   {'ok' if check < 2 else 'MISSED'}"
        )
        ratio = pnp_t / plain_t
        print(
            f"ratio pnp / plain:      {ratio:.2f}   target <= 1.5   {'ok' if ratio <= 1.5 else 'MISSED'}"
        )


if __name__ == "__main__":
    main()

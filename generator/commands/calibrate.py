"""`pnp calibrate`: a two-page duplex test sheet that measures a printer's back offset.

Page 1 (front, marked FRONT) carries two scales, one across (x) and one up (y), from -6 to +6 mm
(an offset of 5 mm still lands on the scale), with a tick every 0.5 mm and a 7 pt number every
2 mm. Page 2 (marked BACK) carries one pointer line behind each scale's zero, placed with the
same mirror the component sheets use for backs. Printed duplex and held against a light, each
pointer crosses its scale at a number: that number is the value to pass to `--back-offset X,Y`
(the numbers already carry the sign that moves the backs back into place). The scales sit
in the middle of the sheet and near two corners, so a skewed feed shows as different readings.

Positions are in mm from the page's bottom-left; `marks()` returns them for the manifest.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from generator import fsio
from generator.load.project import Project
from generator.load.sizes import paper_size
from generator.render.fonts import fontbook
from generator.units import MM

RANGE_MM = 6.0  # the scales read offsets from -6 to +6 mm: +/-5 mm with room to spare
LABEL_PT = 7.0  # every word and number on the sheet is at least this size
STEP_MM = 0.5
SCALE_LEN_MM = 2 * RANGE_MM


def _sign(duplex: str, axis: str) -> int:
    """+1 when a reading at +k mm on the front means a back offset of +k, -1 when it means -k.

    Long-edge flip mirrors x: a back printed too far right is seen too far left from the front,
    and the offset that cures it is positive, so x reads straight and y reads reversed. A
    short-edge flip mirrors y instead."""
    mirrored = "x" if duplex == "long-edge" else "y"
    return 1 if axis == mirrored else -1


def marks(paper_mm: tuple[float, float], duplex: str) -> dict:
    """Where every scale tick (front) and pointer (back) sits, in mm, with the tick labels."""
    W, H = paper_mm
    anchors = {
        "centre": (W / 2, H / 2),
        "top-left": (45.0, H - 75.0),
        "bottom-right": (W - 45.0, 50.0),
    }
    out: dict = {"duplex": duplex, "paper_mm": [W, H], "scales": []}
    n = round(RANGE_MM / STEP_MM)
    for name, (cx, cy) in anchors.items():
        # x scale: ticks along x, left of the anchor's y; y scale: ticks along y, above it
        x0, y0 = cx, cy + 12.0
        ticks_x = [
            {"at": round(x0 + k * STEP_MM, 3), "label": _sign(duplex, "x") * k * STEP_MM}
            for k in range(-n, n + 1)
        ]
        x1, y1 = cx + 18.0, cy - 6.0
        ticks_y = [
            {"at": round(y1 + k * STEP_MM, 3), "label": _sign(duplex, "y") * k * STEP_MM}
            for k in range(-n, n + 1)
        ]
        if duplex == "long-edge":
            back_x, back_y = (W - x0, y0), (W - x1, y1)
        else:
            back_x, back_y = (x0, H - y0), (x1, H - y1)
        out["scales"].append(
            {
                "name": name,
                "x": {"page": 1, "zero": [x0, y0], "ticks": ticks_x},
                "y": {"page": 1, "zero": [x1, y1], "ticks": ticks_y},
                "pointers": {
                    "page": 2,
                    "x": {"at": [round(back_x[0], 3), round(back_x[1], 3)], "along": "vertical"},
                    "y": {"at": [round(back_y[0], 3), round(back_y[1], 3)], "along": "horizontal"},
                },
            }
        )
    return out


def _number(value: float) -> str:
    return f"{value:.0f}" if value else "0"


def write_calibration(project: Project, paper: str, duplex: str, out_dir: Path) -> dict:
    """Write calibration-<paper>.pdf and its manifest into out_dir; return the manifest."""
    W, H = paper_size(project, paper)
    spec = marks((W / MM, H / MM), duplex)
    face = fontbook(project.fonts).default
    out_dir.mkdir(parents=True, exist_ok=True)
    pdf = out_dir / f"calibration-{paper}.pdf"
    drawn = io.BytesIO()
    _draw(drawn, (W, H), spec, paper, duplex, face.name)
    fsio.write_user_file(pdf, drawn.getvalue(), "--out")  # a FIFO there is written through
    try:
        rel_path = pdf.resolve().relative_to(project.root.resolve()).as_posix()
    except ValueError:  # --out outside the project: named as the user gave it
        rel_path = os.path.abspath(pdf)
    manifest = {
        "files": [
            {"path": rel_path, "kind": "calibration", "paper": paper, "pages": 2, "duplex": duplex}
        ],
        "marks": spec,
    }
    fsio.write_user_file(
        out_dir / f"calibration-{paper}.json",
        json.dumps(manifest, ensure_ascii=False, indent=1).encode(),
        "--out",
    )
    return manifest


def _draw(tmp, size, spec: dict, paper: str, duplex: str, font: str) -> None:
    """The two pages: scales on the front, pointers on the back, each page saying which it is."""
    W, H = size
    c = Canvas(tmp, pagesize=(W, H), invariant=1, initialFontName=font)
    c.setTitle(f"pnp calibration sheet ({paper}, {duplex})")
    c.setCreator("pnp")
    c.setAuthor("pnp")
    flip = duplex.replace("-", " ")
    lines = [
        f"Paper {paper.upper()}. Print both pages duplex ({flip} flip) at 100 %, never "
        '"fit to page".',
        "Hold the sheet against a light: the lines printed on the back show through this side.",
        "Where each line crosses a scale, read the number: X on the scales across, Y on the "
        "scales up.",
        "That number, with its sign, is the correction to type:  pnp print --back-offset X,Y  "
        "(mm).",
        "A positive X moves the backs right and a positive Y moves them up, as you look at the "
        "back page;",
        "so the scales count the correction, not the distance (the Y numbers may grow downwards).",
        "All lines at 0: nothing to correct. Several scales: take their average; readings that "
        "differ mean the paper fed skewed.",
    ]
    _side(c, font, W, H, "FRONT", "1 / 2", "pnp back-offset calibration")
    c.setFont(font, 9)
    for i, text in enumerate(lines):
        c.drawString(20 * MM, H - 30 * MM - i * 12, text)
    for scale in spec["scales"]:
        _draw_scale(c, font, scale["x"], "x")
        _draw_scale(c, font, scale["y"], "y")
    c.showPage()
    _side(c, font, W, H, "BACK", "2 / 2", "pnp back-offset calibration")
    c.setFont(font, 9)
    c.drawString(
        20 * MM, H - 30 * MM, "This side only carries the lines you read through the front."
    )
    c.setLineWidth(0.4)
    for scale in spec["scales"]:
        (px, py), (qx, qy) = scale["pointers"]["x"]["at"], scale["pointers"]["y"]["at"]
        c.line(px * MM, (py - 9) * MM, px * MM, (py + 9) * MM)  # crosses the x scale's ticks
        c.line((qx - 9) * MM, qy * MM, (qx + 9) * MM, qy * MM)
    c.showPage()
    c.save()


def _side(c: Canvas, font: str, W: float, H: float, word: str, page: str, title: str) -> None:
    """The page's side in large letters at its top, with the sheet's title."""
    c.setFont(font, 20)
    c.drawString(20 * MM, H - 20 * MM, word)
    c.setFont(font, 11)
    c.drawString(20 * MM + c.stringWidth(word, font, 20) + 4 * MM, H - 20 * MM, title)
    c.drawRightString(W - 20 * MM, H - 20 * MM, page)


def _draw_scale(c: Canvas, font: str, scale: dict, axis: str) -> None:
    """Ticks every 0.5 mm (longer every 1 mm, numbered every 2 mm), with a base line.

    Numbers are 7 pt: they alternate between two rows (x) or columns (y) so neighbours
    2 mm apart never touch; the axis letter sits beyond the scale's end."""
    c.setLineWidth(0.3)
    zx, zy = scale["zero"]
    ticks = scale["ticks"]
    c.setFont(font, LABEL_PT)
    for t in ticks:
        whole = abs(t["label"] - round(t["label"])) < 1e-9
        numbered = whole and round(t["label"]) % 2 == 0
        length = 3.0 if whole else 1.6
        if t["label"] == 0:
            length = 4.5
        if axis == "x":
            x = t["at"] * MM
            c.line(x, zy * MM, x, (zy + length) * MM)
            if numbered:
                row = 0 if round(t["label"]) % 4 == 0 else 1
                c.drawCentredString(x, (zy - 3.0 - 3.0 * row) * MM, _number(t["label"]))
        else:
            y = t["at"] * MM
            c.line(zx * MM, y, (zx + length) * MM, y)
            if numbered:
                column = 0 if round(t["label"]) % 4 == 0 else 1
                c.drawString((zx + 5.2 + 4.0 * column) * MM, y - 2.4, _number(t["label"]))
    if axis == "x":
        c.line(ticks[0]["at"] * MM, zy * MM, ticks[-1]["at"] * MM, zy * MM)
        c.drawRightString(min(t["at"] for t in ticks) * MM - 2 * MM, zy * MM, "X")
    else:
        c.line(zx * MM, ticks[0]["at"] * MM, zx * MM, ticks[-1]["at"] * MM)
        c.drawCentredString(zx * MM, min(t["at"] for t in ticks) * MM - 4 * MM, "Y")

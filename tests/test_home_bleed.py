"""Round pieces on home sheets: 1.5 mm of their own colour outside the cut, on the pixels.

Sub Zero's hit and snowball markers are cut round on shared A4 sheets. A cut that misses the
circle outwards by up to 1.5 mm must still show the marker's own colour, never its
neighbour's; and the kit keeps its 15 A4 sheets per language (11 shared + 4 board tiles).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pypdfium2 as pdfium
import pytest

GAME = "sub-zero"
DPI = 300
ROUND = ("hit-markers", "snowball-markers")


@pytest.fixture
def kit(kits_a4) -> Path:
    """Sub Zero on A4 (es, en; sheets): the run's shared home-sheet kit (tests/conftest.py)."""
    return kits_a4


def _manifest(root: Path) -> dict:
    return json.loads((root / "output" / GAME / "build-manifest.json").read_text())


def test_the_kit_keeps_15_a4_sheets(kit):
    manifest = _manifest(kit)
    fronts = {
        (s["file"], s["page"])
        for s in manifest["sheets"]
        if s["side"] == "front" and "/en/" in s["file"] and s["file"].endswith("-a4.pdf")
    }
    assert len(fronts) == 15


def test_round_markers_show_their_own_colour_1_5_mm_past_the_cut(kit):
    manifest = _manifest(kit)
    pages = [
        s
        for s in manifest["sheets"]
        if s["side"] == "front"
        and s["file"].endswith("/en/cards-and-pieces-a4.pdf")
        and any(slot["component"] in ROUND for slot in s["slots"])
    ]
    assert pages
    pdf = pdfium.PdfDocument(str(kit / pages[0]["file"]))
    px = DPI / 25.4
    checked = 0
    bad = []
    try:
        for sheet in pages:
            page = pdf[sheet["page"] - 1]
            height_mm = page.get_height() / 72 * 25.4
            image = page.render(scale=DPI / 72).to_pil().convert("RGB")
            slots = sheet["slots"]

            def pixel(x_mm: float, y_mm: float, image=image, height_mm=height_mm):
                return image.getpixel((round(x_mm * px), round((height_mm - y_mm) * px)))

            for slot in slots:
                if slot["component"] not in ROUND:
                    continue
                cx, cy, r = slot["x"] + slot["w"] / 2, slot["y"] + slot["h"] / 2, slot["w"] / 2
                # towards every other piece closer than 2 x 1.5 mm past the cut: where a
                # neighbour's colour would show first
                for other in slots:
                    if other is slot:
                        continue
                    ox, oy = other["x"] + other["w"] / 2, other["y"] + other["h"] / 2
                    distance = math.hypot(ox - cx, oy - cy)
                    if other["component"] in ROUND:
                        gap = distance - r - other["w"] / 2
                    else:  # to a rectangle's nearest point
                        dx = max(other["x"] - cx, 0.0, cx - other["x"] - other["w"])
                        dy = max(other["y"] - cy, 0.0, cy - other["y"] - other["h"])
                        gap = math.hypot(dx, dy) - r
                    # room for 1.5 mm of bleed each side of the midline between their cuts
                    assert gap >= 2 * 1.5 - 0.01, (slot["item"], other["item"], gap)
                    if gap > 3.5:
                        continue
                    ux, uy = (ox - cx) / distance, (oy - cy) / distance
                    own = pixel(cx + ux * (r - 0.4), cy + uy * (r - 0.4))
                    # the cut line and its white halo take 0.3 mm each side of the cut (with
                    # anti-aliasing; one pixel is 0.085 mm); 1.5 mm is the midpoint of the 3 mm
                    # gap (asserted below), an anti-aliased seam where the neighbour's bleed
                    # begins
                    for d in (0.4, 0.7, 1.0, 1.3):
                        got = pixel(cx + ux * (r + d), cy + uy * (r + d))
                        if max(abs(a - b) for a, b in zip(got, own, strict=True)) > 48:
                            bad.append((sheet["page"], slot["item"], other["item"], d, own, got))
                    checked += 1
    finally:
        pdf.close()
    assert checked > 100
    assert not bad, bad[:10]

"""A face bigger than the sheet is tiled with overlap; registration marks line up across tiles."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import run_pnp
from pdfutil import crop_mm, page_size_mm, render

BOARD = """\
background: "#ffffff"
boxes:
  - {id: sea, kind: rect, x: 0, y: 0, w: 100%, h: 100%, bleed: true, fill: "#cfe3f2"}
  - {id: grid, kind: repeat, over: "cells", layout: test/cell, cols: 8, x: 0, y: 0,
     w: 100%, h: 100%}
"""
CELL = """\
boxes:
  - {id: edge, kind: rect, x: 0, y: 0, w: 100%, h: 100%, stroke: "#1b3b5a",
     stroke_width: 0.6pt}
"""


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiled")
    (root / "templates/layouts/test").mkdir(parents=True)  # fonts, sizes: pnp's own
    (root / "templates/layouts/test/board.yaml").write_text(BOARD)
    (root / "templates/layouts/test/cell.yaml").write_text(CELL)
    game = root / "content/big"
    (game / "components").mkdir(parents=True)
    (game / "game.yaml").write_text(
        "id: big\ntitle: Big\nlanguages: [en]\nprint: {papers: [a4, letter]}\n"
    )
    (game / "components/board.yaml").write_text(
        "id: board\nname: Board\nkind: board\nsize: {w: 400mm, h: 400mm}\nlayout: test/board\n"
        f"data: {{cells: {list(range(64))}}}\nitems: [{{id: main}}]\n"
    )
    (game / "manifest.yaml").write_text("components: {board: 1}\n")
    run_pnp(root, "print", check=True)
    return root, json.loads((root / "output/big/build-manifest.json").read_text())


def test_board_is_split_into_tiles_that_cover_it(tiled):
    _root, manifest = tiled
    sheets = [s for s in manifest["sheets"] if s["file"].endswith("board-a4.pdf")]
    assert len(sheets) == 6
    tiles = [s["slots"][0]["tile"] for s in sheets]
    assert {(t["rows"], t["cols"]) for t in tiles} == {(2, 3)}
    # every face point is on some tile; neighbours overlap by 10 mm
    xs = sorted({(t["face_x"], t["face_x"] + t["face_w"]) for t in tiles})
    assert xs[0][0] == 0 and xs[-1][1] == pytest.approx(400, abs=0.01)
    for (_a0, a1), (b0, _b1) in itertools.pairwise(xs):
        assert a1 - b0 == pytest.approx(10, abs=0.01)
    for s in sheets:
        w, _h = s["size"]
        slot = s["slots"][0]
        assert slot["x"] - 3 >= 5 and slot["y"] - 3 >= 5 and slot["x"] + slot["w"] + 3 <= w - 5


def _face_marks(sheet):
    slot = sheet["slots"][0]
    t = slot["tile"]
    return {
        (round(x - slot["x"] + t["face_x"], 2), round(y - slot["y"] + t["face_y"], 2))
        for x, y in sheet["marks"]
    }


def test_registration_marks_line_up_across_neighbouring_tiles(tiled):
    _root, manifest = tiled
    sheets = [s for s in manifest["sheets"] if s["file"].endswith("board-a4.pdf")]
    by_pos = {(s["slots"][0]["tile"]["row"], s["slots"][0]["tile"]["col"]): s for s in sheets}
    pairs = 0
    for (row, col), sheet in by_pos.items():
        for other in ((row, col + 1), (row + 1, col)):
            if other not in by_pos:
                continue
            a, b = sheet["slots"][0]["tile"], by_pos[other]["slots"][0]["tile"]
            band = (
                max(a["face_x"], b["face_x"]),
                max(a["face_y"], b["face_y"]),
                min(a["face_x"] + a["face_w"], b["face_x"] + b["face_w"]),
                min(a["face_y"] + a["face_h"], b["face_y"] + b["face_h"]),
            )

            # marks on the band's middle line, on the face or beyond its outer edges
            side_by_side = other == (row, col + 1)

            def inside(m, band=band, sbs=side_by_side):
                if sbs:
                    return band[0] - 0.01 <= m[0] <= band[2] + 0.01
                return band[1] - 0.01 <= m[1] <= band[3] + 0.01

            shared_a = {m for m in _face_marks(sheet) if inside(m)}
            shared_b = {m for m in _face_marks(by_pos[other]) if inside(m)}
            assert shared_a and shared_a == shared_b
            pairs += 1
    assert pairs == 7  # 2 x 3 tiles: 4 side-by-side pairs, 3 stacked pairs


def test_marks_are_drawn_where_the_manifest_says(tiled):
    """Pixels: each registration cross is centred within 0.15 mm of its manifest position."""
    root, manifest = tiled
    dpi = 300
    sheet = next(
        s
        for s in manifest["sheets"]
        if s["file"].endswith("board-a4.pdf")
        and s["slots"][0]["tile"]["row"] == 1
        and s["slots"][0]["tile"]["col"] == 1
    )
    pdf = root / sheet["file"]
    img = render(pdf, sheet["page"], dpi=dpi)
    _, page_h = page_size_mm(pdf, sheet["page"])
    for x, y in sheet["marks"]:
        win = crop_mm(img, page_h, dpi, x - 4, y - 4, 8, 8).convert("L")
        data = win.load()
        dark = [(i, j) for i in range(win.width) for j in range(win.height) if data[i, j] < 60]
        # the cross arms: the darkest full column and row through the window
        col = max(
            range(win.width), key=lambda i: sum(1 for j in range(win.height) if data[i, j] < 60)
        )
        row = max(
            range(win.height), key=lambda j: sum(1 for i in range(win.width) if data[i, j] < 60)
        )
        cx = x - 4 + (col + 0.5) * 25.4 / dpi
        cy = y + 4 - (row + 0.5) * 25.4 / dpi
        assert dark and abs(cx - x) < 0.15 and abs(cy - y) < 0.15, (x, y, cx, cy)

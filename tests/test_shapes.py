"""Die-cut shapes, packing by shape, shared sheets, marks only around used cells.

A small game is written into a fresh project and built through the CLI; every assertion reads
the written PDFs (content streams, resources, pixels) and the build manifest.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from conftest import copy_project, run_pnp, shared_build
from pdfutil import render

MM = 72 / 25.4
DPI = 600

GAME = {
    "game.yaml": """
id: demo
title: Demo
languages: [en]
print: {papers: [a4]}
""",
    # 24 coins of 20 mm and 6 hexes of 50 mm across flats, sharing sheets.
    "components/coins.yaml": """
id: coins
name: Coin
kind: token
shape: {kind: circle, diameter: 20mm}
layout: demo/coloured
sheet: table
items:
  - {id: gold, count: 12, data: {fill: "#e3a600"}}
  - {id: blue, count: 12, data: {fill: "#1d5fa8"}}
""",
    "components/hexes.yaml": """
id: hexes
name: Hex
kind: tile
shape: {kind: hexagon, across_flats: 50mm}
layout: demo/coloured
sheet: table
items:
  - {id: forest, count: 3, data: {fill: "#2d7d3a"}}
  - {id: sea, count: 3, data: {fill: "#123b6b"}}
""",
    # White coins with the die line in a printer's own separation name: only lines are drawn.
    "components/blanks.yaml": """
id: blanks
name: Blank
kind: token
shape: circle
size: {w: 20mm, h: 20mm}
layout: demo/white
print: {die_line: Thru-cut, one_per_page: true}
items:
  - {id: blank, count: 14}
""",
    # A part-filled card sheet (11 poker cards, 9 per A4) and a part-filled ruled token sheet.
    "components/cards.yaml": """
id: cards
name: Card
size: poker
layout: demo/coloured
items:
  - {id: card, count: 11, data: {fill: "#888888"}}
""",
    "components/squares.yaml": """
id: squares
name: Square
kind: token
size: {w: 40mm, h: 40mm}
layout: demo/coloured
print: {cut_lines: true}
items:
  - {id: square, count: 27, data: {fill: "#888888"}}
""",
}
LAYOUTS = {
    "coloured.yaml": 'background: "{{ fill }}"\nboxes: []\n',
    "white.yaml": 'background: "#ffffff"\nboxes: []\n',
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    def build(folder: Path) -> None:
        root = write_demo(copy_project(folder, ("dogfight",)))
        run_pnp(root, "print", "demo", "-j", "1", check=True)

    root = shared_build(tmp_path_factory, "shapes-demo", build)[0]
    import json

    return root, json.loads((root / "output/demo/build-manifest.json").read_text())


def pages(manifest, path, side="front"):
    return [s for s in manifest["sheets"] if s["file"] == path and s["side"] == side]


def grey(root: Path, rel: str, page: int, dpi: int = DPI):
    """The page in grey levels, indexed [x, y] from the top-left (PIL pixel access)."""
    img = render(root / rel, page, dpi).convert("L")
    return img.load(), img.size


def inked(root: Path, rel: str, page: int, dpi: int, threshold: int) -> list[tuple[float, float]]:
    """Every pixel darker than `threshold`, as (x, y) mm from the page's bottom-left."""
    img = render(root / rel, page, dpi).convert("L")
    w, h = img.size
    return [
        (i % w / dpi * 25.4, (h - i // w) / dpi * 25.4)
        for i, v in enumerate(img.tobytes())
        if v < threshold
    ]


def px(v_mm: float, dpi: int = DPI) -> float:
    return v_mm * dpi / 25.4


# ------------------------------------------------------------------ the die line


def test_die_line_is_a_vector_path_in_a_named_separation_on_an_optional_content_layer(demo):
    from pypdf import PdfReader

    root, _ = demo
    pdf = PdfReader(str(root / "output/demo/en/blanks-a4.pdf"))
    ocprops = pdf.trailer["/Root"]["/OCProperties"]
    ocgs = [o.get_object() for o in ocprops["/OCGs"]]
    assert len(ocgs) == 1 and ocgs[0]["/Type"] == "/OCG"
    assert "Thru-cut" in ocgs[0]["/Name"]
    # off by default: a home printer prints no die line
    assert [o.get_object() for o in ocprops["/D"]["/OFF"]] == ocgs
    page = pdf.pages[0]
    res = page["/Resources"]
    (layer_name,) = [k for k, v in res["/Properties"].items() if v.get_object() == ocgs[0]]
    spaces = {k: v.get_object() for k, v in res["/ColorSpace"].items()}
    (cs_name,) = [k for k, v in spaces.items() if v[0] == "/Separation" and v[1] == "/Thru-cut"]
    stream = page.get_contents().get_data().decode("latin-1")
    marked = re.findall(rf"/OC {re.escape(layer_name)} BDC(.*?)EMC", stream, re.S)
    assert len(marked) == 1
    body = marked[0]
    assert f"{cs_name} CS" in body  # stroked in the separation
    assert body.count(" c ") + body.count(" c\n") >= 14 * 4  # four Bezier arcs per circle
    assert body.count(" S") + body.count("\nS") >= 14  # one stroke per coin (B/f would fill)
    assert "re" not in body.split()  # no rectangle on the layer


def test_the_print_shop_file_carries_the_die_line_switched_on(demo):
    from pypdf import PdfReader

    root, manifest = demo
    rel = "output/demo/en/print-shop/blanks.pdf"
    pdf = PdfReader(str(root / rel))
    ocprops = pdf.trailer["/Root"]["/OCProperties"]
    assert [o.get_object() for o in ocprops["/D"]["/ON"]] == [ocprops["/OCGs"][0].get_object()]
    page = pdf.pages[0]
    trim = [float(v) / MM for v in page.trimbox]
    assert trim[2] - trim[0] == pytest.approx(20.0, abs=0.01)  # the circle's bounding box
    stream = page.get_contents().get_data().decode("latin-1")
    assert "BDC" in stream and "EMC" in stream
    (slot,) = next(s for s in manifest["sheets"] if s["file"] == rel)["slots"]
    assert slot["shape"] == {"kind": "circle", "cx": 13.0, "cy": 13.0, "r": 10.0}


def test_the_cut_line_of_each_circle_lies_within_a_tenth_of_a_millimetre_of_its_outline(demo):
    root, manifest = demo
    rel = "output/demo/en/blanks-a4.pdf"
    img, (_, H) = grey(root, rel, 1)
    slots = pages(manifest, rel)[0]["slots"]
    assert len(slots) == 14
    worst = 0.0
    for slot in slots:
        shape = slot["shape"]
        assert shape["kind"] == "circle" and shape["r"] == pytest.approx(10.0)
        cx, cy, r = shape["cx"], shape["cy"], shape["r"]
        for k in range(24):
            a = 2 * math.pi * (k + 0.5) / 24
            # walk the ray from 1 mm inside to 1 mm outside; the cut line is the dark run on it
            dark = []
            for step in range(400):
                rr = r - 1 + 2 * step / 400
                x, y = px(cx + rr * math.cos(a)), H - px(cy + rr * math.sin(a))
                if img[round(x), round(y)] < 180:
                    dark.append(rr)
            assert dark, (slot["item"], slot["copy"], k)
            worst = max(worst, abs(sum(dark) / len(dark) - r))
    assert worst <= 0.1, worst


def test_a_shaped_slot_gets_no_rectangular_crop_mark(demo):
    """On a sheet of white coins, every inked pixel is on a circle's cut line or in the label."""
    root, manifest = demo
    rel = "output/demo/en/blanks-a4.pdf"
    dots = inked(root, rel, 1, 200, 200)
    circles = [slot["shape"] for slot in pages(manifest, rel)[0]["slots"]]
    stray = [
        (x, y)
        for x, y in dots
        if y > 9.5  # above the label strip
        and not any(abs(math.hypot(x - c["cx"], y - c["cy"]) - c["r"]) < 0.4 for c in circles)
    ]
    assert len(dots) > 1000 and not stray, stray[:5]


def test_the_bleed_extends_the_art_beyond_the_outline(demo):
    root, manifest = demo
    rel = "output/demo/en/table-a4.pdf"
    img = render(root / rel, 1, 300)
    pix, H = img.load(), img.size[1]
    slots = [s for s in pages(manifest, rel)[0]["slots"] if s["component"] == "coins"]
    top = max(s["shape"]["cy"] for s in slots)  # the top row: nothing above it

    def colour(x, y):
        return pix[int(px(x, 300)), int(H - px(y, 300))]

    checked = 0
    for s in slots:
        if s["shape"]["cy"] < top - 0.01:
            continue
        cx, cy, r = s["shape"]["cx"], s["shape"]["cy"], s["shape"]["r"]
        inside = colour(cx, cy + r - 2)
        beyond = colour(cx, cy + r + 2)  # 2 mm beyond the outline: still the art
        assert max(abs(a - b) for a, b in zip(beyond, inside, strict=True)) < 20
        assert min(colour(cx, cy + r + 3.6)) > 245  # past the 3 mm bleed: white paper
        checked += 1
    assert checked >= 5


# ------------------------------------------------------------------ packing


def test_24_coins_and_6_hexes_share_one_a4_sheet(demo):
    _root, manifest = demo
    rel = "output/demo/en/table-a4.pdf"
    (front,) = pages(manifest, rel)
    got = {}
    for slot in front["slots"]:
        got[slot["component"]] = got.get(slot["component"], 0) + 1
        assert slot["shape"]["kind"] in ("circle", "hexagon")
    assert got == {"coins": 24, "hexes": 6}
    (entry,) = [f for f in manifest["files"] if f["path"] == rel]
    assert entry["components"] == ["coins", "hexes"] and entry["pages"] == 1
    hexes = [s["shape"] for s in front["slots"] if s["component"] == "hexes"]
    for h in hexes:  # 50 mm across flats: sqrt(3) times the side
        side = math.dist(h["points"][0], h["points"][1])
        assert side * math.sqrt(3) == pytest.approx(50.0, abs=0.01)


def test_hexagonal_rows_hold_more_coins_than_a_square_grid():
    from generator.impose import packing
    from generator.load.shapes import Outline

    coin = Outline("ellipse", 20 * MM, 20 * MM, name="circle", shares_cuts=False)
    band = packing.Band("coins", tuple(range(400)), coin, 3 * MM, 1.5 * MM, True, True)
    a4 = (210 * MM, 297 * MM)
    first = packing.pack([band], a4, 5 * MM)[0]
    naive = packing.naive_grid_count(band, a4, 5 * MM)
    assert len(first.placed) > naive
    # and no two coins closer than the gap
    pts = [(p.trim.x + p.trim.w / 2, p.trim.y + p.trim.h / 2) for p in first.placed]
    closest = min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :])
    assert closest >= 21.5 * MM - 1e-6


def test_abutting_hexes_share_one_cut():
    from generator.impose import packing
    from generator.load.model import ShapeSpec
    from generator.load.shapes import outline_of

    hexagon = outline_of(ShapeSpec(kind="hexagon"), (57.735 * MM, 50 * MM))
    band = packing.Band("hexes", tuple(range(6)), hexagon, 3 * MM, 0.0, False, True)
    sheet = packing.pack([band], (210 * MM, 297 * MM), 5 * MM)[0]
    centres = [(p.trim.x + p.trim.w / 2, p.trim.y + p.trim.h / 2) for p in sheet.placed]
    touching = [
        (a, b) for i, a in enumerate(centres) for b in centres[i + 1 :] if math.dist(a, b) < 51 * MM
    ]
    assert touching and all(math.dist(a, b) == pytest.approx(50 * MM) for a, b in touching)


# ------------------------------------------------------------------ marks only around used cells


@pytest.mark.parametrize("component", ["cards", "squares"])
def test_no_crop_mark_or_cut_line_outside_the_used_cells_of_a_part_filled_sheet(demo, component):
    root, manifest = demo
    rel = f"output/demo/en/{component}-a4.pdf"
    fronts = pages(manifest, rel)
    last = fronts[-1]
    full = max(len(p["slots"]) for p in fronts)
    assert 0 < len(last["slots"]) < full  # part-filled
    dots = inked(root, rel, last["page"], 150, 235)
    slots = last["slots"]
    x0 = min(s["x"] for s in slots)
    y0 = min(s["y"] for s in slots)
    x1 = max(s["x"] + s["w"] for s in slots)
    y1 = max(s["y"] + s["h"] for s in slots)
    reach = 3 + 0.5 + 6 + 0.3  # bleed, gap before a mark, longest mark, a pixel
    stray = [
        (x, y)
        for x, y in dots
        if (x < x0 - reach or x > x1 + reach or y < y0 - reach or y > y1 + reach)
        and y > 5 + 4.5  # the label strip
    ]
    assert dots and not stray, stray[:5]
    # and nothing in the cells the full sheet would use but this one leaves empty
    full_slots = next(p for p in fronts if len(p["slots"]) == full)["slots"]
    used = {(round(s["x"], 1), round(s["y"], 1)) for s in slots}
    empty = [s for s in full_slots if (round(s["x"], 1), round(s["y"], 1)) not in used]
    assert empty
    for c in empty:  # (a neighbour's 3 mm bleed may reach into it: that is art, not a mark)
        inside = [
            (x, y)
            for x, y in dots
            if c["x"] + 3.3 < x < c["x"] + c["w"] - 3.3 and c["y"] + 3.3 < y < c["y"] + c["h"] - 3.3
        ]
        assert not inside, (c, inside[:5])
    # The TrimBox spans the used cells only.
    from pypdf import PdfReader

    box = [float(v) / MM for v in PdfReader(str(root / rel)).pages[last["page"] - 1].trimbox]
    assert box == pytest.approx([x0, y0, x1, y1], abs=0.01)


def test_the_sheet_label_is_never_struck_by_a_mark(demo):
    from generator.impose import grid as impose

    # Marks at x = 30 and 120 cross the label strip: the label takes the widest free stretch.
    strip = impose.Rect(5 * MM, 5 * MM, 200 * MM, 6 * MM)
    marks = [(30 * MM, 20 * MM, 30 * MM, 5 * MM), (120 * MM, 20 * MM, 120 * MM, 5 * MM)]
    centre, width = impose.label_spot(marks, strip)
    assert centre == pytest.approx(75 * MM) and width == pytest.approx(90 * MM)


# ------------------------------------------------------------------ bad input


def write_demo(root: Path) -> Path:
    for rel, text in GAME.items():
        path = root / "content/demo" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip())
    for name, text in LAYOUTS.items():
        path = root / "templates/layouts/demo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_text_in_a_corner_of_a_round_token_is_a_finding(tmp_path):
    import json

    root = write_demo(copy_project(tmp_path / "p", ("dogfight",)))
    (root / "templates/layouts/demo/coloured.yaml").write_text(
        'background: "{{ fill }}"\n'
        "boxes:\n"
        "  - {id: centre, kind: text, text: '5', x: 0, y: 0, w: 100%, h: 100%, size: 9pt,\n"
        "     align: center, valign: middle}\n"
        "  - {id: corner, kind: text, text: '5', x: 1, y: 1, w: 6, h: 5, size: 9pt}\n"
    )
    result = run_pnp(root, "check", "demo", "--format", "json")
    found = [f for f in json.loads(result.stdout) if f["code"] == "outside-shape"]
    boxes = {(f["component"], f["box"]) for f in found}
    assert ("coins", "corner") in boxes and ("hexes", "corner") in boxes
    assert not any(box == "centre" for _, box in boxes)
    assert all(f["file"].endswith("coloured.yaml") and f["line"] == 5 for f in found)


def test_a_shape_size_that_disagrees_with_the_size_is_one_located_error(tmp_path):
    root = write_demo(copy_project(tmp_path / "p", ("dogfight",)))
    hexes = root / "content/demo/components/hexes.yaml"
    hexes.write_text(
        hexes.read_text().replace("kind: tile\n", "kind: tile\nsize: {w: 50mm, h: 50mm}\n")
    )
    result = run_pnp(root, "check", "demo")
    assert result.returncode == 2
    assert (
        "hexes.yaml:4" in result.stderr + result.stdout and "size" in result.stderr + result.stdout
    )
    assert not (root / "output").exists()


@pytest.mark.parametrize("game, most", [("red-code", 10), ("sub-zero", 15)])
def test_seed_games_fit_their_sheet_targets(built, game, most):
    """Issue targets: Red Code <= 10 and Sub Zero <= 15 A4 sheets per language (was 12 and 18)."""
    manifest = built.manifest(game)
    for lang in ("es", "en", "ko"):
        fronts = [
            s
            for s in manifest["sheets"]
            if s["side"] == "front"
            and s["file"].startswith(f"output/{game}/{lang}/")
            and s["file"].endswith("-a4.pdf")
        ]
        assert 0 < len(fronts) <= most, (lang, len(fronts))


def test_a_rulebook_figure_of_a_round_token_is_clipped_to_its_circle(demo, tmp_path):
    from PIL import Image

    from generator.load.content import load_game
    from generator.load.project import Project
    from generator.rulebook.figures import FaceCache

    root, _ = demo
    content = load_game(Project(root), "demo")
    coins = content.component("coins")
    faces = FaceCache(content, "en", tmp_path, raster=True)  # the preview's pictures
    picture = faces.face(coins, coins.items[0], "front", 20 * MM)
    assert picture.shaped
    image = Image.open(picture.path)
    w, h = image.size
    assert image.mode == "RGBA"
    assert image.getpixel((2, 2))[3] == 0  # the corner outside the circle: transparent
    assert image.getpixel((w // 2, h // 2))[3] == 255
    assert image.getpixel((w // 2, h // 2))[:3] == pytest.approx((0xE3, 0xA6, 0x00), abs=3)


# ------------------------------------------------------------------ tiled boards


def test_registration_marks_sit_off_the_play_area_and_seams_miss_text():
    from generator.impose import grid as impose

    a4 = (210 * MM, 297 * MM)
    face = (360 * MM, 360 * MM)
    name = impose.Rect(122 * MM, 345 * MM, 116 * MM, 12 * MM)  # a player's name, top edge
    plan = impose.plan_tiles(a4, face, bleed=3 * MM, margin=5 * MM, overlap=10 * MM, avoid=(name,))
    assert plan.rows * plan.cols == 4  # as few sheets as without text to avoid
    assert plan.crossings == 0
    for tile in plan.tiles:
        if tile.col > 0:  # its seam (the overlap band) misses the name
            s = tile.face.x
            assert s + 10 * MM <= name.x + 1e-6 or s >= name.x + name.w - 1e-6
    # every registration mark lies beyond the face: trimmed off, never on the play area
    fw, fh = face
    assert plan.marks and all(not (0 <= x <= fw and 0 <= y <= fh) for x, y in plan.marks)
    for tile in plan.tiles:  # each tile carries the marks of its bands, inside the page margin
        for x, y in plan.marks_on(tile):
            px, py = plan.to_page(tile, x, y)
            reach = plan.mark_radius * impose.REG_ARM
            assert px - reach >= 5 * MM - 1e-6 and px + reach <= tile.page[0] - 5 * MM + 1e-6
            assert py - reach >= 5 * MM - 1e-6 and py + reach <= tile.page[1] - 5 * MM + 1e-6


def test_the_face_preview_of_a_round_token_is_clipped_to_its_circle_plus_bleed(demo):
    from generator.commands.face import face_pdf, find_face, rasterise
    from generator.load.content import load_game
    from generator.load.project import Project

    root, _ = demo
    content = load_game(Project(root), "demo")
    ref = find_face(content, "coins", "gold", "en", "front")
    image = rasterise(face_pdf(content, ref, 3 * MM), 200)  # 26 x 26 mm: coin plus bleed
    w, h = image.size
    assert image.getpixel((w // 2, h // 2)) == pytest.approx((0xE3, 0xA6, 0x00), abs=3)
    assert min(image.getpixel((3, 3))) > 245  # the corner is past the circle's bleed
    # 2 mm outside the outline, on the horizontal: still the art (the bleed follows the circle)
    x = round((3 + 20 + 2) / 25.4 * 200)
    assert image.getpixel((x, h // 2)) == pytest.approx((0xE3, 0xA6, 0x00), abs=3)


def test_a_sheet_group_named_like_another_component_is_one_located_error(tmp_path):
    root = write_demo(copy_project(tmp_path / "p", ("dogfight",)))
    coins = root / "content/demo/components/coins.yaml"
    coins.write_text(coins.read_text().replace("sheet: table", "sheet: cards"))
    result = run_pnp(root, "check", "demo")
    out = result.stderr + result.stdout
    assert result.returncode == 2
    assert "coins.yaml:6" in out and "sheet" in out and "cards" in out

"""The built Dogfight kit, checked on the real PDFs: sizes, positions, backs, fonts, pixels."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml
from conftest import MM, ROOT
from pdfutil import crop_mm, font_is_embedded, fonts, ink, page_size_mm, reader, render

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
SAFE = 5.0  # mm: nothing may print closer to the sheet edge


def sheets_of(manifest, path):
    return [s for s in manifest["sheets"] if s["file"] == path]


def test_manifest_lists_every_file_with_the_contract_keys(built):
    m = built.manifest("dogfight")
    assert m["game"] == "dogfight"
    kinds = Counter(f["kind"] for f in m["files"])
    assert kinds["components"] == 2 * 6 * 2  # 2 decks x 6 languages (es en ko fr de pl) x 2 papers
    formats = Counter(f.get("format") for f in m["files"] if f["kind"] == "export")
    # a PDF per deck, an order sheet and the folder's zip, per language
    assert formats["print-shop"] == 2 * 6 + 6 + 6
    for f in m["files"]:
        assert set(f) >= {"path", "kind", "lang"}
        pdf = built.path(f["path"])
        assert pdf.is_file(), f["path"]
        if f["path"].endswith(".pdf"):
            assert len(reader(pdf).pages) == f["pages"]
        if f["kind"] == "bilingual-rulebook":
            assert f["path"] == f"output/dogfight/rulebook.{f['lang']}.pdf" or f["paper"] != "a4"
        else:
            assert f["path"].startswith(f"output/dogfight/{f['lang']}/")
    assert kinds["rulebook"] == 6 * 2 and kinds["bilingual-rulebook"] == 2 * 2  # es-en, es-fr
    for s in m["sheets"]:
        assert set(s) >= {"file", "page", "side", "slots"}
        for slot in s["slots"]:
            assert set(slot) >= {"component", "item", "copy", "x", "y", "w", "h", "bleed"}


def test_front_counts_match_the_deck_manifest(built):
    m = built.manifest("dogfight")
    deck = yaml.safe_load((ROOT / "content/dogfight/manifest.yaml").read_text())["components"]
    for f in m["files"]:
        if f["kind"] != "components":
            continue
        fronts = [
            slot for s in sheets_of(m, f["path"]) if s["side"] == "front" for slot in s["slots"]
        ]
        assert len(fronts) == deck[f["component"]]["count"]
        by_suit = Counter(slot["item"].split("-")[0] for slot in fronts)
        assert by_suit == Counter(deck[f["component"]]["breakdown"]["suit"])


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_page_sizes_and_trim_rectangles(built, paper):
    m = built.manifest("dogfight")
    W, H = PAPERS[paper]
    for f in (f for f in m["files"] if f.get("paper") == paper and f["kind"] == "components"):
        pdf = built.path(f["path"])
        for s in sheets_of(m, f["path"]):
            w, h = page_size_mm(pdf, s["page"])
            assert w == pytest.approx(W, abs=0.05) and h == pytest.approx(H, abs=0.05)
            page = reader(pdf).pages[s["page"] - 1]
            trim = [float(v) / MM for v in page.trimbox]
            slots = s["slots"]
            # The page's TrimBox is exactly the union of its slots' trim rectangles, also on a
            # part-filled last sheet (it never spans empty cells).
            if s["slots"]:
                assert min(sl["x"] for sl in slots) == pytest.approx(trim[0], abs=0.01)
                assert min(sl["y"] for sl in slots) == pytest.approx(trim[1], abs=0.01)
                assert max(sl["x"] + sl["w"] for sl in slots) == pytest.approx(trim[2], abs=0.01)
                assert max(sl["y"] + sl["h"] for sl in slots) == pytest.approx(trim[3], abs=0.01)
            for sl in slots:
                # poker cards: 63 x 88, maybe turned a quarter
                assert sorted((sl["w"], sl["h"])) == pytest.approx([63.0, 88.0], abs=0.01)
                assert sl["x"] - sl["bleed"] >= SAFE - 1e-6 and sl["y"] - sl["bleed"] >= SAFE - 1e-6
                assert sl["x"] + sl["w"] + sl["bleed"] <= W - SAFE + 1e-6
                assert sl["y"] + sl["h"] + sl["bleed"] <= H - SAFE + 1e-6


def test_a4_poker_is_three_by_three_and_letter_fits_eight(built):
    m = built.manifest("dogfight")
    grids = {f["paper"]: f["grid"] for f in m["files"] if f["kind"] == "components"}
    assert grids["a4"]["cols"] * grids["a4"]["rows"] == 9 and not grids["a4"]["rotated"]
    assert grids["letter"]["cols"] * grids["letter"]["rows"] == 8


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_each_back_lands_behind_its_front_long_edge(built, paper):
    m = built.manifest("dogfight")
    W, _ = PAPERS[paper]
    checked = 0
    for f in (f for f in m["files"] if f.get("paper") == paper and f["kind"] == "components"):
        sheets = {(s["page"]): s for s in sheets_of(m, f["path"])}
        for page, s in sheets.items():
            if s["side"] != "front":
                continue
            back = sheets[page + 1]
            assert back["side"] == "back"
            backs = {(b["item"], b["copy"]): b for b in back["slots"]}
            for front in s["slots"]:
                b = backs[(front["item"], front["copy"])]
                assert b["x"] == pytest.approx(W - front["x"] - front["w"], abs=0.1)
                assert b["y"] == pytest.approx(front["y"], abs=0.1)
                assert (b["w"], b["h"]) == pytest.approx((front["w"], front["h"]), abs=0.1)
                checked += 1
    assert checked == 6 * 75  # every card of both decks, in 6 languages


def test_backs_are_drawn_where_the_manifest_says(built):
    """Pixels: inside every back slot, near its corner, is the back's dark colour."""
    m = built.manifest("dogfight")
    path = "output/dogfight/es/allied-planes-a4.pdf"
    pdf = built.path(path)
    back = next(s for s in sheets_of(m, path) if s["side"] == "back")
    img = render(pdf, back["page"], dpi=100)
    for slot in back["slots"]:
        corner = crop_mm(img, 297, 100, slot["x"] + 1, slot["y"] + 1, 2, 2)
        r, g, b = [sum(c) / len(c) for c in zip(*corner.get_flattened_data(), strict=True)]
        assert (r, g, b) == pytest.approx((0x1F, 0x2F, 0x4A), abs=12), slot


def test_nothing_prints_within_5mm_of_the_sheet_edge(built):
    for path in (
        "output/dogfight/es/allied-planes-a4.pdf",
        "output/dogfight/ko/rewards-letter.pdf",
    ):
        pdf = built.path(path)
        for page in (1, 2):
            img = render(pdf, page, dpi=100)
            w_mm, h_mm = page_size_mm(pdf, page)
            strips = [
                crop_mm(img, h_mm, 100, 0, 0, w_mm, SAFE - 0.2),
                crop_mm(img, h_mm, 100, 0, h_mm - SAFE + 0.2, w_mm, SAFE - 0.2),
                crop_mm(img, h_mm, 100, 0, 0, SAFE - 0.2, h_mm),
                crop_mm(img, h_mm, 100, w_mm - SAFE + 0.2, 0, SAFE - 0.2, h_mm),
            ]
            for strip in strips:
                assert min(strip.convert("L").get_flattened_data()) >= 250, (path, page)


def _mark_columns(img, dpi, y0_mm, y1_mm, page_h_mm):
    """x positions (mm) of vertical hairlines crossing a horizontal strip."""
    strip = crop_mm(img, page_h_mm, dpi, 0, y0_mm, img.width / dpi * 25.4, y1_mm - y0_mm).convert(
        "L"
    )
    width, height = strip.size
    data = strip.load()
    dark = [sum(255 - data[x, y] for y in range(height)) / height for x in range(width)]
    found, x = [], 0
    while x < width:
        if dark[x] > 40:
            start = x
            while x < width and dark[x] > 10:
                x += 1
            weights = dark[start:x]
            centre = sum((start + i + 0.5) * wgt for i, wgt in enumerate(weights)) / sum(weights)
            found.append(centre / dpi * 25.4)
        x += 1
    return found


def test_crop_marks_line_up_with_the_trim_edges_in_the_manifest(built):
    m = built.manifest("dogfight")
    path = "output/dogfight/en/rewards-a4.pdf"
    front = next(s for s in sheets_of(m, path) if s["side"] == "front")
    dpi = 400
    img = render(built.path(path), front["page"], dpi=dpi)
    lowest = min(sl["y"] for sl in front["slots"]) - front["slots"][0]["bleed"]
    found = _mark_columns(img, dpi, SAFE + 0.2, lowest - 0.8, 297)
    # the registration targets of the duplex test sit in this strip too (the manifest lists
    # them): their upright arms are not crop marks
    targets = [x for x, _ in front.get("targets", [])]
    assert len(targets) == 2  # a duplex sheet
    found = [x for x in found if all(abs(x - t) > 2.5 for t in targets)]
    expected = sorted({round(v, 3) for sl in front["slots"] for v in (sl["x"], sl["x"] + sl["w"])})
    assert len(found) == len(expected)
    for got, want in zip(found, expected, strict=True):
        assert got == pytest.approx(want, abs=0.1)


def test_every_font_is_embedded(built):
    m = built.manifest("dogfight")
    for f in m["files"]:
        if not f["path"].endswith(".pdf"):
            continue
        found = fonts(built.path(f["path"]))
        assert found, f["path"]
        for font in found:
            assert font_is_embedded(font), (f["path"], font.get("/BaseFont"))
            assert "Helvetica" not in str(font.get("/BaseFont"))


def _box(layout: str, box_id: str) -> dict:
    data = yaml.safe_load((ROOT / "templates/layouts" / f"{layout}.yaml").read_text())
    return next(b for b in data["boxes"] if b.get("id") == box_id)


def test_korean_title_box_has_ink(built):
    """The Korean deck name is drawn with real glyphs, not left blank."""
    m = built.manifest("dogfight")
    path = "output/dogfight/ko/rewards-a4.pdf"
    front = next(s for s in sheets_of(m, path) if s["side"] == "front")
    box = _box("dogfight/reward", "deck")
    img = render(built.path(path), front["page"], dpi=200)
    for slot in front["slots"][:3]:
        assert "rotation" not in slot
        region = crop_mm(
            img,
            297,
            200,
            slot["x"] + box["x"],
            slot["y"] + slot["h"] - box["y"] - box["h"],
            box["w"],
            box["h"],
        )
        assert ink(region, 110) > 0.02, slot
        # and the area right of the box (outside the card's text) is blank stock
    text = reader(built.path(path)).pages[front["page"] - 1].extract_text()
    assert "보상" in text and "격추된 독일군 비행기" in text


def test_common_back_is_one_form_xobject_reused(built):
    pdf = reader(built.path("output/dogfight/es/allied-planes-a4.pdf"))
    ids = set()
    for page in pdf.pages[1::2]:  # back pages
        xobjects = page["/Resources"]["/XObject"]
        names = [n for n in xobjects if "back-allied-planes" in n]
        assert len(names) == 1
        ids.add(xobjects.raw_get(names[0]).idnum)
    assert len(ids) == 1 and len(pdf.pages) == 12


def test_print_shop_export_has_trim_and_bleed_boxes(built):
    m = built.manifest("dogfight")
    f = next(
        f
        for f in m["files"]
        if f.get("format") == "print-shop" and f.get("component") == "rewards" and f["lang"] == "es"
    )
    pdf = reader(built.path(f["path"]))
    assert len(pdf.pages) == 25 * 2
    for page in pdf.pages:
        trim = [float(v) / MM for v in page.trimbox]
        bleed = [float(v) / MM for v in page.bleedbox]
        assert trim == pytest.approx([3, 3, 66, 91], abs=0.01)
        assert bleed == pytest.approx([0, 0, 69, 94], abs=0.01)

"""The kit at the table (issue 27): the duplex test a player can do, a guide that says only what
the build manifest says, a calibration sheet a newcomer reads, one file per paper.

Read back from real outputs: the build manifest, pixels of rasterised pages, extracted text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import copy_templates, run_pnp
from pdfutil import crop_mm, ink, page_size_mm, render

MINI = {
    "content/mini/game.yaml": (
        "id: mini\ntitle: Mini\nlanguages: [en, es]\n"
        "print: {papers: [a4], exports: [sheets], duplex: DUPLEX}\n"
    ),
    "content/mini/components/cards.yaml": (
        "id: cards\nname: {en: Cards, es: Cartas}\nsize: poker\nlayout: mini/card\n"
        "back: mini/back\nitems:\n  - {id: a, count: 5, data: {word: alpha}}\n"
    ),
    "content/mini/components/discs.yaml": (
        "id: discs\nname: {en: Disc, es: Disco}\nkind: token\nsize: {w: 20mm, h: 20mm}\n"
        "shape: circle\nlayout: mini/card\nback: mini/back\n"
        "items:\n  - {id: d, count: 6, data: {word: d, name: {en: Red disc, es: Disco rojo}}}\n"
    ),
    "templates/layouts/mini/back.yaml": (
        'background: "#203040"\nboxes:\n'
        "  - {id: w, kind: text, text: MINI, x: 2, y: 5, w: 16, h: 8, size: 8pt}\n"
    ),
    "templates/layouts/mini/card.yaml": (
        'background: "#ffffff"\nboxes:\n'
        '  - {id: w, kind: text, text: "{{ word }}", x: 2, y: 5, w: 16, h: 8, size: 8pt}\n'
    ),
}


def _mini(make_project, duplex: str = "long-edge") -> Path:
    files = dict(MINI)
    files["content/mini/game.yaml"] = files["content/mini/game.yaml"].replace("DUPLEX", duplex)
    return make_project(files)


def _centroid(image, page_h: float, dpi: float, x: float, y: float, half: float):
    """The centre of the dark pixels in a square of `2 * half` mm around (x, y), in mm."""
    crop = crop_mm(image, page_h, dpi, x - half, y - half, 2 * half, 2 * half).convert("L")
    s = dpi / 25.4
    left, top = round((x - half) * s), round((page_h - y - half) * s)
    sx = sy = n = 0.0
    for j in range(crop.height):
        for i in range(crop.width):
            if crop.getpixel((i, j)) < 128:
                sx, sy, n = sx + i + 0.5, sy + j + 0.5, n + 1
    assert n > 20, f"no target near ({x:.1f}, {y:.1f}) mm"
    return (left + sx / n) / s, page_h - (top + sy / n) / s


@pytest.mark.parametrize("duplex", ["long-edge", "short-edge"])
def test_back_pages_carry_the_fronts_targets_and_crop_marks_mirrored(make_project, duplex):
    """The duplex test of the guide can be done: every duplex front page has two registration
    targets in its margin and its back has them where the flip brings them (within 0.1 mm,
    from the manifest and measured on pixels); the back repeats the front's crop marks."""
    root = _mini(make_project, duplex)
    run_pnp(root, "print", "--export", "sheets", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    pages = {(s["file"], s["page"]): s for s in manifest["sheets"]}
    dpi = 300
    checked_files = set()
    for (path, page), front in sorted(pages.items()):
        if front["side"] != "front" or "/en/" not in path:
            continue
        back = pages[(path, page + 1)]
        assert back["side"] == "back"
        W, H = page_size_mm(root / path, page)
        assert len(front.get("targets", [])) == 2, (path, page)
        for (fx, fy), (bx, by) in zip(front["targets"], back["targets"], strict=True):
            mx, my = (W - fx, fy) if duplex == "long-edge" else (fx, H - fy)
            assert abs(bx - mx) <= 0.1 and abs(by - my) <= 0.1, (path, page, (bx, by), (mx, my))
        front_img, back_img = render(root / path, page, dpi), render(root / path, page + 1, dpi)
        for (fx, fy), (bx, by) in zip(front["targets"], back["targets"], strict=True):
            cx, cy = _centroid(front_img, H, dpi, fx, fy, 2.4)
            assert abs(cx - fx) <= 0.1 and abs(cy - fy) <= 0.1, ("front", cx, cy, fx, fy)
            mx, my = (W - cx, cy) if duplex == "long-edge" else (cx, H - cy)
            cx, cy = _centroid(back_img, H, dpi, bx, by, 2.4)
            assert abs(cx - mx) <= 0.1 and abs(cy - my) <= 0.1, ("back", cx, cy, mx, my)
        # Crop marks: the margin band at the side away from the labels, front mirrored = back
        mirror = front_img.transpose(0 if duplex == "long-edge" else 1)  # 0: left-right
        top = max(s["y"] + s["h"] + s["bleed"] for s in front["slots"])
        if duplex == "long-edge" and H - 5 - top > 2:  # a band above the pieces, if any
            a = crop_mm(mirror, H, dpi, 5, top + 0.3, W - 10, H - 5 - top - 0.3)
            b = crop_mm(back_img, H, dpi, 5, top + 0.3, W - 10, H - 5 - top - 0.3)
            if ink(a) > 0:
                assert abs(ink(a) - ink(b)) < 0.2 * ink(a), (path, page, ink(a), ink(b))
        checked_files.add(path)
    assert len(checked_files) == 2  # the grid of cards and the packed discs


def test_a_one_sided_sheet_has_no_targets(make_project):
    files = dict(MINI)
    files["content/mini/game.yaml"] = files["content/mini/game.yaml"].replace("DUPLEX", "long-edge")
    files["content/mini/components/cards.yaml"] = files[
        "content/mini/components/cards.yaml"
    ].replace("back: mini/back\n", "")
    root = make_project(files)
    run_pnp(root, "print", "--export", "sheets", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    cards = [s for s in manifest["sheets"] if s["file"].endswith("en/cards-a4.pdf")]
    assert cards and all(s["side"] == "front" and "targets" not in s for s in cards)
    pdf = pdfium.PdfDocument(str(root / cards[0]["file"]))
    assert len(pdf) == len(cards)


# ---------------------------------------------------------------- the guide vs the manifest


def _text(path: Path) -> str:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return " ".join(
            " ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))
        )
    finally:
        pdf.close()


def _ranges(numbers: list[int]) -> str:
    out, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[i]) if i == j else f"{numbers[i]}–{numbers[j]}")
        i = j + 1
    return ", ".join(out)


@pytest.mark.parametrize("game", ["red-code", "sub-zero"])
def test_every_guide_statement_about_files_sheets_and_counts_comes_from_the_manifest(kits_a4, game):
    """Each component file in the table names every component it holds; each assembly step
    says how many pieces, from which file and which sheets, as the manifest lists them; a
    tiled face is one piece in tiles, never "split over several sheets" otherwise; round pieces
    (a circle in the manifest) are cut along their line; items go by their names, not ids."""
    from generator.load.content import load_game
    from generator.load.project import Project

    root = kits_a4
    manifest = json.loads((root / f"output/{game}/build-manifest.json").read_text())
    content = load_game(Project(root), game)
    names = {
        lang: {
            c.id: c.model.name[lang] if isinstance(c.model.name, dict) else c.model.name
            for c in content.components
        }
        for lang in ("en", "es")
    }
    ids = {i.id for c in content.components for i in c.items if "-" in i.id}
    for lang in ("en", "es"):
        guide = next(f for f in manifest["files"] if f["kind"] == "guide" and f["lang"] == lang)
        text = _text(root / guide["path"])
        assert "split over several sheets" not in text
        from pdfutil import font_is_embedded, fonts

        unembedded = [f.get("/BaseFont") for f in fonts(root / guide["path"])]
        assert all(font_is_embedded(f) for f in fonts(root / guide["path"])), unembedded
        files = [
            f
            for f in manifest["files"]
            if f["kind"] == "components" and f["lang"] == lang and f["paper"] == "a4"
        ]
        for f in files:
            fronts = sorted(
                (s for s in manifest["sheets"] if s["file"] == f["path"] and s["side"] == "front"),
                key=lambda s: s["page"],
            )
            comps = list(dict.fromkeys(slot["component"] for s in fronts for slot in s["slots"]))
            held = ", ".join(names[lang][c] for c in f.get("components", comps))
            file_name = Path(f["path"]).name
            assert f"{file_name} ({held})" in text, (lang, file_name, held)
            for comp in comps:
                pieces = {
                    (slot["item"], slot["copy"])
                    for s in fronts
                    for slot in s["slots"]
                    if slot["component"] == comp
                }
                sheets = [
                    n
                    for n, s in enumerate(fronts, 1)
                    if any(slot["component"] == comp for slot in s["slots"])
                ]
                if lang == "en":
                    where = f"{file_name}, sheet {_ranges(sheets)}"
                    head = f"{names[lang][comp]}: {len(pieces)} from {where}"
                else:
                    head = (
                        f"{names[lang][comp]}: {len(pieces)} de {file_name}, hoja {_ranges(sheets)}"
                    )
                assert head in text, (lang, head)
                step = text[text.index(head) : text.index(head) + 400]
                shapes = {
                    slot.get("shape", {}).get("kind")
                    for s in fronts
                    for slot in s["slots"]
                    if slot["component"] == comp
                }
                if shapes == {"circle"}:
                    assert ("Round pieces" if lang == "en" else "Piezas redondas") in step
            if "tiles" in f:
                tiles = f["tiles"]["rows"] * f["tiles"]["cols"]
                if lang == "en":
                    assert f"1 in all, in {tiles} tiles" in text
                    assert f"One board printed in {tiles} tiles" in text
            elif lang == "en":
                total = len(
                    {
                        (slot["component"], slot["item"], slot["copy"])
                        for s in fronts
                        for slot in s["slots"]
                    }
                )
                assert f"{total} in all" in text
        if lang == "es":
            leaked = sorted(
                i
                for i in ids
                if i in text and i not in "".join(Path(f["path"]).name for f in files)
            )
            assert not leaked, leaked


def test_sheets_in_a_row_that_hold_the_same_are_one_line_of_the_guide(make_project):
    """A deck of unnamed cards fills sheet after sheet alike: the guide's inventory says so in
    one line per run of sheets ("Sheets 1–2, each"), in every language, not a page of identical
    lines; a sheet that differs keeps its own line, and the total still counts every card."""
    cards = "".join(f"  - {{id: c{i}, data: {{word: w{i}}}}}\n" for i in range(21))
    root = make_project(
        {
            "content/mini/game.yaml": (
                "id: mini\ntitle: Mini\nlanguages: [en, es, ko]\nprint: {papers: [a4]}\n"
            ),
            "content/mini/components/cards.yaml": (
                "id: cards\nname: {en: Cards, es: Cartas, ko: 카드}\nsize: poker\n"
                f"layout: mini/card\nitems:\n{cards}"
            ),
            "content/mini/layouts/mini/card.yaml": (
                'boxes:\n  - {id: w, kind: text, text: "{{ word }}", x: 5, y: 5, w: 50, h: 10, '
                "size: 12pt}\n"
            ),
        }
    )
    run_pnp(root, "print", "--export", "sheets", check=True)
    expected = {  # the runs' lines, and the single sheets' lines that must not be there
        "en": (["Sheets 1–2, each: Cards (9)", "Sheet 3: Cards (3)", "21 in all"], "Sheet {n}:"),
        "es": (["Hojas 1–2, cada una: Cartas (9)", "Hoja 3: Cartas (3)"], "Hoja {n}:"),
        "ko": (["1–2번째 장, 각각: 카드 (9)", "3번째 장: 카드 (3)"], " {n}번째 장:"),
    }
    for lang, (lines, single) in expected.items():
        text = _text(root / f"output/mini/{lang}/guide-a4.pdf")
        for line in lines:
            assert line in text, (lang, line, text[-300:])
        for n in (1, 2):
            assert single.format(n=n) not in text, (lang, text[-300:])


# ---------------------------------------------------------------- calibration


@pytest.mark.parametrize("duplex", ["long-edge", "short-edge"])
def test_calibration_reads_for_a_newcomer(make_project, duplex):
    """Every word and number on the calibration sheet is at least 7 pt (extracted text sizes);
    page 1 says FRONT and page 2 BACK; the scales read past +/-5 mm; the page states the same
    sign convention as the guide."""
    from pdfutil import text_sizes

    root = _mini(make_project, duplex)
    run_pnp(root, "calibrate", "--paper", "a4", "--duplex", duplex, check=True)
    data = json.loads((root / "output/calibration/calibration-a4.json").read_text())
    pdf = root / data["files"][0]["path"]
    for page in (1, 2):
        sizes = text_sizes(pdf, page)
        assert sizes and min(size for _, size in sizes) >= 7.0 - 1e-6, (page, sizes[:5])
    doc = pdfium.PdfDocument(str(pdf))
    page1, page2 = (" ".join(doc[i].get_textpage().get_text_range().split()) for i in (0, 1))
    doc.close()
    assert page1.startswith("FRONT") and "BACK" not in page1
    assert "BACK" in page2 and "FRONT" not in page2
    for scale in data["marks"]["scales"]:
        for axis in ("x", "y"):
            labels = [t["label"] for t in scale[axis]["ticks"]]
            assert min(labels) <= -5.5 and max(labels) >= 5.5
    convention = "a positive X moves the backs right and a positive Y moves them up"
    assert convention in " ".join(page1.split()).replace("A positive", "a positive")
    run_pnp(root, "print", "--export", "sheets", check=True)
    assert convention in _text(root / "output/mini/en/guide-a4.pdf")


@pytest.mark.parametrize("duplex", ["long-edge", "short-edge"])
def test_the_number_read_on_the_calibration_sheet_cancels_the_printers_error(make_project, duplex):
    """A printer that puts the back page 1.5 mm right and 2 mm down (as seen on the back page):
    the pointers, seen through the front, cross the scales at numbers; `--back-offset` with
    those numbers moves the backs' targets by exactly the opposite amount."""
    root = _mini(make_project, duplex)
    run_pnp(root, "calibrate", "--paper", "a4", "--duplex", duplex, check=True)
    marks = json.loads((root / "output/calibration/calibration-a4.json").read_text())["marks"]
    W, H = marks["paper_mm"]
    ex, ey = 1.5, -2.0  # the printer's error on the back page
    scale = marks["scales"][0]

    def seen(x: float, y: float) -> tuple[float, float]:  # back page -> front, through the paper
        x, y = x + ex, y + ey
        return (W - x, y) if duplex == "long-edge" else (x, H - y)

    px, _ = seen(*scale["pointers"]["x"]["at"])
    _, qy = seen(*scale["pointers"]["y"]["at"])
    read_x = min(scale["x"]["ticks"], key=lambda t: abs(t["at"] - px))["label"]
    read_y = min(scale["y"]["ticks"], key=lambda t: abs(t["at"] - qy))["label"]

    def back_targets(offset: str | None) -> list:
        args = ["print", "--export", "sheets", "--force"]
        run_pnp(root, *args, *(["--back-offset", offset] if offset else []), check=True)
        manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
        return [s["targets"] for s in manifest["sheets"] if s["side"] == "back" and "targets" in s]

    plain, fixed = back_targets(None), back_targets(f"{read_x},{read_y}")
    for a, b in zip(plain, fixed, strict=True):
        for (x0, y0), (x1, y1) in zip(a, b, strict=True):
            assert abs((x1 - x0) + ex) < 0.01 and abs((y1 - y0) + ey) < 0.01, (read_x, read_y)


# ---------------------------------------------------------------- one file per paper


def test_one_file_per_paper_and_the_summary_counts_files_written(tmp_path):
    """`--paper letter` writes the rulebook as rulebook-letter.pdf, never over the A4
    rulebook.pdf; the summary counts every file written (guides included), not jobs."""

    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    run_pnp(root, "new", "g", "--langs", "en", check=True)
    first = run_pnp(root, "print", "g", "--paper", "a4", check=True).stdout
    a4 = root / "output/g/en/rulebook.pdf"
    before = a4.read_bytes()
    letter = run_pnp(root, "print", "g", "--paper", "letter", check=True).stdout
    assert a4.read_bytes() == before
    assert page_size_mm(a4, 1) == pytest.approx((210, 297), abs=0.5)
    assert page_size_mm(root / "output/g/en/rulebook-letter.pdf", 1) == pytest.approx(
        (215.9, 279.4), abs=0.5
    )
    manifest = json.loads((root / "output/g/build-manifest.json").read_text())
    paperless = {f["path"] for f in manifest["files"] if not f.get("paper")}  # e.g. order.csv
    for out, paper in ((first, "a4"), (letter, "letter")):
        mine = [f for f in manifest["files"] if f.get("paper") == paper]
        files = {f["path"] for f in mine}
        assert any(f["kind"] == "guide" for f in mine)
        built = len(files) + (len(paperless) if paper == "a4" else 0)
        total = len(files) + len(paperless)
        assert f"{built} of {total} files built" in out, (out, sorted(files), paperless)


# ---------------------------------------------------------------- portable exports


def test_order_sheet_paths_resolve_inside_the_shop_zip(make_project):
    """The shop receives print-shop.zip: it unpacks to print-shop/, whose order.csv names every
    PDF beside it (no path into the project); the zip is in the manifest and holds exactly the
    files written, byte for byte; a second build leaves it as it is."""
    import csv
    import io
    import zipfile

    files = dict(MINI)
    files["content/mini/game.yaml"] = (
        MINI["content/mini/game.yaml"]
        .replace("DUPLEX", "long-edge")
        .replace("[sheets]", "[sheets, print-shop]")
    )
    root = make_project(files)
    run_pnp(root, "print", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    for lang in ("en", "es"):
        (archive,) = [
            f for f in manifest["files"] if f.get("role") == "archive" and f["lang"] == lang
        ]
        assert archive["path"] == f"output/mini/{lang}/print-shop.zip"
        shop = {
            f["path"]
            for f in manifest["files"]
            if f.get("format") == "print-shop" and f.get("role") != "archive" and f["lang"] == lang
        }
        with zipfile.ZipFile(root / archive["path"]) as z:
            names = set(z.namelist())
            assert names == {"print-shop/" + Path(p).name for p in shop}
            for p in shop:
                assert z.read("print-shop/" + Path(p).name) == (root / p).read_bytes()
            rows = list(csv.DictReader(io.StringIO(z.read("print-shop/order.csv").decode())))
        assert rows
        for r in rows:
            assert "/" not in r["file"] and "output" not in r["file"]
            assert f"print-shop/{r['file']}" in names
    before = (root / "output/mini/en/print-shop.zip").stat().st_mtime_ns
    again = run_pnp(root, "print", check=True).stdout
    assert (root / "output/mini/en/print-shop.zip").stat().st_mtime_ns == before
    assert " 0 of " in again


def test_local_tts_links_are_announced_and_base_url_links_are_not(make_project):
    files = dict(MINI)
    game = MINI["content/mini/game.yaml"].replace("DUPLEX", "long-edge")
    files["content/mini/game.yaml"] = game.replace("[sheets]", "[sheets, tts]")
    root = make_project(files)
    result = run_pnp(root, "print", check=True)
    assert "warning:" in result.stderr and "file://" in result.stderr
    assert "base_url" in result.stderr
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    tts = [f for f in manifest["files"] if f.get("format") == "tts"]
    assert tts and all(f["links"] == "file" for f in tts)
    hosted = game.replace("[sheets]", "[sheets, {format: tts, base_url: 'https://example.org/k'}]")
    (root / "content/mini/game.yaml").write_text(hosted)
    result = run_pnp(root, "print", check=True)
    assert "file://" not in result.stderr, result.stderr
    data = json.loads((root / "output/mini/en/tts/cards.json").read_text())
    urls = re.findall(r'"(?:FaceURL|BackURL|ImageURL)": "([^"]+)"', json.dumps(data))
    assert urls and all(u.startswith("https://example.org/k/en/tts/") for u in urls), urls


def test_no_blank_back_page_after_the_last_sheet(make_project):
    """A shared sheet whose pieces have no backs, last in its file, gets no back page (it
    would carry nothing but its label); the file's page count says so."""
    files = dict(MINI)
    files["content/mini/game.yaml"] = MINI["content/mini/game.yaml"].replace("DUPLEX", "long-edge")
    files["content/mini/components/discs.yaml"] = (
        MINI["content/mini/components/discs.yaml"]
        .replace("back: mini/back\n", "sheet: shared\n")
        .replace("count: 6", "count: 150")
    )
    files["content/mini/components/cards.yaml"] = (
        MINI["content/mini/components/cards.yaml"]
        .replace("layout: mini/card\n", "layout: mini/card\nsheet: shared\n")
        .replace("count: 5", "count: 12")
    )
    root = make_project(files)
    run_pnp(root, "print", "--export", "sheets", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    (entry,) = [f for f in manifest["files"] if f["path"].endswith("en/shared-a4.pdf")]
    pages = sorted(
        (s for s in manifest["sheets"] if s["file"] == entry["path"]), key=lambda s: s["page"]
    )
    assert len(pdfium.PdfDocument(str(root / entry["path"]))) == entry["pages"] == len(pages)
    for page in pages:
        if page["side"] == "back":
            assert page["slots"], page["page"]  # every back page holds backs
    last = pages[-1]
    assert last["side"] == "front" and all(s["component"] == "discs" for s in last["slots"])


# ---------------------------------------------------------------- rulebook running heads


def test_running_heads_name_the_section_at_the_top_of_the_page(tmp_path):
    """A page that opens in section 2 and starts section 3 halfway down is headed with
    section 2 (the section on the page where the reader starts it), not 3."""

    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    run_pnp(root, "new", "g", "--langs", "en", check=True)
    filler = " ".join(["Every player draws a card and moves a coin."] * 40)
    sections = [
        f"## {n} Section {name}\n\n" + "\n\n".join([filler] * (n + 2))
        for n, name in ((1, "Alpha"), (2, "Bravo"), (3, "Charlie"), (4, "Delta"))
    ]
    (root / "content/g/rules/en.md").write_text("# G\n\n" + "\n\n".join(sections) + "\n")
    run_pnp(root, "print", "g", "--paper", "a4", "--export", "sheets", check=True)
    pdf = pdfium.PdfDocument(str(root / "output/g/en/rulebook.pdf"))
    current, checked = None, 0
    for i in range(len(pdf)):
        text = pdf[i].get_textpage().get_text_range()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        heads = [line for line in lines if re.fullmatch(r"\d Section \w+", line)]
        running = next((line for line in lines if re.fullmatch(r".+ · .+", line)), None)
        body = [line for line in lines if line != running and not line.isdigit()]
        if running and current:
            expected = heads[0] if heads and body[0] == heads[0] else current
            assert running.endswith(expected), (i + 1, running, expected)
            checked += 1
        if heads:
            current = heads[-1]
    pdf.close()
    assert checked >= 4


# ---------------------------------------------------------------- bleed around shaped pieces


def test_round_pieces_on_home_sheets_keep_1_5_mm_of_their_own_colour_past_the_cut(make_project):
    """Red and blue discs packed side by side: 1.4 mm outside each disc's cut, all round, the
    pixels are still the disc's own colour (a cut that misses by that much shows no
    neighbour), measured on the sheet rasterised at 600 dpi."""
    files = dict(MINI)
    files["content/mini/game.yaml"] = MINI["content/mini/game.yaml"].replace("DUPLEX", "long-edge")
    files["content/mini/components/discs.yaml"] = (
        "id: discs\nname: {en: Disc, es: Disco}\nkind: token\nsize: {w: 20mm, h: 20mm}\n"
        "shape: circle\nlayout: mini/disc\nitems:\n"
        "  - {id: r, count: 20, data: {hex: '#d01010', name: {en: Red, es: Rojo}}}\n"
        "  - {id: b, count: 20, data: {hex: '#1030d0', name: {en: Blue, es: Azul}}}\n"
    )
    files["templates/layouts/mini/disc.yaml"] = (
        'background: "#ffffff"\nboxes:\n'
        '  - {id: bg, kind: rect, x: 0, y: 0, w: 100%, h: 100%, bleed: true, fill: "{{ hex }}"}\n'
    )
    root = make_project(files)
    run_pnp(root, "print", "--export", "sheets", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    path = "output/mini/en/discs-a4.pdf"
    page = next(s for s in manifest["sheets"] if s["file"] == path and s["page"] == 1)
    _, H = page_size_mm(root / path, 1)
    dpi = 600  # 0.04 mm pixels: 1.4 mm is clear of the seam where two bleeds meet at 1.5 mm
    image = render(root / path, 1, dpi)
    s = dpi / 25.4
    want = {"r": (0xD0, 0x10, 0x10), "b": (0x10, 0x30, 0xD0)}
    import math

    checked = 0
    for slot in page["slots"]:
        shape = slot["shape"]
        cx, cy, r = shape["cx"], shape["cy"], shape["r"]
        for k in range(36):
            a = 2 * math.pi * k / 36
            x, y = cx + (r + 1.4) * math.cos(a), cy + (r + 1.4) * math.sin(a)
            pixel = image.getpixel((round(x * s), round((H - y) * s)))
            assert sum(abs(p - q) for p, q in zip(pixel, want[slot["item"]], strict=True)) < 90, (
                slot["item"],
                slot["copy"],
                k,
                pixel,
            )
            checked += 1
    assert checked >= 36 * 20


def test_the_kits_keep_their_sheet_counts_and_red_codes_tokens_get_1_5_mm(kits_a4):
    """Widening the gap between round pieces never costs a sheet: Red Code still prints on 10 A4
    sheets and Sub Zero on 15; Red Code's round tokens now sit 3 mm apart (1.5 mm of bleed
    each)."""
    import math

    root = kits_a4
    for game, sheets in (("red-code", 10), ("sub-zero", 15)):
        manifest = json.loads((root / f"output/{game}/build-manifest.json").read_text())
        fronts = [
            s
            for s in manifest["sheets"]
            if s["side"] == "front"
            and any(
                f["path"] == s["file"] and f["kind"] == "components" and f["paper"] == "a4"
                for f in manifest["files"]
            )
            and "/en/" in s["file"]
        ]
        assert len(fronts) == sheets, game
        if game == "red-code":
            for s in fronts:
                discs = [
                    x["shape"] for x in s["slots"] if x.get("shape", {}).get("kind") == "circle"
                ]
                for i, a in enumerate(discs):
                    for b in discs[i + 1 :]:
                        gap = math.dist((a["cx"], a["cy"]), (b["cx"], b["cy"])) - a["r"] - b["r"]
                        assert gap >= 3.0 - 0.01, gap

"""The kits at the table: the print-and-assembly guide, `pnp calibrate`, editor's notes, pictures
drawn from the kit's data, Korean words in every edition, the cover line, Red Code's pieces.

Everything is read back from real outputs: the build manifest, text extracted from the PDFs,
pixels of rasterised pages.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import copy_project, kit_rulebook, run_pnp
from pdfutil import crop_mm, ink, render

from generator.errors import ContentError
from generator.impose import grid as impose
from generator.load.content import load_game
from generator.load.project import Project
from generator.rulebook import book as rulebook
from generator.units import MM as PT_PER_MM

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def pdf_text(path: Path) -> str:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()


# ---------------------------------------------------------------- the guide


def test_the_guide_lists_every_component_pdf_of_its_language_and_paper(built):
    for game in ("red-code", "sub-zero", "the-hunt-begins", "dogfight"):
        manifest = built.manifest(game)
        guides = [f for f in manifest["files"] if f["kind"] == "guide"]
        combos = {(f["lang"], f["paper"]) for f in manifest["files"] if f["kind"] == "components"}
        assert {(g["lang"], g["paper"]) for g in guides} == combos, game
        for g in guides:
            text = " ".join(pdf_text(built.path(g["path"])).split())
            mine = [
                f
                for f in manifest["files"]
                if f["kind"] == "components" and (f["lang"], f["paper"]) == (g["lang"], g["paper"])
            ]
            assert mine
            for f in mine:
                name = Path(f["path"]).name
                assert name in text, f"{g['path']} does not list {name}"
                assert f["path"] in g["lists"]
            for r in manifest["files"]:
                if r["kind"] == "rulebook" and (r["lang"], r["paper"]) == (g["lang"], g["paper"]):
                    assert Path(r["path"]).name in text


def test_the_guide_counts_every_copy_and_has_a_true_50_mm_bar(built):
    manifest = built.manifest("red-code")
    guide = next(
        f
        for f in manifest["files"]
        if f["kind"] == "guide" and f["lang"] == "en" and f["paper"] == "a4"
    )
    text = " ".join(pdf_text(built.path(guide["path"])).split())
    for f in manifest["files"]:
        if f["kind"] != "components" or f["lang"] != "en" or f["paper"] != "a4":
            continue
        copies = sum(
            len(s["slots"])
            for s in manifest["sheets"]
            if s["file"] == f["path"] and s["side"] == "front"
        )
        assert f"{copies} in all" in text, (f["path"], copies)
    assert ("100 %" in text and "duplex" in text.lower()) or "Duplex" in text
    # the scale bar: a solid band 50 mm long and 2.5 mm tall (thin table rules are not bands),
    # measured on the rasterised first page
    dpi = 300
    image = render(built.path(guide["path"]), 1, dpi).convert("L")
    runs = []  # per pixel row: the longest run of dark pixels
    for y in range(image.height // 2):
        best = length = 0
        for x in range(image.width):
            length = length + 1 if image.getpixel((x, y)) < 60 else 0
            best = max(best, length)
        runs.append(best)
    band = [r for r in runs if r > 300]
    tall = [r for r in set(band) if sum(1 for b in band if abs(b - r) <= 2) >= 20]
    assert tall, "no solid scale bar found"
    length_mm = max(tall) / dpi * 25.4
    assert abs(length_mm - 50.0) < 0.3, length_mm


MINI = {
    "content/mini/game.yaml": (
        "id: mini\ntitle: Mini\nlanguages: [en, es]\n"
        "print: {papers: [a4], exports: [sheets, print-shop, gutterfold]}\n"
    ),
    "content/mini/components/cards.yaml": (
        "id: cards\nname: {en: Cards, es: Cartas}\nsize: poker\nlayout: mini/card\n"
        "back: mini/back\nitems:\n  - {id: a, data: {word: alpha}}\n"
    ),
    "templates/layouts/mini/back.yaml": (
        'background: "#203040"\nboxes:\n'
        "  - {id: w, kind: text, text: MINI, x: 5, y: 20, w: 53, h: 12, size: 12pt}\n"
    ),
    "content/mini/manifest.yaml": "components: {cards: 1}\n",
    "templates/layouts/mini/card.yaml": (
        'background: "#ffffff"\nboxes:\n'
        '  - {id: w, kind: text, text: "{{ word }}", x: 5, y: 20, w: 53, h: 12, size: 12pt}\n'
    ),
}


def _guide_text(root: Path, lang: str) -> str:
    return " ".join(pdf_text(root / f"output/mini/{lang}/guide-a4.pdf").split())


def test_the_guide_names_the_other_versions_and_what_to_do_without_duplex(make_project):
    """A player with the kit and no pnp: the guide says which other versions the kit holds
    (each folder the manifest lists for the language) and offers the gutterfold files when the
    backs do not line up; pnp's own calibration comes after, for whoever builds the kit."""
    root = make_project(MINI)
    run_pnp(root, "print", check=True)
    en = _guide_text(root, "en")
    assert "Other versions" in en
    assert "print-shop/ (for a print shop" in en and "order.csv" in en
    assert "gutterfold/ (for a printer without duplex" in en
    assert "print gutterfold/ instead" in en
    assert en.index("against a light") < en.index("pnp calibrate")
    assert "png/" not in en and "ink-saver/" not in en  # not exported: not offered
    es = _guide_text(root, "es")
    assert "Otras versiones" in es and "imprime gutterfold/ en su lugar" in es
    # a kit of sheets alone offers no other version and no gutterfold
    game = root / "content/mini/game.yaml"
    game.write_text(game.read_text().replace("[sheets, print-shop, gutterfold]", "[sheets]"))
    run_pnp(root, "print", check=True)
    en = _guide_text(root, "en")
    assert "Other versions" not in en and "gutterfold" not in en
    assert "against a light" in en


def test_a_projects_own_guide_words_written_before_new_words_still_build(make_project):
    """templates/guide/texts.yaml of a project made before the guide grew words: its words
    are used, and the words it lacks come from pnp's own file."""
    files = dict(MINI)
    files["templates/guide/texts.yaml"] = (
        "fallback: en\nen:\n  title: '{game}: HOW TO PRINT'\n  files_title: Print these\n"
    )
    root = make_project(files)
    run_pnp(root, "print", check=True)
    en = _guide_text(root, "en")
    assert "Mini: HOW TO PRINT" in en and "Print these" in en
    assert "Other versions" in en and "against a light" in en


def test_a_guide_word_with_a_field_the_guide_does_not_fill_is_found_by_check(make_project):
    """A project's guide word naming a field pnp's word does not fill ("{m}" for "{n}"), or a
    lone brace, used to pass `pnp check` and stop `pnp print` at its very end with an internal
    error. Check names the file, line and word; print stops before writing anything; the same
    word with the fields the guide fills builds."""
    files = dict(MINI)
    files["templates/guide/texts.yaml"] = "fallback: en\nen:\n  sheet: 'Page {m}'\n"
    root = make_project(files)
    found = json.loads(run_pnp(root, "check", "--format", "json").stdout)
    errors = [f for f in found if f["severity"] == "error"]
    assert len(errors) == 1, errors
    assert errors[0]["file"] == "templates/guide/texts.yaml" and errors[0]["line"] == 3
    assert "en.sheet" in errors[0]["message"] and "{m}" in errors[0]["message"]
    result = run_pnp(root, "print")
    assert result.returncode != 0 and "internal error" not in result.stdout + result.stderr
    assert not list((root / "output").rglob("*.pdf"))
    (root / "templates/guide/texts.yaml").write_text(
        "fallback: en\nen:\n  steps: {cut: 'Cut {x'}\n"
    )
    found = json.loads(run_pnp(root, "check", "--format", "json").stdout)
    assert next(f["message"] for f in found if f["severity"] == "error").startswith("en.steps.cut")
    (root / "templates/guide/texts.yaml").write_text("fallback: en\nen:\n  sheet: 'Page {n}'\n")
    run_pnp(root, "print", check=True)
    assert "Page 1:" in _guide_text(root, "en")


@pytest.mark.parametrize(
    "words, line, key",
    [
        ("fallback: en\nen:\n  sheet: 'Sheet {n:abc}'\n", 3, "en.sheet"),  # a format spec
        ("fallback: en\nen:\n  sheet: 5\n", 3, "en.sheet"),  # a number, not a word
        ("fallback: en\nen:\n  steps: 'Cut them'\n", 3, "en.steps"),  # a word for a block
        ("fallback: en\nen: hello\n", 2, "en"),  # a language that is not a block of words
        ("- fallback: en\n", 1, ""),  # a list, not blocks of words
    ],
)
def test_a_guide_word_print_could_not_use_is_found_by_check(make_project, words, line, key):
    """Every guide word check passes, print can use: a format spec the guide's numbers may not
    take, a number or a single word where pnp has text or a block, a language that is not a
    block of words. Each is a located check error, and print stops before writing anything."""
    files = dict(MINI)
    files["templates/guide/texts.yaml"] = words
    root = make_project(files)
    found = json.loads(run_pnp(root, "check", "--format", "json").stdout)
    errors = [f for f in found if f["severity"] == "error"]
    assert len(errors) == 1, errors
    assert errors[0]["file"] == "templates/guide/texts.yaml" and errors[0]["line"] == line
    assert errors[0]["message"].startswith(key or "the guide texts"), errors[0]["message"]
    result = run_pnp(root, "print")
    assert result.returncode != 0 and "internal error" not in result.stdout + result.stderr
    assert not list((root / "output").rglob("*.pdf"))


# ---------------------------------------------------------------- calibrate


def _grid(w_mm: float, h_mm: float) -> impose.Grid:
    """A sheet of the paper's size, for its back transforms (the sheet writers' own code)."""
    return impose.plan(
        (w_mm * PT_PER_MM, h_mm * PT_PER_MM), (63 * PT_PER_MM, 88 * PT_PER_MM), bleed=0, margin=0
    )


@pytest.mark.parametrize(
    ("paper", "duplex"), [("a4", "long-edge"), ("letter", "long-edge"), ("a4", "short-edge")]
)
def test_calibration_marks_sit_where_the_manifest_says(tmp_path, paper, duplex):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    run_pnp(root, "calibrate", "--paper", paper, "--duplex", duplex, check=True)
    data = json.loads((root / "output" / "calibration" / f"calibration-{paper}.json").read_text())
    entry = data["files"][0]
    pdf = root / entry["path"]
    assert entry["pages"] == 2 and len(pdfium.PdfDocument(str(pdf))) == 2
    W, H = data["marks"]["paper_mm"]
    dpi = 300
    front, back = render(pdf, 1, dpi), render(pdf, 2, dpi)
    for scale in data["marks"]["scales"]:
        zx, zy = scale["x"]["zero"]
        for tick in scale["x"]["ticks"]:  # a tick rises from the base line at its x
            assert ink(crop_mm(front, H, dpi, tick["at"] - 0.1, zy + 0.4, 0.2, 1.0)) > 0.2
        for gap in (0.25, -0.25):  # and nothing between ticks
            assert ink(crop_mm(front, H, dpi, zx + gap - 0.05, zy + 0.5, 0.1, 1.0)) < 0.05
        yx, _ = scale["y"]["zero"]
        for tick in scale["y"]["ticks"]:
            assert ink(crop_mm(front, H, dpi, yx + 0.4, tick["at"] - 0.1, 1.0, 0.2)) > 0.2
        (px, py), (qx, qy) = scale["pointers"]["x"]["at"], scale["pointers"]["y"]["at"]
        assert ink(crop_mm(back, H, dpi, px - 0.1, py - 2, 0.2, 4)) > 0.2
        assert ink(crop_mm(back, H, dpi, qx - 2, qy - 0.1, 4, 0.2)) > 0.2
        assert ink(crop_mm(back, H, dpi, px + 0.4, py - 2, 0.3, 4)) < 0.05
        # the back pointers sit behind the zeros, by the mirror the component sheets use
        grid = _grid(W, H)
        mirror = grid.back_sheet_transform(duplex, (0.0, 0.0))
        bx, by = impose.apply(mirror, zx * PT_PER_MM, zy * PT_PER_MM)
        assert (round(bx / PT_PER_MM, 2), round(by / PT_PER_MM, 2)) == (round(px, 2), round(py, 2))


@pytest.mark.parametrize("duplex", ["long-edge", "short-edge"])
def test_the_number_read_is_the_back_offset_that_cures_the_error(tmp_path, duplex):
    """Simulate a printer that shifts the back page by (ex, ey) mm: read the scales where the
    shifted pointers land, then check that --back-offset with those numbers cancels the shift
    through the same transform the component sheets use."""
    root = copy_project(tmp_path / "proj", ("dogfight",))
    run_pnp(root, "calibrate", "--duplex", duplex, check=True)
    data = json.loads((root / "output" / "calibration" / "calibration-a4.json").read_text())
    W, H = data["marks"]["paper_mm"]
    grid = _grid(W, H)
    mirror = grid.back_sheet_transform(duplex, (0.0, 0.0))
    for ex, ey in ((1.5, -1.0), (-2.0, 0.5), (0.0, 3.0)):
        scale = data["marks"]["scales"][0]
        px, py = scale["pointers"]["x"]["at"]
        qx, qy = scale["pointers"]["y"]["at"]
        # where each misprinted pointer is seen from the front: undo the flip (an involution)
        fx, _ = impose.apply(mirror, (px + ex) * PT_PER_MM, (py + ey) * PT_PER_MM)
        _, fy = impose.apply(mirror, (qx + ex) * PT_PER_MM, (qy + ey) * PT_PER_MM)
        read_x = min(scale["x"]["ticks"], key=lambda t: abs(t["at"] - fx / PT_PER_MM))["label"]
        read_y = min(scale["y"]["ticks"], key=lambda t: abs(t["at"] - fy / PT_PER_MM))["label"]
        cured = grid.back_sheet_transform(duplex, (read_x * PT_PER_MM, read_y * PT_PER_MM))
        # a back drawn with the offset, then shifted by the printer, lands where intended
        x, y = impose.apply(cured, 100 * PT_PER_MM, 100 * PT_PER_MM)
        ix, iy = impose.apply(mirror, 100 * PT_PER_MM, 100 * PT_PER_MM)
        assert abs(x / PT_PER_MM + ex - ix / PT_PER_MM) < 0.26
        assert abs(y / PT_PER_MM + ey - iy / PT_PER_MM) < 0.26


def test_calibrate_refuses_an_unknown_paper(tmp_path):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    result = run_pnp(root, "calibrate", "--paper", "a9000")
    assert result.returncode == 2
    assert "a9000" in result.stderr
    assert not (root / "output" / "calibration" / "calibration-a9000.pdf").exists()


# ---------------------------------------------------------------- editor's notes


@pytest.fixture(scope="module")
def red_code(tmp_path_factory):
    root = copy_project(tmp_path_factory.mktemp("kits"), ("red-code",))
    return root, load_game(Project(root), "red-code")


def _note_texts(html: str) -> list[str]:
    return [
        " ".join(re.sub(r"<[^>]+>", "", m).split())
        for m in re.findall(r'<aside class="editor-note">(.*?)</aside>', html, re.S)
    ]


def test_editor_notes_print_in_their_language_and_beside_both_columns(red_code):
    root, content = red_code
    es_ko = rulebook.bilingual_html(content, "es", "ko", "a4")
    ko = rulebook.rulebook_html(content, "ko", "a4")
    ko_notes, pair_notes = _note_texts(ko), _note_texts(es_ko)
    assert any("수리 큐브" in n for n in ko_notes)  # Medical equipment: the cards' rule
    assert any("섞지 않고" in n for n in ko_notes)  # map cards laid out, not shuffled
    assert any("노란색" in n for n in ko_notes)  # cube colours
    assert any("amarillos" in n for n in pair_notes)  # es §4.2 in the es column...
    assert any("노란색" in n for n in pair_notes)  # ...and ko §4.2 in the ko column
    # the designers' words are untouched: the ko text still says 고장 큐브 for Medical equipment
    ko_md = (root / "content/red-code/rules/ko.md").read_text()
    assert "최대 사거리 2칸에서 고장 큐브 1개를 회복합니다" in ko_md
    en_md = (root / "content/red-code/rules/en.md").read_text()
    assert "Translation note" not in en_md


@pytest.mark.parametrize(
    ("notes", "message", "line"),
    [
        ('"9.9":\n  en: "x"\n', "no section §9.9 in the en rulebook", 2),
        ('"3.2":\n  fr: "x"\n', "'fr' is not one of the game's languages", 3),
        ('"3.2": "x"\n', "one text per language", 2),
    ],
)
def test_a_bad_note_is_an_error_naming_file_and_line(tmp_path, notes, message, line):
    root = copy_project(tmp_path / "proj", ("red-code",))
    path = root / "content/red-code/rules/notes.yaml"
    path.write_text("# notes\n" + notes)
    content = load_game(Project(root), "red-code")
    with pytest.raises(ContentError) as err:
        rulebook.rulebook_html(content, "en", "a4")
    assert message in err.value.message
    assert Path(err.value.file).name == "notes.yaml" and err.value.line == line


def test_red_code_line_of_sight_picture_places_the_three_ships(red_code):
    _, content = red_code
    html = rulebook.rulebook_html(content, "es", "a4")
    pieces = re.findall(r'<img class="piece"[^>]*alt="([^"]+)"', html)
    assert sorted(pieces) == ["destroyer-blue", "destroyer-red", "submarine-blue"]


# ---------------------------------------------------------------- rulebook pages


@pytest.fixture
def red_code_en_pdf(kits_a4) -> Path:
    """Red Code's English A4 rulebook, from the run's shared kit (tests/conftest.py)."""
    return kit_rulebook(kits_a4, "red-code", "en")


def test_korean_inside_a_latin_edition_is_never_broken(red_code, red_code_en_pdf):
    """Korean quoted in the English rulebook (editor's notes) stays whole on its line."""
    _, content = red_code
    html = rulebook.rulebook_html(content, "en", "a4")
    plain = htmllib.unescape(re.sub(r"<[^>]+>", " ", html.split("<body", 1)[1]))
    words = {w for w in plain.split() if HANGUL.search(w)}
    assert words, "the en rulebook quotes Korean"
    text = pdf_text(red_code_en_pdf)
    broken = [t for t in text.split() if HANGUL.search(t) and t not in words]
    assert not broken, broken[:10]


def _lowest_text_mm(path: Path) -> float:
    pdf = pdfium.PdfDocument(str(path))
    try:
        text = pdf[0].get_textpage()
        boxes = [
            text.get_charbox(i)[1]
            for i in range(text.count_chars())
            if text.get_text_range(i, 1).strip()
        ]
    finally:
        pdf.close()
    return min(boxes) / PT_PER_MM


def test_the_cover_line_is_at_least_10_mm_from_the_page_edge(red_code, red_code_en_pdf, tmp_path):
    """One language (one line) and bilingual (two lines, the taller case)."""
    _, content = red_code
    bilingual = tmp_path / "es-ko.pdf"
    rulebook.render_bilingual(content, "es", "ko", "letter", bilingual)
    for path in (red_code_en_pdf, bilingual):
        assert _lowest_text_mm(path) >= 10.0, (path.name, _lowest_text_mm(path))


# ---------------------------------------------------------------- Red Code at the table


def test_red_code_ship_pieces_are_double_sided_with_each_ships_back(built):
    manifest = built.manifest("red-code")
    pages = [
        s
        for s in manifest["sheets"]
        if "/en/" in s["file"] and s["file"].endswith("-a4.pdf")
        for slot in s["slots"]
        if slot["component"] == "ship-pieces"
    ]
    fronts = [
        slot["item"]
        for s in pages
        if s["side"] == "front"
        for slot in s["slots"]
        if slot["component"] == "ship-pieces"
    ]
    backs = [
        slot["item"]
        for s in pages
        if s["side"] == "back"
        for slot in s["slots"]
        if slot["component"] == "ship-pieces"
    ]
    assert sorted(set(fronts)) == sorted(set(backs)) and len(set(fronts)) == 6
    files = {s["file"] for s in pages}
    text = " ".join(pdf_text(built.path(f)) for f in files)
    assert text.count("Sunk") == 6  # every back says so, once

"""Rulebook figures as vectors: Red Code's English A4 rulebook, read back from its PDF.

A face in a figure (a control card, an order card, a board of map cards with ship pieces) is
the card's own PDF drawn into the page: its words are text (pypdfium2 extracts them), in
embedded fonts, and every character on every page prints at 6 pt or more (font size times
the character's full matrix: text matrix, page and figure scale).
"""

from __future__ import annotations

import ctypes
import math
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from conftest import copy_project, kit_rulebook, shared_build

from generator.build import pdflint
from generator.load.content import load_game
from generator.load.project import Project
from generator.rulebook import book as rulebook
from generator.rulebook import vector
from generator.rulebook.figures import MIN_TEXT_PT, FaceCache

GAME = "red-code"


def _build(folder: Path) -> dict:
    """The control card's face, drawn on its own, for the words it holds."""
    root = copy_project(folder, (GAME,))
    content = load_game(Project(root), GAME)
    faces = FaceCache(content, "en", root / "faces")
    spec = content.component("control-cards")
    item = next(i for i in spec.items if i.id == "submarine-blue")
    face = faces.face(spec, item, "front", spec.size_pt[0])
    return {"face_pdf": str(face.pdf)}


@pytest.fixture(scope="module")
def book(tmp_path_factory, kits_a4) -> dict:
    """Red Code's English A4 rulebook as `pnp print` made it (the run's shared kit,
    tests/conftest.py) and the control card's face."""
    info = dict(shared_build(tmp_path_factory, "rulebook-figures-red-code", _build)[1])
    info["path"] = str(kit_rulebook(kits_a4, GAME, "en"))
    return info


def printed_chars(path: Path) -> list[list[tuple[str, float]]]:
    """Per page, each character with its printed size in points."""
    pdf = pdfium.PdfDocument(str(path))
    pages = []
    try:
        matrix = pdfium_c.FS_MATRIX()
        for page in pdf:
            text = page.get_textpage()
            chars = []
            for i in range(text.count_chars()):
                ch = chr(pdfium_c.FPDFText_GetUnicode(text.raw, i))
                if not ch.strip():
                    continue
                size = pdfium_c.FPDFText_GetFontSize(text.raw, i)
                pdfium_c.FPDFText_GetMatrix(text.raw, i, ctypes.byref(matrix))
                chars.append((ch, size * math.hypot(matrix.c, matrix.d)))
            pages.append(chars)
    finally:
        pdf.close()
    return pages


def words(path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [w for page in pdf for w in page.get_textpage().get_text_range().split()]
    finally:
        pdf.close()


def test_every_character_prints_at_6_pt_or_more(book):
    pages = printed_chars(Path(book["path"]))
    small = [
        (n, ch, round(size, 2))
        for n, chars in enumerate(pages, start=1)
        for ch, size in chars
        if size < MIN_TEXT_PT - 0.01
    ]
    assert not small, small[:20]


def test_the_control_card_figure_is_text(book):
    """Every word of the control card's face is in the rulebook as text, at 6 pt or more,
    on the page of its figure (on main the figure was a picture: none was)."""
    face_words = words(Path(book["face_pdf"]))
    assert len(face_words) > 40
    pages = printed_chars(Path(book["path"]))
    pdf = pdfium.PdfDocument(book["path"])
    try:
        texts = [" ".join(p.get_textpage().get_text_range().split()) for p in pdf]
    finally:
        pdf.close()
    # the page whose text holds the longest run of the card's words
    probe = " ".join(face_words[:6])
    found = [n for n, t in enumerate(texts) if probe in t]
    assert found, f"'{probe}' is not text anywhere in the rulebook"
    page_words = texts[found[0]].split()
    missing = [w for w in face_words if w not in page_words]
    assert not missing, missing
    assert min(size for _, size in pages[found[0]]) >= MIN_TEXT_PT - 0.01


def test_figure_fonts_are_embedded_and_the_book_passes_the_lint(book, tmp_path):
    path = Path(book["path"])
    with pikepdf.open(path) as pdf:
        names = set()
        for page in pdf.pages:
            seen = [page.obj]
            while seen:
                holder = seen.pop()
                resources = holder.get("/Resources") or {}
                for font in (resources.get("/Font") or {}).values():
                    names.add(str(font.get("/BaseFont")))
                    fonts = [font]
                    fonts += list(font.get("/DescendantFonts") or [])
                    embedded = any(
                        key in (f.get("/FontDescriptor") or {})
                        for f in fonts
                        for key in ("/FontFile", "/FontFile2", "/FontFile3")
                    )
                    assert embedded, font.get("/BaseFont")
                for xobject in (resources.get("/XObject") or {}).values():
                    if xobject.get("/Subtype") == "/Form":
                        seen.append(xobject)
    # the cards' own fonts are there (ReportLab's subsets), each subset with its own tag
    card_fonts = [n for n in names if "PnPGothic" in n]
    assert card_fonts
    assert not any(n.startswith("/AAAAAA+") for n in names)
    root = path.parents[3]
    assert pdflint.lint(path, pdflint.bundled_font_names(Project(root).fonts)) == []
    if shutil.which("gs") is None:
        pytest.skip("ghostscript (gs) is not installed")
    done = subprocess.run(
        ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dPDFSTOPONERROR", "-sDEVICE=nullpage", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "rror" not in done.stdout + done.stderr, done.stderr


def test_small_text_is_left_out_at_a_scale_that_cannot_reach_6_pt(book, tmp_path):
    """A face placed too small for its words keeps its picture and drops only those words."""
    face = Path(book["face_pdf"])
    assert vector.smallest_text(face) == pytest.approx(7.0, abs=0.01)
    with pikepdf.open(face) as pdf:
        form = pdf.make_indirect(pdf.pages[0].as_form_xobject())
        half = vector._without_small_text(pdf, form, 6.0, (0.5, 0, 0, 0.5, 0, 0))
        whole = vector._without_small_text(pdf, form, 6.0, (1, 0, 0, 1, 0, 0))
        assert whole is form  # 7 pt text at full size: nothing to leave out
        shown = [op for _, op in pikepdf.parse_content_stream(half) if str(op) in ("Tj", "TJ")]
        drawn = [op for _, op in pikepdf.parse_content_stream(half) if str(op) in ("re", "f", "Do")]
        before = [op for _, op in pikepdf.parse_content_stream(form) if str(op) in ("Tj", "TJ")]
        shapes = [
            op for _, op in pikepdf.parse_content_stream(form) if str(op) in ("re", "f", "Do")
        ]
        # at half size only text of 12 pt or more is left; the shapes all stay
        assert 0 < len(shown) < len(before)
        assert len(drawn) == len(shapes)


@pytest.mark.parametrize(
    ("game", "paper"),
    [
        ("red-code", "a4"),
        # each a whole real rulebook laid out again (WeasyPrint, 3-7 s of CPU): the same rule on
        # other pages, so `make test` keeps the case of the defect and CI runs these two
        pytest.param("red-code", "letter", marks=pytest.mark.slow),
        pytest.param("sub-zero", "a4", marks=pytest.mark.slow),
    ],
)
def test_no_figure_leaves_more_than_a_quarter_page_blank_before_it(game, paper, tmp_path):
    """Laid out as `pnp print` writes it: no figure that starts a page follows a page whose
    text area is more than 25 % blank at the bottom (on main, Red Code's control card left
    65 % of page 8 blank; on Letter only its order card fits there, and goes first)."""
    root = copy_project(tmp_path, (game,))
    content = load_game(Project(root), game)
    html, _ = rulebook._single_html(content, "en", paper, None)
    out = tmp_path / "rulebook.pdf"
    document = rulebook.write_pdf(content, html, out)
    assert rulebook.stranded_figures(document) == []
    # and every figure is still there, once: the faces placed as vectors
    placed = vector.placements(document)
    assert len(placed) >= 3
    for index in range(1, len(document.pages)):
        heads = [p for p in placed if p.page == index and p.y < 40 * 72 / 25.4]
        if heads:
            assert 1 - rulebook.page_fill(document, index - 1) <= 0.25 + 1e-6, index

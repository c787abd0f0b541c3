"""Fonts by script, real italics, coverage before drawing, script rules as data (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import copy_project, shared_build

from generator.load.content import load_game
from generator.load.project import Project
from generator.rulebook import book as rulebook

DPI = 300


def _phrase_box(pdf_path: Path, phrase: str) -> tuple[int, tuple[float, float, float, float]]:
    """(page, (left, bottom, right, top) in pt) of the first `phrase` on any page."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        for number in range(len(pdf)):
            text = pdf[number].get_textpage()
            found = text.search(phrase, match_case=True)
            hit = found.get_next()
            if hit is None:
                continue
            start, count = hit
            boxes = [text.get_charbox(i) for i in range(start, start + count)]
            boxes = [b for b in boxes if b[2] > b[0]]
            return number + 1, (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
    finally:
        pdf.close()
    raise AssertionError(f"{phrase!r} not found in {pdf_path}")


def slant(pdf_path: Path, phrase: str) -> float:
    """How far the ink of `phrase` leans: the shear (dx/dy) that makes its strokes most upright.
    An upright face gives about 0, a real italic about 0.2 (12 degrees)."""
    page, (left, bottom, right, top) = _phrase_box(pdf_path, phrase)
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        image = pdf[page - 1].render(scale=DPI / 72).to_pil().convert("L")
        height = pdf[page - 1].get_height()
    finally:
        pdf.close()
    s = DPI / 72
    crop = image.crop(
        (
            round((left - 1) * s),
            round((height - top) * s),
            round((right + 1) * s),
            round((height - bottom) * s),
        )
    )
    w, h = crop.size
    pixels = crop.load()
    ink = [(x, y) for y in range(h) for x in range(w) if pixels[x, y] < 128]
    assert len(ink) > 50, f"no ink where {phrase!r} is"
    best, best_score = 0.0, -1.0
    for step in range(-30, 31):
        shear = step / 100
        columns: dict[int, int] = {}
        for x, y in ink:  # undo a lean of `shear`: x shifts left by shear * height above base
            col = round(x - shear * (h - y))
            columns[col] = columns.get(col, 0) + 1
        score = sum(n * n for n in columns.values())
        if score > best_score:
            best, best_score = shear, score
    return best


@pytest.fixture(scope="module")
def red_code_es_pdf(tmp_path_factory):
    def build(folder: Path) -> None:
        root = copy_project(folder / "proj", ("red-code",))
        content = load_game(Project(root), "red-code")
        rulebook.render_rulebook(content, "es", "a4", folder / "es.pdf")

    return shared_build(tmp_path_factory, "red-code-es", build)[0] / "es.pdf"


def test_italic_emphasis_is_visibly_slanted(red_code_es_pdf):
    """*Por ejemplo:* and *(Partidas de 2 contra 2)* print in a real italic (they printed upright:
    a synthetic oblique of PnP Gothic whose text matrix had no skew); the plain text beside
    them stays upright."""
    for phrase in ("Por ejemplo:", "Partidas de 2 contra 2"):
        leaning = slant(red_code_es_pdf, phrase)
        assert 0.12 <= leaning <= 0.3, f"{phrase!r} leans {leaning}, not an italic"
    upright = slant(red_code_es_pdf, "La maniobra de contramedida")
    assert abs(upright) <= 0.04, f"plain text leans {upright}"

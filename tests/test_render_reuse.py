"""Faces drawn once and placed many times (issue #23): what pnp writes looks the same.

- A face that occurs several times in a file (an item's copies, a shared back) is one Form
  XObject placed N times, in sheets, gutterfold, ink-saver and print-shop files alike
  (generator/impose/faces.py `place_form`).
- A box drawn before on the same canvas with the same data-bound values is replayed from the PDF
  operators it wrote (generator/render/replay.py).
Both are checked against the same build with both switched off: every page has the same pixels.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import run_pnp

GAME = "content/mini"
FILES = {
    f"{GAME}/game.yaml": (
        "id: mini\ntitle: Mini\nlanguages: [en]\n"
        "print: {papers: [a4], exports: [sheets, gutterfold, ink-saver, print-shop]}\n"
    ),
    f"{GAME}/components/cards.yaml": (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\nback: mini/back\nitems:\n"
        "  - {id: a, count: 3, data: {word: alpha, cost: 2}}\n"
        "  - {id: b, data: {word: beta, cost: 2}}\n"
        "  - {id: c, count: 2, back: mini/own-back, data: {word: gamma, cost: 5}}\n"
    ),
    f"{GAME}/manifest.yaml": "components: {cards: 6}\n",
    "templates/layouts/mini/card.yaml": (
        'background: "#fbf8f1"\nboxes:\n'
        '  - {id: frame, kind: rect, x: 3, y: 3, w: 57, h: 82, radius: 3mm, stroke: "#333333"}\n'
        '  - {id: word, kind: text, text: "**{{ word }}** card", x: 6, y: 8, w: 51, h: 12,'
        " size: 12pt}\n"
        '  - {id: cost, kind: text, text: "{{ cost }}", x: 6, y: 60, w: 20, h: 14, size: 20pt,'
        ' color: "#aa2222"}\n'
        '  - {id: seal, kind: ellipse, x: 40, y: 60, w: 14, h: 14, fill: "#2255aa",'
        " opacity: 0.5}\n"
    ),
    "templates/layouts/mini/back.yaml": (
        'background: "#1f2f4a"\nboxes:\n'
        "  - {id: name, kind: text, text: MINI, x: 5, y: 38, w: 53, h: 12, size: 20pt,"
        ' align: center, color: "#f3e7c6"}\n'
    ),
    "templates/layouts/mini/own-back.yaml": (
        'background: "#4a1f2f"\nboxes:\n'
        '  - {id: name, kind: text, text: "{{ word }}", x: 5, y: 38, w: 53, h: 12, size: 20pt,'
        ' align: center, color: "#f3e7c6"}\n'
    ),
}


def _pdfs(root: Path) -> dict[str, Path]:
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    return {
        f["path"]: root / f["path"]
        for f in manifest["files"]
        if f["path"].endswith(".pdf") and f["kind"] in ("components", "export")
    }


def _placements(path: Path) -> list[dict[str, int]]:
    """Per page: how often each Form XObject named face... is placed."""
    out = []
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            counts: dict[str, int] = {}
            for operands, op in pikepdf.parse_content_stream(page):
                if str(op) == "Do" and str(operands[0]).startswith("/FormXob.face"):
                    counts[str(operands[0])] = counts.get(str(operands[0]), 0) + 1
            out.append(counts)
    return out


def _pixels(path: Path) -> list[bytes]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [page.render(scale=150 / 72).to_pil().tobytes() for page in pdf]
    finally:
        pdf.close()


@pytest.fixture
def both(make_project, tmp_path, monkeypatch):
    """The mini kit built as it is, and built again with forms and replay switched off."""
    from generator.impose import faces
    from generator.render import replay

    root = make_project(FILES)
    run_pnp(root, "print", check=True)
    shutil.copytree(root / "output", tmp_path / "reused")
    with monkeypatch.context() as m:
        m.setattr(faces, "repeats", lambda item: False)
        m.setattr(replay, "KINDS", frozenset())
        m.setattr(faces, "place_form", _in_place)
        run_pnp(root, "print", "--force", check=True)
    return tmp_path / "reused", root / "output"


def _in_place(canvas, renderer, reuse, layout, ctx, w, h, bleed) -> None:
    renderer.draw(canvas, layout, ctx, w, h, bleed)


def test_copies_and_shared_backs_are_one_form_placed_n_times(make_project):
    root = make_project(FILES)
    run_pnp(root, "print", check=True)
    pdfs = _pdfs(root)
    sheets = pdfs["output/mini/en/cards-a4.pdf"]
    front, back = _placements(sheets)
    # a (3 copies) and c (2 copies): one form each, placed per copy; b (once) drawn in place
    assert sorted(front.values()) == [2, 3]
    assert sorted(back.values()) == [2]  # c's own back; the common back is its own form
    for name in ("gutterfold", "ink-saver"):
        (path,) = [p for rel, p in pdfs.items() if f"/{name}/" in rel or f"-{name}" in rel]
        total: dict[str, int] = {}
        for page in _placements(path):
            for form, n in page.items():
                total[form] = total.get(form, 0) + n
        assert sorted(total.values()) == [2, 2, 3], (name, total)  # a, c and c's back
    shop = [p for rel, p in pdfs.items() if "print-shop" in rel and rel.endswith(".pdf")]
    assert shop
    # one page per design: the common back is one form, placed on each of its pages
    pages = [page for path in shop for page in _placements(path)]
    common = [page for page in pages if page]
    assert len(common) >= 2 and len({name for page in common for name in page}) == 1
    # a copy drawn through a form still reads as text, once per copy
    pdf = pdfium.PdfDocument(str(sheets))
    try:
        text = pdf[0].get_textpage().get_text_range()
    finally:
        pdf.close()
    assert text.count("alpha") == 3 and text.count("gamma") == 2 and text.count("beta") == 1


def test_reuse_and_replay_change_no_pixel(both):
    reused, plain = both
    compared = 0
    for path in sorted(reused.rglob("*.pdf")):
        rel = path.relative_to(reused)
        if ".pnp-cache" in rel.parts or "guide" in path.name:
            continue
        other = plain / rel
        assert other.is_file(), rel
        assert path.read_bytes() != other.read_bytes() or not re.search(
            r"(sheets|cards|gutterfold|ink-saver)", str(rel)
        ), f"{rel}: reuse changed nothing"
        assert _pixels(path) == _pixels(other), f"{rel}: pixels differ"
        compared += 1
    assert compared >= 4


def test_a_placed_back_is_written_as_the_canvas_calls_write_it(tmp_path):
    """A common back placed without the canvas's calls (`place_clipped`: no state stack, no
    path object) writes what saveState, clip, transform, doForm and restoreState write, for
    either fill rule."""
    from reportlab.pdfgen.canvas import FILL_NON_ZERO, Canvas

    from generator.impose import faces
    from generator.impose.grid import Rect

    class Own(Canvas):  # as an export's own canvas: draw_common_back makes the calls
        pass

    placements = [
        (Rect(21.25984, 545.6693, 187.0866, 257.9528), (1, 0, 0, 1, 29.76378, 545.6693)),
        (Rect(0.5, 1 / 3, 100.25, 7e-5), (0, -1, 1, 0, 12.345678, 1e4)),
    ]
    for rule in (None, FILL_NON_ZERO):
        ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
        for canvas in (ours, theirs):
            if rule is not None:
                canvas._fillMode = rule
            canvas.beginForm("back-x", 0, 0, 10, 10)
            canvas.rect(0, 0, 10, 10, fill=1)
            canvas.endForm()
        for clip_rect, transform in placements:
            faces.place_clipped(ours, "back-x", clip_rect, transform)
            theirs.saveState()
            faces.clip(theirs, clip_rect)
            theirs.transform(*transform)
            theirs.doForm("back-x")
            theirs.restoreState()
        assert ours._code == theirs._code and ours._formsinuse == theirs._formsinuse
        assert any(" W n" in c for c in ours._code) == (rule is not None)


def test_a_face_clip_is_written_as_the_path_calls_write_it(tmp_path):
    """Every face is clipped to its cell: on ReportLab's own canvas without a path object, the
    operator the path calls write, for either fill rule and awkward numbers."""
    from reportlab.pdfgen.canvas import FILL_NON_ZERO, Canvas

    from generator.impose import faces
    from generator.impose.grid import Rect

    class Own(Canvas):  # an export's own canvas makes the calls
        pass

    rects = [
        Rect(21.25984, 545.6693, 187.0866, 257.9528),
        Rect(21.25984, 545.66931, 187.0866, 257.9528),  # near-equal: its own operator
        Rect(-0.5, 1 / 3, 1e4, 7e-5),
        Rect(-0.0, 0.0, 1, 1.0),
    ]
    for rule in (None, FILL_NON_ZERO, None):  # the operators are kept across files and rules
        ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
        for canvas in (ours, theirs):
            if rule is not None:
                canvas._fillMode = rule
            for rect in rects + rects:
                faces.clip(canvas, rect)
        assert ours._code == theirs._code and len(ours._code) == 8


def test_a_face_is_placed_as_the_transform_call_places_it(tmp_path, monkeypatch):
    """`faces.place` (every face's move to its slot) against `Canvas.transform`: recurring,
    near-equal and turned matrices, right after another operator or after a cm (which ReportLab
    merges into it), with the formatted operators kept in a store filled and emptied on the
    way: the same operators, and the same current matrix after each step."""
    import random

    from reportlab.pdfgen.canvas import Canvas

    from generator.impose import faces
    from generator.impose.grid import Rect

    class Own(Canvas):  # takes ReportLab's calls
        pass

    monkeypatch.setattr(faces._PLACINGS, "limit", 3)
    monkeypatch.setattr(faces._CLIPS, "limit", 3)
    rng = random.Random(9)
    slots = [
        (1, 0, 0, 1, 29.76378, 545.6693),
        (1, 0, 0, 1, 29.76378, 545.66931),
        (1, 0, 0, 1, 29.763781, 545.6693),
        (-1, 0, 0, 1, 595.2756, 0),
        (0, 1, -1, 0, 250.5, 10.25),
        (1.0, -0.0, 0.0, 1.0, -0.0, 1e-7),
    ]
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
    for _ in range(200):
        m = rng.choice(slots)
        if rng.random() < 0.7:  # most faces: after the clip; some right after a cm
            for canvas in (ours, theirs):
                faces.clip(canvas, Rect(1.5, 2.5, 60.0, 80.0))
        faces.place(ours, m)
        theirs.transform(*m)
        assert ours._code == theirs._code
        assert ours._currentMatrix == theirs._currentMatrix
    assert len(faces._PLACINGS) <= 3


def test_a_box_state_is_saved_and_restored_as_the_canvas_calls_do(tmp_path):
    """`pdfstate.save`/`restore` (around every box and face) against saveState/restoreState:
    nested three deep, with fonts, colours, alphas, line settings and transforms changed in
    between, the same operators and, after each step, the same state (every attribute the
    canvas's state stack keeps, the graphics-state copy's values included). A canvas of an
    export's own (a subclass) still gets the calls."""
    import random

    from reportlab.pdfgen.canvas import Canvas

    from generator.render import pdfstate

    class Own(Canvas):  # takes ReportLab's calls
        pass

    rng = random.Random(7)
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
    ours.saveState = ours.restoreState = lambda: pytest.fail("a call on the plain canvas")
    changes = [
        lambda c, v: c.setFont(rng_font, 6 + v * 20),
        lambda c, v: c.setFillColorRGB(v, 1 - v, 0.5),
        lambda c, v: c.setStrokeColorRGB(0.1, v, v),
        lambda c, v: c.setFillAlpha(round(v, 2)),
        lambda c, v: c.setStrokeAlpha(round(1 - v, 2)),
        lambda c, v: c.setLineWidth(v * 3),
        lambda c, v: c.setDash([v * 4, 2]),
        lambda c, v: c.translate(v * 10, -v * 5),
        lambda c, v: c.rotate(v * 90),
    ]
    rng_font = "Helvetica"
    stack: list = []

    def same() -> None:
        assert ours._code == theirs._code
        for name in Canvas.STATE_ATTRIBUTES:
            if name == "_extgstate":
                assert ours._extgstate._d == theirs._extgstate._d
            else:
                assert getattr(ours, name) == getattr(theirs, name), name

    for _ in range(400):
        step = rng.random()
        if step < 0.3 and len(stack) < 3:
            stack.append(pdfstate.save(ours))
            theirs.saveState()
        elif step < 0.55 and stack:
            pdfstate.restore(ours, stack.pop())
            theirs.restoreState()
        else:
            change, value = rng.choice(changes), rng.random()
            for canvas in (ours, theirs):
                change(canvas, value)
        same()
    while stack:
        pdfstate.restore(ours, stack.pop())
        theirs.restoreState()
    same()
    assert ours.state_stack == []
    assert sum(op == "q" for op in ours._code) > 50
    calls = []
    own = Own(str(tmp_path / "c.pdf"))
    own.saveState, own.restoreState = (lambda: calls.append("q")), (lambda: calls.append("Q"))
    pdfstate.restore(own, pdfstate.save(own))
    assert calls == ["q", "Q"]

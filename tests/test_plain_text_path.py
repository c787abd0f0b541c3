"""The plain-words path of text layout (textflow.fit_words) is the general path, faster.

Nearly every card text is plain words over lines, so it is wrapped as strings with no Atom per
word; these tests hold it to what the general path (parse, then fit) gives for the same text:
the same size, the same lines, the same widths, the same overflow; and the same set lines
(SetText) drawn from it.
"""

from __future__ import annotations

import random
import re

import pytest
from conftest import ROOT

from generator.load.project import Project
from generator.render import textflow
from generator.render.fonts import fontbook

WORDS = [
    "a",
    "an",
    "the",
    "card",
    "draws",
    "two",
    "cards",
    "Move",
    "one",
    "space",
    "Deal",
    "3",
    "damage",
    "to",
    "each",
    "enemy",
    "unit",
    "in",
    "range",
    "then",
    "discard",
    "this",
    "éclair",
    "Übermut",
    "카드를",
    "뽑습니다",
    "проверка",
    "λέξη",
]


@pytest.fixture(scope="module")
def faces():
    book = fontbook(Project(ROOT).fonts)
    return {s: book.chain("gothic", s, "en") for s in ("regular", "bold", "black")}


def _texts(n: int):
    rng = random.Random(23)
    for _ in range(n):
        paras = []
        for _ in range(rng.randint(1, 4)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(0, 14))]
            # runs of spaces and empty paragraphs are part of what designers write
            paras.append((" " * rng.randint(1, 2)).join(words))
        yield "\n".join(paras)


def test_plain_text_is_recognised_and_markup_is_not():
    assert textflow.is_plain("Deal 3 damage\nthen discard")
    for marked in ("Deal **3** damage", "Pay :coin: now", "Cost: 3", "カードを引く"):
        assert not textflow.is_plain(marked), marked


def test_fit_words_gives_what_the_general_path_gives(faces):
    rng = random.Random(5)
    checked = 0
    for text in _texts(400):
        assert textflow.is_plain(text)
        width, height = rng.uniform(20, 200), rng.uniform(8, 120)
        size, min_size = rng.choice((7.0, 9.0, 14.0)), rng.choice((None, 5.0, 6.5))
        leading, wrap = rng.choice((1.0, 1.2, 1.3)), rng.random() < 0.9
        shape = (faces, width, height, size, min_size, leading, wrap)
        fast = textflow.fit_words(text, *shape)
        general = textflow.fit(textflow.parse(text, "regular", {}), *shape)
        assert fast.size == general.size, text
        assert fast.overflow == general.overflow, text
        assert [line.words for line in fast.lines] == [
            [atom.text for atom in line.atoms] for line in general.lines
        ], text
        assert [line.width1 for line in fast.lines] == [line.width1 for line in general.lines]
        checked += general.overflow is None
    assert checked > 100  # most of them fit: both the wrapping and the shrinking are exercised


def test_set_lines_from_either_path_are_the_same(faces):
    from generator.load.boxes import TextBox
    from generator.render.boxes.base import Rect
    from generator.render.boxes.text import SetText

    rng = random.Random(8)
    for text in _texts(150):
        box = TextBox.model_validate(
            {
                "kind": "text",
                "text": text,
                "x": 0,
                "y": 0,
                "w": 60,
                "h": 40,
                "size": "9pt",
                "align": rng.choice(("left", "center", "right")),
                "valign": rng.choice(("top", "middle", "bottom")),
            }
        )
        r = Rect(10.0, 20.0, rng.uniform(40, 180), rng.uniform(20, 120))
        shape = (faces, r.w, r.h, 9.0, 6.0, box.leading, True)
        fast = textflow.fit_words(text, *shape)
        general = textflow.fit(textflow.parse(text, "regular", {}), *shape)
        a, b = SetText(fast, faces, box, r), SetText(general, faces, box, r)
        assert a.size == b.size and a.ink == b.ink and a.icons == b.icons
        # the same pieces at the same places (x of a line's last piece is where it starts)
        assert a.lines == b.lines, text


def _by_text_object(canvas, lines, size: float) -> None:
    """The set lines written through ReportLab's own text object: the reference."""
    writer = font = None
    for baseline, _, pieces in lines:
        for x, face_used, piece in pieces:
            if writer is None:
                writer = canvas.beginText(x, baseline)
            else:
                writer.setTextOrigin(x, baseline)
            if face_used.name != font:
                writer.setFont(face_used.name, size)
                font = face_used.name
            writer._code.append(writer._formatText(piece))
    if writer is not None:
        canvas.drawText(writer)


def test_text_is_written_as_reportlabs_text_object_writes_it(faces, tmp_path):
    """Lines in several faces (Korean and Cyrillic fall back to their scripts' faces), subsets
    past the first 256 characters, characters PDF strings escape: the same operators."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.load.boxes import TextBox
    from generator.render.boxes.base import Rect
    from generator.render.boxes.text import SetText
    from generator.render.pdftext import text_object

    rng = random.Random(11)
    covered = sorted(c for c in faces["regular"].primary.cmap if c > 0x20 and chr(c).isalpha())
    # more than a subset's 256 characters of one face, then text PDF strings must escape
    many = " ".join(chr(c) * 3 for c in covered[:400]) + " (a\\b) ÀÉÎ 가나다 ДЖЯ"
    texts = [*_texts(60), many, many[::-1], "", "one"]
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Canvas(str(tmp_path / "b.pdf"))
    for text in texts:
        box = TextBox.model_validate(
            {"kind": "text", "text": text, "x": 0, "y": 0, "w": 60, "h": 40, "size": "9pt"}
        )
        r = Rect(5.0, 5.0, rng.uniform(40, 180), rng.uniform(20, 120))
        fitted = textflow.fit_words(text, faces, r.w, r.h, 9.0, 5.0, 1.2, True)
        done = SetText(fitted, faces, box, r)
        written = text_object(ours, done.lines, done.size)
        assert written is not None
        if written:
            ours._code.append(written)
        _by_text_object(theirs, done.lines, done.size)
    assert ours._code == theirs._code
    fonts = {m for op in ours._code for m in re.findall(r"(/\S+) [\d.]+ Tf", op)}
    assert len(fonts) >= 3, fonts  # several faces and subsets were named along the way


def test_recurring_origins_and_sizes_are_written_as_reportlab_writes_them(
    faces, tmp_path, monkeypatch
):
    """`text_object` keeps the operators of the origins and sizes it has formatted (a deck's
    cards set their lines at the same spots): recurring and near-equal values, -0.0 and 0.0,
    integers and floats, and a store filled and emptied on the way, give ReportLab's bytes."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.render import pdftext

    monkeypatch.setattr(pdftext._ORIGINS, "limit", 5)  # emptied several times below
    monkeypatch.setattr(pdftext._SIZES, "limit", 5)
    face = faces["regular"]
    spots = [0.0, -0.0, 0, 1, 1.0, 17.25, 17.2501, 17.25001, 17.250001, -3.5, 1e-7, 100]
    sizes = [9.0, 9, 8.75, 8.7501, 8.75001, 12.333333333333334, 7]
    rng = random.Random(5)
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Canvas(str(tmp_path / "b.pdf"))
    for _ in range(300):
        size = rng.choice(sizes)
        lines = [
            (rng.choice(spots), (), ((rng.choice(spots), face, rng.choice(WORDS[:20])),))
            for _ in range(rng.randint(1, 3))
        ]
        ours._code.append(pdftext.text_object(ours, lines, size))
        _by_text_object(theirs, lines, size)
    assert ours._code == theirs._code
    assert 0 < len(pdftext._ORIGINS) <= 5 and 0 < len(pdftext._SIZES) <= 5


def test_a_text_known_in_the_first_subset_is_split_as_reportlab_splits_it(faces, tmp_path):
    """`pdftext.split` answers a text whose characters all have a code in the document's first
    subset without ReportLab's walk: step by step, the same chunks as `splitString` on a twin
    document, through new characters, a no-break space, a character the font lacks, the
    first subset filling up and the next ones."""
    from reportlab.pdfbase.pdfmetrics import getFont
    from reportlab.pdfgen.canvas import Canvas

    from generator.render.pdftext import split

    font = getFont(faces["regular"].primary.name)
    rng = random.Random(3)
    covered = sorted(c for c in faces["regular"].primary.cmap if c > 0x20 and chr(c).isalpha())
    letters = [chr(c) for c in covered[:600]]
    texts = []
    for n in range(400):
        pool = letters[: 40 + n]  # the alphabet grows past the first subset's 256 codes
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))
        texts += [text, text, f"{text}\xa0{text[:2]}", "Deal 3 damage", f"{text} ☃"]
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Canvas(str(tmp_path / "b.pdf"))
    fast = 0
    for text in texts:
        known = ours.__dict__.get("_pnp_subset0", {}).get(font)
        fast += bool(text and known and known[0].issuperset(text))
        assert split(font, text, ours._doc, ours) == font.splitString(text, theirs._doc), text
    ours_state, theirs_state = font.state[ours._doc], font.state[theirs._doc]
    assert ours_state.assignments == theirs_state.assignments
    assert ours_state.subsets == theirs_state.subsets and len(ours_state.subsets) >= 2
    assert fast > len(texts) / 3  # the quick way was taken, not only the walk


def test_a_line_drawn_by_a_chain_is_written_as_drawstring_writes_it(faces, tmp_path):
    """`Chain.draw` (sheet labels, slot numbers) writes each run's drawString without the call:
    the same operators and the same font settings left on the canvas, for runs in several faces
    (fallbacks), subsets past the first 256 characters and characters PDF strings escape. A
    canvas of an export's own (a subclass) still gets the calls."""
    from reportlab.pdfgen.canvas import Canvas

    class Own(Canvas):  # takes ReportLab's calls
        pass

    rng = random.Random(5)
    covered = sorted(c for c in faces["regular"].primary.cmap if c > 0x20 and chr(c).isalpha())
    many = "".join(chr(c) for c in covered[:300]) + " (a\\b) ÀÉÎ 가나다 ДЖЯ λέξη"
    texts = [*_texts(40), many, "Bench · Cards · en · 12/1112 · front", "가 x 나", ""]
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
    ours.drawString = ours.setFont = lambda *a, **k: pytest.fail("a call on the plain canvas")
    for text in texts:
        style = rng.choice(("regular", "bold", "black"))
        x, y, size = rng.uniform(0, 400), rng.uniform(0, 700), rng.choice((6.5, 9.0, 14.0))
        centre = rng.random() < 0.5
        for canvas in (ours, theirs):
            faces[style].draw(canvas, x, y, text, size, centre)
        assert ours._code == theirs._code, text
        state = ("_fontname", "_fontsize", "_leading")
        assert [getattr(ours, a) for a in state] == [getattr(theirs, a) for a in state]
    assert sum("Tf" in op for op in ours._code) > len(texts)  # several faces and subsets


def test_a_fill_colour_is_written_as_setfillcolor_writes_it(tmp_path):
    """`pdfcolour.fill` (every text box's and background's colour) writes setFillColor's
    operator without the call on ReportLab's own canvas: the same operators, the same colour
    and alpha left in its state, the same PDF version, for hex and named colours, colours with
    an alpha of their own, CMYK and a new alpha set between them (those go through the call), on
    a fresh document and on one that already declares transparency. A canvas of an export's
    own (a subclass) still gets the calls."""
    from reportlab.lib import colors
    from reportlab.pdfgen.canvas import Canvas

    from generator.render import pdfcolour
    from generator.render.boxes.base import colour

    class Own(Canvas):  # takes ReportLab's calls
        pass

    rng = random.Random(3)
    named = ["#000000", "#fbf8f1", "#1f2f4a", "red", "#333", "navy", "#f3e7c6", "white"]
    picks = [colour(rng.choice(named)) for _ in range(200)]
    picks += [colors.Color(0.2, 0.4, 0.6, alpha=0.5), colors.CMYKColor(0.1, 0.2, 0.3, 0.4)]
    rng.shuffle(picks)
    ours, theirs = Canvas(str(tmp_path / "a.pdf")), Own(str(tmp_path / "b.pdf"))
    straight = []
    ours_set = ours.setFillColor

    def counted(c, *a, **k):
        straight.append(False)
        return ours_set(c, *a, **k)

    ours.setFillColor = counted
    for i, c in enumerate(picks):
        if i % 37 == 5:  # an opacity between fills: the next fill resets it through the call
            for canvas in (ours, theirs):
                canvas.setFillAlpha(0.7)
        calls = len(straight)
        pdfcolour.fill(ours, c)
        theirs.setFillColor(c)
        if len(straight) == calls:
            straight.append(True)
        assert ours._code == theirs._code, (i, c)
        assert ours._fillColorObj == theirs._fillColorObj
        assert ours._extgstate._d == theirs._extgstate._d
        assert ours._doc._pdfVersion == theirs._doc._pdfVersion
    assert straight[0] is False  # a fresh document declares transparency through the call
    assert straight.count(True) > 150  # most fills were written straight
    own = Own(str(tmp_path / "c.pdf"))
    own.setFillColor = lambda *a, **k: straight.append("own")
    pdfcolour.fill(own, colour("#000000"))
    assert straight[-1] == "own"

"""What a sheet file holds while it is drawn does not grow with the deck more than it must.

Each page's content stream is compressed when the page ends, not kept as text until the file
is saved (about 10 MB at 10,000 cards), and the widths a face remembers are bounded (a deck's
numbers and names, each measured once, no longer grow the caches with the deck). Neither may
change a byte of what is written or a width that is measured.
"""

from __future__ import annotations

import io

from reportlab.pdfgen.canvas import Canvas

from generator.impose import faces
from generator.load.project import DEFAULTS
from generator.render import fonts


class _Renderer:
    """What new_canvas reads of a FaceRenderer: its font book's default face."""

    def __init__(self, face) -> None:
        self.fonts = type("Book", (), {"default": face})()


def _pages(canvas: Canvas, face_name: str) -> bytes:
    for page in range(3):
        canvas.setFillColorRGB(0.2, 0.3, 0.4)
        canvas.rect(10, 10 + page, 100, 50, fill=1, stroke=0)
        canvas.setFont(face_name, 12)
        canvas.drawString(20, 100, f"Page {page + 1}: Deal 3 damage (é, ü)")
        canvas.showPage()
    canvas.save()
    return canvas._filename.getvalue()


def test_pages_compressed_when_they_end_are_the_bytes_reportlab_writes_at_save():
    book = fonts.fontbook(DEFAULTS / "fonts")
    face = book.chain("gothic", "regular", "en").primary
    ours = faces.new_canvas(io.BytesIO(), (300, 200), _Renderer(face), "t")
    theirs = Canvas(
        io.BytesIO(), pagesize=(300, 200), invariant=1, pageCompression=1,
        initialFontName=face.name, initialFontSize=10,
    )  # fmt: skip
    theirs.setTitle("t")
    theirs.setCreator("pnp")
    theirs.setAuthor("pnp")
    written = _pages(ours, face.name)
    assert written == _pages(theirs, face.name)
    assert written.count(b"/FlateDecode") >= 3


def test_a_page_is_compressed_when_it_ends():
    book = fonts.fontbook(DEFAULTS / "fonts")
    face = book.chain("gothic", "regular", "en").primary
    canvas = faces.new_canvas(io.BytesIO(), (300, 200), _Renderer(face), "t")
    canvas.drawString(20, 100, "one page")
    canvas.showPage()
    (page,) = canvas._doc.Pages.pages
    assert page.stream is None and isinstance(page.Contents.content, bytes)


def test_a_written_file_is_freed_without_the_cyclic_collector():
    """A saved canvas and its document are freed when dropped: nothing of pnp's makes a
    reference cycle through them (a wrapper on the document that held the document left a
    10,000-card file's 43,000 PDF objects to one collection of the cyclic collector)."""
    import gc
    import weakref

    book = fonts.fontbook(DEFAULTS / "fonts")
    face = book.chain("gothic", "regular", "en").primary
    canvas = faces.new_canvas(io.BytesIO(), (300, 200), _Renderer(face), "t")
    _pages(canvas, face.name)
    gone = weakref.ref(canvas._doc)
    was = gc.isenabled()
    gc.disable()
    try:
        del canvas
        assert gone() is None
    finally:
        if was:
            gc.enable()


def test_widths_kept_are_bounded_and_stay_right(monkeypatch):
    monkeypatch.setattr(fonts, "WIDTHS_KEPT", 50)
    book = fonts.fontbook(DEFAULTS / "fonts")
    chain = book.chain("gothic", "bold", "en")
    first = chain.width("Deal", 10)
    for n in range(500):  # a deck's card numbers, each measured once
        chain.width(f"{n}", 10)
        chain.primary.width(f"#{n}", 10)
        assert len(chain._widths) <= 50 and len(chain.primary._widths) <= 50
    assert len(chain._whole) <= 50
    assert chain.width("Deal", 10) == first  # measured again after the cache emptied
    assert chain.line_runs(["Deal", "3"]) == [(chain.primary, "Deal 3")]

"""Drawing one face on a canvas: what every writer of faces shares (sheets, tiles, print-shop
pages, gutterfold pages, faces rasterised for PNG and Tabletop Simulator)."""

from __future__ import annotations

import zlib
from collections.abc import Hashable
from pathlib import Path
from typing import BinaryIO

from reportlab import rl_config
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, Canvas

from generator.errors import ContentError
from generator.impose import grid as impose
from generator.load.shapes import Outline, clip_to
from generator.render import pdfstate
from generator.render.engine import FaceRenderer
from generator.render.pdfform import end_form
from generator.render.pdftext import Formatted
from generator.units import compose


def box(rect: impose.Rect) -> tuple[float, float, float, float]:
    """A rectangle as PDF box corners (TrimBox, BleedBox)."""
    return (rect.x, rect.y, rect.x + rect.w, rect.y + rect.h)


def new_canvas(
    path: Path | BinaryIO, size, renderer: FaceRenderer, title: str, cls: type[Canvas] = Canvas
) -> Canvas:
    """A canvas for faces; `cls` lets an export draw through a Canvas subclass (ink-saver)."""
    face = renderer.fonts.default
    # initialFontName: otherwise ReportLab puts unembedded Helvetica in every page's resources.
    canvas = cls(
        str(path) if isinstance(path, Path) else path,
        pagesize=size,
        invariant=1,
        pageCompression=1,
        initialFontName=face.name,
        initialFontSize=10,
    )
    canvas.setTitle(title)
    canvas.setCreator("pnp")
    canvas.setAuthor("pnp")
    _compress_pages_when_added(canvas)
    return canvas


class _Compressed:
    """The Flate filter of a stream compressed already: named in the stream's dictionary,
    nothing left to encode."""

    pdfname = "FlateDecode"

    @staticmethod
    def encode(data: bytes) -> bytes:
        return data


def _compress_pages_when_added(canvas: Canvas) -> None:
    """Each page's content stream compressed when the page ends rather than when the file is
    saved: ReportLab holds every page's drawing as text until `save`, about 10 MB at 10,000
    cards, where the compressed streams take a fifth of that. The same bytes are written: the
    stream ReportLab would make at save (its text as UTF-8, zlib at the default level, one
    FlateDecode filter), made earlier. The document becomes a _CompressingDocument (a class of
    its own, not a wrapper held in an attribute: a document holding a function that holds the
    document is a reference cycle, which left a 10,000-card file's 43,000 PDF objects to the
    cyclic collector, 40 ms, instead of being freed when the file is done)."""
    doc = canvas._doc
    if type(doc) is pdfdoc.PDFDocument:
        doc.__class__ = _CompressingDocument


class _CompressingDocument(pdfdoc.PDFDocument):
    """ReportLab's document, compressing each page's stream as the page is added."""

    def addPage(self, page) -> None:  # ReportLab's name and signature
        stream = page.stream
        if page.compression and stream and not page.Contents and not rl_config.useA85:
            data = stream.encode("utf8") if isinstance(stream, str) else stream
            contents = pdfdoc.PDFStream(content=zlib.compress(data), filters=[_Compressed])
            contents.__Comment__ = "page stream"
            page.Contents, page.stream = contents, None
        super().addPage(page)


# The clip and placement operators of a sheet's slots: a file places its faces at the few
# slots of its sheets, page after page.
_CLIPS = Formatted(lambda c: f"n {fp_str(*c[:4])} re {c[4]} n")  # (x, y, w, h, fill rule)
_PLACINGS = Formatted(lambda m: f"{fp_str(*m)} cm")  # a transform


def clip(canvas, rect: impose.Rect) -> None:
    """Clip to `rect`. On ReportLab's own canvas, the operator clipPath writes for a new
    rectangle path (by the canvas's fill rule), byte for byte, without the path object: every
    face and every back is clipped (tests/test_render_reuse.py holds it to the calls)."""
    if type(canvas) is Canvas:
        rule = "W*" if canvas._fillMode == FILL_EVEN_ODD else "W"
        canvas._code.append(_CLIPS[rect.x, rect.y, rect.w, rect.h, rule])
        return
    path = canvas.beginPath()
    path.rect(rect.x, rect.y, rect.w, rect.h)
    canvas.clipPath(path, stroke=0, fill=0)


def place(canvas, m: tuple) -> None:
    """`canvas.transform(*m)`. On ReportLab's own canvas after an operator other than cm (which
    it would merge with), the same matrix kept and the same operator written, without the
    call's formatting: every face is placed so."""
    code = canvas._code
    merged = code and code[-1][-3:] == " cm"
    if type(canvas) is not Canvas or not rl_canvas.ENABLE_TRACKING or merged:
        canvas.transform(*m)
        return
    canvas._currentMatrix = compose(canvas._currentMatrix, m)  # ReportLab's very products
    code.append(_PLACINGS[tuple(m)])


def draw_face(
    canvas,
    renderer,
    layout,
    ctx,
    clip_rect,
    transform,
    w,
    h,
    bleed,
    outline: Outline | None = None,
    reuse: Hashable | None = None,
) -> None:
    """Draw a face (layout over ctx), clipped to `clip_rect`, placed by `transform`; a shaped
    piece's face is also clipped to its outline grown by the bleed. A face that occurs several
    times in the file names itself with `reuse` (the same key for the same face): it is drawn
    once, as a Form XObject, and placed wherever it occurs."""
    kept = pdfstate.save(canvas)
    clip(canvas, clip_rect)
    place(canvas, transform)
    if outline is not None and not outline.is_rect:
        clip_to(canvas, outline, bleed)
    try:
        if reuse is None:
            renderer.draw(canvas, layout, ctx, w, h, bleed)
        else:
            place_form(canvas, renderer, reuse, layout, ctx, w, h, bleed)
    except ContentError as exc:
        item = ctx.get("item", {}).get("id", "the common back")
        where = renderer.layouts.files_of.get(layout, [None])[0]
        exc.message = f"{exc.message} (drawing {item} with layout {layout}, {renderer.lang})"
        exc.located(where)
        raise
    finally:
        pdfstate.restore(canvas, kept)


def draw_common_back(
    canvas, renderer, comp, layout, ctx, clip_rect, transform, w, h, bleed
) -> None:
    """A back shared by a whole component is drawn once, as a Form XObject, and reused."""
    name = f"back-{comp.id}"
    if not canvas.hasForm(name):
        canvas.beginForm(name, -bleed, -bleed, w + bleed, h + bleed)
        renderer.draw(canvas, layout, ctx, w, h, bleed)
        end_form(canvas)  # keeps the form's ExtGState (opacity in a shared back)
    if type(canvas) is Canvas:
        place_clipped(canvas, name, clip_rect, transform)
        return
    canvas.saveState()  # a canvas of an export's own (ink-saver) sees each call
    clip(canvas, clip_rect)
    canvas.transform(*transform)
    canvas.doForm(name)
    canvas.restoreState()


def place_clipped(canvas: Canvas, name: str, clip_rect: impose.Rect, transform) -> None:
    """A defined form placed by `transform`, clipped to `clip_rect`: the operators saveState,
    clip, transform, doForm and restoreState write, byte for byte, without the canvas's state
    stack (a copy of its settings per call) or a path object: none of them changes a setting
    the canvas tracks. 10,000 cards place 10,000 backs (tests/test_render_reuse.py)."""
    code = canvas._code
    code.append("q")
    clip(canvas, clip_rect)
    code.append(_PLACINGS[tuple(transform)])
    code.append(f"/{canvas._doc.getXObjectName(name)} Do")
    canvas._formsinuse.append(name)
    code.append("Q")


def place_form(canvas, renderer, reuse: Hashable, layout, ctx, w, h, bleed) -> None:
    """The face as a Form XObject at the current origin, defined the first time `reuse` is
    seen on this canvas. The form's box reaches a face's size past the bleed on each side, so
    a box drawn beyond the bleed is clipped by the page's clip, as when drawn in place."""
    forms = canvas.__dict__.setdefault("_pnp_faces", {})
    name = forms.get(reuse)
    if name is None:
        name = f"face{len(forms) + 1}"
        reach = bleed + max(w, h)
        canvas.beginForm(name, -reach, -reach, w + reach, h + reach)
        renderer.draw(canvas, layout, ctx, w, h, bleed)
        end_form(canvas)  # keeps the form's ExtGState (opacity in the face)
        forms[reuse] = name
    canvas.doForm(name)


def repeats(item) -> bool:
    """Whether an item's face occurs more than once in a file of all its copies."""
    return item.count > 1

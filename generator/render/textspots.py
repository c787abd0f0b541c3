"""Where a face's text sits, in face coordinates (points from the bottom-left): tile seams are
placed to miss it. The same walk and text layout as drawing, so the rectangles are the ink; each
box kind says where its own text is (BoxKind.spots: text boxes, repeat cells)."""

from __future__ import annotations

from generator.errors import ContentError
from generator.render.boxes import KINDS
from generator.render.boxes.base import Frame, Rect
from generator.render.engine import FaceRenderer


def text_rects(renderer: FaceRenderer, layout: str, ctx: dict, w: float, h: float) -> list[Rect]:
    return _frame(renderer, Frame(layout, ctx, w, h, 0.0, face=(w, h)))


def _frame(renderer: FaceRenderer, frame: Frame) -> list[Rect]:
    out: list[Rect] = []
    laid = renderer.lay_out(frame)
    for placed in renderer.placed(frame, laid, lambda *_: None):  # broken boxes: the checks say
        kind = KINDS[placed.box.kind]
        if kind.spots is None:
            continue
        try:
            out += kind.spots(renderer, placed, lambda cell: _frame(renderer, cell))
        except ContentError:
            continue
    return out

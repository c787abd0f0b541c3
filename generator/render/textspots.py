"""Where a face's text sits, in face coordinates (points from the bottom-left): tile seams are
placed to miss it. The same walk and text layout as drawing, so the rectangles are the ink."""

from __future__ import annotations

from generator.errors import ContentError
from generator.render.boxes.base import Frame, Rect, bounds, multiply
from generator.render.boxes.repeat import cells
from generator.render.boxes.text import extent, fit_text
from generator.render.boxes.walk import walk
from generator.render.engine import FaceRenderer


def text_rects(renderer: FaceRenderer, layout: str, ctx: dict, w: float, h: float) -> list[Rect]:
    return _frame(renderer, Frame(layout, ctx, w, h, 0.0, face=(w, h)))


def _frame(renderer: FaceRenderer, frame: Frame) -> list[Rect]:
    out: list[Rect] = []
    for placed in walk(renderer, frame, lambda *_: None):  # broken boxes: the checks say
        box = placed.box
        try:
            if box.kind == "text":
                fitted, faces = fit_text(renderer, box, placed.rect, placed.ctx)
                ink = extent(fitted, faces, box, placed.rect)
                if ink is not None:
                    out.append(bounds(multiply(frame.to_face, placed.transform), ink))
            elif box.kind == "repeat":
                for cell in cells(renderer, placed):
                    out += _frame(renderer, cell)
        except ContentError:
            continue
    return out

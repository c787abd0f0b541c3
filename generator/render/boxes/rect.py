"""`rect`: a rectangle, optionally rounded, filled and/or stroked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import Finding
from generator.load.boxes import RectBox
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxKind, Placed, paint, register

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    box, r = placed.box, placed.rect
    stroke, fill = paint(renderer, canvas, box, placed.ctx)
    if stroke or fill:
        if box.radius.points:
            canvas.roundRect(r.x, r.y, r.w, r.h, box.radius.points, stroke=stroke, fill=fill)
        else:
            canvas.rect(r.x, r.y, r.w, r.h, stroke=stroke, fill=fill)


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    return fitness.outline_near_trim(renderer, placed)


KIND = register(
    BoxKind(
        names=("rect",),
        model=RectBox,
        draw=draw,
        check=check,
        colours=("fill", "stroke"),
        keys="fill, stroke, stroke_width, dash, radius (rounded)",
    )
)

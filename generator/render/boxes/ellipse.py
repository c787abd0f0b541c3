"""`ellipse` (or `circle`): an ellipse inscribed in the box, a circle when w == h."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import Finding
from generator.load.boxes import EllipseBox
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxKind, Placed, paint, register

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    r = placed.rect
    stroke, fill = paint(renderer, canvas, placed.box, placed.ctx)
    if stroke or fill:
        canvas.ellipse(r.x, r.y, r.x + r.w, r.y + r.h, stroke=stroke, fill=fill)


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    return fitness.outline_near_trim(renderer, placed)


KIND = register(
    BoxKind(
        names=("circle", "ellipse"),
        model=EllipseBox,
        draw=draw,
        check=check,
        colours=("fill", "stroke"),
        keys="fill, stroke… (inscribed in the box)",
    )
)

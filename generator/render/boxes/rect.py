"""`rect`: a rectangle, optionally rounded, filled and/or stroked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from generator.errors import Finding
from generator.load.model import AbsLength, NonNegative
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxKind, Placed, StrokeFill, paint, register
from generator.units import Length

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


class RectBox(StrokeFill):
    kind: Literal["rect"]
    radius: Annotated[AbsLength, NonNegative] = Length(0)


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

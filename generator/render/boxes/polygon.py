"""`polygon`: points in a local `viewbox` grid, scaled into the box; closed by default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from generator.errors import Finding
from generator.limits import LIMITS
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxKind, Placed, StrokeFill, paint, register

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


_Coord = Annotated[float, Field(allow_inf_nan=False, ge=-1e6, le=1e6)]  # finite, bounded
_Side = Annotated[float, Field(allow_inf_nan=False, gt=0, le=1e6)]


class PolygonBox(StrokeFill):
    """Points are in a local grid of `viewbox` units, scaled into x, y, w, h."""

    kind: Literal["polygon"]
    points: list[tuple[_Coord, _Coord]] = Field(
        min_length=2, max_length=LIMITS.counts.layout_points
    )
    viewbox: tuple[_Side, _Side] = (100, 100)
    closed: bool = True


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    box, r = placed.box, placed.rect
    stroke, fill = paint(renderer, canvas, box, placed.ctx)
    vw, vh = box.viewbox
    path = canvas.beginPath()
    for i, (px, py) in enumerate(box.points):
        x, y = r.x + px / vw * r.w, r.y + r.h - py / vh * r.h
        path.moveTo(x, y) if i == 0 else path.lineTo(x, y)
    if box.closed:
        path.close()
    canvas.drawPath(path, stroke=stroke, fill=fill if box.closed else 0)


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    return fitness.outline_near_trim(renderer, placed)


KIND = register(
    BoxKind(
        names=("polygon",),
        model=PolygonBox,
        draw=draw,
        check=check,
        colours=("fill", "stroke"),
        keys="points in a `viewbox` grid (default 100×100) scaled into the box, closed",
    )
)

"""`line`: a line from (x, y) to (x2, y2), both measured from the top-left."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import Finding
from generator.load.boxes import LineBox
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxKind, Placed, Rect, register, stroke_style

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


def ends(placed: Placed) -> tuple[float, float, float, float]:
    """The two ends in the frame's coordinates (the box's rectangle is not used)."""
    box, w, h = placed.box, placed.frame.w, placed.frame.h
    return box.x.resolve(w), h - box.y.resolve(h), box.x2.resolve(w), h - box.y2.resolve(h)


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    stroke_style(renderer, canvas, placed.box, placed.ctx)
    canvas.line(*ends(placed))


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    x1, y1, x2, y2 = ends(placed)
    if placed.angle:  # a rotated line turns about its box's centre, as drawn
        return []
    # A rule that runs along an edge is at risk; one that runs into the edge (a fold line, a
    # grid line) is art reaching the trim, which no-bleed looks at.
    if abs(y2 - y1) < 0.01:
        edges = ("top", "bottom")
    elif abs(x2 - x1) < 0.01:
        edges = ("left", "right")
    else:
        return []
    rule = Rect(min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1))
    return fitness.near_trim(renderer, placed, rule, "a rule", frame_rect=True, edges=edges)


KIND = register(
    BoxKind(
        names=("line",),
        model=LineBox,
        draw=draw,
        check=check,
        colours=("stroke",),
        keys="x2, y2, stroke, stroke_width, dash",
    )
)

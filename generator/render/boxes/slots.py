"""`slots`: a row (or column) of N equal slots, e.g. a track or crew-cost boxes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from generator.errors import ContentError, Finding
from generator.load import templating
from generator.load.model import AbsLength, Colour, NonNegative, Positive
from generator.render.boxes import fitness
from generator.render.boxes.base import (
    BoxKind,
    Placed,
    Rect,
    StrokeFill,
    fill_colour,
    number,
    paint,
    register,
)
from generator.render.boxes.text import TextSize
from generator.units import Length

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer


class SlotsBox(StrokeFill):
    """A row (or column) of N equal slots, e.g. a track or crew-cost boxes."""

    kind: Literal["slots"]
    n: int | str = Field(description="count, or a Jinja expression giving one")
    size: Annotated[AbsLength, Positive] | None = Field(
        None, description="slot size; default fits the box"
    )
    gap: Annotated[AbsLength, NonNegative] = Length(1)
    shape: Literal["rect", "circle"] = "rect"
    radius: Annotated[AbsLength, NonNegative] = Length(0.6)
    direction: Literal["row", "column"] = "row"
    align: Literal["start", "center", "end"] = "start"
    labels: list[str] | str | None = None
    label_color: Colour = "#000000"
    label_size: TextSize | None = None


def slot_count(box: SlotsBox, ctx: dict) -> int:
    n = number(box.n, ctx, "slot count", int)
    if not 0 <= n <= 100:
        raise ContentError(f"slot count {n} is out of range 0-100", code="schema")
    return n


def slots(box: SlotsBox, r: Rect, n: int) -> list[Rect]:
    """Where each slot goes in the box."""
    row = box.direction == "row"
    along, across = (r.w, r.h) if row else (r.h, r.w)
    gap = box.gap.points
    size = box.size.points if box.size else min(across, (along - gap * (n - 1)) / n)
    used = n * size + (n - 1) * gap
    start = {"start": 0, "center": (along - used) / 2, "end": along - used}[box.align]
    out = []
    for i in range(n):
        offset = start + i * (size + gap)
        if row:
            out.append(Rect(r.x + offset, r.y + (r.h - size) / 2, size, size))
        else:
            out.append(Rect(r.x + (r.w - size) / 2, r.y + r.h - offset - size, size, size))
    return out


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    box, ctx = placed.box, placed.ctx
    n = slot_count(box, ctx)
    if n <= 0:
        return
    stroke, fill = paint(renderer, canvas, box, ctx)
    labels = box.labels
    if isinstance(labels, str):
        labels = [templating.render(labels, {**ctx, "n": i + 1}) for i in range(n)]
    for i, s in enumerate(slots(box, placed.rect, n)):
        x, y, size = s.x, s.y, s.w
        if box.shape == "circle":
            canvas.circle(x + size / 2, y + size / 2, size / 2, stroke=stroke, fill=fill)
        elif box.radius.points:
            canvas.roundRect(x, y, size, size, box.radius.points, stroke=stroke, fill=fill)
        else:
            canvas.rect(x, y, size, size, stroke=stroke, fill=fill)
        if labels and i < len(labels):
            face = renderer.fonts.label(renderer.lang)
            fs = box.label_size.points if box.label_size else size * 0.55
            fill_colour(canvas, box, renderer.text(box.label_color, ctx))
            face.draw(canvas, x + size / 2, y + size / 2 - fs * 0.35, str(labels[i]), fs, True)
            paint(renderer, canvas, box, ctx)


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    n = slot_count(placed.box, placed.ctx)
    if not n:
        return []
    cells = slots(placed.box, placed.rect, n)
    left, bottom = min(c.x for c in cells), min(c.y for c in cells)
    right, top = max(c.x + c.w for c in cells), max(c.y + c.h for c in cells)
    out = fitness.outline_near_trim(
        renderer, placed, Rect(left, bottom, right - left, top - bottom)
    )
    if placed.box.holds:
        # Each slot holds one piece: the slot, not the whole box, must take it.
        out += fitness.piece_fits(renderer, placed, cells[0].w, cells[0].w, "each slot")
    return out


KIND = register(
    BoxKind(
        names=("slots",),
        model=SlotsBox,
        draw=draw,
        check=check,
        colours=("fill", "stroke", "label_color"),
        keys='n (a number or an expression such as `"{{ cost }}"`), size, gap, shape '
        "rect/circle, direction row/column, labels, label_size; `holds` is checked per slot",
        checks_holds=True,
    )
)

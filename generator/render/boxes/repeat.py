"""`repeat`: another layout drawn once per element of a list, in a grid of cells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.errors import ContentError, Finding
from generator.limits import LIMITS, exceeded
from generator.load import templating
from generator.load.boxes import RepeatBox
from generator.render.boxes.base import BoxKind, Placed, Rect, register
from generator.render.boxes.walk import cell_frame

if TYPE_CHECKING:
    from generator.render.boxes.base import Frame
    from generator.render.engine import FaceRenderer

MAX_DEPTH = 4
MAX_ELEMENTS = 500


def cells(renderer: FaceRenderer, placed: Placed) -> list[Frame]:
    """The cells of a repeat box as frames: where each element goes, and what it sees."""
    box, r, ctx = placed.box, placed.rect, placed.ctx
    if placed.frame.depth >= MAX_DEPTH:
        raise ContentError(f"repeat boxes nested more than {MAX_DEPTH} deep", code="schema")
    elements = templating.evaluate(box.over, ctx)
    if isinstance(elements, dict):
        elements = list(elements.values())
    if not isinstance(elements, (list, tuple)):
        raise ContentError(
            f"repeat over '{box.over}' gives {type(elements).__name__}, not a list",
            code="template",
            hint="the expression must give a list",
        )
    if len(elements) > MAX_ELEMENTS:
        raise ContentError(
            f"repeat over {len(elements)} elements (limit {MAX_ELEMENTS})", code="schema"
        )
    # Cells multiply through nested repeats: the budget is on the product, per face.
    cells_here = ctx.get("_repeat_cells", 1) * max(1, len(elements))
    if cells_here > LIMITS.counts.repeat_cells:
        raise exceeded(
            f"repeat over '{box.over}': the cells (nested repeats multiplied)",
            f"{cells_here:,}",
            f"{LIMITS.counts.repeat_cells:,}",
        )
    cols = box.cols
    rows = box.rows or max(1, -(-len(elements) // cols))
    gap = box.gap.points
    cw, ch = (r.w - gap * (cols - 1)) / cols, (r.h - gap * (rows - 1)) / rows
    out = []
    for i, element in enumerate(elements[: cols * rows]):
        col, row = i % cols, i // cols
        cell = Rect(r.x + col * (cw + gap), r.y + r.h - (row + 1) * ch - row * gap, cw, ch)
        value = templating.localize(element, renderer.lang, renderer.languages)
        cell_ctx = {
            **ctx,
            "cell": value,
            "index": i,
            "count": len(elements),
            "_repeat_cells": cells_here,
        }
        # findings name the element: "rows[2]", or its id when it has one
        tag = value.get("id") if isinstance(value, dict) and value.get("id") else i
        out.append(cell_frame(placed, cell, box.layout, cell_ctx, tag))
    return out


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    for frame in cells(renderer, placed):
        canvas.saveState()
        canvas.translate(*frame.origin)
        renderer.draw_frame(canvas, frame)
        canvas.restoreState()


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    out: list[Finding] = []
    for frame in cells(renderer, placed):
        found = renderer.check_frame(frame)
        out += found
        if any(f.code == "limit" for f in found):
            break  # one budget breach is enough; the other cells would repeat it
    return out


def spots(renderer: FaceRenderer, placed: Placed, inner) -> list[Rect]:
    """The text of every cell's layout."""
    return [r for cell in cells(renderer, placed) for r in inner(cell)]


KIND = register(
    BoxKind(
        names=("repeat",),
        model=RepeatBox,
        draw=draw,
        check=check,
        spots=spots,
        keys="over (an expression giving a list), layout (drawn once per element, in its own "
        "cell), cols, rows, gap. The cell sees `cell`, `index` and `count`",
    )
)

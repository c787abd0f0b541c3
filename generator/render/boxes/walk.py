"""The one walk over a layout's boxes, shared by drawing and checking.

For each box that is shown (its `if:` holds), the walk works out its rectangle (with bleed
where the box asks for it), its rotation and its label, and gives a `Placed` to the caller:
`FaceRenderer.draw` draws it, `FaceRenderer.check` checks it. Both therefore see the same
rectangle and the same context, so what is checked is what prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from generator.errors import ContentError, Finding, rel
from generator.load import templating
from generator.render.boxes.base import (
    IDENTITY,
    Frame,
    Placed,
    Rect,
    multiply,
    number,
    rotate,
    translate,
)

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

OnError = Callable[[Frame, int, str, ContentError], None]
_EPS = 0.01


def box_rect(box, w: float, h: float, bleed: float) -> Rect:
    """The box's rectangle in a w x h frame (PDF style), grown into the bleed where it touches
    the trim and asks for `bleed: true`."""
    bx, by = box.x.resolve(w), box.y.resolve(h)
    bw, bh = box.w.resolve(w), box.h.resolve(h)
    rect = Rect(bx, h - by - bh, bw, bh)
    if box.bleed and bleed:
        if rect.x <= _EPS:
            rect.x -= bleed
            rect.w += bleed
        if rect.y <= _EPS:
            rect.y -= bleed
            rect.h += bleed
        if rect.x + rect.w >= w - _EPS:
            rect.w += bleed
        if rect.y + rect.h >= h - _EPS:
            rect.h += bleed
    return rect


def walk(renderer: FaceRenderer, frame: Frame, on_error: OnError) -> Iterator[Placed]:
    """Every shown box of `frame`'s layout, placed. A box whose placement fails (a bad `if:`
    or `rotate:`) goes to `on_error` (drawing raises, checking records a finding)."""
    for box, index, rect, angle, transform, label in places(renderer, frame, on_error):
        yield Placed(box, index, frame, rect, angle, transform, label)


def places(renderer: FaceRenderer, frame: Frame, on_error: OnError) -> Iterator[tuple]:
    """The walk itself: (box, index, rectangle, angle, transform, label) of each shown box."""
    for index, box, rect, label in _geometry(renderer, frame):
        try:
            if box.if_ is not None and not templating.evaluate(box.if_, frame.ctx):
                continue
            angle = number(box.rotate, frame.ctx, "rotate", float) % 360
        except ContentError as exc:
            on_error(frame, index, label, exc)
            continue
        transform = IDENTITY
        if angle:
            # Drawn about the box's centre: the canvas moves there and turns; a quarter turn
            # swaps the box's width and height.
            cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2
            transform = multiply(translate(cx, cy), rotate(angle))
            if angle % 180 == 90:
                rect = Rect(-rect.h / 2, -rect.w / 2, rect.h, rect.w)
            else:
                rect = Rect(-rect.w / 2, -rect.h / 2, rect.w, rect.h)
        yield box, index, rect, angle, transform, label


def _geometry(renderer: FaceRenderer, frame: Frame) -> list[tuple]:
    """(index, box, rectangle, label) of each box of the frame's layout, worked out once per
    layout, frame size, bleed and label: a box's geometry holds no template, only its `if:`
    and `rotate:` may depend on the card. The rectangles are shared: nothing changes one."""
    layout = renderer.layouts.get(frame.layout)
    key = ("walk", id(layout), frame.w, frame.h, frame.bleed, frame.label)
    hit = renderer.compiled.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    out = []
    for index, box in enumerate(layout.boxes):
        label = box.id or f"boxes[{index}]"
        if frame.label:
            label = f"{frame.label}/{label}"
        out.append((index, box, box_rect(box, frame.w, frame.h, frame.bleed), label))
    renderer.compiled[key] = (layout, out)
    return out


def raise_error(frame: Frame, index: int, label: str, exc: ContentError) -> None:
    raise exc


def box_finding(renderer: FaceRenderer, frame: Frame, index: int, label: str, exc: ContentError):
    """A problem with one box, located at the box in its layout file (or in the art file
    when the problem is there)."""
    root = renderer.content.project.root
    file, line = renderer.layouts.box_location(frame.layout, index)
    where = dict(frame.where, box=label)
    if file:
        where.update(file=rel(file, root), line=line or where.get("line"))
    return Finding.from_error(exc, prefix=f"box '{label}': ", root=root, **where)


def cell_frame(placed: Placed, cell: Rect, layout: str, ctx: dict, tag: object) -> Frame:
    """A repeat box's cell as a frame of its own (no bleed inside a cell)."""
    parent = placed.frame
    return Frame(
        layout=layout,
        ctx=ctx,
        w=cell.w,
        h=cell.h,
        bleed=0.0,
        where=parent.where,
        label=f"{placed.label}[{tag}]",
        depth=parent.depth + 1,
        to_face=multiply(multiply(parent.to_face, placed.transform), translate(cell.x, cell.y)),
        face=parent.face,
        origin=(cell.x, cell.y),
    )

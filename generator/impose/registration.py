"""Registration targets: the duplex test a player can do with the printed kit.

A duplex front page carries two targets (a circle with a cross) at the two ends of its label
strip, in the bottom margin where no face, bleed or crop mark goes; its back page carries the
same targets where the printer's flip brings them (the back sheet's own transform, offset
included). Held against a light, each back target lies over its front target when the printer
registers front and back; the distance between them is the back offset to correct.
"""

from __future__ import annotations

from generator.impose import entries
from generator.impose import grid as impose
from generator.units import MM

TARGET_R = 1.3 * MM  # the circle's radius
TARGET_ARM = 1.9 * MM  # half the cross's length: the arms poke out of the circle
TARGET_WIDTH = 0.35  # pt
TARGET_ROOM = 2 * TARGET_ARM + 1.5 * MM  # the width a target takes at a strip's end


def targets_in(strip: impose.Rect, marks: list) -> list[tuple[float, float]]:
    """Centres of two targets in the strip, the first free spot from each end (no crop mark
    within the target's room); none when the strip has no room for both."""
    if strip.h < 2 * TARGET_ARM + 0.2 * MM or strip.w < 4 * TARGET_ROOM:
        return []
    y = strip.y + min(strip.h, 3 * TARGET_ARM) / 2
    step, half = 0.5 * MM, TARGET_ROOM / 2
    out = []
    for start, sign in ((strip.x + half, 1), (strip.x + strip.w - half, -1)):
        x = start
        while abs(x - start) < strip.w / 2 - TARGET_ROOM:
            if not any(_crosses(seg, box(x, y)) for seg in marks):
                out.append((x, y))
                break
            x += sign * step
    return out if len(out) == 2 else []  # one target cannot show a turned sheet


def box(x: float, y: float) -> impose.Rect:
    """The room a target at (x, y) keeps free."""
    return impose.Rect(x - TARGET_ROOM / 2, y - TARGET_ARM, TARGET_ROOM, 2 * TARGET_ARM)


def as_marks(points: list[tuple[float, float]]) -> list:
    """The targets' rooms as upright segments, so the sheet label keeps out of them."""
    out = []
    for x, y in points:
        b = box(x, y)
        out += [(b.x, b.y, b.x, b.y + b.h), (b.x + b.w, b.y, b.x + b.w, b.y + b.h)]
    return out


def mapped(m: impose.Affine, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [impose.apply(m, x, y) for x, y in points]


def draw(canvas, points: list[tuple[float, float]]) -> None:
    """Each target: a circle and a cross through its centre, black hairlines on white."""
    if not points:
        return
    canvas.saveState()
    canvas.setLineWidth(TARGET_WIDTH)
    canvas.setStrokeColorRGB(0, 0, 0)
    for x, y in points:
        canvas.circle(x, y, TARGET_R, stroke=1, fill=0)
        canvas.line(x - TARGET_ARM, y, x + TARGET_ARM, y)
        canvas.line(x, y - TARGET_ARM, x, y + TARGET_ARM)
    canvas.restoreState()


def manifest(points: list[tuple[float, float]]) -> list[list[float]]:
    """Target centres in mm from the page's bottom-left, for the build manifest."""
    return [[entries.mm(x), entries.mm(y)] for x, y in points]


def _crosses(seg, box: impose.Rect) -> bool:
    x1, y1, x2, y2 = seg
    return not (
        max(x1, x2) < box.x
        or min(x1, x2) > box.x + box.w
        or max(y1, y2) < box.y
        or min(y1, y2) > box.y + box.h
    )

"""Fitness for the table and the print shop, judged per placed box: type large enough to read
(`text-too-small`), pieces that fit their boxes (`piece-does-not-fit`), text and thin rules
clear of the cut (`near-trim`). The kinds' checks call these; the limits are the game's
`check:` settings (model.CheckSettings)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from generator.errors import ContentError, Finding
from generator.render.boxes.base import IDENTITY, Placed, Rect, bounds, multiply
from generator.units import MM, parse_length

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

THIN_RULE = 1.0 * MM  # a stroke this wide or thinner is a rule, not a band of colour
_EPS = 0.05
# How far a text that fits may set its lines past its box: textflow lets a line, or the block,
# be 0.01 pt over its room. And a margin on top of it for the rounding of the sums.
FIT_SLACK = 0.01
_ROUNDING = 1e-6


def clear_of_trim(renderer: FaceRenderer, placed: Placed, grow: float) -> bool:
    """Whether the box's rectangle, grown by `grow` on every side, lies on the face at least the
    safe margin inside the trim on every side; then so does anything drawn within it, and no
    near-trim finding can come of it. Asked of nearly every box of every face, so worked out
    once per box and frame (a walk's rectangles are shared by all the faces of a layout and size:
    walk._geometry); a turned box (its own rectangle per face) is worked out each time."""
    rect, frame, turned = placed.rect, placed.frame, placed.transform is not IDENTITY
    key = ("clear of trim", id(rect), grow)
    if not turned:
        hit = renderer.compiled.get(key)
        if hit is not None and hit[0] is rect and hit[1] == frame.to_face and hit[2] == frame.face:
            return hit[3]
    grown = Rect(rect.x - grow, rect.y - grow, rect.w + 2 * grow, rect.h + 2 * grow)
    r = bounds(multiply(frame.to_face, placed.transform), grown)
    w, h = frame.face
    limit = renderer.content.game.check.safe_margin.points - _EPS + _ROUNDING
    clear = min(r.x, r.y, w - r.x - r.w, h - r.y - r.h) >= limit
    if not turned:  # the rectangle is kept with its answer: its id names no other meanwhile
        renderer.compiled[key] = (rect, frame.to_face, frame.face, clear)
    return clear


def _on_face(placed: Placed, rect: Rect, frame_rect: bool) -> Rect:
    m = placed.frame.to_face if frame_rect else multiply(placed.frame.to_face, placed.transform)
    return bounds(m, rect)


def _outside(r: Rect, face: tuple[float, float]) -> bool:
    """Wholly beyond the trim (in the bleed or off the face): nobody reads it on the piece."""
    w, h = face
    return r.x >= w - _EPS or r.y >= h - _EPS or r.x + r.w <= _EPS or r.y + r.h <= _EPS


def text_size(renderer: FaceRenderer, placed: Placed, size: float) -> list[Finding]:
    limit = renderer.content.game.check.min_text.points
    if size >= limit - 0.05 or _outside(placed.on_face, placed.frame.face):
        return []
    return [
        placed.finding(
            "error",
            "text-too-small",
            f"text is set at {size:.1f} pt, below the game's min_text {limit:g} pt",
            hint="shorten the text, enlarge the box or raise min_size; 6.5-7 pt reads well",
        )
    ]


def near_trim(
    renderer: FaceRenderer,
    placed: Placed,
    rect: Rect,
    what: str,
    *,
    frame_rect: bool = False,
    edges: tuple[str, ...] = ("left", "bottom", "right", "top"),
) -> list[Finding]:
    """`what` (text, a rule) inside the face but closer to the trim than the safe margin."""
    margin = renderer.content.game.check.safe_margin.points
    r = _on_face(placed, rect, frame_rect)
    face = placed.frame.face
    if _outside(r, face):
        return []
    w, h = face
    right, top, limit = w - r.x - r.w, h - r.y - r.h, margin - _EPS
    if min(r.x, r.y, right, top) >= limit:
        return []  # clear of the trim on every side: most boxes of most faces
    gaps = {"left": r.x, "bottom": r.y, "right": right, "top": top}
    close = {edge: d for edge, d in gaps.items() if d < limit and edge in edges}
    if not close:
        return []
    shown = ", ".join(f"{edge} {max(d, 0) / MM:.1f} mm" for edge, d in close.items())
    return [
        placed.finding(
            "warning",
            "near-trim",
            f"{what} within the {margin / MM:g} mm safe margin of the trim ({shown})",
            hint="move it inward: the cut may wander by a millimetre or two",
        )
    ]


def outline_near_trim(
    renderer: FaceRenderer, placed: Placed, outline: Rect | None = None
) -> list[Finding]:
    """A thin stroked outline (a border, a frame) near the cut. A side pushed out into the
    bleed is cut away on purpose and does not count. `outline`: what is stroked, in the box's
    drawing coordinates, when it is not the whole box (a row of slots)."""
    box = placed.box
    if not getattr(box, "stroke", None) or box.stroke_width.points > THIN_RULE:
        return []
    if outline is None and clear_of_trim(renderer, placed, 0.0):
        return []  # every side at least the safe margin inside the trim
    margin = renderer.content.game.check.safe_margin.points
    r = placed.on_face if outline is None else _on_face(placed, outline, False)
    face = placed.frame.face
    if _outside(r, face):
        return []
    w, h = face
    half = box.stroke_width.points / 2 + _EPS
    gaps = {"left": r.x, "bottom": r.y, "right": w - r.x - r.w, "top": h - r.y - r.h}
    close = {edge: d for edge, d in gaps.items() if -half <= d < margin - _EPS}
    if not close:
        return []
    edges = ", ".join(f"{edge} {max(d, 0) / MM:.1f} mm" for edge, d in close.items())
    return [
        placed.finding(
            "warning",
            "near-trim",
            f"a thin rule within the {margin / MM:g} mm safe margin of the trim ({edges})",
            hint="move the border inward, or make it a band that runs into the bleed",
        )
    ]


def piece(renderer: FaceRenderer, holds: str) -> tuple[float, float, str]:
    """The footprint (w, h in points) of what a box holds, and how to name it."""
    for comp in renderer.content.components:
        if comp.id == holds:
            w, h = comp.size_pt
            return w, h, f"'{holds}' ({w / MM:g}×{h / MM:g} mm)"
    try:
        size = parse_length(holds, allow_percent=False).points
    except ValueError:
        ids = [c.id for c in renderer.content.components]
        close = difflib.get_close_matches(holds, ids, n=1, cutoff=0.6)
        raise ContentError(
            f"holds '{holds}': neither a component of the game nor a size",
            code="bad-holds",
            hint=(f"did you mean '{close[0]}'? " if close else "")
            + "give a component id ("
            + ", ".join(ids)
            + ") or a size such as 8mm",
        ) from None
    return size, size, f"a {size / MM:g} mm piece"


def piece_fits(
    renderer: FaceRenderer, placed: Placed, w: float, h: float, what: str = "the box"
) -> list[Finding]:
    pw, ph, name = piece(renderer, placed.box.holds)
    c = renderer.content.game.check.clearance.points
    if (w + _EPS >= pw + c and h + _EPS >= ph + c) or (w + _EPS >= ph + c and h + _EPS >= pw + c):
        return []
    return [
        placed.finding(
            "error",
            "piece-does-not-fit",
            f"{what} is {w / MM:.1f}×{h / MM:.1f} mm; {name} plus {c / MM:g} mm clearance "
            "does not fit",
            hint=f"make it at least {(pw + c) / MM:.1f}×{(ph + c) / MM:.1f} mm, or hold a "
            "smaller piece",
        )
    ]

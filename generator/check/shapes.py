"""`pnp check` for die-cut faces: text and art must sit inside the shape's safe area.

A layout drawn for a rectangular face loses its corners when the face is cut round. The safe area is
the outline shrunk by `print.shape_safe`; a line of text with a corner outside it, or an art box
whose centre is outside it, is a finding (per item, language and box).
"""

from __future__ import annotations

from generator.errors import ContentError, Finding, rel
from generator.load.content import GameContent
from generator.load.shapes import Point
from generator.render.boxes import KINDS
from generator.render.boxes.base import Frame, bounds, multiply
from generator.render.boxes.text import extent, fit_text
from generator.render.boxes.walk import walk
from generator.render.engine import FaceRenderer
from generator.render.shaping import is_rtl as rtl_language
from generator.units import MM


def check_shapes(content: GameContent, renderer: FaceRenderer) -> list[Finding]:
    out: list[Finding] = []
    root = content.project.root
    for comp in content.components:
        outline = comp.outline
        if outline.is_rect:
            continue
        own = comp.model.print
        chosen = own if own is not None and "shape_safe" in own.model_fields_set else None
        safe = (chosen or content.game.print).shape_safe.points
        area = outline.points(grow=-safe)
        w, h = comp.size_pt
        for item in comp.items:
            where = {
                "file": rel(item.file, root),  # the component's, or its spreadsheet
                "line": item.line,
                "component": comp.id,
                "item": item.id,
                "lang": renderer.lang,
            }
            frame = Frame(item.layout, renderer.context(comp, item), w, h, 0.0, where, face=(w, h))
            for placed in walk(renderer, frame, _ignore):  # broken boxes: the render checks say
                box = placed.box
                draws = KINDS[box.kind].draws  # art and text keep inside the safe area
                if box.bleed or draws == "paint":
                    continue
                try:
                    if draws == "text":
                        fitted, faces = fit_text(renderer, box, placed.rect, placed.ctx)
                        ink = extent(fitted, faces, box, placed.rect, rtl_language(renderer.lang))
                        if ink is None:
                            continue
                        r = bounds(multiply(frame.to_face, placed.transform), ink)
                        bad = any(not _inside(area, p) for p in _corners(r))
                    else:
                        r = placed.on_face
                        bad = not _inside(area, (r.x + r.w / 2, r.y + r.h / 2))
                except ContentError:
                    continue
                if bad:
                    file, line = renderer.layouts.box_location(item.layout, placed.index)
                    finding = placed.finding(
                        "warning",
                        "outside-shape",
                        f"{draws} reaches outside the "
                        f"{outline.name}'s safe area ({safe / MM:g} mm inside the cut)",
                        hint="move it towards the centre, make it smaller, or set print.shape_safe",
                    )
                    if file:
                        finding.file, finding.line = rel(file, root), line
                    out.append(finding)
    return out


def _ignore(*_args) -> None:
    return None


def _corners(r) -> list[Point]:
    return [(r.x, r.y), (r.x + r.w, r.y), (r.x, r.y + r.h), (r.x + r.w, r.y + r.h)]


def _inside(poly: list[Point], p: Point) -> bool:
    """Point in polygon (even-odd), so concave outlines work too."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside

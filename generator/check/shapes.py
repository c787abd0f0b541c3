"""`pnp check` for die-cut faces: text and art must sit inside the shape's safe area.

A layout drawn for a square face loses its corners when the face is cut round. The safe area is
the outline shrunk by `print.shape_safe`; a line of text with a corner outside it, or an art box
whose centre is outside it, is a finding (per item, language and box).
"""

from __future__ import annotations

from generator import templating, textflow
from generator.content import GameContent
from generator.errors import ContentError, Finding, rel
from generator.render import FaceRenderer, Rect
from generator.shapes import Point


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
            ctx = renderer.context(comp, item)
            layout = renderer.layouts.get(item.layout)
            for index, box in enumerate(layout.boxes):
                try:
                    if box.if_ is not None and not templating.evaluate(box.if_, ctx):
                        continue
                    r = renderer.box_rect(box, w, h, 0)
                    if box.bleed or box.kind not in ("text", "image", "svg"):
                        continue
                    if box.kind == "text" and renderer.angle(box, ctx) % 360 == 0:
                        bad = any(
                            not _inside(area, p) for p in _text_corners(renderer, box, r, ctx)
                        )
                    else:
                        bad = not _inside(area, (r.x + r.w / 2, r.y + r.h / 2))
                except ContentError:
                    continue  # the render checks report broken boxes
                if bad:
                    file, line = renderer.layouts.box_location(item.layout, index)
                    what = "text" if box.kind == "text" else "art"
                    out.append(
                        Finding(
                            "warning",
                            "outside-shape",
                            f"box '{box.id or f'boxes[{index}]'}': {what} reaches outside the "
                            f"{outline.name}'s safe area ({safe / 72 * 25.4:g} mm inside the cut)",
                            file=rel(file, root) if file else rel(comp.file, root),
                            line=line,
                            hint="move it towards the centre, make it smaller, or set "
                            "print.shape_safe",
                            component=comp.id,
                            item=item.id,
                            lang=renderer.lang,
                            box=box.id or f"boxes[{index}]",
                        )
                    )
    return out


def _text_corners(renderer: FaceRenderer, box, r: Rect, ctx) -> list[Point]:
    """The corners of each laid-out line of text (as the renderer places them)."""
    fitted, faces = renderer.fit_text(box, r, ctx)
    size, pad, face = fitted.size, box.padding.points, faces["regular"]
    block = textflow.block_height(len(fitted.lines), size, box.leading, face)
    inner_h = r.h - 2 * pad
    offset = {"top": 0, "middle": (inner_h - block) / 2, "bottom": inner_h - block}[box.valign]
    top = r.y + r.h - pad - offset
    out: list[Point] = []
    for n, line in enumerate(fitted.lines):
        width = line.width1 * size
        room = r.w - 2 * pad - width
        x = r.x + pad + {"left": 0, "center": room / 2, "right": room}[box.align]
        y1 = top - n * size * box.leading
        y0 = y1 - size  # one em: ascent plus descent, near enough for a safe-area test
        out += [(x, y0), (x + width, y0), (x, y1), (x + width, y1)]
    return out


def _inside(poly: list[Point], p: Point) -> bool:
    """Point in polygon (even-odd), so concave outlines work too."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside

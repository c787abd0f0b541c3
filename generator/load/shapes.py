"""Die-cut shapes: the outline a face is cut along, in face coordinates (points, origin at the
face's bottom-left, the face's size box).

One `Outline` drives everything downstream: the bleed (the outline grown by the bleed), the cut
line and die line (the outline itself), the clip of figures and previews, the packing (how far
the outline reaches in a direction) and the build manifest (the outline on the sheet).
Circles and ellipses stay exact Bezier curves in the PDF; `points()` gives a polygon close to
them for geometry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from generator.units import MM

Point = tuple[float, float]
Affine = tuple[float, float, float, float, float, float]
CIRCLE_STEPS = 96  # polygon stand-in for a circle: 0.05% radial error at 96 sides


@dataclass(frozen=True)
class Outline:
    """A closed outline inscribed in a w x h face box."""

    kind: str  # rect | ellipse | polygon
    w: float
    h: float
    radius: float = 0.0  # rect corners
    vertices: tuple[Point, ...] = field(default=())  # polygon, counter-clockwise
    name: str = "rect"  # what the designer asked for: rect, circle, hexagon, octagon...
    shares_cuts: bool = True  # neighbours may abut along one cut (rect, hex); circles may not

    @property
    def is_rect(self) -> bool:
        return self.kind == "rect" and self.radius <= 0

    @property
    def centre(self) -> Point:
        return self.w / 2, self.h / 2

    def points(self, grow: float = 0.0) -> list[Point]:
        """The outline (grown outwards by `grow`) as a counter-clockwise polygon."""
        cx, cy = self.centre
        if self.kind == "ellipse":
            rx, ry = self.w / 2 + grow, self.h / 2 + grow
            return [
                (
                    cx + rx * math.cos(2 * math.pi * i / CIRCLE_STEPS),
                    cy + ry * math.sin(2 * math.pi * i / CIRCLE_STEPS),
                )
                for i in range(CIRCLE_STEPS)
            ]
        if self.kind == "rect":
            r = min(self.radius, self.w / 2, self.h / 2)
            x0, y0, x1, y1 = -grow, -grow, self.w + grow, self.h + grow
            if r <= 0:
                return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            rr, out = r + grow, []
            corners = [
                (x1 - rr, y0 + rr, -90),
                (x1 - rr, y1 - rr, 0),
                (x0 + rr, y1 - rr, 90),
                (x0 + rr, y0 + rr, 180),
            ]
            for ccx, ccy, start in corners:
                for k in range(9):
                    a = math.radians(start + 90 * k / 8)
                    out.append((ccx + rr * math.cos(a), ccy + rr * math.sin(a)))
            return out
        return offset_polygon(list(self.vertices), grow)

    def add_to_path(self, path, grow: float = 0.0) -> None:
        """Append the outline to a ReportLab path: exact curves for circles and round corners."""
        if self.kind == "ellipse":
            path.ellipse(-grow, -grow, self.w + 2 * grow, self.h + 2 * grow)
        elif self.kind == "rect" and self.radius > 0:
            r = min(self.radius, self.w / 2, self.h / 2) + grow
            path.roundRect(-grow, -grow, self.w + 2 * grow, self.h + 2 * grow, r)
        elif self.kind == "rect":
            path.rect(-grow, -grow, self.w + 2 * grow, self.h + 2 * grow)
        else:
            pts = self.points(grow)
            path.moveTo(*pts[0])
            for p in pts[1:]:
                path.lineTo(*p)
            path.close()

    def reach(self, dx: float, dy: float) -> float:
        """Distance from the centre to the outline along the direction (dx, dy)."""
        n = math.hypot(dx, dy) or 1.0
        ux, uy = dx / n, dy / n
        if self.kind == "ellipse":
            a, b = self.w / 2, self.h / 2
            if (ux and a == 0) or (uy and b == 0):
                return 0.0  # flattened to a line (or a point): nothing reaches off it
            x, y = (ux / a if ux else 0.0), (uy / b if uy else 0.0)
            try:
                return 1.0 / math.sqrt(x**2 + y**2)
            except OverflowError:  # a semi-axis like 1e-190 mm: its inverse's square is too big
                return 1.0 / math.hypot(x, y)
        cx, cy = self.centre
        pts = self.points()
        best = 0.0
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True):
            hit = _ray_segment((cx, cy), (ux, uy), (x1, y1), (x2, y2))
            if hit is not None:
                best = max(best, hit)
        return best

    def manifest(self, m: Affine) -> dict:
        """The outline on the sheet (mm from the page's bottom-left), for the build manifest."""
        a, b, c, d, e, f = m
        cx, cy = self.centre
        sx, sy = a * cx + c * cy + e, b * cx + d * cy + f
        turned = abs(b) > 0.5
        out: dict = {"kind": self.name}
        if self.kind == "ellipse":
            rx, ry = (self.h / 2, self.w / 2) if turned else (self.w / 2, self.h / 2)
            if abs(rx - ry) < 1e-6:
                out.update(cx=_mm(sx), cy=_mm(sy), r=_mm(rx))
            else:
                out.update(cx=_mm(sx), cy=_mm(sy), rx=_mm(rx), ry=_mm(ry))
        elif self.kind == "rect":
            w, h = (self.h, self.w) if turned else (self.w, self.h)
            out.update(x=_mm(sx - w / 2), y=_mm(sy - h / 2), w=_mm(w), h=_mm(h))
            if self.radius > 0:
                out["radius"] = _mm(self.radius)
        else:
            out["points"] = [
                [_mm(a * x + c * y + e), _mm(b * x + d * y + f)] for x, y in self.points()
            ]
        return out


def clip_to(canvas, outline: Outline, bleed: float) -> None:
    """Clip a face being drawn (face coordinates) to its outline grown by the bleed: the bleed
    follows the shape. A plain rectangle needs no clip of its own."""
    if outline.is_rect:
        return
    path = canvas.beginPath()
    outline.add_to_path(path, grow=bleed)
    canvas.clipPath(path, stroke=0, fill=0)


def _mm(v: float) -> float:
    return round(v / MM, 3)


def _ray_segment(o: Point, u: Point, p: Point, q: Point) -> float | None:
    """Distance along the ray o + t*u (t >= 0) to segment pq, or None."""
    ex, ey = q[0] - p[0], q[1] - p[1]
    den = u[0] * ey - u[1] * ex
    if abs(den) < 1e-12:
        return None
    wx, wy = p[0] - o[0], p[1] - o[1]
    t = (wx * ey - wy * ex) / den
    s = (wx * u[1] - wy * u[0]) / den
    return t if t >= -1e-9 and -1e-9 <= s <= 1 + 1e-9 else None


def offset_polygon(pts: list[Point], grow: float) -> list[Point]:
    """Each edge moved outwards by `grow`, corners mitred (a counter-clockwise polygon)."""
    if not grow:
        return list(pts)
    n, out = len(pts), []
    for i in range(n):
        p0, p1, p2 = pts[i - 1], pts[i], pts[(i + 1) % n]
        n1, n2 = _normal(p0, p1), _normal(p1, p2)
        bx, by = n1[0] + n2[0], n1[1] + n2[1]
        dot = bx * n1[0] + by * n1[1]  # 1 + cos(turn): the mitre length is grow / that * |b|
        k = grow / dot if dot > 1e-9 else grow
        out.append((p1[0] + bx * k, p1[1] + by * k))
    return out


def _normal(p: Point, q: Point) -> Point:
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy) or 1.0
    return dy / n, -dx / n  # outward for a counter-clockwise polygon


def regular_polygon(sides: int, w: float, h: float, pointy: bool) -> tuple[Point, ...]:
    """A regular polygon stretched to fill w x h exactly (regular when the box has its ratio).

    Flat-top: an edge along the top and the bottom; pointy-top: a vertex at the top.
    """
    start = math.pi / 2 if pointy else math.pi / 2 + math.pi / sides
    raw = [
        (math.cos(start + 2 * math.pi * i / sides), math.sin(start + 2 * math.pi * i / sides))
        for i in range(sides)
    ]
    xs, ys = [p[0] for p in raw], [p[1] for p in raw]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    return tuple(((x - x0) / (x1 - x0) * w, (y - y0) / (y1 - y0) * h) for x, y in raw)


def regular_box(sides: int, across_flats: float, pointy: bool) -> tuple[float, float]:
    """The w x h box of a regular polygon with the given distance between opposite flats."""
    circum = across_flats / 2 / math.cos(math.pi / sides)
    start = math.pi / 2 if pointy else math.pi / 2 + math.pi / sides
    xs = [circum * math.cos(start + 2 * math.pi * i / sides) for i in range(sides)]
    ys = [circum * math.sin(start + 2 * math.pi * i / sides) for i in range(sides)]
    return max(xs) - min(xs), max(ys) - min(ys)


POLYGON_NAMES = {3: "triangle", 4: "diamond", 5: "pentagon", 6: "hexagon", 8: "octagon"}
NAMED_SIDES = {"triangle": 3, "pentagon": 5, "hexagon": 6, "octagon": 8}


def outline_of(spec, size: tuple[float, float]) -> Outline:
    """The outline a component's `shape:` (a model.ShapeSpec, or None) gives a face of `size`."""
    w, h = size
    if spec is None:
        return Outline("rect", w, h)
    kind = spec.kind
    if kind == "rect":
        radius = spec.radius.points
        return Outline("rect", w, h, radius=radius, name="rect" if radius <= 0 else "rounded-rect")
    if kind in ("circle", "ellipse"):
        return Outline(
            "ellipse", w, h, name="circle" if abs(w - h) < 1e-6 else "ellipse", shares_cuts=False
        )
    if kind == "polygon" and spec.points:
        vw, vh = spec.viewbox
        pts = [(x / vw * w, (vh - y) / vh * h) for x, y in spec.points]  # y down in the viewbox
        if _area(pts) < 0:
            pts.reverse()
        return Outline("polygon", w, h, vertices=tuple(pts), name="polygon", shares_cuts=False)
    sides = NAMED_SIDES.get(kind, spec.sides or 6)
    pointy = spec.orientation == "pointy"
    verts = regular_polygon(sides, w, h, pointy)
    # Hexagons tile without gaps: neighbours can share one cut.
    name = POLYGON_NAMES.get(sides, f"{sides}-gon")
    return Outline("polygon", w, h, vertices=verts, name=name, shares_cuts=sides == 6)


def _area(pts: list[Point]) -> float:
    return (
        sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True))
        / 2
    )


def clip_convex(poly: list[Point], a: float, b: float, c: float) -> list[Point]:
    """Keep the part of a convex polygon where a*x + b*y <= c (Sutherland-Hodgman, one side)."""
    out: list[Point] = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out

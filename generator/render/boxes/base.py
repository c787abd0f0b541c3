"""What every box kind shares: the base model, the registry, the geometry a walk gives.

A kind is one module (text.py, rect.py, ...) that defines its pydantic model, a `draw` and
optionally a `check`, and registers them once with `register(BoxKind(...))`. The walker
(walk.py) gives both `draw` and `check` the same `Placed` box: one rectangle, one context.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from reportlab.lib import colors

from generator.errors import ContentError, Finding
from generator.load import templating
from generator.load.boxes import BoxBase
from generator.render import pdfcolour
from generator.units import compose

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

Matrix = tuple[float, float, float, float, float, float]  # PDF-style affine: a b c d e f
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


# ---------------------------------------------------------------- models


# ---------------------------------------------------------------- geometry


@dataclass
class Rect:
    x: float
    y: float  # bottom, PDF style
    w: float
    h: float


# m then n: the transform of a point first by n, then by m (canvas order). One affine
# product for the whole engine: imposition's.
multiply = compose


def translate(dx: float, dy: float) -> Matrix:
    return (1.0, 0.0, 0.0, 1.0, dx, dy)


def rotate(degrees: float) -> Matrix:
    t = math.radians(degrees)
    return (math.cos(t), math.sin(t), -math.sin(t), math.cos(t), 0.0, 0.0)


def bounds(m: Matrix, r: Rect) -> Rect:
    """The axis-aligned rectangle around `r` transformed by `m`."""
    a, b, c, d, e, f = m
    x0, y0 = r.x, r.y
    x1, y1 = x0 + r.w, y0 + r.h
    # the four corners, each coordinate as a * x + c * y + e (b * x + d * y + f): every face
    # check asks this of each box, so the products are worked out once each
    ax0, ax1, cy0, cy1 = a * x0, a * x1, c * y0, c * y1
    bx0, bx1, dy0, dy1 = b * x0, b * x1, d * y0, d * y1
    xs = (ax0 + cy0 + e, ax1 + cy0 + e, ax0 + cy1 + e, ax1 + cy1 + e)
    ys = (bx0 + dy0 + f, bx1 + dy0 + f, bx0 + dy1 + f, bx1 + dy1 + f)
    left, bottom = min(xs), min(ys)
    return Rect(left, bottom, max(xs) - left, max(ys) - bottom)


@dataclass(frozen=True)
class Frame:
    """Where a layout is drawn: the face itself, or one cell of a repeat box."""

    layout: str
    ctx: dict
    w: float
    h: float
    bleed: float  # how far the frame's edges continue past the trim (0 inside a cell)
    where: dict = field(default_factory=dict)  # finding fields: file, line, component, item...
    label: str = ""  # the box path of the enclosing repeat cell; "" on the face
    depth: int = 0
    to_face: Matrix = IDENTITY  # this frame's coordinates -> the face's (points from bottom-left)
    face: tuple[float, float] = (0.0, 0.0)  # the face's trim size
    origin: tuple[float, float] = (0.0, 0.0)  # a cell's corner in its repeat box's drawing


@dataclass
class Placed:
    """One box of one frame, as the walk gives it to a kind's draw and check."""

    box: Any
    index: int
    frame: Frame
    rect: Rect  # where to draw, in the canvas after `transform` (centred when rotated)
    angle: float
    transform: Matrix  # frame -> drawing coordinates (translate and rotate about the centre)
    label: str  # "title", "boxes[3]", "rows[2]/cost"
    spot: Any = None  # the face layout's record of this box (engine.Spot): what a kind laid out

    @property
    def ctx(self) -> dict:
        return self.frame.ctx

    @property
    def on_face(self) -> Rect:
        """The box's rectangle on the face (rotation and repeat cells included)."""
        return bounds(multiply(self.frame.to_face, self.transform), self.rect)

    def finding(self, severity: str, code: str, message: str, hint: str | None = None) -> Finding:
        where = {k: v for k, v in self.frame.where.items() if k in _FINDING_FIELDS}
        return Finding(
            severity, code, f"box '{self.label}': {message}", hint=hint, box=self.label, **where
        )


_FINDING_FIELDS = {"file", "line", "component", "item", "lang", "game"}


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class BoxKind:
    """One kind of box: the `kind:` values it answers to, its model, how to draw and check it."""

    names: tuple[str, ...]
    model: type[BoxBase]
    draw: Callable[[FaceRenderer, Any, Placed], None]
    keys: str  # the box table (docs/layouts.md): what the kind takes besides the common keys
    check: Callable[[FaceRenderer, Placed], list[Finding]] | None = None
    colours: tuple[str, ...] = ()  # fields holding colours: `pnp check` parses each one
    checks_holds: bool = False  # its check judges `holds` itself (slots: per slot)
    # What it draws: "paint" (fills and strokes), "art" (images) or "text". Ink-saver sheets
    # lighten large paint, wash art out and keep text (a box's `ink:` key may say otherwise);
    # on a shaped face, art and text keep inside the cut's safe area.
    draws: Literal["paint", "art", "text"] = "paint"
    # Where its text sits on the face (tile seams miss it): the box's text rectangles, given
    # the placed box and a function giving those of a frame it draws inside (repeat cells).
    spots: Callable[[FaceRenderer, Placed, Callable[[Frame], list[Rect]]], list[Rect]] | None = None


KINDS: dict[str, BoxKind] = {}
ORDER: list[BoxKind] = []


def register(kind: BoxKind) -> BoxKind:
    for name in kind.names:
        if name in KINDS:
            raise RuntimeError(f"box kind '{name}' is registered twice")
        KINDS[name] = kind
    ORDER.append(kind)
    return kind


# ---------------------------------------------------------------- shared drawing helpers


@lru_cache(maxsize=512)
def colour(value: str) -> Any:
    try:
        if not isinstance(value, str):
            raise ValueError
        return colors.toColor(value.strip())
    except (ValueError, AttributeError, AssertionError, TypeError, IndexError):
        raise ContentError(
            f"'{value}' is not a colour",
            code="bad-colour",
            hint="use #rrggbb, #rgb or a CSS colour name",
        ) from None


def fill_colour(canvas: Any, box: Any, value: str) -> None:
    # setFillColor resets the alpha to the colour's own, so the box's opacity goes after it.
    pdfcolour.fill(canvas, colour(value))
    if box.opacity < 1:
        canvas.setFillAlpha(box.opacity)


def stroke_style(renderer: FaceRenderer, canvas: Any, box: Any, ctx: dict) -> None:
    canvas.setStrokeColor(colour(renderer.text(box.stroke, ctx)))
    if box.opacity < 1:
        canvas.setStrokeAlpha(box.opacity)
    canvas.setLineWidth(box.stroke_width.points)
    if box.dash:
        canvas.setDash(box.dash)


def paint(renderer: FaceRenderer, canvas: Any, box: Any, ctx: dict) -> tuple[int, int]:
    """Set the box's fill and stroke; (stroke, fill) flags for ReportLab's shape calls."""
    fill = stroke = 0
    if getattr(box, "fill", None):
        fill_colour(canvas, box, renderer.text(box.fill, ctx))
        fill = 1
    if getattr(box, "stroke", None):
        stroke_style(renderer, canvas, box, ctx)
        stroke = 1
    return stroke, fill


def number(value: Any, ctx: dict, what: str, cast: Callable[[Any], Any]) -> Any:
    """A box setting that is a number or an expression giving one (a rotation, a slot count)."""
    if not isinstance(value, str):
        return cast(value)
    result = templating.evaluate(value, ctx)
    try:
        number = cast(result)
    except (TypeError, ValueError, OverflowError):
        raise ContentError(
            f"{what} '{value}' gives {result!r}, not a number", code="template"
        ) from None
    if not math.isfinite(number) or abs(number) > 1e6:  # NaN must never reach a PDF
        raise ContentError(
            f"{what} '{value}' gives {result!r}, not a usable number", code="template"
        )
    return number


def fit(src_w: float, src_h: float, r: Rect, mode: str) -> tuple[float, float, float, float]:
    """Place a src_w x src_h picture in r: contain, cover or stretch."""
    if mode == "stretch":
        return r.x, r.y, r.w, r.h
    scale = (min if mode == "contain" else max)(r.w / src_w, r.h / src_h)
    w, h = src_w * scale, src_h * scale
    return r.x + (r.w - w) / 2, r.y + (r.h - h) / 2, w, h

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
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field
from reportlab.lib import colors

from generator.errors import ContentError, Finding
from generator.impose.grid import compose
from generator.load import templating
from generator.load.model import AbsLength, Angle, Colour, DashLength, LengthT, Strict, Stroke
from generator.units import Length

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

Matrix = tuple[float, float, float, float, float, float]  # PDF-style affine: a b c d e f
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


# ---------------------------------------------------------------- models


class BoxBase(Strict):
    id: str | None = None
    x: LengthT = Length(0)
    y: LengthT = Length(0)
    w: LengthT = Length(fraction=1.0)
    h: LengthT = Length(fraction=1.0)
    if_: str | None = Field(
        None, alias="if", description="Jinja expression; the box is drawn only when true"
    )
    rotate: Angle | str = Field(
        0, description="degrees counter-clockwise about the box centre, or an expression"
    )
    bleed: bool = Field(
        False, description="extend the box into the bleed on the sides where it touches the trim"
    )
    opacity: float = Field(1.0, ge=0, le=1)
    ink: Literal["auto", "keep", "lighten", "drop"] = Field(
        "auto",
        description="ink-saver sheets: auto lightens large fills and art, keep leaves the box "
        "as it is, lighten always tints it, drop leaves it out",
    )
    holds: str | None = Field(
        None,
        description="what the players put in this box: a component id of the game (its size "
        "is the piece) or a size such as '8mm' (a cube the players bring); "
        "`pnp check` says when the piece plus the clearance does not fit",
    )


class StrokeFill(BoxBase):
    fill: Colour | None = None
    stroke: Colour | None = None
    stroke_width: Annotated[AbsLength, Stroke] = Length(0.5)
    dash: list[DashLength] | None = Field(None, max_length=20)


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
    xs, ys = [], []
    for px, py in ((r.x, r.y), (r.x + r.w, r.y), (r.x, r.y + r.h), (r.x + r.w, r.y + r.h)):
        xs.append(a * px + c * py + e)
        ys.append(b * px + d * py + f)
    return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


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
    canvas.setFillColor(colour(value))
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

"""The layout schema: what a layout file may say, every box kind's keys, as pydantic models.

A kind's model (its keys and their checks) is here, where the loader validates layouts; what
the kind does (draw it, check it on a face) is its module in generator/render/boxes/, which
registers the model with its behaviour (render/boxes/base.register). A new kind is one model
here (added to MODELS and its `kind:` names to BOX_KINDS) and one module there; importing the
render package checks that the two agree.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import or_
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema

from generator.limits import LIMITS
from generator.load.model import (
    AbsLength,
    Angle,
    Colour,
    DashLength,
    LangText,
    LengthT,
    NonNegative,
    Positive,
    Strict,
    Stroke,
    TypeSizeRange,
)
from generator.units import Length, parse_length


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

    def nested_layout(self) -> str | None:
        """The layout this box draws inside itself (a repeat's cells), or None."""
        return None


class StrokeFill(BoxBase):
    fill: Colour | None = None
    stroke: Colour | None = None
    stroke_width: Annotated[AbsLength, Stroke] = Length(0.5)
    dash: list[DashLength] | None = Field(None, max_length=20)


_UNIT = re.compile(r"[a-z%]\s*$")


def text_size(value: Any) -> Length:
    """A type size: 8pt or 3mm. A bare number would be millimetres like every other length,
    which for type is nearly always a mistake (size: 8 meaning 8 pt, drawn 23 pt tall)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError(f"a bare number as a text size is ambiguous ({value!r}): write 8pt or 3mm")
    if isinstance(value, str) and value.strip() and not _UNIT.search(value.strip()):
        raise ValueError(f"a bare number as a text size is ambiguous ({value!r}): write 8pt or 3mm")
    return parse_length(value, allow_percent=False)


TextSize = Annotated[
    Length,
    BeforeValidator(text_size),
    TypeSizeRange,
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\d*\.?\d+\s*(mm|cm|in|pt)$",
            "description": "a type size with its unit: 8pt or 3mm",
        }
    ),
]


class TextBox(BoxBase):
    kind: Literal["text"]
    text: LangText
    font: str = "gothic"
    style: Literal["regular", "bold", "black"] = "regular"
    size: TextSize = Length(10)
    min_size: TextSize | None = None
    leading: float = Field(1.2, gt=0.5, le=3)
    color: Colour = "#000000"
    # start/end follow the language's direction: start is left, or right in Arabic and Hebrew
    align: Literal["start", "end", "left", "center", "right"] = "start"
    valign: Literal["top", "middle", "bottom"] = "top"
    wrap: bool = True
    padding: Annotated[AbsLength, NonNegative] = Length(0)


class RectBox(StrokeFill):
    kind: Literal["rect"]
    radius: Annotated[AbsLength, NonNegative] = Length(0)


class EllipseBox(StrokeFill):
    """An ellipse inscribed in x, y, w, h (a circle when w == h)."""

    kind: Literal["ellipse", "circle"]


class LineBox(BoxBase):
    kind: Literal["line"]
    x2: LengthT
    y2: LengthT
    stroke: Colour = "#000000"
    stroke_width: Annotated[AbsLength, Stroke] = Length(0.5)
    dash: list[DashLength] | None = Field(None, max_length=20)


_Coord = Annotated[float, Field(allow_inf_nan=False, ge=-1e6, le=1e6)]  # finite, bounded
_Side = Annotated[float, Field(allow_inf_nan=False, gt=0, le=1e6)]


class PolygonBox(StrokeFill):
    """Points are in a local grid of `viewbox` units, scaled into x, y, w, h."""

    kind: Literal["polygon"]
    points: list[tuple[_Coord, _Coord]] = Field(
        min_length=2, max_length=LIMITS.counts.layout_points
    )
    viewbox: tuple[_Side, _Side] = (100, 100)
    closed: bool = True


class ImageBox(BoxBase):
    kind: Literal["image", "svg"]
    src: str
    fit: Literal["contain", "cover", "stretch"] = "contain"
    params: dict[str, str] = Field(
        {}, description="extra variables for an SVG template (values may be templates)"
    )


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


class RepeatBox(BoxBase):
    """Draw another layout once per element of a list, in a grid of cells filling the box.

    Each cell sees the item's data plus `cell` (the element), `index` (from 0) and `count`.
    """

    kind: Literal["repeat"]
    over: str = Field(description="expression giving a list, e.g. 'units[unit].abilities'")
    layout: str = Field(description="the layout drawn in each cell")
    cols: int = Field(1, ge=1, le=50)
    rows: int | None = Field(None, ge=1, le=50, description="default: as many as the list needs")
    gap: Annotated[AbsLength, NonNegative] = Length(0)

    def nested_layout(self) -> str | None:
        return self.layout


# The models in the order of the README's box table, and every `kind:` value they answer to.
MODELS = (TextBox, RectBox, EllipseBox, LineBox, PolygonBox, ImageBox, SlotsBox, RepeatBox)
BOX_KINDS: list[str] = [
    "text",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polygon",
    "image",
    "svg",
    "slots",
    "repeat",
]
Box: Any = Annotated[reduce(or_, MODELS), Field(discriminator="kind")]


class Layout(Strict):
    extends: str | None = None
    description: str | None = None
    background: Colour | None = Field(None, description="fills the face and its bleed")
    background_ink: Literal["lighten", "keep", "drop"] = Field(
        "lighten", description="ink-saver sheets: what becomes of the background"
    )
    boxes: list[Box] = Field(default_factory=list)


COMMON_KEYS = [
    name
    for name, info in ((info.alias or name, info) for name, info in BoxBase.model_fields.items())
]

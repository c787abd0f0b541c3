"""The typed content model. Every class forbids unknown keys so typos are errors.

Text that players read is `LangText`: a plain string, or one string per language
({es: ..., ko: ..., en: ...}). Any string may be a Jinja template over the item's data.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from generator.limits import LIMITS
from generator.load import languages
from generator.load.export_options import EXPORT_FORMATS, ExportEntry
from generator.load.languages import LANG_CODE
from generator.load.strict import STRICT
from generator.units import MM, Length, parse_length

ID_RE = r"^[a-z0-9][a-z0-9_-]*$"
LANG_RE = LANG_CODE  # BCP 47 language tags: one definition (languages.py)
MAX_COUNT = 1000  # copies of one item; anything above is a typo, not a print run


class Strict(BaseModel):
    model_config = STRICT  # unknown keys are errors; validators are built on first use


def fingerprint(value: Any) -> str:
    """A canonical text of a model's values, for build keys. Unlike model_dump_json it needs no
    serializer, so a build whose content comes from the cache never builds one."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"))


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)  # Length and other small value types: their repr is their value


def _lang_text(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        bad = [k for k in value if not isinstance(k, str) or not LANG_RE.fullmatch(k)]
        if bad:
            raise ValueError(
                f"text per language needs language tags as keys (es, ko, en, pt-BR), got {bad[0]!r}"
            )
        for k, v in value.items():
            if not isinstance(v, (str, int, float)) or isinstance(v, bool):
                raise ValueError(f"text for '{k}' must be a string")
        return {k: str(v) for k, v in value.items()}
    return value


LangText = Annotated[str | dict[str, str], BeforeValidator(_lang_text)]
_LENGTH_SCHEMA = {
    "anyOf": [
        {"type": "number", "description": "millimetres"},
        {"type": "string", "pattern": r"^-?\d*\.?\d+\s*(mm|cm|in|pt|%)?$"},
    ],
    "description": "a length: 3mm, 0.25in, 10pt, 50% (of the face); bare numbers are mm",
}
LengthT = Annotated[Length, BeforeValidator(parse_length), WithJsonSchema(_LENGTH_SCHEMA)]
AbsLength = Annotated[
    Length,
    BeforeValidator(lambda v: parse_length(v, allow_percent=False)),
    WithJsonSchema(_LENGTH_SCHEMA),
]


def within(
    low: float | None = None, high: float | None = None, *, above: bool = False, unit: str = "mm"
):
    """A range for an absolute length (budgets in limits.yaml): `above` makes `low` exclusive."""
    scale = MM if unit == "mm" else 1.0

    def check(value: Length) -> Length:
        if value.fraction is not None:
            return value
        v = value.points / scale
        too_low = low is not None and (v <= low if above else v < low)
        if too_low or (high is not None and v > high):
            lo = "" if low is None else f"{'more than' if above else 'at least'} {low:g} {unit}"
            hi = "" if high is None else f"at most {high:g} {unit}"
            raise ValueError(
                f"{v:g} {unit} is out of range: {' and '.join(filter(None, [lo, hi]))}"
            )
        return value

    return AfterValidator(check)


Positive = within(0, above=True)
NonNegative = within(0)
TypeSizeRange = within(
    LIMITS.lengths.text_size_pt_min, LIMITS.lengths.text_size_pt_max, above=True, unit="pt"
)
Stroke = within(0, LIMITS.lengths.stroke_max)
FaceSide = within(LIMITS.lengths.face_min, LIMITS.lengths.face_max)
Angle = Annotated[float, Field(ge=-LIMITS.angles.max_abs_deg, le=LIMITS.angles.max_abs_deg)]
DashLength = Annotated[float, Field(gt=0, le=1000)]
Coord = Annotated[float, Field(allow_inf_nan=False, ge=-1e6, le=1e6)]  # a point in a viewbox
ViewSide = Annotated[float, Field(allow_inf_nan=False, gt=0, le=1e6)]
Colour = str  # "#rrggbb", "#rgb", a CSS name, or a Jinja template that gives one
Id = Annotated[str, Field(pattern=ID_RE, max_length=64)]


def polygon_problem(points, viewbox) -> str | None:
    """Why a closed outline cannot be cut: no area (all points on a line, or repeated), or an
    edge crossing another (a bow tie). None when it is a simple polygon."""
    pts = [(float(x), float(y)) for x, y in points]
    n = len(pts)
    area = sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n))
    if abs(area) / 2 <= 1e-6 * viewbox[0] * viewbox[1]:
        return "has no area (its points are on one line)"

    def orient(a, b, c) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    edges = [(pts[i], pts[(i + 1) % n]) for i in range(n)]
    boxes = [(min(a[0], b[0]), max(a[0], b[0]), min(a[1], b[1]), max(a[1], b[1])) for a, b in edges]
    for i in range(n):
        a, b = edges[i]
        bi = boxes[i]
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closing edge
            bj = boxes[j]
            if bi[1] < bj[0] or bj[1] < bi[0] or bi[3] < bj[2] or bj[3] < bi[2]:
                continue
            c, d = edges[j]
            d1, d2 = orient(a, b, c), orient(a, b, d)
            d3, d4 = orient(c, d, a), orient(c, d, b)
            if ((d1 > 0) != (d2 > 0) and d1 and d2) and ((d3 > 0) != (d4 > 0) and d3 and d4):
                return f"crosses itself (edge {i + 1} crosses edge {j + 1})"
    return None


# ---------------------------------------------------------------- layouts
# Layouts and their box kinds live in generator/render/boxes/ (one module per kind).


# ---------------------------------------------------------------- content


_OFFSET = within(-LIMITS.lengths.offset_max, LIMITS.lengths.offset_max)


class Offset(Strict):
    x: Annotated[AbsLength, _OFFSET] = Length(0)
    y: Annotated[AbsLength, _OFFSET] = Length(0)


# what a component's `items:` may name instead of listing its items (load/sheets.py reads them)
SHEET_SUFFIXES = (".csv", ".xlsx", ".xlsm", ".xls", ".ods")


def is_sheet_ref(value: Any) -> bool:
    """Whether a component's `items:` names a spreadsheet rather than listing items."""
    if not isinstance(value, str):
        return False
    name = value.split("#", 1)[0].strip().lower()
    return name.endswith(SHEET_SUFFIXES)


Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]


class VersionMark(Strict):
    """A small mark on every face: the game's version and a short hash of what the face shows
    (generator/render/version_mark.py), so an old printed card can be told from a new one."""

    corner: Corner = Field("bottom-right", description="the corner of the safe area it sits in")
    size: Annotated[AbsLength, within(5, 12, unit="pt")] = Field(
        parse_length("5pt"), description="type size, 5 pt to 12 pt"
    )
    colour: Colour = Field("#000000", description="the mark's ink")
    plate: Colour | None = Field(
        "#ffffff", description="a small plate behind it, so it reads on any background; null: none"
    )


def _version_mark(value):
    if value is True:
        return {}
    if value is False:
        return None
    if isinstance(value, str):
        return {"corner": value}
    return value


class PrintSettings(Strict):
    papers: list[str] = Field(["a4"], min_length=1, max_length=10)
    bleed: Annotated[AbsLength, within(0, LIMITS.lengths.bleed_max)] = Field(parse_length("3mm"))
    margin: Annotated[AbsLength, within(0, LIMITS.lengths.margin_max)] = Field(
        parse_length("5mm"), description="printer-safe margin: nothing closer to the edge"
    )
    gutter: Annotated[AbsLength, within(0, LIMITS.lengths.margin_max)] = Length(0)
    crop_marks: bool = True
    duplex: Literal["long-edge", "short-edge"] = "long-edge"
    back_offset: Offset = Field(default_factory=Offset)
    rotate: Literal["auto", "never"] = "auto"
    cut_lines: bool = Field(
        False, description="draw every trim line across the sheet (token sheets)"
    )
    overlap: Annotated[AbsLength, within(0, 100)] = Field(
        parse_length("10mm"), description="tiles of a face bigger than the sheet overlap by this"
    )
    one_per_page: bool = Field(False, description="also write print-shop PDFs, one face per page")
    die_line: str | None = Field(
        "CutContour",
        description="spot colour (Separation) of the die line drawn on shaped faces, on its own "
        "layer; null: no die line",
    )
    shape_safe: AbsLength = Field(
        parse_length("1.5mm"),
        description="text and art keep this far inside a shaped face's cut (a finding if not)",
    )
    shape_gap: AbsLength = Field(
        parse_length("1.5mm"),
        description="gap between shaped pieces that cannot share a cut (circles); half of it "
        "is each piece's bleed towards its neighbour",
    )
    version_mark: Annotated[VersionMark | None, BeforeValidator(_version_mark)] = Field(
        None,
        description="a version mark on every face: the game's version and a hash of what the "
        "face shows; true, a corner (bottom-right...), or {corner, size, colour, plate}",
    )
    exports: list[ExportEntry] | None = Field(
        None,
        description="what to write: " + ", ".join(EXPORT_FORMATS) + ", each a bare name or "
        "{format: NAME, ...} with that format's own keys (default: sheets, plus print-shop "
        "when one_per_page is true)",
    )

    @field_validator("papers")
    @classmethod
    def _once_each(cls, value):
        if len(set(value)) != len(value):
            raise ValueError("a paper is listed twice")
        return value


ShapeKind = Literal[
    "rect", "circle", "ellipse", "hexagon", "octagon", "triangle", "pentagon", "polygon"
]


class ShapeSpec(Strict):
    """The outline a face is cut along, inscribed in the component's size."""

    kind: ShapeKind
    radius: Annotated[AbsLength, NonNegative] = Field(Length(0), description="rect: corner radius")
    orientation: Literal["flat", "pointy"] = Field(
        "flat", description="regular polygons: an edge (flat) or a vertex (pointy) on top"
    )
    sides: int | None = Field(None, ge=3, le=64, description="polygon: a regular n-gon")
    points: list[tuple[Coord, Coord]] | None = Field(
        None,
        min_length=3,
        max_length=LIMITS.counts.outline_points,
        description="polygon: vertices in a viewbox grid (y down)",
    )
    viewbox: tuple[ViewSide, ViewSide] = (100, 100)
    diameter: Annotated[AbsLength, FaceSide] | None = Field(
        None, description="circle: sets the size"
    )
    across_flats: Annotated[AbsLength, FaceSide] | None = Field(
        None, description="regular polygon: distance between opposite edges; sets the size"
    )

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value):
        return {"kind": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _consistent(self):
        if self.kind == "polygon" and not self.points and not self.sides:
            raise ValueError("a polygon shape needs 'sides' (regular) or 'points'")
        if self.diameter is not None and self.kind != "circle":
            raise ValueError("'diameter' is for circles; use 'across_flats' for polygons")
        if self.across_flats is not None and (
            self.kind in ("rect", "circle", "ellipse") or self.points
        ):
            raise ValueError("'across_flats' is for regular polygons (hexagon, octagon, sides: N)")
        if self.points:
            problem = polygon_problem(self.points, self.viewbox)
            if problem:
                raise ValueError(f"the die line {problem}")
        return self


class SizeSpec(Strict):
    w: Annotated[AbsLength, FaceSide]
    h: Annotated[AbsLength, FaceSide]


class Item(Strict):
    id: Id
    count: int = Field(1, ge=1, le=MAX_COUNT)
    data: dict[str, Any] = {}
    layout: str | None = None
    back: str | None = None


class Matrix(Strict):
    """Items as every combination of some values, e.g. 5 colours x 10 numbers."""

    id: str = Field(description="Jinja template for each item's id, e.g. '{{ suit }}-{{ value }}'")
    over: dict[str, list[Any]] = Field(min_length=1)
    count: int = Field(1, ge=1, le=MAX_COUNT)
    data: dict[str, Any] = {}


class Component(Strict):
    id: Id
    name: LangText
    kind: str = Field(
        "card",
        pattern=r"^[a-z][a-z0-9-]*$",
        description="a label for your own templates and rulebook tables (card, tile, board, "
        "token...); pnp itself does not act on it",
    )
    size: Annotated[
        Annotated[str, Tag("name")] | Annotated[SizeSpec, Tag("w-h")],
        Discriminator(lambda v: "w-h" if isinstance(v, (dict, SizeSpec)) else "name"),
    ] = "poker"

    layout: str
    back: str | None = None
    data: dict[str, Any] = {}
    # Tagged so that a bad item is reported once, at its own key (items[0].count), rather
    # than as two failed union members located at `items:`.
    items: Annotated[
        Annotated[list[Item], Tag("list")] | Annotated[str, Tag("sheet")],
        Discriminator(lambda v: "sheet" if isinstance(v, str) else "list"),
    ] = Field(
        [],
        description="the items, or a spreadsheet with one row per item: cards.csv, "
        "cards.xlsx, cards.ods, cards.xlsx#Sheet name (docs/spreadsheets.md)",
    )
    matrix: Matrix | None = None
    print: PrintSettings | None = None
    shape: ShapeSpec | ShapeKind | None = Field(
        None, description="die-cut outline: circle, hexagon, {kind: rect, radius: 3mm}..."
    )
    sheet: Id | None = Field(
        None, description="components naming the same sheet group are printed on shared sheets"
    )

    @field_validator("shape")
    @classmethod
    def _shape_mapping(cls, value):
        return ShapeSpec(kind=value) if isinstance(value, str) else value  # "circle" alone

    @field_validator("items")
    @classmethod
    def _a_spreadsheet(cls, value):
        # a spreadsheet is read, and its rows replace its name, before validation (content.py)
        if isinstance(value, str) and not is_sheet_ref(value):
            raise ValueError(
                f"'{value}' is not a spreadsheet: items names a .csv, .xlsx, .xlsm, .xls or "
                ".ods file, or lists the items"
            )
        return value

    @model_validator(mode="after")
    def _has_items(self):
        if not self.items and self.matrix is None:
            raise ValueError("a component needs 'items' or a 'matrix'")
        return self


class CheckSettings(Strict):
    """Limits `pnp check` judges faces by (fitness for the table and the print shop)."""

    min_text: AbsLength = Field(
        parse_length("6pt"), description="smallest type after auto-shrink (text-too-small)"
    )
    clearance: AbsLength = Field(
        parse_length("1mm"), description="room around a piece in the box that holds it"
    )
    safe_margin: AbsLength = Field(
        parse_length("3mm"), description="text and thin rules stay this far inside the trim"
    )


class RulebookSettings(Strict):
    papers: list[str] | None = Field(
        None, max_length=10, description="default: the game's print papers"
    )

    @field_validator("papers")
    @classmethod
    def _once_each(cls, value):
        if value and len(set(value)) != len(value):
            raise ValueError("a paper is listed twice")
        return value

    bilingual: list[tuple[str, str]] = Field(
        [], description="side-by-side editions, e.g. [[es, en]]"
    )
    cover: list[str] | None = Field(
        None,
        description="component ids whose first item shows on the cover; default: the first "
        "three components no longer than 130 mm (boards are left out)",
    )


_LANGUAGES_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "description": "language tags (BCP 47: es, de, pt-BR, sr-Latn), the source first; a draft "
    "language is {fr: draft} or "
    "{fr: {complete: 90%}}",
    "items": {
        "anyOf": [
            {"type": "string", "pattern": "^[a-z]{2}$"},
            {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": {
                    "anyOf": [
                        {"const": "draft"},
                        {
                            "type": "object",
                            "properties": {"complete": {}},
                            "required": ["complete"],
                        },
                    ]
                },
            },
        ]
    },
}


class Game(Strict):
    id: Id
    title: LangText
    languages: Annotated[list[str], WithJsonSchema(_LANGUAGES_SCHEMA)] = Field(min_length=1)
    version: str | None = Field(
        None,
        max_length=20,
        pattern=r"^[\w.+-]+$",
        description="the game's version (0.3, 2024-05-b...): shown by the version mark",
    )
    data: dict[str, Any] = {}
    data_files: dict[str, str] = Field(
        {}, description="name -> YAML file in the game folder, added to data"
    )
    icons: dict[str, str] = {}
    print: PrintSettings = Field(default_factory=PrintSettings)
    rulebook: RulebookSettings = Field(default_factory=RulebookSettings)
    check: CheckSettings = Field(default_factory=CheckSettings)
    description: LangText | None = None

    # language -> the completeness it needs to stop being a draft (1.01: always a draft), from
    # `languages:` entries such as {fr: draft} or {fr: {complete: 90%}}
    _drafts: dict[str, float] = PrivateAttr(default_factory=dict)

    @property
    def drafts(self) -> dict[str, float]:
        return self._drafts

    @model_validator(mode="wrap")
    @classmethod
    def _draft_languages(cls, data, handler):
        """`languages: [es, en, {fr: draft}]`: a draft language's findings are warnings and it
        never stops the other languages from building."""
        drafts: dict[str, float] = {}
        if isinstance(data, dict) and isinstance(data.get("languages"), list):
            codes = []
            for entry in data["languages"]:
                if isinstance(entry, dict) and len(entry) == 1:
                    code, how = next(iter(entry.items()))
                    threshold = _draft_threshold(how)
                    if threshold is None:  # left as it is: the field's validator names it
                        codes.append(entry)
                        continue
                    codes.append(code)
                    drafts[code] = threshold
                else:
                    codes.append(entry)
            if drafts:
                data = dict(data)
                data["languages"] = codes
        game = handler(data)
        game._drafts = drafts
        return game

    @field_validator("languages", mode="before")
    @classmethod
    def _draft_entries(cls, value):
        for entry in value if isinstance(value, list) else ():
            if isinstance(entry, dict):
                code, how = next(iter(entry.items())) if entry else ("xx", None)
                raise ValueError(
                    f"language '{code}': write `{code}: draft` or `{code}: {{complete: 90%}}`, "
                    f"got {how!r}"
                )
        return value

    @field_validator("languages")
    @classmethod
    def _codes(cls, value):
        for code in value:
            problem = languages.check_code(code) or languages.refusal(code)
            if problem:
                raise ValueError(problem)
        if len(set(value)) != len(value):
            raise ValueError("a language is listed twice")
        return value

    @field_validator("rulebook")
    @classmethod
    def _bilingual_languages(cls, value, info: ValidationInfo):
        languages = info.data.get("languages") or []
        for pair in value.bilingual:
            for code in pair:
                if code not in languages:
                    raise ValueError(
                        f"bilingual names '{code}', which is not in languages "
                        f"({', '.join(languages)})"
                    )
            if pair[0] == pair[1]:
                raise ValueError(f"bilingual pairs '{pair[0]}' with itself")
        return value


def _draft_threshold(how: Any) -> float | None:
    """`draft` -> always a draft (1.01: never complete enough); `{complete: 90%}` -> 0.9."""
    if how == "draft" or how is True or how == {"draft": True}:
        return 1.01
    if isinstance(how, dict) and set(how) == {"complete"}:
        value = how["complete"]
        if isinstance(value, str) and value.strip().endswith("%"):
            value = value.strip()[:-1]
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        fraction = number / 100 if number > 1 else number
        if 0 <= fraction <= 1:
            return fraction
    return None


class ManifestEntry(Strict):
    count: int = Field(ge=0)
    breakdown: dict[str, dict[str, int]] = Field({}, description="by a data key: value -> count")
    note: str | None = None


class Manifest(Strict):
    components: dict[str, Annotated[int, Field(ge=0)] | ManifestEntry]
    constants: dict[str, int | float] = {}
    invariants: list[str] = []

    def entry(self, component_id: str) -> ManifestEntry | None:
        value = self.components.get(component_id)
        return (
            ManifestEntry.model_construct(count=value, breakdown={}, note=None)
            if isinstance(value, int)
            else value
        )

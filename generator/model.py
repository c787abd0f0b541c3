"""The typed content model. Every class forbids unknown keys so typos are errors.

Text that players read is `LangText`: a plain string, or one string per language
({es: ..., ko: ..., en: ...}). Any string may be a Jinja template over the item's data.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from generator.units import Length, parse_length

ID_RE = r"^[a-z0-9][a-z0-9_-]*$"
LANG_RE = re.compile(r"^[a-z]{2}$")
MAX_COUNT = 1000  # copies of one item; anything above is a typo, not a print run


class Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", arbitrary_types_allowed=True, frozen=False, populate_by_name=True
    )


def _lang_text(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        bad = [k for k in value if not isinstance(k, str) or not LANG_RE.match(k)]
        if bad:
            raise ValueError(
                f"text per language needs ISO 639-1 codes as keys (es, ko, en), got {bad[0]!r}"
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
Colour = str  # "#rrggbb", "#rgb", a CSS name, or a Jinja template that gives one
Id = Annotated[str, Field(pattern=ID_RE, max_length=64)]


# ---------------------------------------------------------------- layouts
# Layouts and their box kinds live in generator/boxes/ (one module per kind).


# ---------------------------------------------------------------- content


class Offset(Strict):
    x: AbsLength = Length(0)
    y: AbsLength = Length(0)


EXPORT_FORMATS = ("sheets", "print-shop", "png", "tts", "gutterfold", "ink-saver")


class ExportSpec(Strict):
    """One export a game (or component) asks for; a bare name in YAML means {format: name}."""

    format: str = Field(description="one of: " + ", ".join(EXPORT_FORMATS))
    preset: str | None = Field(None, description="png: a shop preset from templates/printers.yaml")
    dpi: int | None = Field(None, ge=72, le=1200, description="png and tts: pixels per inch")
    base_url: str | None = Field(
        None, description="tts: hosted images are at this URL instead of file:// paths"
    )
    components: list[str] | None = Field(None, description="only these components")

    @field_validator("format")
    @classmethod
    def _known(cls, value):
        if value not in EXPORT_FORMATS:
            raise ValueError(
                f"unknown export format '{value}' (formats: {', '.join(EXPORT_FORMATS)})"
            )
        return value


def _export_spec(value):
    return {"format": value} if isinstance(value, str) else value


ExportEntry = Annotated[ExportSpec, BeforeValidator(_export_spec)]


class PrintSettings(Strict):
    papers: list[str] = Field(["a4"], min_length=1)
    bleed: AbsLength = Field(parse_length("3mm"))
    margin: AbsLength = Field(
        parse_length("5mm"), description="printer-safe margin: nothing closer to the edge"
    )
    gutter: AbsLength = Length(0)
    crop_marks: bool = True
    duplex: Literal["long-edge", "short-edge"] = "long-edge"
    back_offset: Offset = Offset()
    rotate: Literal["auto", "never"] = "auto"
    cut_lines: bool = Field(
        False, description="draw every trim line across the sheet (token sheets)"
    )
    overlap: AbsLength = Field(
        parse_length("10mm"), description="tiles of a face bigger than the sheet overlap by this"
    )
    one_per_page: bool = Field(False, description="also write print-shop PDFs, one face per page")
    exports: list[ExportEntry] | None = Field(
        None,
        description="what to write: sheets, print-shop, png, tts, gutterfold, ink-saver "
        "(default: sheets, plus print-shop when one_per_page is true)",
    )


class SizeSpec(Strict):
    w: AbsLength
    h: AbsLength


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
    size: str | SizeSpec = "poker"
    layout: str
    back: str | None = None
    data: dict[str, Any] = {}
    items: list[Item] = []
    matrix: Matrix | None = None
    print: PrintSettings | None = None

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
    papers: list[str] | None = Field(None, description="default: the game's print papers")
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
    "description": "ISO 639-1 codes, the source first; a draft language is {fr: draft} or "
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
    data: dict[str, Any] = {}
    data_files: dict[str, str] = Field(
        {}, description="name -> YAML file in the game folder, added to data"
    )
    icons: dict[str, str] = {}
    print: PrintSettings = PrintSettings()
    rulebook: RulebookSettings = RulebookSettings()
    check: CheckSettings = CheckSettings()
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
            if not LANG_RE.match(code):
                raise ValueError(f"'{code}' is not an ISO 639-1 language code (es, ko, en)")
        if len(set(value)) != len(value):
            raise ValueError("a language is listed twice")
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
